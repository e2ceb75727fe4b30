"""TorchRL on Carousel, tested against the real library: ``PettingZooWrapper`` needs no
adapter. It passes ``check_env_specs`` on every deal (including deals whose first
decisions the env takes itself), and a masked policy plays whole games in which every
seat's rewards add up to its true return."""

from __future__ import annotations

import warnings

import pytest

pytest.importorskip("torchrl")

import torch
from torchrl.envs.libs.pettingzoo import PettingZooWrapper
from torchrl.envs.utils import check_env_specs

import carousel_env
from tests.support.examples import load_example

pytestmark = pytest.mark.integration  # TorchRL


@pytest.fixture(scope="module")
def example():
    return load_example("torchrl_rollout")


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="PettingZoo in TorchRL is tested")
        yield


@pytest.mark.parametrize("seed", range(8))
def test_specs_hold_on_every_deal(seed):
    env = PettingZooWrapper(carousel_env.env(num_players=2), use_mask=True, categorical_actions=True, seed=seed)
    check_env_specs(env)
    rollout = env.rollout(20)
    assert rollout["next", "player_0", "info", "round_points"].shape[-1] == 2


@pytest.mark.parametrize("num_players,variant", [(2, "carousel"), (3, "manipulation_rummy")])
def test_masked_policy_plays_whole_games_and_each_seat_gets_its_return(example, num_players, variant):
    env = example.make_env(num_players, seed=5)
    if variant != "carousel":
        group_map = {example.GROUP: env._env.possible_agents}
        aec = carousel_env.env(num_players=num_players, variant=variant)
        env = PettingZooWrapper(aec, use_mask=True, categorical_actions=True, group_map=group_map, seed=5)
    check_env_specs(env)
    policy = example.make_policy(env)
    with torch.no_grad():
        rollout = env.rollout(max_steps=10_000, policy=policy, break_when_any_done=True)
    game = env._env.unwrapped.game_state.game_result
    assert game is not None  # the game ran to its end: no illegal action stopped it
    totals = game.totals
    true = [0.01 * (t - (sum(totals) - t) / (num_players - 1)) for t in totals]
    returns = rollout["next", example.GROUP, "reward"].sum(dim=0).squeeze(-1).tolist()
    assert returns == pytest.approx(true, abs=1e-4)


def test_example_runs(example):
    returns = example.play(games=1, num_players=2)
    assert len(returns) == 1 and sum(returns[0]) == pytest.approx(0.0, abs=1e-4)
