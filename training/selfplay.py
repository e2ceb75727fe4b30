"""Self-play plumbing: game copies (in-process or in worker processes), the opponent pool
with prioritised fictitious self-play, and per-seat trajectory collection.

Who does what:

* ``Runner`` steps a set of AEC environment copies. Seats controlled by a scripted baseline
  act right there (a baseline may read its environment). A seat controlled by a network
  stops the copy and is reported back, so network decisions are batched across copies.
* ``Driver`` owns the runners: one in-process (``num_workers=0``) or one per worker
  process. Its ``step`` hands network actions out and gathers the next decision points.
* ``collect_rollout`` plays episodes until the learner has made ``target`` decisions, then
  finishes the running episodes (starting no new ones), so every trajectory in a batch is
  complete and on-policy, and nothing about the environments survives between updates
  (which is what makes ``--resume`` exact).

Rewards: PettingZoo's ``last()`` returns what a seat earned since its own previous action
(also when it is stepped out after the episode ends). That reward is added to the seat's
previous transition, so rewards land on the seat that earned them even though they arrive
after other seats act.

All randomness comes from the learner process (episode seeds, opponent draws, action
samples) or is seeded from an episode's seed (scripted baselines), so results do not
depend on ``num_workers``.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from training import checkpoint
from training.envs import EnvSpec, game_totals, game_winner, make_env, round_records, seat_of
from training.network import Agent
from training.policies import NetworkPolicy, make_scripted

LEARNER = "learner"


@dataclass(frozen=True)
class EpisodeSpec:
    """One episode: its deal seed and who controls each seat.

    Controllers: ``"learner"``, ``"script:<baseline>"``, or any other key of the network
    policies passed to the driver's caller (``"pool:<id>"``, ``"net:<name>"``)."""

    seed: int
    controllers: tuple[str, ...]
    tag: Any = None


@dataclass
class Report:
    """What a game copy says after a step: rewards per seat since the last report, then
    either the next network decision (seat, observation, mask) or the episode's end."""

    env: int
    rewards: np.ndarray
    env_steps: int
    seat: int | None = None
    controller: str = ""
    obs: np.ndarray | None = None
    mask: np.ndarray | None = None
    summary: dict | None = None

    @property
    def done(self) -> bool:
        return self.seat is None


class Runner:
    def __init__(self, env_spec: EnvSpec, env_ids: list[int]) -> None:
        self.env_ids = list(env_ids)
        self.envs = {i: make_env(env_spec) for i in self.env_ids}
        self.n = env_spec.num_players
        self.specs: dict[int, EpisodeSpec] = {}
        self.returns: dict[int, np.ndarray] = {}
        self.scripted: dict[int, dict[int, Any]] = {}  # per game copy: seat -> baseline

    def step(self, actions: dict[int, int], resets: dict[int, EpisodeSpec]) -> list[Report]:
        reports = []
        for i, action in actions.items():
            self.envs[i].step(int(action))
            reports.append(self._advance(i, steps=1))
        for i, spec in resets.items():
            self.specs[i] = spec
            # Baselines are seeded from the episode, so their play does not depend on which
            # process runs them.
            self.scripted[i] = {
                s: make_scripted(c.split(":", 1)[1], seed=spec.seed + s)
                for s, c in enumerate(spec.controllers)
                if c.startswith("script:")
            }
            self.returns[i] = np.zeros(self.n)
            self.envs[i].reset(seed=spec.seed)
            reports.append(self._advance(i, steps=0))
        return reports

    def _advance(self, i: int, steps: int) -> Report:
        """Run scripted seats and episode-end bookkeeping until a network seat must decide."""
        env = self.envs[i]
        rewards = np.zeros(self.n)
        while env.agents:
            agent = env.agent_selection
            seat = seat_of(agent)
            obs, reward, terminated, truncated, _ = env.last()
            rewards[seat] += reward
            if terminated or truncated:
                env.step(None)
                continue
            controller = self.specs[i].controllers[seat]
            if not controller.startswith("script:"):
                return Report(i, rewards, steps, seat, controller, obs["observation"], obs["action_mask"])
            env.step(int(self.scripted[i][seat](obs["observation"], obs["action_mask"])))
            steps += 1
        self.returns[i] += rewards
        summary = {
            "returns": (self.returns[i] + 0).tolist(),
            "rounds": round_records(env),
            "totals": game_totals(env),
            "winner": game_winner(env),
            "spec": self.specs[i],
        }
        return Report(i, rewards, steps, summary=summary)

    def close(self) -> None:
        for env in self.envs.values():
            env.close()


