"""Tianshou 2.x on Carousel, tested against the real library: its PettingZoo wrapper,
vector envs and collector run episodes with masked policies, and every seat's rewards
reach the transitions of that seat (its learner's data)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("tianshou")

from tianshou.algorithm import MARLRandomDiscreteMaskedOffPolicyAlgorithm, MultiAgentOffPolicyAlgorithm
from tianshou.data import Collector, CollectStats, VectorReplayBuffer
from tianshou.env import DummyVectorEnv

import carousel_env
from carousel_env.core.errors import IllegalAction
from carousel_env.envkit.family import family_game
from carousel_env.games.carousel.agents.baselines import greedy
from carousel_env.integrations.tianshou import SETTLE_ACTION, OwnTurnRewards, tianshou_env
from tests.support.examples import load_example

pytestmark = pytest.mark.integration  # Tianshou


def _true_returns(totals: tuple[int, ...], scale: float = 0.01) -> list[float]:
    n = len(totals)
    return [scale * (t - (sum(totals) - t) / (n - 1)) for t in totals]


@pytest.mark.parametrize("n,variant", [(2, "carousel"), (3, "carousel"), (3, "manipulation_rummy")])
def test_each_seat_is_paid_its_whole_return_on_its_own_turns(n, variant):
    env = OwnTurnRewards(carousel_env.env(num_players=n, variant=variant))
    for seed in range(2):
        env.reset(seed=seed)
        credited = dict.fromkeys(env.possible_agents, 0.0)
        settled = []
        while not env.terminations[env.agent_selection]:
            agent = env.agent_selection
            obs = env.observe(agent)
            if env.unwrapped.game_state.game_result is not None:
                settled.append(agent)
                assert obs["action_mask"].tolist() == [int(a == SETTLE_ACTION) for a in range(len(obs["action_mask"]))]
            env.step(greedy(obs["observation"], obs["action_mask"]))
            assert all(reward == 0.0 for other, reward in env.rewards.items() if other != agent)
            credited[agent] += env.rewards[agent]
        true = _true_returns(env.unwrapped.game_state.game_result.totals)
        assert [credited[a] for a in env.possible_agents] == pytest.approx(true, abs=1e-9)
        assert len(settled) == n - 1 and len(set(settled)) == n - 1  # every seat but the last actor


def test_a_settlement_turn_takes_only_its_action():
    env = OwnTurnRewards(carousel_env.env(num_players=2, episode="round"))
    env.reset(seed=1)
    while env.unwrapped.game_state.last_round is None:
        obs = env.observe(env.agent_selection)
        env.step(greedy(obs["observation"], obs["action_mask"]))
    agent, pending = env.agent_selection, dict(env._pending)
    with pytest.raises(IllegalAction, match="settlement turn takes only action 0"):
        env.step(SETTLE_ACTION + 1)
    assert (env.agent_selection, env._pending) == (agent, pending)  # nothing changed
    env.step(SETTLE_ACTION)
    assert env.terminations[env.agent_selection] and env.rewards[agent] == pending[agent]


def test_collector_credits_every_seat_with_its_round_return():
    """Masked random seats on two vector envs: per episode and seat, the rewards on the
    seat's own transitions in Tianshou's buffer add up to its true return."""
    num_envs, n = 2, 3
    envs = DummyVectorEnv([lambda: tianshou_env(num_players=n, episode="round") for _ in range(num_envs)])
    envs.seed(7)
    probe = tianshou_env(num_players=n, episode="round")
    seats = [MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=probe.action_space) for _ in range(n)]
    algorithm = MultiAgentOffPolicyAlgorithm(algorithms=seats, env=probe)
    buffer = VectorReplayBuffer(20_000, num_envs)
    collector = Collector[CollectStats](algorithm, envs, buffer)
    collector.reset()
    stats = collector.collect(n_episode=6)
    assert stats.n_collected_episodes >= 6
    checked = 0
    for sub in buffer.buffers:
        data = sub[np.arange(len(sub))]
        ends = np.flatnonzero(data.done)
        start = 0
        for end in ends:
            episode = data[start : end + 1]
            ids = np.asarray(episode.obs.agent_id)
            # The round ended the episode (no illegal action cut it short); n - 1 settlement turns follow.
            assert episode.info.rounds_ended.sum() == 1 and episode.info.rounds_ended[-n] == 1
            true = _true_returns(tuple(episode.info.round_points.sum(axis=0).tolist()))
            credited = [episode.rew[ids == f"player_{s}", s].sum() for s in range(n)]
            assert credited == pytest.approx(true, abs=1e-6)
            checked += 1
            start = end + 1
    assert checked >= 6


@pytest.mark.training
def test_example_trains_at_a_tiny_budget():
    result = load_example("tianshou_dqn").main(epochs=1, steps_per_epoch=100, num_envs=2)
    assert result["env_steps"] >= 100 and np.isfinite(result["best_reward"])


@pytest.mark.parametrize(("game", "options"), [("gin_rummy", {"preset": "openspiel"}), ("carioca", {"num_players": 3})])
def test_every_game_pays_each_seat_its_return_on_its_own_turns(game, options):
    """The same seeded games and actions (the game's simple player at every seat) through the
    adapter and the bare env: the rewards on each seat's own turns add up to its return."""
    family = family_game(game)
    paid = 0
    for seed in range(3):
        env = tianshou_env(game=game, **options).env
        env.reset(seed=seed)
        credited = dict.fromkeys(env.possible_agents, 0.0)
        actions, simple = [], family.player("simple", seed)
        while not env.terminations[env.agent_selection]:
            agent = env.agent_selection
            obs = env.observe(agent)
            seat = env.possible_agents.index(agent)
            settling = env.env.terminations[env.env.agent_selection]
            action = (
                SETTLE_ACTION if settling else family.act(simple, env, seat, obs["observation"], obs["action_mask"])
            )
            if not settling:
                actions.append(action)
            env.step(action)
            credited[agent] += env.rewards[agent]
        bare = carousel_env.env(game=game, **options)
        bare.reset(seed=seed)
        returns = dict.fromkeys(bare.possible_agents, 0.0)
        for action in actions:
            bare.step(action)
            for agent, reward in bare.rewards.items():
                returns[agent] += reward
        assert credited == pytest.approx(returns, abs=1e-9)
        paid += any(returns.values())
    assert paid  # not every hand was dead


def test_the_adapter_passes_pettingzoo_api_test():
    from pettingzoo.test import api_test

    api_test(OwnTurnRewards(carousel_env.env(num_players=3)), num_cycles=200)
