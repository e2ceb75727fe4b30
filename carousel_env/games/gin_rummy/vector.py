"""Gin Rummy as a vector environment: ``N`` games stepped together, every row's acting seat
batched, over the compiled turns (:mod:`carousel_env.games.gin_rummy.kernel`) and the
family's shared driver (:mod:`carousel_env.envkit.vector`).

.. code-block:: python

    import numpy as np
    from carousel_env.games.gin_rummy.vector import GinVectorEnv

    venv = GinVectorEnv(num_envs=64, preset="openspiel")
    step = venv.reset(seed=0)                       # games seeded 0..63
    rng = np.random.default_rng(0)
    for _ in range(1000):
        legal = step.action_mask.astype(bool)        # (N, 55 + K)
        step = venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in legal]))

Actions, observations, masks, rewards and the configuration are the AEC env's
(:mod:`carousel_env.games.gin_rummy.env`): ``to_play[i]`` is the seat whose observation and
mask row ``i`` holds, decisions with one legal action are taken by the env, ``rewards[i, s]``
is what seat ``s`` earned in the step. Seeds, ``WAIT``, ``reset_rows`` and autoreset are the
shared driver's (the same as Carousel's vector env): with autoreset the row of an episode
that ended already shows the next episode, and ``info.finished`` holds the ended game with
both seats' final observations. ``policy_moves`` gives the actions of seats played by
policies (:mod:`carousel_env.games.gin_rummy.policies`); the single-agent Gymnasium
``VectorEnv`` form is :mod:`carousel_env.games.gin_rummy.gym`. ``tests/games/gin_rummy/test_gin_vector.py``
requires both envs to agree at every step of seeded games.

How: the moves within a hand run compiled; the engine deals, lists the knocks where one is
legal, and makes the moves that end a hand (once per hand, in Python).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import NamedTuple

import numpy as np

from carousel_env.core import compiled
from carousel_env.core.cards import NUM_CARDS
from carousel_env.envkit.engine_vector import EngineMoveDriver
from carousel_env.envkit.vector import WAIT
from carousel_env.games.gin_rummy import kernel
from carousel_env.games.gin_rummy import melds as gm
from carousel_env.games.gin_rummy.config import GinEnvConfig, GinEnvConfigError
from carousel_env.games.gin_rummy.engine import GameResult, GinState, HandResult, Phase, StockEnd, apply, new_game
from carousel_env.games.gin_rummy.engine import next_hand as deal_next_hand
from carousel_env.games.gin_rummy.env import (
    INFO_KEYS,
    NUM_FIXED_ACTIONS,
    GinAction,
    action_name,
    engine_move,
    episode_ends,
    hand_rewards,
    ordered_knocks,
    own_deadwood,
)
from carousel_env.games.gin_rummy.observation import ObservationLayout, encode, layout
from carousel_env.games.gin_rummy.rules import NUM_PLAYERS

__all__ = ["WAIT", "GinFinishedGame", "GinVectorEnv", "GinVectorInfo", "GinVectorStep"]


class GinFinishedGame(NamedTuple):
    """An episode that ended in a step: its row, game seed, hands, scores, the game's result
    (None when the episode was a hand of a match) and both seats' final observations."""

    env: int
    seed: int
    hands: tuple[HandResult, ...]
    scores: tuple[int, int]
    result: GameResult | None
    observations: np.ndarray  # (2, size) float32


class GinVectorInfo(NamedTuple):
    """Per row, the AEC env's infos (``INFO_KEYS``), the rows' game seeds and the episodes
    that ended."""

    num_auto_actions: np.ndarray  # (N,)
    hands_ended: np.ndarray  # (N,)
    hand_points: np.ndarray  # (N, 2)
    game_over: np.ndarray  # (N,) bool
    seeds: np.ndarray  # (N,)
    finished: tuple[GinFinishedGame, ...]


class GinVectorStep(NamedTuple):
    observation: np.ndarray  # (N, size) float32: the acting seat's observation
    action_mask: np.ndarray  # (N, 55 + K) int8
    to_play: np.ndarray  # (N,)
    rewards: np.ndarray  # (N, 2) float64
    terminated: np.ndarray  # (N,) bool
    info: GinVectorInfo


assert GinVectorInfo._fields[:4] == INFO_KEYS  # the AEC env's info keys, in its order


