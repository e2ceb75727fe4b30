"""The shared driver of every game's vector env: ``N`` games stepped together over a game's
compiled kernel.

The driver owns what does not depend on the game: the rows' game seeds (``reset(seed=s)``
gives row ``i`` the seed ``s + i`` and each later episode of the row a seed drawn from
``random.Random(s + i)``, as the AEC env's ``reset()`` would), the check of every action
against the row's mask (an illegal one raises ``IllegalAction`` naming the row, and no row
moves), ``WAIT`` rows, ``reset_rows``, and autoreset. A game's vector env subclasses
:class:`VectorDriver` and supplies the game: how a row is dealt (``_start_game``), how
actions run until every row waits for a decision (``_run``, which also ends episodes), the
masks, the action names, the infos, the step's result, and what a policy plays at a row's
decision (``_policy_action``, for ``policy_moves``).

The protocol with a kernel: a row's entry in the actions array is an action, ``DEALT`` (the
row was just dealt: take its forced decisions and compute its first decision) or ``SKIP``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from carousel_env.core.errors import CarouselError, IllegalAction

WAIT = -1  # a user's action for a row that does not move in a step
DEALT = -1  # the kernel's code for a row just dealt
SKIP = -2  # the kernel's code for a row left as it is
_MAX_SEED = 2**63  # seeds are kept in int64 arrays


class VectorConfigError(CarouselError):
    """A bad vector env argument; ``key`` names it."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(f"vector env {key!r}: {message}")
        self.key = key


