"""The Gin Rummy soak: many games through the AEC env, invariants checked after every
action. ``benchmarks.soak_gin`` is its command line; ``tests/games/gin_rummy/test_gin_soak.py`` its
CI slice.

Game ``g`` is played with seed ``S + g``, which alone draws its preset (``book``,
``openspiel`` or ``eaai``), its episode (one hand, or one game in 25 a whole match) and the
moves. The moves mix uniform random play with discards that leave the least deadwood, so
that knocks, gin, undercuts and lay-offs all come. Checked after the reset and every step:

* cards: both hands, the discard pile and the stock hold each of the 52 cards once; the
  player to discard holds 11 cards, everyone else 10;
* deadwood: on one state in ``SAMPLE``, both hands' deadwood against brute force
  (``tests.support.gin_brute``);
* observations in their space; the acting agent's mask has two or more legal actions and
  every other agent's mask is empty;
* each finished hand, scored again from RULES.md: the knocker's deadwood from the cards
  left out of the melds, the opponent's least deadwood after lay-offs by brute force, then
  the points (gin, undercut, the tie option); rewards are zero-sum.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np

from carousel_env.games.gin_rummy import melds as gm
from carousel_env.games.gin_rummy.engine import GinState, HandEnd, HandResult, Phase
from carousel_env.games.gin_rummy.env import GinAction, raw_env
from carousel_env.games.gin_rummy.rules import GinRules
from tests.support import gin_brute
from tests.support.soak_runner import SoakReport, env_problems, run_games

PRESETS = ("book", "openspiel", "eaai")
MATCH_EVERY = 25  # one game in 25 is a whole match (book or eaai)
SAMPLE = 20  # deadwood checked by brute force on one state in SAMPLE
GREEDY = 0.7  # the share of discards that leave the least deadwood


@dataclass
class GinSoakReport(SoakReport):
    hands: int = 0


def config_of(seed: int) -> dict:
    rng = random.Random(f"gin-soak:{seed}")
    preset = rng.choice(PRESETS)
    match = preset != "openspiel" and rng.randrange(MATCH_EVERY) == 0
    return {"preset": preset, "episode": "match" if match else "hand"}


def card_problems(state: GinState) -> list[str]:
    held = list(gm.cards_of(state.hands[0])) + list(gm.cards_of(state.hands[1]))
    every = held + list(state.discards) + list(state.stock[state.stock_top :])
    problems = []
    if sorted(every) != list(range(52)):
        problems.append(f"cards not conserved: {len(every)} cards, {len(set(every))} distinct")
    for seat in (0, 1):
        size = bin(state.hands[seat]).count("1")
        expected = 11 if state.phase is Phase.DISCARD and seat == state.current else 10
        if size != expected and not state.over:
            problems.append(f"player {seat} holds {size} cards in phase {state.phase.value}, not {expected}")
    return problems


def deadwood_problems(state: GinState) -> list[str]:
    problems = []
    for seat in (0, 1):
        cards = gm.cards_of(state.hands[seat])
        if len(cards) == 10 and gm.deadwood(state.hands[seat]) != gin_brute.min_deadwood(cards):
            problems.append(f"player {seat}'s deadwood {gm.deadwood(state.hands[seat])} is not brute force's")
        eleven = len(cards) == 11
        if eleven and gm.deadwood_after_discard(state.hands[seat]) != gin_brute.min_deadwood_after_discard(cards):
            problems.append(f"player {seat}'s 11-card deadwood is not brute force's")
    return problems


def hand_problems(result: HandResult, rules: GinRules) -> list[str]:
    """The hand scored again from RULES.md, independently of the engine's scoring."""
    if result.end in (HandEnd.DEAD, HandEnd.UPCARD_LIMIT):
        return [] if result.points == (0, 0) else [f"a {result.end.value} hand scored {result.points}"]
    knocker, a = result.knocker, result.arrangement
    ten = result.hands[knocker]
    melded = [c for m in a.melds for c in m.cards]
    if not all(gin_brute.is_meld(m.cards) for m in a.melds) or not set(melded) <= set(ten):
        return [f"the knock's melds are not melds of the knocker's hand: {a}"]
    own = sum(gin_brute.value(c) for c in set(ten) - set(melded))
    gin = own == 0
    opp = gin_brute.min_deadwood_after_layoffs([m.cards for m in a.melds], result.hands[1 - knocker], gin)
    points = [0, 0]
    if gin:
        points[knocker] = opp + rules.gin_bonus
    elif own < opp:
        points[knocker] = opp - own
    elif own > opp or rules.tie_is_undercut:
        points[1 - knocker] = own - opp + rules.undercut_bonus
    problems = []
    if own > rules.knock_limit:
        problems.append(f"knocked with {own} deadwood over the limit {rules.knock_limit}")
    if (own, opp) != (a.deadwood, result.layoffs.deadwood):
        problems.append(f"deadwood {a.deadwood} and {result.layoffs.deadwood}; RULES.md gives {own} and {opp}")
    if tuple(points) != result.points:
        problems.append(f"points {result.points}; RULES.md gives {tuple(points)}")
    return problems


def _choose(env, rng: random.Random) -> int:
    legal = np.flatnonzero(env.action_mask)
    knocks = legal[legal >= GinAction.FIRST_KNOCK]
    if len(knocks) and rng.random() < 0.5:
        return int(rng.choice(knocks))
    discards = legal[(legal >= GinAction.FIRST_DISCARD) & (legal < GinAction.FIRST_KNOCK)]
    if len(discards) and rng.random() < GREEDY:
        hand = env.game_state.hands[env.game_state.current]
        return int(min(discards, key=lambda a: gm.deadwood(hand ^ 1 << int(a - GinAction.FIRST_DISCARD))))
    return int(rng.choice(legal))


def play_game(seed: int) -> GinSoakReport:
    report = GinSoakReport(games=1)
    config = config_of(seed)
    env = raw_env(**config)
    rng = random.Random(seed)
    env.reset(seed=seed)
    paid = 0.0
    step = 0
    while True:
        state = env.game_state
        problems = card_problems(state) + env_problems(env)
        if step % SAMPLE == 0:
            problems += deadwood_problems(state)
        for result in env.hand_results:
            report.hands += 1
            report.ends[result.end.value] += 1
            report.ends["undercut"] += result.undercut
            report.ends["layoffs"] += bool(result.layoffs and result.layoffs.laid_off)
            problems += hand_problems(result, env.rules)
        paid += sum(env.rewards.values())
        if abs(paid) > 1e-9:
            problems.append(f"rewards are not zero-sum: {env.rewards}")
        if problems:
            report.violations += [f"game seed {seed} ({config}), step {step}: {p}" for p in problems]
            return report
        if all(env.terminations.values()):
            return report
        env.step(_choose(env, rng))
        step += 1
        report.actions += 1


def run(games: int, seed: int = 0, workers: int = 2) -> GinSoakReport:
    """Plays games ``seed .. seed + games - 1``, on ``workers`` processes (0: this one)."""
    return run_games(play_game, GinSoakReport, games, seed, workers, chunk=500)
