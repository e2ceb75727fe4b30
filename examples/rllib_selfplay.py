"""Self-play PPO on Carousel with RLlib: the lines a user writes.

The env adapter (``carousel_env.integrations.rllib``), our masked network as RLlib module
(``training.rllib.module``) and a pool of frozen snapshots as opponents
(``training.rllib.selfplay``) plugged into RLlib's own ``PPOConfig``; then the trained
module exported as a checkpoint that ``carousel eval``, ``tournament`` and ``play`` read.

    python examples/rllib_selfplay.py --iterations 30 --out runs/rllib_example.pt
    carousel eval --checkpoint runs/rllib_example.pt --opponents greedy --games 100

``--tiny`` runs two small iterations in seconds (the test suite runs it so). ``carousel
train --backend rllib`` does the same with a config file, checkpoints, resume and clusters.
"""

from __future__ import annotations

import argparse
import logging
from functools import partial

import ray
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec

from carousel_env.integrations.rllib import CarouselMultiAgentEnv
from training.rllib.module import export_module, module_spec
from training.rllib.selfplay import SeatMapping, SelfPlayCallback, copy_main_into, module_ids


def main(iterations: int = 30, out: str = "runs/rllib_example.pt", tiny: bool = False) -> str:
    pool_size = 3
    ids = module_ids(pool_size)  # "main" (learns) and "pool_0".."pool_2" (frozen snapshots)
    spec = module_spec(hidden_size=16, slot_hidden_size=8) if tiny else module_spec()
    config = (
        PPOConfig()
        # RLlib's env checker steps random actions, blind to the mask ("Illegal move made"): off.
        .environment(
            CarouselMultiAgentEnv,
            env_config={"num_players": 2, "episode": "round", "seed": 0},
            disable_env_checking=True,
        )
        # An env runner dying on this machine has hit a bug or run out of memory, which a
        # restart would repeat: fail at once (and Ray logs no "max_restarts > 0" error line).
        .env_runners(num_env_runners=0 if tiny else 1)
        .fault_tolerance(restart_failed_env_runners=False)
        .multi_agent(policies=set(ids), policy_mapping_fn=SeatMapping(2, pool_size), policies_to_train=["main"])
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=dict.fromkeys(ids, spec)))
        .training(
            train_batch_size_per_learner=200 if tiny else 4000,
            minibatch_size=64 if tiny else 256,
            num_epochs=1 if tiny else 4,
            lr=3e-4,
            gamma=0.995,
            use_kl_loss=False,
        )
        .callbacks(partial(SelfPlayCallback, pool_size=pool_size, snapshot_interval=1 if tiny else 5))
    )
    # Ray's and RLlib's WARNING-level notices about themselves (token authentication on, PPO on
    # the new API stack, RLlib's own deprecated RLModuleConfig, in the env runner too) stay out
    # of the output, as in `carousel train --backend rllib`; errors still show or raise here.
    logging.getLogger("ray.rllib").setLevel(logging.ERROR)
    ray.init(include_dashboard=False, logging_level=logging.ERROR, log_to_driver=False)
    try:
        algo = config.build_algo()
        copy_main_into(algo, ids[1:])  # the pool starts as copies of the initial learner
        for _ in range(iterations):
            result = algo.train()
            runners = result["env_runners"]
            print(
                f"iteration {result['training_iteration']}: {runners['num_env_steps_sampled_lifetime']:.0f} env steps, "
                f"main's mean return against the pool {runners['module_episode_returns_mean']['main']:+.3f}"
            )
        export_module(algo, out)
        algo.stop()
    finally:
        ray.shutdown()
    print(f"wrote {out}; evaluate it with: carousel eval --checkpoint {out} --opponents greedy")
    return out


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--iterations", type=int, default=30)
    parser.add_argument("--out", default="runs/rllib_example.pt")
    parser.add_argument("--tiny", action="store_true", help="two tiny iterations, in seconds (tests)")
    args = parser.parse_args()
    main(2 if args.tiny else args.iterations, args.out, tiny=args.tiny)