def check_seed(value: object, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not -_MAX_SEED <= value < _MAX_SEED:
        raise ValueError(f"{where}: a seed must be an int in [-2**63, 2**63), got {value!r}")
    return int(value)


def check_row(value: object, num_envs: int, where: str = "reset_rows") -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 0 <= value < num_envs:
        raise ValueError(f"{where}: a row must be an int in 0..{num_envs - 1}, got {value!r}")
    return int(value)


class VectorDriver:
    """Rows, seeds, action checks and autoreset for ``num_envs`` games (see the module
    docstring). Subclasses set ``num_players`` and ``num_actions`` and define the hooks."""

    num_players: int
    num_actions: int

    def __init__(self, num_envs: int, autoreset: bool, error: type = VectorConfigError) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise error("num_envs", f"must be an int >= 1, got {num_envs!r}")
        if not isinstance(autoreset, bool):
            raise error("autoreset", f"must be True or False, got {autoreset!r}")
        self.num_envs = num_envs
        self.autoreset = autoreset
        self._seed_rngs = [random.Random(0) for _ in range(num_envs)]  # each row's next game seeds
        self._seeds = np.zeros(num_envs, np.int64)
        self._over = np.zeros(num_envs, np.bool_)  # the row's episode ended (no autoreset): it waits
        self._rows = np.arange(num_envs, dtype=np.int64)
        self._ready = False

    # ------------------------------------------------------------ hooks

    def _start_game(self, g: int, seed: int) -> int:
        """Deal game ``seed`` in row ``g``; returns the automatic actions of the deal."""
        raise NotImplementedError

    def _run(self, actions: np.ndarray, rewards: np.ndarray, info: dict) -> np.ndarray:
        """Make ``actions`` (``DEALT``, ``SKIP`` or an action per row), end what ends, until
        every row waits; returns which episodes ended."""
        raise NotImplementedError

    def _masks(self) -> np.ndarray:
        """(N, num_actions) the acting seats' masks."""
        raise NotImplementedError

    def _action_name(self, action: int) -> str:
        raise NotImplementedError

    def _blank_info(self) -> dict:
        raise NotImplementedError

    def _result(self, rewards: np.ndarray, terminated: np.ndarray, info: dict):
        raise NotImplementedError

    def _policy_action(self, policy: Any, g: int, seat: int, observation: np.ndarray, mask: np.ndarray) -> int:
        """What ``policy`` plays at row ``g``'s decision, for ``seat``."""
        raise NotImplementedError

    def _wait_all(self) -> None:
        """Before the first deal of ``reset_rows``: every row waits, over, with an empty mask."""
        self._over[:] = True

    # the end of a unit (a round or a hand), for a driver that ends them in Python

    def _pay_unit(self, g: int, state: Any, rewards: np.ndarray, info: dict) -> None:
        """Pay the unit that ended in row ``g``'s ``state``, and count it in ``info``."""
        raise NotImplementedError

    def _episode_ends(self, state: Any) -> bool:
        raise NotImplementedError

    def _game_over(self, state: Any) -> bool:
        """Whether the game (not only the episode) is over in ``state``."""
        raise NotImplementedError

    def _next_unit(self, state: Any) -> Any:
        raise NotImplementedError

    def _write(self, g: int, state: Any) -> None:
        """Write the engine's ``state`` into row ``g``."""
        raise NotImplementedError

    def _finished_game(self, g: int, state: Any) -> Any:
        """What row ``g``'s finished episode leaves in ``info["finished"]`` (its state written)."""
        raise NotImplementedError

    def _end_unit(self, g: int, state: Any, rewards: np.ndarray, info: dict, terminated: np.ndarray) -> bool:
        """Pay the unit that ended in row ``g``'s ``state``, then deal the next unit, or end the
        episode: the next game with autoreset (True: the row is dealt), else the row waits over
        (False)."""
        self._pay_unit(g, state, rewards, info)
        if not self._episode_ends(state):
            self._write(g, self._next_unit(state))
            return True
        info["game_over"][g] = self._game_over(state)
        self._write(g, state)
        info["finished"].append(self._finished_game(g, state))
        terminated[g] = True
        self._over[g] = True
        if self.autoreset:
            self._start_game(g, self._next_seed(g))
            return True
        self.arrays.mask[g] = 0
        return False

    # ------------------------------------------------------------ API

    def reset(self, seed: int | list[int] | None = None):
        """Deal a new game in every row: seeds ``seed + i`` (an int), one per row (a
        list), or drawn at random (None). A bad seed raises before any row changes."""
        if seed is None:  # as the AEC env: a fresh generator's first game seed, per row
            seeds = [random.Random().getrandbits(62) for _ in range(self.num_envs)]
        elif isinstance(seed, (list, tuple, np.ndarray)):
            seeds = [check_seed(s, "reset") for s in seed]
            if len(seeds) != self.num_envs:
                raise ValueError(f"reset: {len(seeds)} seeds for {self.num_envs} games")
        else:
            first = check_seed(seed, "reset")
            seeds = [check_seed(first + i, "reset") for i in range(self.num_envs)]
        return self._deal(list(range(self.num_envs)), seeds)

    def step(self, actions):
        """Every row's acting seat makes ``actions[row]``; a row given ``WAIT`` (-1) does not
        move (its rewards are 0; a finished row without autoreset must wait). An illegal
        action raises ``IllegalAction`` naming its row, and no game moves."""
        if not self._ready:
            raise IllegalAction("call reset() before step()")
        acts = np.asarray(actions)
        if acts.shape != (self.num_envs,) or not np.issubdtype(acts.dtype, np.integer):
            raise IllegalAction(
                f"actions must be {self.num_envs} ints (one per game), got {np.shape(actions)} {acts.dtype}"
            )
        acts = acts.astype(np.int64)
        moving = acts != WAIT
        masks = self._masks()
        bad = moving & ((acts < 0) | (acts >= self.num_actions))
        if not bad.any():
            bad = moving & (masks[self._rows, np.where(moving, acts, 0)] == 0)
        if bad.any():
            g = int(np.flatnonzero(bad)[0])
            a = int(acts[g])
            names = ", ".join(self._action_name(i) for i in np.flatnonzero(masks[g]))
            legal = names or "none (the episode is over)"
            if 0 <= a < self.num_actions:
                what = f"{a} ({self._action_name(a)})"
            else:
                what = f"{a} (out of 0..{self.num_actions - 1})"
            raise IllegalAction(f"game {g}: action {what} is not legal now; legal: {legal}")
        rewards = np.zeros((self.num_envs, self.num_players))
        info = self._blank_info()
        terminated = self._run(np.where(moving, acts, SKIP), rewards, info)
        return self._result(rewards, terminated, info)

    def reset_rows(self, rows, seeds):
        """Deal a new game with ``seeds[j]`` in row ``rows[j]``; the other rows do not move
        (before any ``reset``, they wait over, with empty masks, until dealt). Each such
        row's later games draw their seeds from ``random.Random(seeds[j])``. Bad rows or
        seeds raise before any row changes."""
        rows = [check_row(r, self.num_envs) for r in rows]
        seeds = [check_seed(s, "reset_rows") for s in seeds]
        if len(rows) != len(seeds) or len(set(rows)) != len(rows):
            raise ValueError(f"reset_rows: rows must be distinct, one seed each; got rows {rows}, seeds {seeds}")
        if not self._ready:  # rows not dealt yet wait, over, for their own reset_rows
            self._wait_all()
        return self._deal(rows, seeds)

    def policy_moves(self, step, rows: Iterable[int], policy_at: Callable[[int, int], Any]) -> np.ndarray:
        """Actions for ``step(...)``: in each row of ``rows``, the action of the policy
        ``policy_at(row, seat)`` of its acting seat (None: that seat decides elsewhere);
        ``WAIT`` in every other row. Drivers of scripted seats (training's runner, the
        Gymnasium forms) call it until no row moves."""
        moves = np.full(self.num_envs, WAIT, np.int64)
        for r in rows:
            seat = int(step.to_play[r])
            policy = policy_at(r, seat)
            if policy is not None:
                moves[r] = self._policy_action(policy, r, seat, step.observation[r], step.action_mask[r])
        return moves

    def close(self) -> None:
        """Nothing to release."""

    # ------------------------------------------------------------ internals

    def _next_seed(self, g: int) -> int:
        """Row ``g``'s next episode's game seed (autoreset)."""
        return self._seed_rngs[g].getrandbits(62)

    def _deal(self, rows: list[int], seeds: list[int]):
        """New games in ``rows`` (seeds already checked), then every row's next decision."""
        seed_of = dict(zip(rows, seeds))

        def deal(g: int) -> int:
            self._seed_rngs[g] = random.Random(seed_of[g])
            return self._start_game(g, seed_of[g])

        return self._start_rows(rows, deal)

    def _load(self, rows: Iterable[int], states: Iterable[Any], checked: Callable, write: Callable):
        """The body of a game's ``load``: ``rows`` checked (in range, distinct, one state each),
        each state by ``checked(g, state)`` (it raises naming row ``g``, or returns the state to
        write), all before any row changes; then in each row the state written (``write(g,
        state)``), its later episodes seeded from the state's seed, and every row's next decision."""
        rows = [check_row(r, self.num_envs, "load") for r in rows]
        states = list(states)
        if len(rows) != len(states) or len(set(rows)) != len(rows):
            raise ValueError(f"load: rows must be distinct, one state each; got {len(rows)} rows, {len(states)} states")
        state_of = {g: checked(g, state) for g, state in zip(rows, states)}

        def put(g: int) -> int:
            state = state_of[g]
            self._seeds[g] = state.seed
            self._seed_rngs[g] = random.Random(state.seed)
            self._over[g] = False
            write(g, state)
            return 0  # its forced decisions are the kernel's, counted there

        if not self._ready:  # rows not loaded wait, over, for their own deal
            self._wait_all()
        return self._start_rows(rows, put)

    def _start_rows(self, rows: list[int], start: Callable[[int], int]):
        """``start(g)`` each row of ``rows`` (a deal, or a position put in it; it returns the
        automatic actions it took), then every row's next decision."""
        actions = np.full(self.num_envs, SKIP, np.int64)
        info = self._blank_info()
        for g in rows:
            info["num_auto_actions"][g] += start(g)
            actions[g] = DEALT
        rewards = np.zeros((self.num_envs, self.num_players))
        terminated = self._run(actions, rewards, info)
        self._ready = True
        return self._result(rewards, terminated, info)