class GinVectorEnv(EngineMoveDriver):
    """``num_envs`` Gin Rummy games stepped together (see the module docstring)."""

    num_players = NUM_PLAYERS
    kernel = kernel
    info_keys = INFO_KEYS
    info_type, step_type, finished_type = GinVectorInfo, GinVectorStep, GinFinishedGame
    first_suggestion = GinAction.FIRST_KNOCK
    action_name = staticmethod(action_name)

    def __init__(self, num_envs: int, autoreset: bool = True, **config: object) -> None:
        super().__init__(num_envs, autoreset, GinEnvConfig.from_kwargs(**config), GinEnvConfigError)
        self.rules = self.config.rules
        self.k = self.config.k_knocks
        self.observation_layout: ObservationLayout = layout(self.k)
        self.num_actions = NUM_FIXED_ACTIONS + self.k
        self.arrays = kernel.GinArrays.empty(num_envs, self.num_actions)
        rules = self.rules
        self._rule = np.array(
            [
                rules.knock_limit,
                rules.discard_taken_upcard,
                rules.stock_end is StockEnd.WALL,
                rules.upcard_limits,
                rules.upcard_draw_limit,
            ],
            np.int64,
        )
        # The knock suggestions as arrays: their count, deadwood, lay-off spots, discard, sets and runs.
        k = self.k
        self._slots = (
            np.zeros(num_envs, np.int64),
            np.zeros((num_envs, k), np.int64),
            np.zeros((num_envs, k), np.int64),
            np.zeros((num_envs, k), np.int64),
            np.zeros((num_envs, k), np.int64),
            np.zeros((num_envs, k), np.int64),
        )
        self._game: list[GinState | None] = [None] * num_envs  # each row's state at its hand's deal
        self._hands: list[list[HandResult]] = [[] for _ in range(num_envs)]
        self._obs = np.zeros((num_envs, self.observation_layout.size), np.float32)

    # ------------------------------------------------------------ reading and writing rows

    def game_state(self, g: int) -> GinState:
        """Row ``g``'s game as an engine state (for tests, policies and debugging)."""
        a, dealt = self.arrays, self._game[g]
        if dealt is None or dealt.over:
            return dealt
        return GinState(
            rules=self.rules,
            phase=kernel.PHASES[int(a.phase[g])],
            current=int(a.current[g]),
            dealer=int(a.dealer[g]),
            hands=(int(a.hands[g, 0]), int(a.hands[g, 1])),
            stock=dealt.stock,
            stock_top=int(a.stock_top[g]),
            discards=tuple(int(c) for c in a.pile[g, : a.pile_len[g]]),
            passed=(bool(a.passed[g, 0]), bool(a.passed[g, 1])),
            taken=int(a.taken[g]),
            known=(int(a.known[g, 0]), int(a.known[g, 1])),
            declined=(int(a.declined[g, 0]), int(a.declined[g, 1])),
            discarded=(int(a.discarded[g, 0]), int(a.discarded[g, 1])),
            upcard_draws=int(a.upcard_draws[g]),
            returned_in_a_row=int(a.returned[g]),
            scores=dealt.scores,
            hands_won=dealt.hands_won,
            hand_index=dealt.hand_index,
            seed=dealt.seed,
        )

    def load(self, rows: Sequence[int], states: Sequence[GinState]) -> GinVectorStep:
        """Row ``rows[j]`` becomes the engine state ``states[j]`` (a position within a hand, of
        this env's rules: a search's determinized position, a recorded one); it then takes its
        forced decisions, as after a deal, and waits for its next real one. The other rows do
        not move. A state's stock may be the whole deck with ``stock_top`` past the dealt cards
        (as dealt) or only the cards left (``stock_top`` 0, as a determinization holds it). The
        row's later hands are dealt from its state's seed. Bad rows or states raise before any
        row changes."""

        def checked(g: int, state: GinState) -> GinState:
            if not isinstance(state, GinState):
                raise TypeError(f"load: row {g}: a state must be a GinState, got {type(state).__name__}")
            if state.rules != self.rules:
                raise ValueError(f"load: row {g}: the state's rules {state.rules} are not this env's {self.rules}")
            if state.over:
                raise ValueError(f"load: row {g}: the state's hand is over (phase {state.phase.value})")
            return _whole_deck(g, state)

        def write(g: int, state: GinState) -> None:
            self._hands[g] = []
            self._write(g, state)

        return self._load(rows, states, checked, write)

    def _write(self, g: int, state: GinState) -> None:
        """Row ``g`` becomes ``state`` (a hand just dealt, or a finished one)."""
        a = self.arrays
        self._game[g] = state
        a.hands[g] = state.hands
        a.deck[g] = state.stock
        a.stock_top[g] = state.stock_top
        a.pile_len[g] = len(state.discards)
        a.pile[g, : len(state.discards)] = state.discards
        a.phase[g] = kernel.PHASES.index(state.phase)
        a.current[g] = state.current
        a.dealer[g] = state.dealer
        a.passed[g] = state.passed
        a.taken[g] = state.taken
        a.known[g], a.declined[g], a.discarded[g] = state.known, state.declined, state.discarded
        a.upcard_draws[g], a.returned[g] = state.upcard_draws, state.returned_in_a_row
        a.scores[g], a.hands_won[g] = state.scores, state.hands_won

    # ------------------------------------------------------------ the driver's hooks

    def _new_game(self, seed: int) -> GinState:
        return new_game(self.rules, seed)

    def _start_game(self, g: int, seed: int) -> int:
        self._hands[g] = []
        return super()._start_game(g, seed)

    def _step_kernel(self, actions: np.ndarray) -> None:
        compiled.first_call(kernel.step_games, self.arrays, actions, self._rule)

    def _engine_apply(self, state: GinState, action: int, suggestions: tuple) -> GinState:
        return apply(state, engine_move(action, suggestions))

    def _unit_result(self, g: int, state: GinState) -> HandResult:
        self._hands[g].append(state.last_hand)
        return state.last_hand

    def _unit_rewards(self, state: GinState) -> list[float]:
        return hand_rewards(self.config, state.last_hand, state)

    def _unit_points(self, result: HandResult) -> tuple[int, ...]:
        return result.points

    def _episode_ends(self, state: GinState) -> bool:
        return episode_ends(self.config, state)

    def _game_over(self, state: GinState) -> bool:
        return state.phase is Phase.GAME_OVER

    def _next_unit(self, state: GinState) -> GinState:
        return deal_next_hand(state)

    def _units_of(self, g: int, state: GinState) -> tuple[HandResult, ...]:
        return tuple(self._hands[g])

    def _list_suggestions(self, rows: list[int]) -> None:
        """The engine's knock suggestions in ``rows`` where a knock is legal (the slots and
        their mask); the other rows keep theirs."""
        a = self.arrays
        counts, deadwood, spots, discard, sets, runs = self._slots
        for g in rows:
            counts[g] = 0
            self._suggestions[g] = ()
            if not a.can_knock[g] or self._over[g]:
                continue
            found = tuple(ordered_knocks(self.game_state(g))[: self.k])
            self._suggestions[g] = found
            counts[g] = len(found)
            a.mask[g, GinAction.FIRST_KNOCK : GinAction.FIRST_KNOCK + len(found)] = 1
            for s, (arrangement, spot) in enumerate(found):
                deadwood[g, s], spots[g, s], discard[g, s] = arrangement.deadwood, spot, arrangement.discard
                sets[g, s] = gm.mask_of(c for m in arrangement.melds if not m.is_run for c in m.cards)
                runs[g, s] = gm.mask_of(c for m in arrangement.melds if m.is_run for c in m.cards)

    def _encode_rows(self) -> None:
        compiled.first_call(kernel.encode_rows, self._obs, self.arrays, self._slots, self._rule)

    def _final_observations(self, state: GinState) -> np.ndarray:
        return np.stack([encode(state, seat, (), own_deadwood(state.hands[seat], False), self.observation_layout)
                         for seat in range(NUM_PLAYERS)])  # fmt: skip


def _whole_deck(g: int, state: GinState) -> GinState:
    """``state`` with its stock as the kernel keeps it: the whole deck, the cards out of the
    stock first (in card order), then the stock's cards left, in their order."""
    left = state.stock[state.stock_top :]
    if len(state.stock) == NUM_CARDS and sorted(state.stock) == list(range(NUM_CARDS)):
        return state
    out = gm.mask_of(left)
    held = state.hands[0] | state.hands[1] | gm.mask_of(state.discards)
    if len(set(left)) != len(left) or out & held or (out | held) != (1 << NUM_CARDS) - 1:
        raise ValueError(
            f"load: row {g}: the hands, the pile and the stock's {len(left)} cards left are not the 52 cards once each"
        )
    rest = tuple(c for c in range(NUM_CARDS) if not out >> c & 1)
    return replace(state, stock=rest + tuple(left), stock_top=len(rest))


assert kernel.MELD_MASKS.shape[0] == NUM_CARDS
