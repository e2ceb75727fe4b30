"""Conquian as a vector environment: ``N`` games stepped together, every row's acting seat
batched, over the compiled turns (:mod:`carousel_env.games.conquian.kernel`) and the family's
shared driver (:mod:`carousel_env.envkit.engine_vector`).

.. code-block:: python

    import numpy as np
    from carousel_env.games.conquian.vector import ConquianVectorEnv

    venv = ConquianVectorEnv(num_envs=16, preset="book")
    step = venv.reset(seed=0)                       # games seeded 0..15
    rng = np.random.default_rng(0)
    for _ in range(1000):
        legal = step.action_mask.astype(bool)        # (N, 42 + K)
        step = venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in legal]))

Actions, observations, masks, rewards and the configuration are the AEC env's
(:mod:`carousel_env.games.conquian.env`): ``to_play[i]`` is the seat whose observation and
mask row ``i`` holds, decisions with one legal action are taken by the env, ``rewards[i, s]``
is what seat ``s`` earned in the step. Seeds, ``WAIT``, ``reset_rows`` and autoreset are the
shared driver's: with autoreset the row of an episode that ended already shows the next
episode, and ``info.finished`` holds the ended game with every seat's final observation.
``policy_moves`` gives the actions of seats played by policies
(:mod:`carousel_env.games.conquian.policies`). ``tests/games/conquian/test_conquian_vector.py``
requires both envs to agree at every step of seeded games.

How: the ways to meld a card, forcing, passes, turn-ups and discards run compiled, with the
masks and the observations; the engine deals and makes the moves that end a hand (a take
that melds 11, a turn-up from an empty stock), which it scores.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from carousel_env.core import compiled
from carousel_env.envkit.engine_vector import EngineMoveDriver
from carousel_env.envkit.policies import policy_action
from carousel_env.envkit.vector import WAIT
from carousel_env.games.conquian import kernel
from carousel_env.games.conquian.config import ConquianEnvConfig, ConquianEnvConfigError
from carousel_env.games.conquian.decision import NUM_FIXED_ACTIONS, ConquianAction, action_name, engine_move, offers
from carousel_env.games.conquian.engine import apply, new_game, next_hand
from carousel_env.games.conquian.env import INFO_KEYS, episode_ends, hand_rewards
from carousel_env.games.conquian.observation import ObservationLayout, encode, layout
from carousel_env.games.conquian.rules import CARDS, NUM_PLAYERS, index_of
from carousel_env.games.conquian.state import ConquianState, GameResult, HandResult, Phase

__all__ = ["WAIT", "ConquianFinishedGame", "ConquianVectorEnv", "ConquianVectorInfo", "ConquianVectorStep"]


class ConquianFinishedGame(NamedTuple):
    """An episode that ended in a step: its row, game seed, hands, the totals, the game's
    result (None when the episode was a hand of a match) and every seat's final observation."""

    env: int
    seed: int
    hands: tuple[HandResult, ...]
    scores: tuple[int, ...]
    result: GameResult | None
    observations: np.ndarray  # (2, size) float32


class ConquianVectorInfo(NamedTuple):
    """Per row, the AEC env's infos (``INFO_KEYS``), the rows' game seeds and the episodes
    that ended."""

    num_auto_actions: np.ndarray  # (N,)
    hands_ended: np.ndarray  # (N,)
    hand_points: np.ndarray  # (N, 2)
    game_over: np.ndarray  # (N,) bool
    seeds: np.ndarray  # (N,)
    finished: tuple[ConquianFinishedGame, ...]


class ConquianVectorStep(NamedTuple):
    observation: np.ndarray  # (N, size) float32: the acting seat's observation
    action_mask: np.ndarray  # (N, 42 + K) int8
    to_play: np.ndarray  # (N,)
    rewards: np.ndarray  # (N, 2) float64
    terminated: np.ndarray  # (N,) bool
    info: ConquianVectorInfo


assert ConquianVectorInfo._fields[:4] == INFO_KEYS  # the AEC env's info keys, in its order


def _mask_of(cards) -> int:
    return sum(1 << index_of(c) for c in cards)


def _cards_of(mask: int) -> tuple[int, ...]:
    return tuple(CARDS[i] for i in range(len(CARDS)) if mask >> i & 1)


def final_observations(state: ConquianState, lay: ObservationLayout) -> np.ndarray:
    """Both seats' views of a finished ``state``, as the AEC env shows them."""
    return np.stack([encode(state, s, (), lay) for s in range(NUM_PLAYERS)])


