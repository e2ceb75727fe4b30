"""Any game's single-agent Gymnasium ``VectorEnv``: ``N`` games, one learning seat in each,
the other seats played by given policies, every game stepped by the game's compiled vector
env (a :class:`~carousel_env.envkit.vector.VectorDriver` made with ``autoreset=False``).

A game's form subclasses :class:`GymVectorEnv` and supplies the game:

* ``_make_vector_env(num_envs, config)``: its vector env (which raises its own config errors;
  by default the class ``vector_env`` made with them and ``autoreset=False``);
* ``resolve_opponent(spec, seed)``: as the single-agent env's hook
  (:mod:`carousel_env.envkit.gym_env`);
* ``info_keys``: the AEC env's info keys, as :class:`InfoKey` (how each sums over steps:
  :func:`info_keys_of`);
* ``action_name(action)``: for the messages of illegal actions;
* ``_single_observation_space()``: the AEC observation ``Box`` (by default in [0, 1], the
  size of the vector env's ``observation_layout``).

Each row is the game's single-agent env with the same options (``opponents``,
``learner_seat``, ``illegal_reward``, the env's configuration), row by row:

* Opponents: every row builds its own named policies (their random state is the row's); a
  policy object is shared by all rows.
* Seeds: ``reset(seed=s)`` makes row ``i`` what the single-agent env's ``reset(seed=s + i)``
  makes, and each later episode of the row what its ``reset()`` would deal: the row keeps a
  generator (``np_random[i]``) seeded like that env's and draws from it, per episode, the
  learner's seat (when ``"random"``) and then the game's seed; named opponents are rebuilt
  with the seeds ``s + i + j + 1``. A list gives each row its seed (None: unseeded);
  ``reset()`` without one goes on with the rows' generators.
* Reward: the learner's AEC reward from its action through the opponents' moves up to its
  next decision or the episode's end. An episode that ends before the learner decides is
  skipped (its next game dealt), and rewards before the learner's first decision are not
  paid, as in the single-agent env.
* Autoreset: ``metadata["autoreset_mode"]`` is ``AutoresetMode.NEXT_STEP``, as
  ``SyncVectorEnv`` does it. In the step where ``terminated[i]`` is True, ``obs[i]`` is the
  learner's view of the finished game and its mask is empty; the next step ignores
  ``actions[i]``, deals the row's next episode and returns its first observation with
  reward 0 and ``terminated[i]`` False. ``truncated`` is always False. ``reset(options=
  {"reset_mask": mask})`` deals new episodes in the rows of ``mask`` only.
* Illegal actions: with ``illegal_reward`` (-1) the row's episode ends with that reward;
  with ``None``, ``step`` raises ``IllegalAction`` naming the row before any row moves.
* Infos: Gymnasium's vector form, a dict of arrays each with a ``_key`` boolean array of
  the rows that have it: ``action_mask`` (N, actions) int8, ``learner_seat`` (N,), the AEC
  info keys summed over the AEC steps since the learner's last action (at a reset: since the
  deal; the single-agent env reports only the last AEC step's), and ``illegal_action`` in
  the rows that made one.
* ``action_masks()``: the current masks as booleans.

How: a step makes the learners' actions in one vector step, then gathers the opponents'
decisions of every row whose opponent is to act (Python: the policies are Python) and makes
them in one vector step, until every row waits for its learner or has ended.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, NamedTuple

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from carousel_env.core.errors import IllegalAction
from carousel_env.envkit.gym_env import RANDOM_SEAT, check_learner_seat, opponent_specs
from carousel_env.envkit.vector import WAIT, VectorDriver


class InfoKey(NamedTuple):
    """An AEC info key as the vector form sums it over the steps since the learner acted."""

    name: str
    per_seat: bool = False  # an (N, players) array, else (N,)
    flag: bool = False  # a bool, or-ed; else a count, added


def info_keys_of(names: tuple[str, ...]) -> tuple[InfoKey, ...]:
    """The vector form's info keys for an AEC env's ``info_keys`` (:class:`~carousel_env.envkit.aec.CardGameEnv`):
    automatic actions, units ended, points per seat, game over, then a game's own counts."""
    auto, ended, points, over, *counts = names
    return (
        InfoKey(auto),
        InfoKey(ended),
        InfoKey(points, per_seat=True),
        InfoKey(over, flag=True),
        *map(InfoKey, counts),
    )


