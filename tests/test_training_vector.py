"""Training's rollouts through the vector env play the very games the AEC runner plays:
the same decisions, observations, masks, actions, rewards and results."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from carousel_env.games.carousel.agents.match import Episode
from carousel_env.games.carousel.vector import CarouselVectorEnv
from training.envs import EnvSpec, shape_for
from training.network import Agent
from training.policies import LEARNER, Controller, NetworkPolicy
from training.rollout import collect_rollout
from training.runners import Driver, Runner, VectorRunner, make_runner

POOL = Controller.pool("snapshot")


def _rollout(runner_class, spec: EnvSpec, controllers, target: int):
    driver = Driver(spec, num_envs=3)
    driver.local = runner_class(spec, list(range(3)))  # the runner under test, in-process
    torch.manual_seed(0)
    lay, fixed = shape_for(spec)
    agent = Agent(lay, 32, 16, fixed)
    opponent = NetworkPolicy(Agent(lay, 32, 16, fixed), generator=torch.Generator().manual_seed(1))
    seeds = iter(range(500, 600))
    try:
        return collect_rollout(
            driver, agent, {POOL: opponent}, lambda: Episode(next(seeds), controllers), target=target
        )
    finally:
        driver.close()


GIN_GREEDY = Controller.scripted("greedy", game="gin_rummy")
GIN_SIMPLE = Controller.scripted("simple", game="gin_rummy")


@pytest.mark.parametrize(
    ("spec", "controllers"),
    [
        (EnvSpec.of(2, k_suggestions=4, episode="round"), (LEARNER, Controller.scripted("greedy"))),
        (EnvSpec.of(3, k_suggestions=4, episode="round"), (Controller.scripted("smart"), LEARNER, POOL)),
        (EnvSpec.of(2, k_suggestions=4, episode="game"), (POOL, LEARNER)),
        (EnvSpec.of(2, game="gin_rummy", preset="openspiel", k_knocks=3), (LEARNER, GIN_GREEDY)),
        (EnvSpec.of(2, game="gin_rummy", preset="openspiel"), (GIN_SIMPLE, LEARNER)),
        (EnvSpec.of(2, game="gin_rummy", preset="book", target=10, episode="match"), (POOL, LEARNER)),
    ],
    ids=["carousel-greedy", "carousel-3p", "carousel-game", "gin-greedy", "gin-simple", "gin-match"],
)
def test_vector_runner_plays_the_aec_runners_games(spec, controllers):
    target = 60 if spec.option("episode") in ("game", "match") else 120
    aec = _rollout(Runner, spec, controllers, target)
    vec = _rollout(VectorRunner, spec, controllers, target)
    assert (vec.decisions, vec.env_steps) == (aec.decisions, aec.env_steps)
    assert len(vec.trajectories) == len(aec.trajectories) and len(aec.results) > 2
    for a, v in zip(aec.trajectories, vec.trajectories):
        assert (v.seat, v.episode_seed, v.actions) == (a.seat, a.episode_seed, a.actions)
        np.testing.assert_array_equal(np.stack(v.obs), np.stack(a.obs))
        np.testing.assert_array_equal(np.stack(v.masks), np.stack(a.masks))
        np.testing.assert_allclose(v.rewards, a.rewards, rtol=0, atol=1e-12)
    for a, v in zip(aec.results, vec.results):
        assert (v.episode, v.rounds, v.totals, v.winner) == (a.episode, a.rounds, a.totals, a.winner)
        np.testing.assert_allclose(v.returns, a.returns, rtol=0, atol=1e-12)


def test_carousel_trains_through_the_vector_runner():
    assert isinstance(make_runner(EnvSpec(num_players=2), [0]), VectorRunner)
    assert isinstance(make_runner(EnvSpec(num_players=2, factory="tests.support.fake_env:env"), [0]), Runner)


def test_the_driver_compiles_each_games_code_before_its_first_step(monkeypatch):
    from carousel_env.games.carousel import solver
    from carousel_env.games.gin_rummy.vector import GinVectorEnv

    calls = []
    real_solver = solver.compile_ahead
    monkeypatch.setattr(solver, "compile_ahead", lambda: calls.append("solver") or real_solver())
    for name, env_class in (("carousel vector", CarouselVectorEnv), ("gin vector", GinVectorEnv)):
        real = env_class.compile_ahead
        hook = staticmethod(lambda real=real, name=name, **config: calls.append(name) or real(**config))
        monkeypatch.setattr(env_class, "compile_ahead", hook)
    fake = "tests.support.fake_env:env"
    specs = (
        EnvSpec(2),
        EnvSpec(2, vector=False),
        EnvSpec(2, factory=fake),
        EnvSpec.of(2, game="gin_rummy", preset="openspiel"),
        EnvSpec.of(2, vector=False, game="gin_rummy", preset="openspiel"),
    )
    for spec in specs:
        Driver(spec, num_envs=1).close()
    # The vector env's parts, the AEC env's solver; a foreign env: nothing; Gin's AEC env compiles nothing.
    assert calls == ["carousel vector", "solver", "gin vector"]


@pytest.mark.xdist_group("cores")
def test_worker_processes_step_vector_runners_with_the_same_games():
    spec = EnvSpec.of(2, k_suggestions=4, episode="round")
    controllers = (LEARNER, Controller.scripted("greedy"))
    reports = {}
    for workers in (0, 2):
        driver = Driver(spec, num_envs=4, num_workers=workers)
        try:
            got = driver.step({}, {i: Episode(40 + i, controllers) for i in range(4)})
            rng = np.random.default_rng(0)
            for _ in range(30):
                pending = {r.env: int(rng.choice(np.flatnonzero(r.mask))) for r in got if not r.done}
                if not pending:
                    break
                got = driver.step(pending, {})
            reports[workers] = [(r.env, r.seat, r.done, r.rewards.tolist(), r.env_steps) for r in got]
        finally:
            driver.close()
    assert reports[0] and reports[0] == reports[2]
