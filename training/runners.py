"""Game copies for training, stepped in the learner process or in worker processes.

* ``Runner`` steps a set of AEC environment copies. Seats controlled by a scripted policy
  act right there (a view policy such as ``search@N`` gets its seat's view of the copy's
  engine state, through the match runner's loop). A seat controlled by a network stops the
  copy and is reported back, so network decisions are batched across copies
  (``episodes.act_batched``).
* ``VectorRunner`` does the same over one compiled vector env of the game (Carousel's
  ``CarouselVectorEnv``, Gin Rummy's ``GinVectorEnv``): each step moves every copy that has
  an action in one compiled call. It plays the very same games as ``Runner``
  (``tests/test_training_vector.py``) and is what training uses for the package's own envs;
  ``Runner`` remains for other env factories (the tests' stand-in).
  One difference, never met with actions drawn from the masks: an illegal action raises
  there (a ``WorkerFailure`` from a worker), where the wrapped AEC env ends the episode.
* ``Driver`` owns the runners: one in-process (``num_workers=0``) or one per worker
  process. Its ``step`` hands network actions out and gathers the next decision points.

``Runner`` steps a copy with the family's stepping loop (``carousel_env.envkit.episodes``), the
game's policies acting through ``training.games``, and a finished episode leaves the same
``EpisodeResult`` (``VectorRunner`` too); this driver exists beside the match runners because
network seats here wait to be decided in batches, in other processes too.

All randomness comes from the learner process (episode seeds, opponent draws, action
samples) or is seeded from an episode's seed (scripted policies), so results do not
depend on ``num_workers``.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import sys
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import torch

from carousel_env.core.registry import vector_env_class
from carousel_env.envkit.episodes import Episode, EpisodeResult, advance_to_decision
from carousel_env.envkit.vector import WAIT
from training.envs import DEFAULT_ENV_FACTORY, EnvSpec, make_env
from training.games import FamilyGame, training_game
from training.policies import Controller, ControllerKind, scripted_player

Policy = Any  # a game's scripted policy, as ``training.games`` resolves and plays it


@dataclass(frozen=True)
class Report:
    """What a game copy says after a step: each seat's rewards since the copy's last
    report, the actions taken in it, then either the next network decision (``seat``,
    its ``controller``, ``obs``, ``mask`` and, where the runner was asked for them, the
    ``hidden`` cards that seat cannot see: ``FamilyGame.hidden_cards``) or, once the
    episode is over, its ``result``."""

    env: int
    rewards: np.ndarray
    env_steps: int
    seat: int | None = None
    controller: Controller | None = None
    obs: np.ndarray | None = None
    mask: np.ndarray | None = None
    result: EpisodeResult[Controller] | None = None
    hidden: np.ndarray | None = None

    @property
    def done(self) -> bool:
        return self.result is not None


def scripted_policies(game: FamilyGame, episode: Episode[Controller]) -> dict[int, Policy]:
    """The episode's scripted seats' policies, by seat. Seeded from the episode, so that
    their play does not depend on which process runs them."""
    return {
        seat: scripted_player(game.name, c.name, episode.seed + seat)
        for seat, c in enumerate(episode.controllers)
        if c.kind is ControllerKind.SCRIPTED
    }


class Runner:
    def __init__(self, env_spec: EnvSpec, env_ids: list[int], hidden: bool = False) -> None:
        self.game = training_game(env_spec.game)
        self.hidden = hidden
        self.env_ids = list(env_ids)
        self.envs = {i: make_env(env_spec) for i in self.env_ids}
        self.n = env_spec.num_players
        self.episodes: dict[int, Episode[Controller]] = {}
        self.returns: dict[int, np.ndarray] = {}
        self.scripted: dict[int, dict[int, Policy]] = {}  # per game copy: seat -> scripted policy

    def step(self, actions: dict[int, int], resets: dict[int, Episode[Controller]]) -> list[Report]:
        reports = []
        for i, action in actions.items():
            self.envs[i].step(int(action))
            reports.append(self._advance(i, steps=1))
        for i, episode in resets.items():
            self.episodes[i] = episode
            self.scripted[i] = scripted_policies(self.game, episode)
            self.returns[i] = np.zeros(self.n)
            self.envs[i].reset(seed=episode.seed)
            reports.append(self._advance(i, steps=0))
        return reports

    def _advance(self, i: int, steps: int) -> Report:
        """Run scripted seats until a network seat must decide or the episode ends."""
        rewards = np.zeros(self.n)
        decision, scripted_steps = advance_to_decision(self.envs[i], self.scripted[i], rewards, self.game.act)
        steps += scripted_steps
        self.returns[i] += rewards  # every report's rewards: a game pays at each round's end
        episode = self.episodes[i]
        if decision is not None:
            seat = decision.seat
            hidden = self.game.hidden_cards(self.envs[i].unwrapped.game_state, seat) if self.hidden else None
            return Report(
                i,
                rewards,
                steps,
                seat,
                episode.controllers[seat],
                decision.observation,
                decision.action_mask,
                hidden=hidden,
            )
        result = self.game.result(episode, self.returns[i], self.envs[i])
        return Report(i, rewards, steps, result=result)

    def close(self) -> None:
        for env in self.envs.values():
            env.close()


class VectorRunner:
    """``Runner`` over one vector env: the copies' network actions move together, then the
    scripted seats' (each copy's policy decides in Python, all copies step at once) until
    every copy touched waits for a network seat or has finished its episode."""

    def __init__(self, env_spec: EnvSpec, env_ids: list[int], hidden: bool = False) -> None:
        self.game = training_game(env_spec.game)
        self.hidden = hidden
        self.env_ids = list(env_ids)
        self.row = {e: r for r, e in enumerate(self.env_ids)}
        self.venv = vector_env_class(env_spec.game)(len(self.env_ids), autoreset=False, **env_spec.kwargs())
        self.n = env_spec.num_players
        self.last: Any = None  # the vector env's last step (its VectorStep)
        self.episodes: dict[int, Episode[Controller]] = {}
        self.returns: dict[int, np.ndarray] = {}
        self.scripted: dict[int, dict[int, Policy]] = {}

    def step(self, actions: dict[int, int], resets: dict[int, Episode[Controller]]) -> list[Report]:
        rewards = {e: np.zeros(self.n) for e in (*actions, *resets)}
        steps = {e: 0 for e in rewards}
        finished: dict[int, Any] = {}  # the vector env's finished games, by game copy
        if actions:
            moves = np.full(len(self.env_ids), WAIT, np.int64)
            for e, action in actions.items():
                moves[self.row[e]] = action
                steps[e] += 1
            self._take(self.venv.step(moves), rewards, finished)
        if resets:
            for e, episode in resets.items():
                self.episodes[e] = episode
                self.scripted[e] = scripted_policies(self.game, episode)
                self.returns[e] = np.zeros(self.n)
            rows = [self.row[e] for e in resets]
            self._take(self.venv.reset_rows(rows, [ep.seed for ep in resets.values()]), rewards, finished)
        while True:  # the scripted seats, until every copy touched waits for a network seat
            rows = [self.row[e] for e in rewards if e not in finished]
            moves = self.venv.policy_moves(self.last, rows, self._scripted_at)
            moving = moves != WAIT
            if not moving.any():
                break
            for e in rewards:
                steps[e] += int(moving[self.row[e]])
            self._take(self.venv.step(moves), rewards, finished)
        return [self._report(e, rewards[e], steps[e], finished.get(e)) for e in rewards]

    def _scripted_at(self, row: int, seat: int) -> Policy | None:
        return self.scripted[self.env_ids[row]].get(seat)

    def _take(self, step: Any, rewards: dict[int, np.ndarray], finished: dict[int, Any]) -> None:
        self.last = step
        for e in rewards:
            rewards[e] += step.rewards[self.row[e]]
        for game in step.info.finished:
            finished[self.env_ids[game.env]] = game

    def _report(self, e: int, rewards: np.ndarray, steps: int, game: Any) -> Report:
        self.returns[e] += rewards
        episode = self.episodes[e]
        if game is None:
            r = self.row[e]
            seat = int(self.last.to_play[r])
            obs, mask = self.last.observation[r], self.last.action_mask[r]
            hidden = self.game.hidden_cards(self.venv.game_state(r), seat) if self.hidden else None
            return Report(e, rewards, steps, seat, episode.controllers[seat], obs, mask, hidden=hidden)
        result = self.game.finished_result(episode, self.returns[e], game)
        return Report(e, rewards, steps, result=result)

    def close(self) -> None:
        self.venv.close()


def make_runner(env_spec: EnvSpec, env_ids: list[int], hidden: bool = False) -> Runner | VectorRunner:
    """The vector runner for the package's own envs (unless ``env_spec.vector`` is False),
    the AEC runner for any other factory; ``hidden``: reports carry the hidden cards."""
    if _vectorized(env_spec):
        return VectorRunner(env_spec, env_ids, hidden)
    return Runner(env_spec, env_ids, hidden)


def _vectorized(env_spec: EnvSpec) -> bool:
    return env_spec.vector and env_spec.factory == DEFAULT_ENV_FACTORY


@dataclass(frozen=True)
class WorkerFailure:
    """A worker's exception, sent back so that the learner fails with the real cause."""

    message: str


