"""Training throughput: environment steps per second, learning included.

Runs a few updates of a config (default: configs/default.yaml, the full-size network and
batch) for each ``num_workers`` value and prints env steps/s (every seat's decisions,
opponents too) and learner decisions/s. The first update is a warm-up and not counted.

    .venv/bin/python -m benchmarks.bench_train                      # default config, workers 0 1 2
    .venv/bin/python -m benchmarks.bench_train --updates 4 --workers 0 --set num_envs=8
"""

from __future__ import annotations

import argparse
import csv
import sys
import tempfile
import time
from pathlib import Path

from training.config import load_config
from training.ppo import train

ROOT = Path(__file__).resolve().parent.parent


def measure(config_path: str, workers: int, updates: int, overrides: list[str]) -> dict:
    config = load_config(
        config_path,
        [*overrides, f"num_workers={workers}", "eval_games=0", "progress_bar=false", "checkpoint_interval=1000000"],
    )
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        train(config, tmp, max_updates=updates)
        wall = time.perf_counter() - start
        with open(Path(tmp) / "metrics.csv") as f:
            rows = [r for r in csv.DictReader(f)]
    env_steps = [float(r["value"]) for r in rows if r["name"] == "charts/env_steps"]
    sps = [float(r["value"]) for r in rows if r["name"] == "charts/SPS"]
    steps = [int(r["step"]) for r in rows if r["name"] == "charts/env_steps"]
    # Per-update steps/s, skipping the warm-up update; the overall figure includes setup.
    timed = sps[1:] or sps
    return {
        "workers": workers,
        "updates": len(sps),
        "env_steps": int(env_steps[-1]),
        "learner_steps": steps[-1],
        "env_steps_per_s": sum(timed) / len(timed),
        "wall_s": wall,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", default=str(ROOT / "configs" / "default.yaml"))
    parser.add_argument("--updates", type=int, default=3)
    parser.add_argument("--workers", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    args = parser.parse_args()
    print(f"config {args.config} {' '.join(args.set)}; {args.updates} updates per setting (first is warm-up)")
    for w in args.workers:
        r = measure(args.config, w, args.updates, args.set)
        print(
            f"num_workers={w}: {r['env_steps_per_s']:8.0f} env steps/s (learning included)  "
            f"{r['env_steps']} env steps, {r['learner_steps']} learner decisions in {r['wall_s']:.1f}s wall"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