def _worker(conn, env_spec: EnvSpec, env_ids: list[int]) -> None:
    torch.set_num_threads(1)
    runner = Runner(env_spec, env_ids)
    while True:
        command, payload = conn.recv()
        if command == "close":
            runner.close()
            conn.close()
            return
        try:
            conn.send(("ok", runner.step(*payload)))
        except Exception as exc:  # sent back so the learner fails with the real cause
            conn.send(("error", f"{type(exc).__name__}: {exc}"))


class Driver:
    """Game copies ``0..num_envs-1``, stepped in-process or split over worker processes."""

    def __init__(self, env_spec: EnvSpec, num_envs: int, num_workers: int = 0) -> None:
        self.num_envs = num_envs
        self.local: Runner | None = None
        self.workers: list[tuple[Any, Any, list[int]]] = []
        if num_workers == 0:
            self.local = Runner(env_spec, list(range(num_envs)))
            return
        # spawn, not fork: forking a process that has started torch's threads can deadlock.
        ctx = mp.get_context("spawn")
        for w in range(num_workers):
            ids = list(range(w, num_envs, num_workers))
            parent, child = ctx.Pipe()
            proc = ctx.Process(target=_worker, args=(child, env_spec, ids), daemon=True)
            proc.start()
            child.close()
            self.workers.append((proc, parent, ids))

    def step(self, actions: dict[int, int], resets: dict[int, EpisodeSpec]) -> list[Report]:
        if self.local is not None:
            reports = self.local.step(actions, resets)
        else:
            for _, conn, ids in self.workers:
                mine = set(ids)
                conn.send(
                    (
                        "step",
                        (
                            {i: a for i, a in actions.items() if i in mine},
                            {i: s for i, s in resets.items() if i in mine},
                        ),
                    )
                )
            reports = []
            for _, conn, _ in self.workers:
                try:
                    status, payload = conn.recv()
                except (EOFError, ConnectionError):
                    raise RuntimeError("a worker process died (see its traceback above)") from None
                if status == "error":
                    raise RuntimeError(f"worker failed: {payload}")
                reports.extend(payload)
        return sorted(reports, key=lambda r: r.env)  # a fixed order keeps runs reproducible

    def close(self) -> None:
        if self.local is not None:
            self.local.close()
        for proc, conn, _ in self.workers:
            with contextlib.suppress(BrokenPipeError, OSError):
                conn.send(("close", None))
            proc.join(timeout=5)
            if proc.is_alive():
                proc.terminate()
        self.workers = []


def play_episodes(driver: Driver, specs: list[EpisodeSpec], policies: dict[str, NetworkPolicy]) -> list[dict]:
    """Play every spec (network seats batched per policy); the summaries in spec order."""
    queue = list(enumerate(specs))[::-1]
    running: dict[int, int] = {}  # game copy -> index of the spec it plays
    results: list[dict] = [{}] * len(specs)
    actions: dict[int, int] = {}
    resets: dict[int, EpisodeSpec] = {}
    while True:
        for i in range(driver.num_envs):
            if i not in running and queue:
                k, spec = queue.pop()
                running[i] = k
                resets[i] = spec
        if not actions and not resets:
            return results
        pending = {}
        for rep in driver.step(actions, resets):
            if rep.done:
                results[running.pop(rep.env)] = rep.summary
            else:
                pending[rep.env] = rep
        resets = {}
        actions = act_batched(pending, policies)