class WorkerAnswer(NamedTuple):
    """A worker's step: its copies' reports, and its process's solves so far that were not
    proven exact (Carousel's solver; ``FamilyGame.solver_inexact``)."""

    reports: list[Report]
    solver_inexact: int


def _worker(conn, env_spec: EnvSpec, env_ids: list[int], hidden: bool) -> None:
    """A worker's loop: ``(actions, resets)`` in, a :class:`WorkerAnswer` out; None closes."""
    torch.set_num_threads(1)
    runner = make_runner(env_spec, env_ids, hidden)
    inexact = training_game(env_spec.game).solver_inexact
    while (step := conn.recv()) is not None:
        try:
            conn.send(WorkerAnswer(runner.step(*step), inexact()))
        except Exception as exc:
            conn.send(WorkerFailure(f"{type(exc).__name__}: {exc}"))
    runner.close()
    conn.close()


# A worker that has not answered one step after this long is named on stderr, with the
# games it holds (their seeds and decision numbers, enough to replay the position), then
# again every as long: a step is milliseconds, and a solve at most its time budget.
STALL_NOTICE_S = 60.0


class Driver:
    """Game copies ``0..num_envs-1``, stepped in-process or split over worker processes;
    ``hidden``: each network decision's report carries the cards its seat cannot see."""

    def __init__(self, env_spec: EnvSpec, num_envs: int, num_workers: int = 0, hidden: bool = False) -> None:
        self.env_spec = env_spec
        self.num_envs = num_envs
        self.game = training_game(env_spec.game)
        self._seeds: dict[int, int] = {}  # each game copy's episode seed, for stall notices
        self._decisions: dict[int, int] = {}  # steps each copy has been sent since its deal
        self._inexact_at = self.game.solver_inexact()  # this process's count before the first step
        self._worker_inexact = [0] * num_workers
        self.local: Runner | VectorRunner | None = None
        self.workers: list[tuple[Any, Any, list[int]]] = []
        # The game's compiled code, before the first step (Carousel's, on a cold cache: two
        # parts at once, see its solver's compile_ahead), not in the middle of the first
        # update; and once, here: workers then load it from numba's cache, rather than each
        # compiling it at once.
        if env_spec.factory == DEFAULT_ENV_FACTORY:
            self.game.compile_ahead(env_spec.kwargs(), _vectorized(env_spec))
        if num_workers == 0:
            self.local = make_runner(env_spec, list(range(num_envs)), hidden)
            return
        # spawn, not fork: forking a process that has started torch's threads can deadlock.
        ctx = mp.get_context("spawn")
        for w in range(num_workers):
            ids = list(range(w, num_envs, num_workers))
            parent, child = ctx.Pipe()
            proc = ctx.Process(target=_worker, args=(child, env_spec, ids, hidden), daemon=True)
            proc.start()
            child.close()
            self.workers.append((proc, parent, ids))

    def step(self, actions: dict[int, int], resets: dict[int, Episode[Controller]]) -> list[Report]:
        for i, episode in resets.items():
            self._seeds[i], self._decisions[i] = episode.seed, 0
        for i in actions:
            self._decisions[i] = self._decisions.get(i, 0) + 1
        if self.local is not None:
            reports = self.local.step(actions, resets)
        else:
            for _, conn, ids in self.workers:
                mine = set(ids)
                conn.send(
                    ({i: a for i, a in actions.items() if i in mine}, {i: e for i, e in resets.items() if i in mine})
                )
            reports = []
            for w, (_, conn, ids) in enumerate(self.workers):
                try:
                    answer = self._receive(w, conn, ids, actions, resets)
                except (EOFError, ConnectionError):
                    raise RuntimeError("a worker process died (see its traceback above)") from None
                if isinstance(answer, WorkerFailure):
                    raise RuntimeError(f"worker failed: {answer.message}")
                reports.extend(answer.reports)
                self._worker_inexact[w] = answer.solver_inexact
        return sorted(reports, key=lambda r: r.env)  # a fixed order keeps runs reproducible

    @property
    def solver_inexact(self) -> int:
        """Solves of every step so far, in this process and the workers, whose answer the
        solver could not prove exact within its time budget (0 in the shipped agents' games)."""
        return self.game.solver_inexact() - self._inexact_at + sum(self._worker_inexact)

    def _receive(self, w: int, conn: Any, ids: list[int], actions: dict, resets: dict) -> Any:
        """Worker ``w``'s answer; while it is late, a line on stderr every ``STALL_NOTICE_S``
        naming the games of ``ids`` it was stepping (those with an action or a reset)."""
        waited = 0.0
        while not conn.poll(STALL_NOTICE_S):
            waited += STALL_NOTICE_S
            stepped = [i for i in ids if i in actions or i in resets]
            print(self.stall_notice(w, waited, stepped), file=sys.stderr, flush=True)
        return conn.recv()

    def stall_notice(self, worker: int, waited: float, games: list[int]) -> str:
        """The line said when ``worker`` has not answered a step of ``games`` for ``waited`` s."""
        where = ", ".join(
            f"copy {i} (seed {self._seeds.get(i, '?')}, decision {self._decisions.get(i, 0)})" for i in games
        )
        return (
            f"carousel: worker {worker} has spent {waited:.0f} s on one step of {where or 'no game'}; "
            "still waiting (a step plays the scripted seats up to a network's decision, so whole games where no "
            "network sits, as a search player's can take minutes; a seed and decision number replay the position)"
        )

    def close(self) -> None:
        if self.local is not None:
            self.local.close()
        for proc, conn, _ in self.workers:
            with contextlib.suppress(BrokenPipeError, OSError):
                conn.send(None)
            proc.join(timeout=5)
            if proc.is_alive():
                proc.terminate()
        self.workers = []
