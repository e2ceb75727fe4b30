"""TorchRL on Carousel: the env through TorchRL's own PettingZoo wrapper, with a masked policy.

    pip install -e ".[torchrl]"
    python examples/torchrl_rollout.py --games 3

No adapter is needed: ``PettingZooWrapper(carousel_env.env(), use_mask=True)`` passes
``check_env_specs``. All seats form one group here, so one network plays every seat; the
group's ``mask`` marks the seat to act and ``action_mask`` its legal actions.
"""

from __future__ import annotations

import argparse

import torch
from tensordict.nn import TensorDictModule
from torchrl.envs.libs.pettingzoo import PettingZooWrapper
from torchrl.envs.utils import check_env_specs
from torchrl.modules import MLP, MaskedCategorical, ProbabilisticActor

import carousel_env

GROUP = "players"


def make_env(num_players: int = 2, seed: int = 0) -> PettingZooWrapper:
    aec = carousel_env.env(num_players=num_players)
    group_map = {GROUP: aec.possible_agents}
    return PettingZooWrapper(aec, use_mask=True, categorical_actions=True, group_map=group_map, seed=seed)


def make_policy(env: PettingZooWrapper, hidden: int = 64) -> ProbabilisticActor:
    obs_size = env.observation_spec[GROUP, "observation", "observation"].shape[-1]
    num_actions = env.full_action_spec[GROUP, "action"].space.n
    net = MLP(in_features=obs_size, out_features=num_actions, num_cells=[hidden, hidden])
    logits = TensorDictModule(net, in_keys=[(GROUP, "observation", "observation")], out_keys=[(GROUP, "logits")])
    return ProbabilisticActor(
        logits,
        in_keys={"logits": (GROUP, "logits"), "mask": (GROUP, "action_mask")},
        out_keys=[(GROUP, "action")],
        distribution_class=MaskedCategorical,
        return_log_prob=True,
    )


def play(games: int = 3, num_players: int = 2, seed: int = 0) -> list[list[float]]:
    """Whole games with the masked policy; each seat's summed reward per game."""
    env = make_env(num_players, seed)
    check_env_specs(env)
    policy = make_policy(env)
    returns = []
    with torch.no_grad():
        for _ in range(games):
            rollout = env.rollout(max_steps=10_000, policy=policy, break_when_any_done=True)
            returns.append(rollout["next", GROUP, "reward"].sum(dim=0).squeeze(-1).tolist())
    return returns


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--players", type=int, default=2)
    args = parser.parse_args()
    for game, seat_returns in enumerate(play(args.games, args.players)):
        print(f"game {game}: returns by seat {[round(r, 2) for r in seat_returns]}")