def act_batched(pending: dict[int, Report], policies: dict[str, NetworkPolicy]) -> dict[int, int]:
    """Actions for every pending decision, one forward pass per policy."""
    groups: dict[str, list[Report]] = {}
    for rep in pending.values():
        groups.setdefault(rep.controller, []).append(rep)
    actions = {}
    for key in sorted(groups):
        reps = groups[key]
        acts = policies[key].act(np.stack([r.obs for r in reps]), np.stack([r.mask for r in reps]))
        actions.update({r.env: int(a) for r, a in zip(reps, acts)})
    return actions


# ---------------------------------------------------------------- opponent pool (PFSP)


@dataclass
class PoolEntry:
    id: str
    path: str
    update: int
    games: float = 0.0
    learner_wins: float = 0.0

    def learner_win_rate(self) -> float:
        # Laplace prior: a fresh entry counts as even, never as certainly beaten or unbeaten.
        return (self.learner_wins + 1.0) / (self.games + 2.0)


@dataclass
class OpponentPool:
    """Frozen past versions of the learner, saved under ``directory``."""

    directory: Path
    max_size: int
    entries: list[PoolEntry] = field(default_factory=list)
    _cache: dict[str, NetworkPolicy] = field(default_factory=dict, repr=False)

    def add(self, agent: Agent, update: int) -> PoolEntry:
        entry = PoolEntry(id=f"u{update:06d}", path=f"pool/u{update:06d}.pt", update=update)
        checkpoint.atomic_torch_save(checkpoint.make(agent, agent.spec(), update=update), self.directory / entry.path)
        self.entries = [e for e in self.entries if e.id != entry.id] + [entry]
        while len(self.entries) > self.max_size:
            self.entries.pop(0)  # the oldest goes first: it is the easiest to beat
        return entry

    def weights(self, power: float) -> np.ndarray:
        """PFSP: opponents the learner beats less often are drawn more often."""
        w = np.array([(1.0 - e.learner_win_rate()) ** power for e in self.entries])
        return w / w.sum()

    def sample(self, rng: np.random.Generator, power: float) -> PoolEntry:
        return self.entries[int(rng.choice(len(self.entries), p=self.weights(power)))]

    def record(self, entry_id: str, learner_score: float) -> None:
        for e in self.entries:
            if e.id == entry_id:
                e.games += 1.0
                e.learner_wins += learner_score

    def policies(self, greedy: bool = False) -> dict[str, NetworkPolicy]:
        live = {e.id for e in self.entries}
        self._cache = {k: v for k, v in self._cache.items() if k in live}
        for e in self.entries:
            if e.id not in self._cache:
                path = self.directory / e.path
                self._cache[e.id] = NetworkPolicy(checkpoint.build_agent(checkpoint.load(path), path), e.id, greedy)
        return {f"pool:{k}": v for k, v in self._cache.items()}

    def manifest(self) -> list[dict]:
        return [asdict(e) for e in self.entries]

    def load_manifest(self, manifest: list[dict]) -> None:
        self.entries = [PoolEntry(**m) for m in manifest]
        self._cache = {}


# ---------------------------------------------------------------- learner rollouts


@dataclass
class Trajectory:
    """One learner seat's decisions in one episode, in order; the last one ends it."""

    seat: int = -1
    episode_seed: int = -1
    obs: list[np.ndarray] = field(default_factory=list)
    masks: list[np.ndarray] = field(default_factory=list)
    actions: list[int] = field(default_factory=list)
    logprobs: list[float] = field(default_factory=list)
    values: list[float] = field(default_factory=list)
    rewards: list[float] = field(default_factory=list)


@dataclass
class Rollout:
    trajectories: list[Trajectory]
    summaries: list[dict]
    decisions: int
    env_steps: int


