"""The learner's rollouts: which episodes it plays, and its per-seat trajectories.

``draw_episode`` draws a training episode: a fresh deal, the learner in random seats, and
opponents from the pool (PFSP) or, for a share of the seats, scripted policies.

``collect_rollout`` plays episodes until the learner has made ``target`` decisions, then
finishes the running episodes (starting no new ones), so every trajectory in a batch is
complete and on-policy, and nothing about the environments survives between updates
(which is what makes ``--resume`` exact). A rollout therefore holds more than ``target``
decisions: about ``num_envs`` whole episodes where an episode is longer than ``target /
num_envs`` (``training.ppo`` prints how much more). Cutting episodes at the target instead
would leave their later hands and rounds out of every batch, since each rollout deals anew.

Every game bounds its episodes (docs/RULES.md: Gin's upcard draw and match hand limits,
Carioca's pile draw limit, Carousel's round and turn caps), so even a policy that never
ends a hand ends its episodes. An episode past ``MAX_EPISODE_ENV_STEPS`` (an env without
such bounds) raises :class:`EpisodeCapError` rather than running forever.

Rewards: PettingZoo's ``last()`` returns what a seat earned since its own previous action
(also when it is stepped out after the episode ends). That reward is added to the seat's
previous transition, so rewards land on the seat that earned them even though they arrive
after other seats act.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import torch

from carousel_env.envkit.episodes import Episode, EpisodeResult
from training.episodes import act_batched
from training.network import Agent
from training.policies import LEARNER, Controller, ControllerKind, NetworkPolicy
from training.pool import OpponentPool
from training.runners import Driver, Report

# Env steps an episode may take before the rollout gives up on it: far beyond every game's
# own bound (a default Gin match ends within ~52,000 steps, a Carioca game ~6,500, a Carousel
# game's 200 rounds ~210,000), small enough to fail within minutes rather than hang a run.
MAX_EPISODE_ENV_STEPS = 1_000_000


class EpisodeCapError(RuntimeError):
    """An episode that ran past :data:`MAX_EPISODE_ENV_STEPS` without ending."""

    def __init__(self, game: str, copy: int, seed: int, steps: int) -> None:
        super().__init__(
            f"carousel train: an episode of {game} (game copy {copy}, seed {seed}) has taken {steps:,} env steps "
            f"without ending, past the cap of {MAX_EPISODE_ENV_STEPS:,} a training episode may take: every game "
            "of the package ends its episodes far sooner (docs/RULES.md bounds every hand and round), so this env "
            "does not bound its episodes"
        )
        self.game, self.copy, self.seed, self.steps = game, copy, seed, steps


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
    hidden: list[np.ndarray] = field(default_factory=list)  # the hidden cards, where the runners report them


@dataclass
class Rollout:
    trajectories: list[Trajectory]
    results: list[EpisodeResult[Controller]]
    decisions: int
    env_steps: int


def collect_rollout(
    driver: Driver,
    agent: Agent,
    opponents: dict[Controller, NetworkPolicy],
    new_episode: Callable[[], Episode[Controller]],
    target: int,
) -> Rollout:
    """Play until the learner has made ``target`` decisions, then finish running episodes.

    ``new_episode()`` draws the next episode (seed, seats, opponents). An episode longer than
    ``MAX_EPISODE_ENV_STEPS`` env steps raises :class:`EpisodeCapError`."""
    open_traj: dict[tuple[int, int], Trajectory] = {}
    seeds: dict[int, int] = {}  # game copy -> seed of the episode it plays
    episode_steps: dict[int, int] = {}  # game copy -> env steps of the episode it plays
    finished: list[Trajectory] = []
    results: list[EpisodeResult[Controller]] = []
    decisions = env_steps = 0
    resets = {i: new_episode() for i in range(driver.num_envs)}
    actions: dict[int, int] = {}
    while actions or resets:
        seeds.update({i: e.seed for i, e in resets.items()})
        episode_steps.update(dict.fromkeys(resets, 0))
        pending: dict[int, Report] = {}
        reports = driver.step(actions, resets)
        resets = {}
        for rep in reports:
            env_steps += rep.env_steps
            episode_steps[rep.env] += rep.env_steps
            if not rep.done and episode_steps[rep.env] > MAX_EPISODE_ENV_STEPS:
                raise EpisodeCapError(driver.game.name, rep.env, seeds[rep.env], episode_steps[rep.env])
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
                results.append(rep.result)
                if decisions < target:
                    resets[rep.env] = new_episode()
            else:
                pending[rep.env] = rep
        mine = [r for r in pending.values() if r.controller == LEARNER]
        if mine:
            # The hidden cards go to the critic only where the runners report them (a state critic's run).
            hidden = {}
            if mine[0].hidden is not None:
                hidden["hidden"] = torch.as_tensor(np.stack([r.hidden for r in mine]))
            with torch.no_grad():
                action, logprob, _, value = agent.get_action_and_value(
                    torch.as_tensor(np.stack([r.obs for r in mine])),
                    torch.as_tensor(np.stack([r.mask for r in mine])),
                    **hidden,
                )
            for k, rep in enumerate(mine):
                traj = open_traj.setdefault((rep.env, rep.seat), Trajectory(rep.seat, seeds[rep.env]))
                traj.obs.append(rep.obs)
                traj.masks.append(rep.mask)
                traj.actions.append(int(action[k]))
                traj.logprobs.append(float(logprob[k]))
                traj.values.append(float(value[k]))
                traj.rewards.append(0.0)
                if rep.hidden is not None:
                    traj.hidden.append(rep.hidden)
            decisions += len(mine)
        actions = {r.env: int(action[k]) for k, r in enumerate(mine)} if mine else {}
        actions.update(act_batched({i: r for i, r in pending.items() if r.controller != LEARNER}, opponents))
    return Rollout(finished, results, decisions, env_steps)


def draw_episode(
    rng: np.random.Generator,
    num_players: int,
    learner_seats: int,
    pool: OpponentPool,
    baselines: list[str],
    baseline_share: float,
    pfsp_power: float,
    fixed: Controller | None = None,
) -> Episode[Controller]:
    """A training episode: a fresh deal, random learner seats, PFSP or scripted opponents
    (``fixed``: that one controller at every opponent seat)."""
    seed = int(rng.integers(2**31 - 1))
    seats = set(rng.choice(num_players, size=learner_seats, replace=False).tolist())
    controllers = []
    for s in range(num_players):
        if s in seats:
            controllers.append(LEARNER)
        elif fixed is not None:
            controllers.append(fixed)
        elif not pool.entries or (baselines and rng.random() < baseline_share):
            # Names the config checked (``config.check_names``): the runner's game resolves them.
            controllers.append(Controller(ControllerKind.SCRIPTED, baselines[int(rng.integers(len(baselines)))]))
        else:
            controllers.append(Controller.pool(pool.sample(rng, pfsp_power).id))
    return Episode(seed, tuple(controllers))
