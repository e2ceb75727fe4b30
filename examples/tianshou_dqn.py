"""Tianshou 2.x on Carousel: a DQN seat learns against a masked random seat.

    pip install -e ".[tianshou]"
    python examples/tianshou_dqn.py --epochs 5

``tianshou_env`` is Tianshou's ``PettingZooEnv`` around the Carousel env, with every seat's
rewards credited on its own transitions (see ``carousel_env.integrations.tianshou``).
"""

from __future__ import annotations

import argparse

import numpy as np
import torch
from tianshou.algorithm import DQN, MARLRandomDiscreteMaskedOffPolicyAlgorithm, MultiAgentOffPolicyAlgorithm
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Collector, CollectStats, VectorReplayBuffer
from tianshou.env import DummyVectorEnv
from tianshou.trainer import OffPolicyTrainerParams
from tianshou.utils.net.common import Net

from carousel_env.integrations.tianshou import tianshou_env

ENV_CONFIG = {"num_players": 2, "episode": "round"}  # one round per episode: short episodes


def make_algorithm(hidden: int = 128) -> MultiAgentOffPolicyAlgorithm:
    env = tianshou_env(**ENV_CONFIG)
    obs_size = env.observation_space["observation"].shape[0]
    net = Net(state_shape=obs_size, action_shape=env.action_space.n, hidden_sizes=[hidden, hidden])
    policy = DiscreteQLearningPolicy(model=net, action_space=env.action_space, eps_training=0.1, eps_inference=0.0)
    learner = DQN(policy=policy, optim=AdamOptimizerFactory(lr=1e-4), gamma=0.99, target_update_freq=200)
    opponent = MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space)
    return MultiAgentOffPolicyAlgorithm(algorithms=[learner, opponent], env=env)  # player_0 learns


def main(epochs: int = 5, steps_per_epoch: int = 1000, num_envs: int = 4, seed: int = 0) -> dict:
    np.random.seed(seed)
    torch.manual_seed(seed)
    train_envs = DummyVectorEnv([lambda: tianshou_env(**ENV_CONFIG) for _ in range(num_envs)])
    test_envs = DummyVectorEnv([lambda: tianshou_env(**ENV_CONFIG) for _ in range(num_envs)])
    train_envs.seed(seed)
    test_envs.seed(seed + 1000)
    algorithm = make_algorithm()
    train_collector = Collector[CollectStats](
        algorithm, train_envs, VectorReplayBuffer(20_000, num_envs), exploration_noise=True
    )
    test_collector = Collector[CollectStats](algorithm, test_envs, exploration_noise=True)
    train_collector.reset()
    train_collector.collect(n_step=64 * num_envs)
    result = algorithm.run_training(
        OffPolicyTrainerParams(
            training_collector=train_collector,
            test_collector=test_collector,
            max_epochs=epochs,
            epoch_num_steps=steps_per_epoch,
            collection_step_num_env_steps=10,
            test_step_num_episodes=num_envs,
            batch_size=64,
            update_step_num_gradient_steps_per_sample=0.1,
            test_in_training=False,
            show_progress=False,
            multi_agent_return_reduction=lambda returns: returns[:, 0],  # player_0's return
        )
    )
    print(f"player_0's mean return over the test rounds: {result.best_reward:+.3f}")
    return {"best_reward": result.best_reward, "env_steps": result.train_step}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--steps-per-epoch", type=int, default=1000)
    args = parser.parse_args()
    main(args.epochs, args.steps_per_epoch)