def collect_rollout(
    driver: Driver, agent: Agent, opponents: dict[str, NetworkPolicy], new_spec, target: int
) -> Rollout:
    """Play until the learner has made ``target`` decisions, then finish running episodes.

    ``new_spec()`` draws the next episode (seed, seats, opponents)."""
    open_traj: dict[tuple[int, int], Trajectory] = {}
    seeds: dict[int, int] = {}  # game copy -> seed of the episode it plays
    finished: list[Trajectory] = []
    summaries: list[dict] = []
    decisions = env_steps = 0
    resets = {i: new_spec() for i in range(driver.num_envs)}
    actions: dict[int, int] = {}
    while actions or resets:
        seeds.update({i: s.seed for i, s in resets.items()})
        pending: dict[int, Report] = {}
        reports = driver.step(actions, resets)
        resets = {}
        for rep in reports:
            env_steps += rep.env_steps
            for seat, r in enumerate(rep.rewards):
                traj = open_traj.get((rep.env, seat))
                # A reward before a seat's first decision has no action to credit; dropped.
                if traj is not None and r:
                    traj.rewards[-1] += float(r)
            if rep.done:
                for seat in range(len(rep.rewards)):
                    traj = open_traj.pop((rep.env, seat), None)
                    if traj is not None:
                        finished.append(traj)
                summaries.append(rep.summary)
                if decisions < target:
                    resets[rep.env] = new_spec()
            else:
                pending[rep.env] = rep
        mine = [r for r in pending.values() if r.controller == LEARNER]
        if mine:
            with torch.no_grad():
                action, logprob, _, value = agent.get_action_and_value(
                    torch.as_tensor(np.stack([r.obs for r in mine])), torch.as_tensor(np.stack([r.mask for r in mine]))
                )
            for k, rep in enumerate(mine):
                traj = open_traj.setdefault((rep.env, rep.seat), Trajectory(rep.seat, seeds[rep.env]))
                traj.obs.append(rep.obs)
                traj.masks.append(rep.mask)
                traj.actions.append(int(action[k]))
                traj.logprobs.append(float(logprob[k]))
                traj.values.append(float(value[k]))
                traj.rewards.append(0.0)
            decisions += len(mine)
        actions = {r.env: int(action[k]) for k, r in enumerate(mine)} if mine else {}
        actions.update(act_batched({i: r for i, r in pending.items() if r.controller != LEARNER}, opponents))
    return Rollout(finished, summaries, decisions, env_steps)


def learner_scores(summary: dict) -> dict[int, float]:
    """For each opponent seat: 1 if the learner (its best seat) finished ahead, 0.5 level, 0 behind."""
    controllers = summary["spec"].controllers
    returns = summary["returns"]
    best = max(returns[s] for s, c in enumerate(controllers) if c == LEARNER)
    return {
        s: 1.0 if best > returns[s] else 0.5 if best == returns[s] else 0.0
        for s, c in enumerate(controllers)
        if c != LEARNER
    }


def draw_spec(
    rng: np.random.Generator,
    num_players: int,
    learner_seats: int,
    pool: OpponentPool,
    baselines: list[str],
    baseline_share: float,
    pfsp_power: float,
) -> EpisodeSpec:
    """A training episode: a fresh deal, random learner seats, PFSP or baseline opponents."""
    seed = int(rng.integers(2**31 - 1))
    seats = set(rng.choice(num_players, size=learner_seats, replace=False).tolist())
    controllers = []
    for s in range(num_players):
        if s in seats:
            controllers.append(LEARNER)
        elif not pool.entries or (baselines and rng.random() < baseline_share):
            controllers.append("script:" + baselines[int(rng.integers(len(baselines)))])
        else:
            controllers.append("pool:" + pool.sample(rng, pfsp_power).id)
    return EpisodeSpec(seed, tuple(controllers))
