"""RLlib sampling throughput: env steps/s with 1 and 2 env runners, and the scaling.

Builds two RLlib PPO self-play algorithms on one local Ray instance, with the training
setup of ``configs/rllib_2p.yaml`` (full-size network, ``--envs`` games per env runner, a
pool of frozen snapshots at the opponent seats), differing only in ``num_env_runners``.
Rounds alternate between them (this machine's speed drifts): in a round every env runner
of one algorithm samples its share of ``--steps`` env steps, all runners at once (each
``sample()`` called remotely, timed from the calls to the last result). Env steps count
every seat's decisions. Learning is not included: ``carousel train --backend rllib``
prints each iteration's sampling-plus-learning rate.

    .venv/bin/python -m benchmarks.bench_rllib                 # 3 rounds of 8,000 steps
    .venv/bin/python -m benchmarks.bench_rllib --rounds 5 --steps 4000 --envs 1

The in-house trainer's figure (learning included) for comparison:
``.venv/bin/python -m benchmarks.bench_train --workers 0 2 --updates 4``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

import ray
import torch

from training.rllib.config import load_config
from training.rllib.train import algorithm_config

ROOT = Path(__file__).resolve().parent.parent
RUNNERS = (1, 2)


def _sample(env_runner, steps: int) -> int:
    return sum(len(episode) for episode in env_runner.sample(num_timesteps=steps))


def sample_round(algorithm, total_steps: int) -> tuple[int, float]:
    """(env steps, seconds) of one round: every remote runner samples its share at once."""
    share = total_steps // algorithm.config.num_env_runners
    start = time.perf_counter()
    counts = algorithm.env_runner_group.foreach_env_runner(lambda r: _sample(r, share), local_env_runner=False)
    return sum(counts), time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", default=str(ROOT / "configs" / "rllib_2p.yaml"))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--steps", type=int, default=8000, help="env steps per round (split between the runners)")
    parser.add_argument("--envs", type=int, default=8, help="games per env runner")
    args = parser.parse_args()
    torch.set_num_threads(1)
    ray.init(num_cpus=sum(RUNNERS) + 1, include_dashboard=False, log_to_driver=False)
    algorithms = {}
    try:
        for n in RUNNERS:
            config = load_config(args.config, [f"num_env_runners={n}", f"num_envs_per_env_runner={args.envs}"])
            algorithms[n] = algorithm_config(config).build_algo()
            sample_round(algorithms[n], args.steps // 4)  # warm-up: first episodes, first inference
        print(
            f"RLlib sampling, {args.config}, {args.envs} games per env runner, {args.steps} env steps per round; "
            f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}"
        )
        rates: dict[int, list[float]] = {n: [] for n in RUNNERS}
        for r in range(1, args.rounds + 1):
            for n in RUNNERS if r % 2 else reversed(RUNNERS):
                steps, seconds = sample_round(algorithms[n], args.steps)
                rates[n].append(steps / seconds)
                rate = steps / seconds
                print(f"round {r}, {n} env runner(s): {steps} env steps in {seconds:.2f} s, {rate:,.0f} steps/s")
        medians = {n: statistics.median(rates[n]) for n in RUNNERS}
        for n in RUNNERS:
            print(f"{n} env runner(s): median {medians[n]:,.0f} env steps/s")
        print(f"scaling 2 vs 1 runners: {medians[2] / medians[1]:.2f}x; load average now {os.getloadavg()[0]:.1f}")
    finally:
        for algorithm in algorithms.values():
            algorithm.stop()
        ray.shutdown()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