class ConquianVectorEnv(EngineMoveDriver):
    """``num_envs`` Conquian games stepped together (see the module docstring)."""

    kernel = kernel
    info_keys = INFO_KEYS
    info_type, step_type, finished_type = ConquianVectorInfo, ConquianVectorStep, ConquianFinishedGame
    first_suggestion = ConquianAction.FIRST_OFFER
    action_name = staticmethod(action_name)

    def __init__(self, num_envs: int, autoreset: bool = True, **config: object) -> None:
        super().__init__(num_envs, autoreset, ConquianEnvConfig.from_kwargs(**config), ConquianEnvConfigError)
        self.rules = self.config.rules
        self.num_players = NUM_PLAYERS
        self.k = self.config.k_plays
        self.observation_layout: ObservationLayout = layout(self.k)
        self.num_actions = NUM_FIXED_ACTIONS + self.k
        self.arrays = kernel.ConquianArrays.empty(num_envs, self.num_actions, self.k)
        self._params = kernel.params_of(self.rules)
        self._hands: list[list[HandResult]] = [[] for _ in range(num_envs)]
        self._obs = np.zeros((num_envs, self.observation_layout.size), np.float32)
        lay = self.observation_layout
        self._at = np.array([start for start, _ in lay.offsets.values()], np.int64)
        self._slot_at = np.array([start for start, _ in lay.slot_offsets.values()], np.int64)

    # ------------------------------------------------------------ reading and writing rows

    def game_state(self, g: int) -> ConquianState:
        """Row ``g``'s game as an engine state (for tests, policies and debugging)."""
        if self._final[g] is not None:
            return self._final[g]
        a = self.arrays
        return ConquianState(
            rules=self.rules,
            seed=int(self._seeds[g]),
            hand_number=len(self._hands[g]),
            dealer=int(a.dealer[g]),
            current=int(a.current[g]),
            phase=kernel.PHASES[int(a.phase[g])],
            hands=tuple(_cards_of(int(a.hands[g, s])) for s in range(2)),
            melds=tuple(
                tuple(_cards_of(int(a.melds[g, s, m])) for m in range(int(a.num_melds[g, s]))) for s in range(2)
            ),
            stock=tuple(CARDS[i] for i in a.stock[g, : a.stock_n[g]]),
            dead=tuple(CARDS[i] for i in a.dead[g, : a.dead_n[g]]),
            faced=CARDS[a.faced[g]] if a.faced[g] >= 0 else kernel.NO_CARD,
            faced_by=int(a.faced_by[g]),
            upcard=bool(a.upcard[g]),
            left_card=bool(a.left_card[g]),
            declined=tuple(tuple(CARDS[i] for i in a.declined[g, s, : a.declined_n[g, s]]) for s in range(2)),
            totals=(int(a.totals[g, 0]), int(a.totals[g, 1])),
            pool=int(a.pool[g]),
            results=tuple(self._hands[g]),
        )

    def _write(self, g: int, state: ConquianState) -> None:
        """Row ``g`` becomes ``state``."""
        a = self.arrays
        self._final[g] = None
        for s in range(2):
            a.hands[g, s] = _mask_of(state.hands[s])
            a.num_melds[g, s] = len(state.melds[s])
            a.melds[g, s] = 0
            for m, meld in enumerate(state.melds[s]):
                a.melds[g, s, m] = _mask_of(meld)
            a.declined_n[g, s] = len(state.declined[s])
            a.declined[g, s, : len(state.declined[s])] = [index_of(c) for c in state.declined[s]]
        a.stock_n[g] = len(state.stock)
        a.stock[g, : len(state.stock)] = [index_of(c) for c in state.stock]
        a.dead_n[g] = len(state.dead)
        a.dead[g, : len(state.dead)] = [index_of(c) for c in state.dead]
        a.faced[g] = index_of(state.faced) if state.faced != kernel.NO_CARD else kernel.NO_CARD
        a.faced_by[g], a.upcard[g], a.left_card[g] = state.faced_by, state.upcard, state.left_card
        a.phase[g] = kernel.PHASES.index(state.phase)
        a.current[g], a.dealer[g], a.pool[g] = state.current, state.dealer, state.pool
        a.totals[g] = state.totals
        self._hands[g] = list(state.results)

    # ------------------------------------------------------------ the driver's hooks

    def _new_game(self, seed: int) -> ConquianState:
        return new_game(self.rules, seed)

    def _step_kernel(self, actions: np.ndarray) -> None:
        p = self._params
        compiled.first_call(
            kernel.step_games,
            self.arrays,
            actions,
            p.mode,
            p.run_limit,
            p.hand_melds_on_turn_up,
            p.meld_masks,
            p.first_meld,
        )

    def _engine_apply(self, state: ConquianState, action: int, suggestions: tuple) -> ConquianState:
        del suggestions  # the offers of the decision the kernel left are the engine's own
        return apply(state, engine_move(action, offers(state, self.k)))

    def _policy_action(self, policy, g: int, seat: int, observation: np.ndarray, mask: np.ndarray) -> int:
        # A scripted player reads the row's engine state and offers, built only for it.
        state = self.game_state(g)
        return policy_action(policy, lambda: state, offers(state, self.k), observation, mask)

    def _unit_result(self, g: int, state: ConquianState) -> HandResult:
        return state.last_hand

    def _unit_rewards(self, state: ConquianState) -> list[float]:
        return hand_rewards(self.config, state.last_hand, state)

    def _unit_points(self, result: HandResult) -> tuple[int, ...]:
        return result.scores

    def _episode_ends(self, state: ConquianState) -> bool:
        return episode_ends(self.config, state)

    def _game_over(self, state: ConquianState) -> bool:
        return state.phase is Phase.GAME_OVER

    def _next_unit(self, state: ConquianState) -> ConquianState:
        return next_hand(state)

    def _units_of(self, g: int, state: ConquianState) -> tuple[HandResult, ...]:
        return state.results

    def _list_suggestions(self, rows: list[int]) -> None:
        """The kernel lists the offers; the engine's are built only where a policy or a move needs them."""

    def _encode_rows(self) -> None:
        lay = self.observation_layout
        compiled.first_call(
            kernel.encode_rows,
            self._obs,
            self.arrays,
            self._params.run_limit,
            self._params.target,
            self._at,
            self._slot_at,
            lay.global_size,
            lay.slot_size,
        )

    def _final_observations(self, state: ConquianState) -> np.ndarray:
        return final_observations(state, self.observation_layout)

    def _finished_game(self, g: int, state: ConquianState) -> ConquianFinishedGame:
        self._final[g] = state
        finals = self._final_observations(state)
        return ConquianFinishedGame(g, int(self._seeds[g]), state.results, state.totals, state.game_result, finals)
