"""The vector driver of a game whose compiled kernel plays the common moves (draws, discards,
lay-offs) and leaves the rest to the engine: the moves that take a suggestion (a knock, a
going-down arrangement) or end a unit (a round or a hand). Gin Rummy and Carioca.

The kernel's protocol, beyond :mod:`carousel_env.envkit.vector`'s: ``step_games`` leaves a
move it does not make in ``arrays.pending[g]`` (``NO_MOVE``: none) and stops the row there;
the driver makes it with the engine on the row's state, writes the state back and hands the
row to the kernel again as ``DEALT``, or ends the unit (:meth:`VectorDriver._end_unit`). The
suggestions are listed anew, with the engine, in every row that moved.

A game's vector env subclasses :class:`EngineMoveDriver`, names its kernel, its info keys
(the AEC env's: automatic actions, units ended, points per seat, game over), its result
types and its first suggestion slot, and supplies the hooks below: reading and writing a
row's engine state, the engine's move, the unit's pay, the suggestions and the observations.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, ClassVar

import numpy as np

from carousel_env.envkit.policies import policy_action
from carousel_env.envkit.vector import DEALT, SKIP, VectorDriver


class EngineMoveDriver(VectorDriver):
    """Rows over a kernel that leaves some moves to the engine (see the module docstring)."""

    kernel: ClassVar[ModuleType]  # step_games, encode_rows, NO_MOVE, GAME_OVER
    # The AEC env's info keys: automatic actions, units ended, points per seat, game over.
    info_keys: ClassVar[tuple[str, str, str, str]]
    info_type: ClassVar[type]  # (*info_keys, seeds, finished)
    step_type: ClassVar[type]  # (observation, action_mask, to_play, rewards, terminated, info)
    finished_type: ClassVar[type]  # (env, seed, units, scores, result, observations)
    first_suggestion: ClassVar[int]  # the action of the first suggestion slot

    def __init__(self, num_envs: int, autoreset: bool, config: Any, error: type) -> None:
        super().__init__(num_envs, autoreset, error=error)
        if config.render_mode is not None:
            raise error("render_mode", "the vector env does not render (render one game with env())")
        self.config = config
        # Each row's suggestions at its decision, as the AEC env's ``suggestions``.
        self._suggestions: list[tuple] = [()] * num_envs
        self._final: list[Any] = [None] * num_envs  # a finished row's last state
        self._final_view: list[tuple[Any, np.ndarray] | None] = [None] * num_envs  # it, and seat 0's view of it

    @staticmethod
    def action_name(action: int) -> str:
        raise NotImplementedError

    @classmethod
    def compile_ahead(cls, **config: object) -> None:
        """Compile (or load from numba's cache) the kernel's parts a vector env of this config
        uses: its moves and its observations, which otherwise compile at the first step, and
        its final views, at the end of the first episode. For a trainer before its first step,
        and before it starts workers that build vector envs."""
        venv = cls(1, **config)  # a bad config raises here, before anything compiles
        step = venv.reset(seed=0)
        venv.step(np.array([int(np.flatnonzero(step.action_mask[0])[0])]))
        venv._final_observations(venv.game_state(0))  # any state will do: it compiles the encoder
        venv.close()

    # ------------------------------------------------------------ the game's hooks

    def game_state(self, g: int) -> Any:
        """Row ``g``'s game as an engine state (for tests, policies and debugging)."""
        raise NotImplementedError

    def _new_game(self, seed: int) -> Any:
        raise NotImplementedError

    def _step_kernel(self, actions: np.ndarray) -> None:
        """The kernel's ``step_games`` over ``actions``."""
        raise NotImplementedError

    def _engine_apply(self, state: Any, action: int, suggestions: tuple) -> Any:
        """The state after env ``action`` (a move the kernel left), given the decision's suggestions."""
        raise NotImplementedError

    def _unit_result(self, g: int, state: Any) -> Any:
        """The result of the unit row ``g``'s ``state`` ended."""
        raise NotImplementedError

    def _unit_rewards(self, state: Any) -> list[float]:
        raise NotImplementedError

    def _unit_points(self, result: Any) -> Any:
        """Every seat's points (or penalties) in a unit's ``result``, for the infos."""
        raise NotImplementedError

    def _units_of(self, g: int, state: Any) -> tuple:
        """The units row ``g``'s finished episode played."""
        raise NotImplementedError

    def _list_suggestions(self, rows: list[int]) -> None:
        """The engine's suggestions (and their mask and arrays) in ``rows``; the others keep theirs."""
        raise NotImplementedError

    def _encode_rows(self) -> None:
        """Every row's observation into ``self._obs`` (the kernel's ``encode_rows``)."""
        raise NotImplementedError

    def _final_observations(self, state: Any) -> np.ndarray:
        """(P, size) every seat's view of a finished ``state``, as the AEC env shows it."""
        raise NotImplementedError

    def _unit_over(self, state: Any) -> bool:
        return state.over

    # ------------------------------------------------------------ the driver's hooks

    def _masks(self) -> np.ndarray:
        return self.arrays.mask

    def _action_name(self, action: int) -> str:
        return self.action_name(action)

    def _policy_action(self, policy: Any, g: int, seat: int, observation: np.ndarray, mask: np.ndarray) -> int:
        # A scripted player reads the row's engine state and suggestions, built only for it.
        return policy_action(policy, lambda: self.game_state(g), self._suggestions[g], observation, mask)

    def _wait_all(self) -> None:
        super()._wait_all()
        self.arrays.phase[:] = self.kernel.GAME_OVER
        self.arrays.mask[:] = 0

    def _blank_info(self) -> dict:
        n = self.num_envs
        auto, ended, points, over = self.info_keys
        return {
            auto: np.zeros(n, np.int64),
            ended: np.zeros(n, np.int64),
            points: np.zeros((n, self.num_players), np.int64),
            over: np.zeros(n, np.bool_),
            "finished": [],
        }

    def _start_game(self, g: int, seed: int) -> int:
        self._seeds[g] = seed
        self._over[g] = False
        self._final[g] = None
        self._write(g, self._new_game(seed))
        return 0

    def _run(self, actions: np.ndarray, rewards: np.ndarray, info: dict) -> np.ndarray:
        """Make ``actions``, then make the moves the kernel leaves, end units and deal, until
        every row waits."""
        terminated = np.zeros(self.num_envs, np.bool_)
        a, no_move = self.arrays, self.kernel.NO_MOVE
        moved = actions != SKIP
        # A chosen suggestion's slot is read against the suggestions of the decision it was made at.
        chosen = {int(g): self._suggestions[g] for g in np.flatnonzero(actions >= self.first_suggestion)}
        while True:
            self._step_kernel(actions)
            info[self.info_keys[0]] += np.where((actions != SKIP) & ~terminated, a.auto, 0)
            actions = np.full(self.num_envs, SKIP, np.int64)
            for g in np.flatnonzero(a.pending != no_move).tolist():
                pending = int(a.pending[g])
                a.pending[g] = no_move
                state = self._engine_apply(self.game_state(g), pending, chosen.pop(g, ()))
                actions[g] = self._after_engine(g, state, rewards, info, terminated)
            self._decide_left(actions, rewards, info, terminated)
            if (actions == SKIP).all():
                break
            moved |= actions != SKIP
        self._list_suggestions(np.flatnonzero(moved).tolist())
        return terminated

    def _after_engine(self, g: int, state: Any, rewards: np.ndarray, info: dict, terminated: np.ndarray) -> int:
        """Row ``g`` after a move the engine made: back to the kernel (``DEALT``), or left
        (``SKIP``) at the end of its episode without autoreset."""
        if not self._unit_over(state):
            self._write(g, state)
            return DEALT
        return DEALT if self._end_unit(g, state, rewards, info, terminated) else SKIP

    def _decide_left(self, actions: np.ndarray, rewards: np.ndarray, info: dict, terminated: np.ndarray) -> None:
        """The decisions the kernel leaves to the game's Python (none here): each such row's
        entry in ``actions`` becomes ``DEALT`` where it goes back to the kernel."""

    def _pay_unit(self, g: int, state: Any, rewards: np.ndarray, info: dict) -> None:
        result = self._unit_result(g, state)
        rewards[g] += self._unit_rewards(state)
        info[self.info_keys[1]][g] += 1
        info[self.info_keys[2]][g] += self._unit_points(result)

    def _finished_game(self, g: int, state: Any) -> Any:
        self._final[g] = state
        units = self._units_of(g, state)
        finals = self._final_observations(state)
        return self.finished_type(g, int(self._seeds[g]), units, state.scores, state.game_result, finals)

    def _result(self, rewards: np.ndarray, terminated: np.ndarray, info: dict) -> Any:
        a = self.arrays
        self._encode_rows()
        for g in np.flatnonzero(self._over).tolist():  # a finished row waiting: player 0's final view
            state = self._final[g]
            if state is not None:
                view = self._final_view[g]
                if view is None or view[0] is not state:  # encoded once a finished game, not every step
                    view = self._final_view[g] = (state, self._final_observations(state)[0])
                self._obs[g] = view[1]
        vector_info = self.info_type(
            *(info[key] for key in self.info_keys), self._seeds.copy(), tuple(info["finished"])
        )
        to_play = np.where(self._over, 0, a.current)
        return self.step_type(self._obs.copy(), a.mask.copy(), to_play, rewards, terminated, vector_info)
