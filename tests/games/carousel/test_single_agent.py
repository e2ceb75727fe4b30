"""The single-agent Gymnasium wrapper: Gymnasium's checker, masks, opponents, MaskablePPO."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from carousel_env.games.carousel.agents.search import SearchPlayer
from carousel_env.games.carousel.gym import CarouselSingleAgentEnv
from tests.support.examples import load_example
from tests.support.view_policies import SeatRecorder


def test_gymnasium_check_env():
    env = CarouselSingleAgentEnv(opponents="greedy", episode="round")
    check_env(env, skip_render_check=True)


def test_masks_and_seeded_replay():
    def run(seed):
        env = CarouselSingleAgentEnv(
            opponents=["random", "smart"], num_players=3, learner_seat="random", episode="round"
        )
        obs, info = env.reset(seed=seed)
        rng = np.random.default_rng(0)
        trace = [info["learner"]]
        for _ in range(30):
            mask = env.action_masks()
            assert mask.dtype == bool and mask.any() and np.array_equal(mask, info["action_mask"] > 0)
            action = int(rng.choice(np.flatnonzero(mask)))
            obs, reward, terminated, _truncated, info = env.step(action)
            assert env.observation_space.contains(obs)
            trace.append((action, reward))
            if terminated:
                break
        return trace

    assert run(7) == run(7)


def test_illegal_action_ends_the_episode_or_raises():
    env = CarouselSingleAgentEnv(episode="round")
    env.reset(seed=1)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    _, reward, terminated, _, info = env.step(illegal)
    assert terminated and reward == -1.0 and info["illegal_action"] == illegal
    strict = CarouselSingleAgentEnv(episode="round", illegal_reward=None)
    strict.reset(seed=1)
    with pytest.raises(ValueError, match="not legal"):
        strict.step(int(np.flatnonzero(~strict.action_masks())[0]))


def test_callable_opponent_and_bad_arguments():
    calls = []

    def first_legal(observation, mask):
        calls.append(1)
        return int(np.flatnonzero(mask)[0])

    env = CarouselSingleAgentEnv(opponents=first_legal, episode="round")
    env.reset(seed=2)
    for _ in range(4):
        _, _, terminated, _, _ = env.step(int(np.flatnonzero(env.action_masks())[-1]))
        if terminated:
            break
    assert calls
    with pytest.raises(ValueError, match="learner_seat"):
        CarouselSingleAgentEnv(learner_seat=4)
    with pytest.raises(ValueError, match="opponents"):
        CarouselSingleAgentEnv(opponents=["random", "random"], num_players=2)


def test_view_policy_opponents_decide_from_their_own_seat_view():
    # 3 players, the learner in seat 1: the opponents sit in seats 2 and 0, in that order.
    recorder = SeatRecorder()
    env = CarouselSingleAgentEnv(opponents=[recorder, "search@2"], learner_seat=1, num_players=3, episode="round")
    env.reset()
    terminated = False
    while not terminated:
        _, _, terminated, _, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
    assert recorder.seats and set(recorder.seats) == {2}
    searcher = env.opponents[1]
    assert isinstance(searcher, SearchPlayer) and searcher.decisions > 0


def test_gymnasium_registration():
    env = gym.make("carousel_env.single_agent:Carousel-v0", opponents="greedy", episode="round")
    obs, _ = env.reset(seed=0)
    assert obs.shape == env.observation_space.shape


@pytest.mark.integration
@pytest.mark.training
def test_maskable_ppo_trains():
    sb3_contrib = pytest.importorskip("sb3_contrib")
    env = CarouselSingleAgentEnv(opponents="greedy", episode="round")
    model = sb3_contrib.MaskablePPO(
        "MlpPolicy", env, n_steps=128, batch_size=64, n_epochs=1, seed=0, policy_kwargs={"net_arch": [64]}
    )
    model.learn(256)
    obs, _ = env.reset(seed=3)
    action, _ = model.predict(obs, action_masks=env.action_masks())
    assert env.action_masks()[int(action)]


@pytest.mark.integration
@pytest.mark.training
@pytest.mark.parametrize("game", ["carousel", "gin_rummy", "carioca"])
def test_sb3_example_runs_at_a_tiny_budget_for_every_game(game):
    pytest.importorskip("sb3_contrib")
    example = load_example("sb3_maskable_ppo")
    assert 0.0 <= example.main(timesteps=256, eval_games=2, game=game) <= 1.0
