"""Kaluki (and plain Rummy) as a vector environment: ``N`` games stepped together, every
row's acting seat batched, over the family's shared driver (:mod:`carousel_env.envkit.vector`).

.. code-block:: python

    import numpy as np
    from carousel_env.games.kaluki.vector import KalukiVectorEnv

    venv = KalukiVectorEnv(num_envs=16, num_players=4, preset="book")
    step = venv.reset(seed=0)                       # games seeded 0..15
    rng = np.random.default_rng(0)
    for _ in range(1000):
        legal = step.action_mask.astype(bool)        # (N, 55 + K)
        step = venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in legal]))

Actions, observations, masks, rewards and the configuration are the AEC env's
(:mod:`carousel_env.games.kaluki.env`): ``to_play[i]`` is the seat whose observation and
mask row ``i`` holds, decisions with one legal action are taken by the env, ``rewards[i, s]``
is what seat ``s`` earned in the step. Seeds, ``WAIT``, ``reset_rows`` and autoreset are the
shared driver's: with autoreset the row of an episode that ended already shows the next
episode, and ``info.finished`` holds the ended game with every seat's final observation.
``policy_moves`` gives the actions of seats played by policies
(:mod:`carousel_env.games.kaluki.policies`). ``tests/games/kaluki/test_kaluki_vector.py``
requires both envs to agree at every step of seeded games.

How: every row holds its engine state, its mask and its offers, and moves in Python with the
engine, as the AEC env does; the offers come from the compiled search
(:mod:`carousel_env.games.kaluki.kernel_solver`). A compiled kernel for the moves and the
observations, as Gin's and Carioca's have, is planned.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from carousel_env.envkit.policies import policy_action
from carousel_env.envkit.vector import DEALT, SKIP, WAIT, VectorDriver
from carousel_env.games.kaluki.config import KalukiEnvConfig, KalukiEnvConfigError
from carousel_env.games.kaluki.engine import new_game, next_hand
from carousel_env.games.kaluki.env import (
    INFO_KEYS,
    NUM_FIXED_ACTIONS,
    action_name,
    apply_moves,
    decision,
    engine_moves,
    episode_ends,
    hand_rewards,
)
from carousel_env.games.kaluki.observation import ObservationLayout, encode, layout
from carousel_env.games.kaluki.rules import Scoring
from carousel_env.games.kaluki.state import GameResult, HandResult, KalukiState, Phase

__all__ = ["WAIT", "KalukiFinishedGame", "KalukiVectorEnv", "KalukiVectorInfo", "KalukiVectorStep"]


class KalukiFinishedGame(NamedTuple):
    """An episode that ended in a step: its row, game seed, hands, the totals, the game's
    result (None when the episode was a hand of a match), every seat's final observation and
    the scoring (under ``penalty`` the lowest total is best)."""

    env: int
    seed: int
    hands: tuple[HandResult, ...]
    scores: tuple[int, ...]
    result: GameResult | None
    observations: np.ndarray  # (P, size) float32
    scoring: Scoring


class KalukiVectorInfo(NamedTuple):
    """Per row, the AEC env's infos (``INFO_KEYS``), the rows' game seeds and the episodes
    that ended."""

    num_auto_actions: np.ndarray  # (N,)
    hands_ended: np.ndarray  # (N,)
    hand_points: np.ndarray  # (N, P)
    game_over: np.ndarray  # (N,) bool
    seeds: np.ndarray  # (N,)
    finished: tuple[KalukiFinishedGame, ...]


class KalukiVectorStep(NamedTuple):
    observation: np.ndarray  # (N, size) float32: the acting seat's observation
    action_mask: np.ndarray  # (N, 55 + K) int8
    to_play: np.ndarray  # (N,)
    rewards: np.ndarray  # (N, P) float64
    terminated: np.ndarray  # (N,) bool
    info: KalukiVectorInfo


assert KalukiVectorInfo._fields[:4] == INFO_KEYS  # the AEC env's info keys, in its order


class _Rows:
    """The rows' decisions as arrays: the acting seat's mask and the acting seat."""

    def __init__(self, num_envs: int, num_actions: int) -> None:
        self.mask = np.zeros((num_envs, num_actions), np.int8)
        self.current = np.zeros(num_envs, np.int64)


def final_observations(state: KalukiState, lay: ObservationLayout) -> np.ndarray:
    """Every seat's view of a finished ``state``, as the AEC env shows it (no seat acts)."""
    return np.stack([encode(state, s, (), lay) for s in range(state.num_players)])


