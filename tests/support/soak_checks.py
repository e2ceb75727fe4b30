"""The checks of the soak run (``tests.support.soak``): what must hold after every action.

Each ``*_problems`` function looks at one engine state and returns what is wrong with it
(empty when nothing is); :class:`GameChecker` runs them, and the checks of observations,
masks and infos, after every step of one game in a :class:`CheckedEnv`, which keeps each
finished round's final state. Rounds are scored again here from RULES.md's formulas, not by
``engine.scoring``, so a scoring bug cannot hide behind its own arithmetic.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np

from carousel_env.core.cards import JOKER, card_str, is_table_joker, make_deck, meld_str, rank_of
from carousel_env.games.carousel.engine.game import MAX_ROUNDS, ActionKind, GameState, Phase, allowed
from carousel_env.games.carousel.engine.melds import is_valid_meld_cached
from carousel_env.games.carousel.engine.rules import RoundBonus, Rules, Variant
from carousel_env.games.carousel.engine.scoring import RoundEnd
from carousel_env.games.carousel.envs.aec import DRAW_AGAIN, END_TURN, FIRST_SUGGESTION, INFO_KEYS, KNOCK, raw_env

REWARD_SCALE = 0.01  # the env's default for its default reward, round_score
RETURN_TOLERANCE = 1e-9


# ---------------------------------------------------------------- checks on one state


def card_problems(state: GameState, deck: Counter) -> list[str]:
    """Hands + table + stock against the deck, as multisets (a table joker is a joker)."""
    present = Counter(state.stock)
    for hand in state.hands:
        present.update(hand)
    present.update(JOKER if is_table_joker(unit) else unit for meld in state.table for unit in meld)
    if present == deck:
        return []
    missing = " ".join(card_str(c) for c in sorted((deck - present).elements()))
    extra = " ".join(card_str(c) for c in sorted((present - deck).elements()))
    return [f"cards not conserved: missing [{missing}], extra [{extra}]"]


def meld_problems(state: GameState) -> list[str]:
    # The remembered judgement (the same melds stay on the table for many steps).
    ace_low, ace_high = state.rules.ace_low, state.rules.ace_high
    return [
        f"invalid meld on the table: {meld_str(m)}"
        for m in state.table
        if not is_valid_meld_cached(m, ace_low, ace_high)
    ]


def hand_value(hand: Sequence[int]) -> int:
    """RULES.md "Cards and values", written out again: joker 25, ace 1, J/Q/K 10, 2-10 face value."""
    return sum(25 if card == JOKER else min(rank_of(card), 10) for card in hand)


def expected_round(state: GameState) -> tuple[tuple[int, ...], tuple[int, ...], bool]:
    """``(points, winners, undercut)`` of the round that ended in ``state``, by RULES.md
    "Scoring a round" from the final hands and how the round ended (``state.last_round``'s
    ``end``, ``knocker`` and ``went_out``, which :func:`round_problems` checks first)."""
    rules, result = state.rules, state.last_round
    values = [hand_value(h) for h in state.hands]
    n = len(values)
    points = [0] * n
    if result.end is RoundEnd.GOING_OUT:
        out = result.went_out
        points[out] = (25 if rules.variant is Variant.CAROUSEL else 0) + sum(values)
        return tuple(points), (out,), False
    low = min(values)
    knocker = result.knocker if result.end is RoundEnd.KNOCK else None
    undercut = False
    if knocker is not None and values[knocker] == low and values.count(low) == 1:
        winners = [knocker]
    elif knocker is not None:  # undercut: a player tied with the knocker beats them
        winners = [i for i in range(n) if i != knocker and values[i] == low]
        undercut = True
    else:
        winners = [i for i in range(n) if values[i] == low]
    for w in winners:
        points[w] = sum(v - values[w] for i, v in enumerate(values) if i != w) + (10 if undercut else 0)
    return tuple(points), tuple(winners), undercut


def round_problems(state: GameState) -> list[str]:
    """The round that ended in ``state`` (its last ``round_scores`` entry), checked."""
    rules, result = state.rules, state.last_round
    problems = []
    values = tuple(hand_value(h) for h in state.hands)
    if result.hand_values != values:
        problems.append(f"round hand values {result.hand_values}, the final hands are worth {values}")
    empty = [seat for seat, hand in enumerate(state.hands) if not hand]
    if result.end is RoundEnd.GOING_OUT:
        if empty != [result.went_out]:
            problems.append(f"round ended by going out of seat {result.went_out}, empty hands: {empty}")
    elif empty:
        problems.append(f"round ended by {result.end.value} with empty hands at seats {empty}")
    if result.end is RoundEnd.KNOCK:
        limit = rules.knock_limit
        if limit is None or values[result.knocker] > limit or result.knocker != state.current:
            problems.append(f"seat {result.knocker} knocked with {values[result.knocker]} (limit {limit})")
    elif result.end is RoundEnd.STOCK_EXHAUSTED and state.stock:
        problems.append(f"round ended by an exhausted stock with {len(state.stock)} cards left")
    elif result.end is RoundEnd.TURN_CAP:
        problems.append("round reached the engine's turn cap (never expected in play)")
    if problems:
        return problems
    points, winners, undercut = expected_round(state)
    got = (result.points, result.winners, result.undercut)
    if got != (points, winners, undercut):
        problems.append(
            f"round ({result.end.value}) scored points/winners/undercut {got}, RULES.md gives"
            f" {(points, winners, undercut)} for hands worth {values}"
        )
    return problems


def game_problems(state: GameState, scores: Sequence[int], rounds_won: Sequence[int]) -> list[str]:
    """Whether the game should have ended after this round, and if it did, its result.
    ``scores`` and ``rounds_won`` are the running totals recomputed here."""
    rules, game = state.rules, state.game_result
    n = len(scores)
    should_end = max(scores) >= 150
    if state.round_index + 1 >= MAX_ROUNDS:
        return [f"game reached the engine's cap of {MAX_ROUNDS} rounds (never expected in play)"]
    if should_end != (state.phase is Phase.GAME_OVER):
        return [f"game {'did not end' if should_end else 'ended'} with totals {tuple(scores)}"]
    if game is None:
        return []
    after_dealer = {(state.dealer + 1 + k) % n: k for k in range(n)}
    winner = min(range(n), key=lambda i: (-scores[i], -rounds_won[i], after_dealer[i]))
    bonuses = [0] * n
    if rules.variant is Variant.CAROUSEL:
        bonuses[winner] += 100
        for seat in range(n):
            if seat != winner or rules.round_bonus is RoundBonus.EVERYONE:
                bonuses[seat] += 25 * rounds_won[seat]
    totals = tuple(s + b for s, b in zip(scores, bonuses))
    standings = tuple(sorted(range(n), key=lambda i: (-totals[i], -rounds_won[i], after_dealer[i])))
    expected = (winner, tuple(scores), tuple(bonuses), totals, tuple(rounds_won), standings)
    got = (game.winner, game.totals_before_bonus, game.bonuses, game.totals, game.rounds_won, game.standings)
    if got != expected:
        names = "winner, totals before bonus, bonuses, totals, rounds won, standings"
        return [f"game result ({names}) {got}, RULES.md gives {expected}"]
    return []


# ---------------------------------------------------------------- the env, watched


class CheckedEnv(raw_env):
    """The raw env, keeping each finished round's final state: the env deals the next round
    inside the same step, so its hook for a finished round is the one place where a round's
    final hands are seen. (Should the env stop calling it, the final check that every
    scored round was seen fails.)"""

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self.finished_rounds: list[GameState] = []
        super().reset(seed=seed, options=options)

    def _pay_unit(self, state: GameState) -> None:
        self.finished_rounds.append(state)
        super()._pay_unit(state)


class GameChecker:
    """Checks one game, step by step, in its env; ``problems`` after each step."""

    def __init__(self, env: CheckedEnv) -> None:
        self.env = env
        rules: Rules = env.rules
        self.deck = Counter(make_deck(rules.decks, rules.jokers))
        self.space = env.observation_space(env.possible_agents[0])
        box = self.space["observation"]
        self.low, self.high = box.low, box.high
        self.global_size = env.observation_layout.global_size
        n = rules.num_players
        self.scores = [0] * n
        self.rounds_won = [0] * n
        self.rounds_seen = 0

    def problems(self, before: GameState | None) -> list[str]:
        """Everything wrong after a step (``before``: the state it started from, None
        after the reset)."""
        env, state = self.env, self.env.game_state
        found = card_problems(state, self.deck) + meld_problems(state)
        found += self._observation_problems(state)
        found += self._info_problems(before, state)
        for finished in env.finished_rounds[self.rounds_seen :]:  # a step can end several rounds
            found += self._finished_round_problems(finished)
            self.rounds_seen += 1
        return found

    def _observation_problems(self, state: GameState) -> list[str]:
        env = self.env
        over = state.phase is Phase.GAME_OVER
        acting = None if over else env.possible_agents[state.current]
        found = []
        if not over and env.agent_selection != acting:
            found.append(f"{env.agent_selection} is selected but the engine's current player is {acting}")
        for agent in env.agents:
            obs = env.observe(agent)
            if not self._inside(obs):
                found.append(f"{agent}'s observation is outside the observation space: {self._outside(obs)}")
                continue
            mask = obs["action_mask"]
            if agent != acting:
                if mask.any():
                    found.append(f"{agent} does not act but its mask allows {np.flatnonzero(mask).tolist()}")
                if obs["observation"][self.global_size :].any():
                    found.append(f"{agent} does not act but its observation has suggestion slots")
                continue
            found += self._mask_problems(agent, mask, state)
        return found

    def _inside(self, obs: dict) -> bool:
        """``self.space.contains(obs)``: the same bounds, shapes and dtypes, checked without
        gymnasium's per-call overhead (it runs for every agent after every action)."""
        if not isinstance(obs, dict) or obs.keys() != self.space.spaces.keys():
            return False
        vector, mask = obs["observation"], obs["action_mask"]
        if not isinstance(vector, np.ndarray) or not isinstance(mask, np.ndarray):
            return False
        box, mask_box = self.space["observation"], self.space["action_mask"]
        if vector.shape != box.shape or vector.dtype != box.dtype:
            return False
        if mask.shape != mask_box.shape or mask.dtype != mask_box.dtype:
            return False
        # NaN fails both comparisons, so it is caught too.
        return bool((vector >= self.low).all() and (vector <= self.high).all() and ((mask == 0) | (mask == 1)).all())

    def _outside(self, obs: dict) -> str:
        vector, box = obs.get("observation"), self.space["observation"]
        if not isinstance(vector, np.ndarray) or vector.shape != box.shape or vector.dtype != box.dtype:
            return f"observation {type(vector).__name__} {getattr(vector, 'shape', '')} {getattr(vector, 'dtype', '')}"
        bad = np.flatnonzero(~((vector >= box.low) & (vector <= box.high)))
        if len(bad):
            i = int(bad[0])
            return f"observation[{i}] = {vector[i]} outside [{box.low[i]}, {box.high[i]}] ({len(bad)} values out)"
        mask = obs.get("action_mask")
        return f"action mask {mask!r}"

    def _mask_problems(self, agent: str, mask: np.ndarray, state: GameState) -> list[str]:
        found = []
        legal = int(mask.sum())
        if legal < 2:
            found.append(f"{agent} is asked a decision with {legal} legal action(s)")
        kinds = allowed(state)
        for action, kind in (
            (DRAW_AGAIN, ActionKind.DRAW_AGAIN),
            (KNOCK, ActionKind.KNOCK),
            (END_TURN, ActionKind.END_TURN),
        ):
            if bool(mask[action]) != (kind in kinds):
                marked = "legal" if mask[action] else "illegal"
                names = sorted(k.value for k in kinds)
                found.append(f"{agent}'s mask marks {kind.value} {marked}; the engine allows {names}")
        slots = mask[FIRST_SUGGESTION:]
        offered = len(self.env.suggestions)
        if slots[:offered].sum() != offered or slots[offered:].any():
            found.append(
                f"{agent}'s mask marks suggestion slots {np.flatnonzero(slots).tolist()} for {offered} suggestions"
            )
        if offered and ActionKind.PLAY not in kinds:
            found.append(f"{agent} is offered {offered} plays where the engine allows none")
        return found

    def _info_problems(self, before: GameState | None, state: GameState) -> list[str]:
        env = self.env
        infos = [env.infos[agent] for agent in env.agents]
        if not infos:
            return []
        auto = env.auto_actions
        found = []
        for agent, info in zip(env.agents, infos):
            if set(info) != set(INFO_KEYS) or info["round_points"].shape != (len(env.possible_agents),):
                found.append(f"{agent}'s info {info} does not have the fixed keys and shapes")
        flat = [
            tuple(np.asarray(info[key]).tolist() for key in INFO_KEYS) for info in infos if set(info) == set(INFO_KEYS)
        ]
        if any(values != flat[0] for values in flat):
            found.append("agents see different infos")
        if infos[0].get("num_auto_actions") != len(auto):
            found.append(f"info num_auto_actions {infos[0].get('num_auto_actions')} for {len(auto)} auto actions")
        for entry in auto:
            ok = len(entry) == 3 and entry[0] in env.possible_agents and isinstance(entry[1], int)
            if not ok or not isinstance(entry[2], str):
                found.append(f"malformed auto_actions entry {entry!r}")
        new_rounds = env.finished_rounds[self.rounds_seen :]
        ended = [finished.last_round.points for finished in new_rounds]
        if [result.points for result in env.round_results] != ended:
            found.append(f"round_results {env.round_results} do not match the rounds that ended")
        if infos[0].get("rounds_ended") != len(ended):
            found.append(f"info rounds_ended {infos[0].get('rounds_ended')} for {len(ended)} rounds that ended")
        summed = [sum(points[seat] for points in ended) for seat in range(len(env.possible_agents))]
        if "round_points" in infos[0] and infos[0]["round_points"].tolist() != summed:
            found.append(f"info round_points {infos[0]['round_points'].tolist()} for rounds worth {summed}")
        same_round = before is not None and before.round_index == state.round_index
        if state.rules.must_play and same_round:
            drawn = len(before.stock) - len(state.stock)
            reported = sum(1 for entry in auto if entry[1] == DRAW_AGAIN)
            if drawn != reported:
                found.append(f"{drawn} cards left the stock, {reported} forced draws were reported")
        return found

    def _finished_round_problems(self, finished: GameState) -> list[str]:
        if finished.round_index != self.rounds_seen or len(finished.round_scores) != finished.round_index + 1:
            return [f"finished round {finished.round_index} out of order (expected {self.rounds_seen})"]
        found = round_problems(finished)
        result = finished.last_round
        for seat, points in enumerate(result.points):
            self.scores[seat] += points
            self.rounds_won[seat] += seat in result.winners
        if finished.scores != tuple(self.scores) or finished.rounds_won != tuple(self.rounds_won):
            found.append(
                f"running totals {finished.scores} and rounds won {finished.rounds_won},"
                f" the rounds add up to {tuple(self.scores)} and {tuple(self.rounds_won)}"
            )
        return found + game_problems(finished, self.scores, self.rounds_won)

    def final_problems(self, returns: dict[str, float]) -> list[str]:
        """After the last agent has left: the game is over and paid what it scored."""
        state = self.env.game_state
        game = state.game_result
        if state.phase is not Phase.GAME_OVER or game is None:
            return [f"the episode ended in phase {state.phase.value}, not at the game's end"]
        if self.rounds_seen != len(state.round_scores):
            return [f"{self.rounds_seen} rounds finished in the env, the engine scored {len(state.round_scores)}"]
        n = len(game.totals)
        found = []
        for seat, agent in enumerate(self.env.possible_agents):
            others = (sum(game.totals) - game.totals[seat]) / (n - 1)
            expected = REWARD_SCALE * (game.totals[seat] - others)
            if abs(returns[agent] - expected) > RETURN_TOLERANCE:
                found.append(f"{agent} was paid {returns[agent]}, its totals give {expected}")
        return found