class GymVectorEnv(VectorEnv):
    """``num_envs`` single-agent games of one game as a Gymnasium ``VectorEnv`` (see the
    module docstring); subclasses supply the game's hooks."""

    info_keys: tuple[InfoKey, ...] = ()

    def __init__(
        self,
        num_envs: int,
        opponents: object = "random",
        learner_seat: int | str = 0,
        illegal_reward: float | None = -1.0,
        **config: object,
    ) -> None:
        self.venv = self._make_vector_env(num_envs, config)
        n = self.venv.num_players
        self.learner_seat = check_learner_seat(learner_seat, n)
        self.illegal_reward = illegal_reward
        self._specs = opponent_specs(opponents, n)
        # ``opponents[row][j]``, per row: a named policy keeps random state, and a row must
        # replay the single-agent env's game whatever the others do.
        self.opponents = [[self.resolve_opponent(spec) for spec in self._specs] for _ in range(num_envs)]

        self.num_envs = num_envs
        self.num_players = n
        self.metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP}
        self.render_mode = None
        self.single_observation_space = self._single_observation_space()
        self.single_action_space = spaces.Discrete(self.venv.num_actions)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)

        self._rngs: list[np.random.Generator | None] = [None] * num_envs
        self._rng_seeds: list[int | None] = [None] * num_envs
        self._seat = np.zeros(num_envs, np.int64)
        self._obs = np.zeros((num_envs, *self.single_observation_space.shape), np.float32)
        self._mask = np.zeros((num_envs, self.venv.num_actions), np.int8)
        self._autoreset = np.zeros(num_envs, np.bool_)  # the row's episode ended in the last step
        self._started = False
        # Since each row's learner last acted (or its episode was dealt): its reward, the
        # AEC infos summed, whether the episode ended, and the ended game.
        self._reward = np.zeros(num_envs)
        self._info = {key.name: self._blank(key) for key in self.info_keys}
        self._ended = np.zeros(num_envs, np.bool_)
        self._finished: dict[int, Any] = {}
        self._snap: Any = None

    # ------------------------------------------------------------ hooks

    vector_env: ClassVar[type[VectorDriver]]  # the game's vector env, for the default ``_make_vector_env``

    def _make_vector_env(self, num_envs: int, config: dict[str, object]) -> VectorDriver:
        return self.vector_env(num_envs, autoreset=False, **config)

    @staticmethod
    def resolve_opponent(spec: Any, seed: int | None = None) -> Any:
        raise NotImplementedError

    @staticmethod
    def action_name(action: int) -> str:
        raise NotImplementedError

    def _single_observation_space(self) -> spaces.Box:
        return spaces.Box(0.0, 1.0, (self.venv.observation_layout.size,), dtype=np.float32)

    # ------------------------------------------------------------ Gymnasium API

    def reset(self, *, seed: int | Sequence[int | None] | None = None, options: dict[str, Any] | None = None):
        """Deal a new episode in every row (or in the rows of ``options["reset_mask"]``);
        ``seed``: an int (row ``i`` gets ``seed + i``), one int or None per row, or None."""
        n = self.num_envs
        if seed is None:
            seeds: list[int | None] = [None] * n
        elif isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
            seeds = [int(seed) + i for i in range(n)]
        elif isinstance(seed, (list, tuple, np.ndarray)) and len(seed) == n:
            seeds = [None if s is None else int(s) for s in seed]
        else:
            raise ValueError(f"reset: seed must be an int, {n} ints or Nones, or None; got {seed!r}")
        rows = np.ones(n, np.bool_)
        if options and "reset_mask" in options:
            rows = np.asarray(options["reset_mask"])
            if rows.shape != (n,) or rows.dtype != np.bool_ or not rows.any():
                raise ValueError(f"reset: options['reset_mask'] must be {n} bools, some True; got {rows!r}")
            if not self._started:
                raise ValueError("reset: the first reset deals every row (no reset_mask)")
        which = np.flatnonzero(rows)
        for r in which.tolist():
            s = seeds[r]
            if s is not None:
                self._rngs[r], self._rng_seeds[r] = seeding.np_random(s)
                # Opponents with randomness follow the episode seed, as in the single-agent env.
                self.opponents[r] = [self.resolve_opponent(spec, s + j + 1) for j, spec in enumerate(self._specs)]
            elif self._rngs[r] is None:
                self._rngs[r], self._rng_seeds[r] = seeding.np_random()
        self._begin(rows)
        for r in which.tolist():
            self._draw_seat(r)
        self._deal(which, first=not self._started or rows.all())
        self._started = True
        self._play_opponents(rows)
        self._redeal(which)
        self._autoreset[rows] = False
        self._publish(rows, np.zeros(n, np.bool_))
        return self._obs.copy(), self._infos(rows, np.zeros(n, np.bool_), None)

    def step(self, actions):
        """The learner's action in every row (ignored in a row whose episode ended in the last
        step: that row starts its next episode)."""
        if not self._started:
            raise IllegalAction("call reset() before step()")
        n, num_actions = self.num_envs, self.venv.num_actions
        acts = np.asarray(actions)
        if acts.shape != (n,) or not np.issubdtype(acts.dtype, np.integer):
            raise IllegalAction(f"actions must be {n} ints (one per row), got {np.shape(actions)} {acts.dtype}")
        acts = acts.astype(np.int64)
        live = ~self._autoreset
        in_range = (acts >= 0) & (acts < num_actions)
        illegal = live & ~(in_range & (self._mask[np.arange(n), np.where(in_range, acts, 0)] != 0))
        if illegal.any() and self.illegal_reward is None:
            r = int(np.flatnonzero(illegal)[0])
            raise IllegalAction(self._illegal_message(r, int(acts[r])))
        acting = live & ~illegal
        redeal = self._autoreset.copy()
        self._begin(acting | redeal | illegal)
        for r in np.flatnonzero(redeal).tolist():
            self._draw_seat(r)
        if redeal.any():
            self._deal(np.flatnonzero(redeal), first=False)
        if acting.any():
            self._venv_call(self.venv.step, np.where(acting, acts, WAIT))
        self._play_opponents(acting | redeal)
        self._redeal(np.flatnonzero(redeal))
        # A new episode's first step pays nothing (NEXT_STEP); the single-agent env's reset
        # drops the rewards before the learner's first decision too.
        self._reward[redeal] = 0.0
        if illegal.any():  # (only with an illegal_reward: without one, illegal actions raised above)
            self._reward[illegal] = self.illegal_reward
        ended = (acting & self._ended) | illegal
        self._publish(acting | redeal, ended)
        for r in np.flatnonzero(acting & self._ended).tolist():
            self._obs[r] = self._final_observation(r)
        self._mask[ended] = 0
        self._autoreset = ended
        infos = self._infos(np.ones(n, np.bool_), illegal, acts)
        return self._obs.copy(), self._reward.copy(), ended.copy(), np.zeros(n, np.bool_), infos

    def action_masks(self) -> np.ndarray:
        """The learners' legal actions, (N, actions) booleans (empty in rows whose episode
        just ended)."""
        return self._mask.astype(bool)

    @property
    def np_random(self) -> tuple[np.random.Generator | None, ...]:  # type: ignore[override]
        """Each row's generator (its learner seats and game seeds), as ``SyncVectorEnv``
        gives its envs' generators."""
        return tuple(self._rngs)

    @property
    def np_random_seed(self) -> tuple[int | None, ...]:  # type: ignore[override]
        return tuple(self._rng_seeds)

    def close_extras(self, **kwargs: Any) -> None:
        # Gymnasium closes in ``__del__``, also after ``__init__`` failed before the vector env.
        if hasattr(self, "venv"):
            self.venv.close()

    # ------------------------------------------------------------ internals

    def _blank(self, key: InfoKey) -> np.ndarray:
        shape = (self.num_envs, self.num_players) if key.per_seat else (self.num_envs,)
        return np.zeros(shape, np.bool_ if key.flag else np.int64)

    def _begin(self, rows: np.ndarray) -> None:
        """The learner of ``rows`` acts (or their episodes are dealt): start collecting anew."""
        self._reward[rows] = 0.0
        for value in self._info.values():
            value[rows] = 0
        self._ended[rows] = False

    def _draw_seat(self, r: int) -> None:
        seat = self.learner_seat
        self._seat[r] = int(self._rngs[r].integers(self.num_players)) if seat == RANDOM_SEAT else seat

    def _deal(self, rows: np.ndarray, first: bool) -> None:
        """Deal ``rows`` a game each, seeded from the row's generator (after its seat)."""
        seeds = [int(self._rngs[r].integers(2**62)) for r in rows.tolist()]
        if first:  # the vector env deals every row in its reset, and needs one before reset_rows
            self._venv_call(self.venv.reset, seeds)
        else:
            self._venv_call(self.venv.reset_rows, rows, seeds)

    def _redeal(self, rows: np.ndarray) -> None:
        """Rows among ``rows`` whose new episode ended before the learner decided get another
        game (the single-agent env's reset loop: a new seed, the same seat), until none."""
        pending = rows[self._ended[rows]]
        while len(pending):
            mask = np.zeros(self.num_envs, np.bool_)
            mask[pending] = True
            self._begin(mask)
            self._deal(pending, first=False)
            self._play_opponents(mask)
            pending = pending[self._ended[pending]]

    def _venv_call(self, method, *args) -> None:
        """Call the vector env; collect every row's learner reward, infos and ended games.
        Rows that did not move report zeros, so collecting from every row is exact."""
        snap = method(*args)
        self._reward += snap.rewards[np.arange(self.num_envs), self._seat]
        for key in self.info_keys:
            value = getattr(snap.info, key.name)
            if key.flag:
                self._info[key.name] |= value
            else:
                self._info[key.name] += value
        self._ended |= snap.terminated
        for finished in snap.info.finished:
            self._finished[finished.env] = finished
        self._snap = snap

    def _opponent(self, r: int, seat: int) -> Any:
        """Row ``r``'s policy at ``seat`` (its opponents are listed in seat order after the learner)."""
        return self.opponents[r][(seat - int(self._seat[r]) - 1) % self.num_players]

    def _play_opponents(self, rows: np.ndarray) -> None:
        """Step the opponents of ``rows`` (all rows that must move together, one vector step
        per round of decisions) until each waits for its learner or has ended."""
        while True:
            snap = self._snap
            turn = rows & ~self._ended & (snap.to_play != self._seat)
            if not turn.any():
                return
            actions = self.venv.policy_moves(snap, np.flatnonzero(turn).tolist(), self._opponent)
            self._venv_call(self.venv.step, actions)

    def _publish(self, rows: np.ndarray, ended: np.ndarray) -> None:
        """The observations and masks of ``rows`` after a step (the learner's to decide)."""
        snap = self._snap
        take = rows & ~ended
        self._obs[take] = snap.observation[take]
        self._mask[take] = snap.action_mask[take]

    def _final_observation(self, r: int) -> np.ndarray:
        """The learner's observation of row ``r``'s finished game, as the AEC env shows it."""
        return self._finished[r].observations[int(self._seat[r])]

    def _infos(self, rows: np.ndarray, illegal: np.ndarray, actions: np.ndarray | None) -> dict[str, np.ndarray]:
        """Gymnasium's vector infos: each key's array and ``_key``, the rows that have it."""
        infos: dict[str, np.ndarray] = {}

        def add(key: str, value: np.ndarray, present: np.ndarray) -> None:
            infos[key] = np.where(present.reshape(-1, *[1] * (value.ndim - 1)), value, 0).astype(value.dtype)
            infos[f"_{key}"] = present.copy()

        for key in self.info_keys:
            add(key.name, self._info[key.name], rows)
        add("action_mask", self._mask, rows)
        add("learner_seat", self._seat, rows)
        if illegal.any():
            add("illegal_action", actions, illegal)
        return infos

    def _illegal_message(self, r: int, a: int) -> str:
        legal = ", ".join(self.action_name(i) for i in np.flatnonzero(self._mask[r]))
        if not 0 <= a < self.venv.num_actions:
            return f"row {r}: action must be an int in 0..{self.venv.num_actions - 1}, got {a}"
        return f"row {r}: action {a} ({self.action_name(a)}) is not legal now; legal: {legal}"


__all__ = ["GymVectorEnv", "InfoKey"]
