"""The learner's rewards before GAE (training/rewards.py, ``ppo.learner_rewards``): shaping
that is potential-based, returns scaled by their running spread, and the config keys' errors."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import carousel_env
from carousel_env.envkit.family import family_game
from training.config import ConfigError, TrainConfig, from_dict
from training.ppo import learner_rewards
from training.rewards import MIN_SCALE, RunningMoments, shaped

finite = st.floats(-50, 50, allow_nan=False)


def test_shaping_adds_the_discounted_change_of_the_potential():
    out = shaped([0.0, 0.0, 1.0], [-0.5, -0.3, -0.1], gamma=0.9, coef=1.0)
    # 0.9 * -0.3 + 0.5, 0.9 * -0.1 + 0.3, then 0 after the last decision + 0.1
    assert out == pytest.approx([0.23, 0.21, 1.1])
    assert shaped([1.0, 2.0], [3.0, 4.0], gamma=0.9, coef=0.0) == pytest.approx([1.0, 2.0])


@given(st.lists(st.tuples(finite, finite), min_size=1, max_size=30), st.floats(0.5, 1.0), st.floats(0.0, 3.0))
def test_shaping_is_potential_based(steps, gamma, coef):
    """Whatever the rewards and potentials, the shaped discounted return of an episode is its
    own less ``coef * phi(first)``: a constant of where the episode starts, so no policy gains by it."""
    rewards, potentials = map(np.array, zip(*steps))
    discounts = gamma ** np.arange(len(rewards))
    change = discounts @ shaped(rewards, potentials, gamma, coef) - discounts @ rewards
    assert change == pytest.approx(-coef * potentials[0], abs=1e-6)


def test_shaping_wants_one_potential_per_decision():
    with pytest.raises(ValueError, match="one potential per decision"):
        shaped([0.0, 1.0], [0.5], 0.9, 1.0)


def test_running_moments_merge_batches_as_one():
    values = np.random.default_rng(0).normal(3.0, 7.0, 500)
    moments = RunningMoments()
    for part in np.array_split(values, 7):
        moments.update(part)
    moments.update([])
    assert moments.count == 500 and moments.mean == pytest.approx(values.mean())
    assert moments.std == pytest.approx(values.std())
    assert RunningMoments.from_dict(moments.as_dict()) == moments


def test_a_spread_too_small_scales_by_one():
    moments = RunningMoments()
    assert moments.scale() == 1.0
    moments.update([2.0, 2.0 + MIN_SCALE / 10])
    assert moments.scale() == 1.0


@pytest.mark.parametrize("bad", [{"count": -1, "mean": 0, "m2": 0}, {"count": 2, "mean": float("nan"), "m2": 1}, {}])
def test_corrupt_moments_are_refused(bad):
    with pytest.raises((ValueError, KeyError)):
        RunningMoments.from_dict(bad)


def _trajectories(*rewards):
    return [SimpleNamespace(rewards=list(r), obs=[np.zeros(3)] * len(r)) for r in rewards]


def _config(**keys) -> TrainConfig:
    return from_dict({"game": "gin_rummy", **keys})


def test_normalised_returns_do_not_depend_on_the_games_scale():
    """The same episodes scored in points and in hundreds of points train on the same rewards."""
    episodes = ([0.0, 1.0], [0.0, 0.0, -2.0], [3.0])
    config = _config(normalize_returns=True)
    small = learner_rewards(_trajectories(*episodes), config, None, RunningMoments())
    large = learner_rewards(_trajectories(*[[100 * r for r in e] for e in episodes]), config, None, RunningMoments())
    assert all(np.allclose(a, b) for a, b in zip(small, large, strict=True))
    assert np.std([r.sum() for r in small]) == pytest.approx(1.0)


def test_gins_shaping_reads_the_deadwood_the_learner_sees():
    env = carousel_env.env(game="gin_rummy")
    env.reset(seed=4)
    state = env.unwrapped.game_state
    obs = env.observe(env.agent_selection)["observation"]
    progress = family_game("gin_rummy").progress
    from carousel_env.games.gin_rummy.env import own_deadwood

    assert progress(obs[None])[0] == pytest.approx(-own_deadwood(state.hands[state.current], False) / 100)
    trajectory = SimpleNamespace(rewards=[0.0, 0.5], obs=[obs, obs])
    rewards = learner_rewards([trajectory], _config(shaping_coef=2.0, gamma=1.0), progress, RunningMoments())
    phi = 2.0 * progress(obs[None])[0]
    assert rewards[0] == pytest.approx([0.0, 0.5 - phi])


@pytest.mark.parametrize(
    ("keys", "message"),
    [
        ({"shaping_coef": -1.0}, "config key 'shaping_coef': must be a finite number >= 0"),
        ({"shaping_coef": float("inf")}, "config key 'shaping_coef': must be a finite number >= 0"),
        ({"game": "carousel", "shaping_coef": 1.0}, "config key 'shaping_coef': carousel declares no measure"),
    ],
)
def test_bad_shaping_is_named(keys, message):
    with pytest.raises(ConfigError, match=message):
        from_dict({"game": "gin_rummy", **keys})


def test_cariocas_potential_rises_when_a_seat_goes_down():
    """Before going down the potential is minus the distance to the contract, after it the
    share of the hand laid: going down never lowers it (a drop would teach not to go down)."""
    env = carousel_env.raw_env(game="carioca", episode="round")
    progress = family_game("carioca").progress
    from carousel_env.games.carioca.env import CariocaAction

    rng, seen = np.random.default_rng(0), 0
    for seed in range(3):
        env.reset(seed=seed)
        before: dict[int, float] = {}
        for _ in env.agent_iter(3000):
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            state = env.game_state
            phi = progress(obs["observation"][None])[0]
            if state.down[state.current] and state.current in before:
                assert phi > before.pop(state.current) and 0.0 <= phi <= 1.0
                seen += 1
            elif not state.down[state.current]:
                before[state.current] = phi
                assert -1.0 <= phi <= 0.0
            legal = np.flatnonzero(obs["action_mask"])
            go_down = legal[legal >= CariocaAction.FIRST_GO_DOWN]
            env.step(int(go_down[0]) if len(go_down) else int(rng.choice(legal)))
    assert seen >= 3
