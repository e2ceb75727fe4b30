"""The Carioca soak: many games through the AEC env, invariants checked after every action.
``benchmarks.soak_carioca`` is its command line; ``tests/games/carioca/test_carioca_soak.py`` its CI
slice.

Game ``g`` is played with seed ``S + g``, which alone draws its table (2 to 5 players) and
the moves: ``simple``'s move most of the time, a uniform random legal one otherwise, so that
rounds end by going out and by the stock, and melds, lay-offs and tucked jokers all come.
Checked after the reset and every step:

* cards: the hands, the stock, the pile and the melds hold the 108 cards;
* melds: every meld on the table is one (read again from its cards alone);
* the joker rules: a meld only grows by one card at an end; where a unit changed, it was
  the joker at that end, replaced by the card it stood for and pushed one cell outward;
* observations in their space; the acting agent has two or more legal actions, the others none;
* each finished round, scored again from RULES.md's values (2-10 face value, J 11, Q 12,
  K 13, A 14, joker 25) from the hands it ended with; whoever went out holds nothing;
  rewards are zero-sum.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass

import numpy as np

from carousel_env.core.cards import JOKER, face, is_table_joker, make_deck, rank_of
from carousel_env.games.carioca import melds as cm
from carousel_env.games.carioca.engine import CariocaState, RoundEnd, RoundResult
from carousel_env.games.carioca.env import raw_env
from carousel_env.games.carioca.policies import env_action, resolve_policy
from tests.support.soak_runner import SoakReport, env_problems, run_games

SIMPLE = 0.8  # the share of moves that are simple's
FULL_DECK = Counter(make_deck(2, 4))
RULES_VALUES = {1: 14, 11: 11, 12: 12, 13: 13}  # RULES.md: A 14, J 11, Q 12, K 13; 2-10 face value


@dataclass
class CariocaSoakReport(SoakReport):
    rounds: int = 0


def players_of(seed: int) -> int:
    return random.Random(f"carioca-soak:{seed}").randint(2, 5)


def card_problems(state: CariocaState) -> list[str]:
    cards = Counter(state.stock) + Counter(state.discards)
    for seat in range(state.num_players):
        cards += Counter(state.hands[seat])
        for meld in state.melds[seat]:
            cards += Counter(meld.cards())
    if cards != FULL_DECK:
        return [f"cards not conserved: {sum(cards.values())} cards, {sorted((cards - FULL_DECK).elements())} too many"]
    return []


def meld_problems(state: CariocaState) -> list[str]:
    problems = []
    for seat, melds in enumerate(state.melds):
        for m in melds:
            try:
                again = cm.meld_from_units(m.units)
            except cm.MeldError as exc:
                problems.append(f"player {seat}'s meld {m} is no meld: {exc}")
                continue
            if (again.kind, again.low) != (m.kind, m.low):
                problems.append(f"player {seat}'s meld {m} reads as a {again.kind.value} from cell {again.low}")
    return problems


def joker_problems(before: cm.Meld, after: cm.Meld) -> list[str]:
    """What breaks the joker rules between a meld and the same meld a step later."""
    if before == after:
        return []
    if len(after.units) != len(before.units) + 1:
        return [f"{before} became {after}: not one card more"]
    if before.kind is cm.MeldKind.TRIO:
        return [] if after.units[: len(before.units)] == before.units else [f"trio {before} changed to {after}"]
    old = {before.low + i: u for i, u in enumerate(before.units)}
    new = {after.low + i: u for i, u in enumerate(after.units)}
    if not (after.low == before.low - 1 or after.high == before.high + 1):
        return [f"{before} became {after}: it did not grow at an end"]
    changed = [cell for cell, unit in old.items() if new.get(cell) != unit]
    if not changed:
        return []
    (cell, *more) = changed
    outer = cell - 1 if cell == before.low else cell + 1
    ok = (
        not more
        and cell in (before.low, before.high)
        and is_table_joker(old[cell])
        and new[cell] == face(old[cell])
        and is_table_joker(new.get(outer, 0))
        and outer in (after.low, after.high)
    )
    return [] if ok else [f"{before} became {after}: a joker moved against the rules"]


def tucked(before: cm.Meld, after: cm.Meld) -> bool:
    """Whether ``after`` is ``before`` with a card tucked in beside an end joker."""
    if before.kind is not cm.MeldKind.ESCALERA or len(after.units) != len(before.units) + 1:
        return False
    new = {after.low + i: u for i, u in enumerate(after.units)}
    return any(new[before.low + i] != u for i, u in enumerate(before.units))


def round_problems(result: RoundResult) -> list[str]:
    problems = []
    for seat, hand in enumerate(result.hands):
        value = sum(25 if c == JOKER else RULES_VALUES.get(rank_of(c), rank_of(c)) for c in hand)
        if result.penalties[seat] != value:
            problems.append(f"round {result.round}: player {seat} scored {result.penalties[seat]}, RULES.md {value}")
    if result.end is RoundEnd.OUT and result.hands[result.out]:
        problems.append(f"round {result.round}: player {result.out} went out holding {len(result.hands[result.out])}")
    return problems


def play_game(seed: int) -> CariocaSoakReport:
    report = CariocaSoakReport(games=1)
    players = players_of(seed)
    env = raw_env(num_players=players)
    rng = random.Random(seed)
    simple = resolve_policy("simple")
    env.reset(seed=seed)
    paid = 0.0
    step = 0
    before = env.game_state
    while True:
        state = env.game_state
        problems = card_problems(state) + meld_problems(state) + env_problems(env)
        if state.round == before.round:
            for seat in range(players):
                for old, new in zip(before.melds[seat], state.melds[seat]):
                    problems += joker_problems(old, new)
                    report.ends["lay-offs"] += old != new
                    report.ends["tucked jokers"] += tucked(old, new)
        for result in env.round_results:
            report.rounds += 1
            report.ends[result.end.value] += 1
            problems += round_problems(result)
        paid += sum(env.rewards.values())
        if abs(paid) > 1e-9:
            problems.append(f"rewards are not zero-sum: {env.rewards}")
        if problems:
            report.violations += [f"game seed {seed} ({players} players), step {step}: {p}" for p in problems]
            return report
        if all(env.terminations.values()):
            return report
        obs = env.observe(env.agent_selection)
        if rng.random() < SIMPLE:
            action = env_action(simple, env, obs["observation"], obs["action_mask"])
        else:
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        before = state
        env.step(action)
        step += 1
        report.actions += 1


def run(games: int, seed: int = 0, workers: int = 2) -> CariocaSoakReport:
    """Plays games ``seed .. seed + games - 1``, on ``workers`` processes (0: this one)."""
    return run_games(play_game, CariocaSoakReport, games, seed, workers, chunk=100)