class KalukiVectorEnv(VectorDriver):
    """``num_envs`` Kaluki games stepped together (see the module docstring)."""

    def __init__(self, num_envs: int, autoreset: bool = True, **config: object) -> None:
        super().__init__(num_envs, autoreset, error=KalukiEnvConfigError)
        self.config = KalukiEnvConfig.from_kwargs(**config)
        if self.config.render_mode is not None:
            raise KalukiEnvConfigError("render_mode", "the vector env does not render (render one game with env())")
        self.rules = self.config.rules
        self.num_players = self.config.num_players
        self.k = self.config.k_plays
        self.observation_layout: ObservationLayout = layout(self.k)
        self.num_actions = NUM_FIXED_ACTIONS + self.k
        self.arrays = _Rows(num_envs, self.num_actions)
        self._obs = np.zeros((num_envs, self.observation_layout.size), np.float32)
        self._states: list[KalukiState | None] = [None] * num_envs
        # Each row's offers at its decision, as the AEC env's ``suggestions``.
        self._suggestions: list[tuple] = [()] * num_envs

    @staticmethod
    def action_name(action: int) -> str:
        return action_name(action)

    @classmethod
    def compile_ahead(cls, **config: object) -> None:
        """Build a vector env of this config and step it once: the compiled search is compiled
        (or loaded from numba's cache) before any worker starts, and the config is checked."""
        venv = cls(1, **config)  # a bad config raises here
        step = venv.reset(seed=0)
        venv.step(np.array([int(np.flatnonzero(step.action_mask[0])[0])]))
        venv.close()

    def game_state(self, g: int) -> KalukiState:
        """Row ``g``'s game as an engine state (a finished row's last state, while it waits)."""
        state = self._states[g]
        if state is None:
            raise ValueError(f"game {g} has not been dealt (reset_rows deals it)")
        return state

    # ------------------------------------------------------------ the driver's hooks

    def _start_game(self, g: int, seed: int) -> int:
        self._seeds[g] = seed
        self._over[g] = False
        self._states[g] = new_game(self.rules, self.num_players, seed)
        return 0  # its forced decisions are taken (and counted) when the row settles

    def _run(self, actions: np.ndarray, rewards: np.ndarray, info: dict) -> np.ndarray:
        """Make each moving row's action (``DEALT``: none) with the engine, then settle the row."""
        terminated = np.zeros(self.num_envs, np.bool_)
        for g in np.flatnonzero(actions != SKIP).tolist():
            state = self._states[g]
            if actions[g] != DEALT:
                state = apply_moves(state, engine_moves(state, int(actions[g]), self._suggestions[g]))
            self._settle(g, state, rewards, info, terminated)
        return terminated

    def _settle(self, g: int, state: KalukiState, rewards: np.ndarray, info: dict, terminated: np.ndarray) -> None:
        """The AEC env's ``_settle`` for row ``g``: pay and deal the ends of hands, end the
        episode, and take every decision with a single legal action, until a real decision."""
        while True:
            if state.over:
                if not self._end_unit(g, state, rewards, info, terminated):
                    self._suggestions[g] = ()
                    return
                state = self._states[g]  # the next hand, or the next game (autoreset)
                continue
            mask, found = decision(state, self.k)
            legal = np.flatnonzero(mask)
            if len(legal) != 1:
                break
            # The AEC env counts a new game's forced decisions at its reset, not in the step that ended the last.
            if not terminated[g]:
                info["num_auto_actions"][g] += 1
            state = apply_moves(state, engine_moves(state, int(legal[0]), found))
        self._states[g] = state
        self._suggestions[g] = found
        self.arrays.mask[g] = mask
        self.arrays.current[g] = state.current
        self._obs[g] = encode(state, state.current, found, self.observation_layout)

    def _masks(self) -> np.ndarray:
        return self.arrays.mask

    def _action_name(self, action: int) -> str:
        return action_name(action)

    def _blank_info(self) -> dict:
        n = self.num_envs
        return {
            "num_auto_actions": np.zeros(n, np.int64),
            "hands_ended": np.zeros(n, np.int64),
            "hand_points": np.zeros((n, self.num_players), np.int64),
            "game_over": np.zeros(n, np.bool_),
            "finished": [],
        }

    def _result(self, rewards: np.ndarray, terminated: np.ndarray, info: dict) -> KalukiVectorStep:
        vector_info = KalukiVectorInfo(*(info[key] for key in INFO_KEYS), self._seeds.copy(), tuple(info["finished"]))
        to_play = np.where(self._over, 0, self.arrays.current)
        return KalukiVectorStep(self._obs.copy(), self.arrays.mask.copy(), to_play, rewards, terminated, vector_info)

    def _policy_action(self, policy, g: int, seat: int, observation: np.ndarray, mask: np.ndarray) -> int:
        return policy_action(policy, lambda: self.game_state(g), self._suggestions[g], observation, mask)

    def _wait_all(self) -> None:
        super()._wait_all()
        self.arrays.mask[:] = 0
        self._obs[:] = 0.0

    # the end of a hand (VectorDriver._end_unit)

    def _pay_unit(self, g: int, state: KalukiState, rewards: np.ndarray, info: dict) -> None:
        rewards[g] += hand_rewards(self.config, state.last_hand, state)
        info["hands_ended"][g] += 1
        info["hand_points"][g] += state.last_hand.scores

    def _episode_ends(self, state: KalukiState) -> bool:
        return episode_ends(self.config, state)

    def _game_over(self, state: KalukiState) -> bool:
        return state.phase is Phase.GAME_OVER

    def _next_unit(self, state: KalukiState) -> KalukiState:
        return next_hand(state)

    def _write(self, g: int, state: KalukiState) -> None:
        self._states[g] = state

    def _finished_game(self, g: int, state: KalukiState) -> KalukiFinishedGame:
        finals = final_observations(state, self.observation_layout)
        self._obs[g] = finals[0]  # a finished row waiting (no autoreset) shows seat 0's final view
        # Every episode starts a new game (episode="hand" too), so the state's hands are the episode's.
        result = state.game_result
        return KalukiFinishedGame(
            g, int(self._seeds[g]), state.results, state.totals, result, finals, self.rules.scoring
        )
