"""The learner's device: the GPU checks, then CPU against GPU learner in one run.

    .venv/bin/python -m benchmarks.bench_device            # checks (where a GPU is) and the comparison
    .venv/bin/python -m benchmarks.bench_device --rounds 3 --updates 6 --set num_envs=32

``--check`` first runs ``tests/test_training_device.py`` (its GPU tests run only where torch
sees a GPU). Then each round trains the config (default: configs/default.yaml, the real
Carousel env) for ``--updates`` updates with ``device=cpu`` and, where there is one, with
``device=cuda``, in alternation, and prints per device: env steps/s (learning included),
the seconds an update spends learning (the rest is the rollout, on the CPU in both), and
the share of the update that is learning. The first update of each run is a warm-up and
not counted. Without a GPU it says so and measures the CPU learner alone.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
from pathlib import Path

import torch

from benchmarks.bench_train import short_run

ROOT = Path(__file__).resolve().parent.parent


def measure(config_path: str, device: str, updates: int, overrides: list[str]) -> dict[str, float]:
    metrics, wall = short_run(config_path, updates, [*overrides, f"device={device}"])

    def series(name: str) -> list[float]:
        return [value for _, value in metrics[name]]

    # Each update's seconds: its env steps over its steps/s (charts/SPS is the one over the other).
    totals = series("charts/env_steps")
    update_s = [(b - a) / s for a, b, s in zip([0.0, *totals], totals, series("charts/SPS"))][1:]
    sps, rollout_share = series("charts/SPS")[1:], series("charts/rollout_fraction")[1:]  # the warm-up dropped
    learn_s = [u * (1 - r) for u, r in zip(update_s, rollout_share)]
    return {
        "env_steps_per_s": statistics.mean(sps),
        "learn_s_per_update": statistics.mean(learn_s) if learn_s else float("nan"),
        "learn_share": 1 - statistics.mean(rollout_share),
        "wall_s": wall,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default=str(ROOT / "configs" / "default.yaml"))
    parser.add_argument("--updates", type=int, default=5, help="updates per run, the first a warm-up")
    parser.add_argument("--rounds", type=int, default=2, help="CPU and GPU runs in alternation, this many each")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="override a config key")
    parser.add_argument("--check", action="store_true", help="run tests/test_training_device.py first")
    args = parser.parse_args()
    if args.check:
        tests = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_training_device.py"]
        if subprocess.run(tests, cwd=ROOT).returncode != 0:
            print("the device tests failed: see above", file=sys.stderr)
            return 1
    devices = ["cpu"]
    if torch.cuda.is_available():
        devices.append("cuda")
        print(f"GPU: {torch.cuda.get_device_name(0)}; torch {torch.__version__}, CUDA {torch.version.cuda}")
    else:
        print(f"no GPU visible to torch {torch.__version__} (CUDA build: {torch.version.cuda}): the CPU learner alone")
    results: dict[str, list[dict[str, float]]] = {d: [] for d in devices}
    for round_index in range(args.rounds):
        for device in devices:
            row = measure(args.config, device, args.updates, args.set)
            results[device].append(row)
            print(
                f"round {round_index + 1} {device:>4}: {row['env_steps_per_s']:8.0f} env steps/s, "
                f"learning {row['learn_s_per_update']:.3f} s an update ({row['learn_share']:.0%}), "
                f"run {row['wall_s']:.0f} s",
                flush=True,
            )
    print("\nmean over rounds:")
    for device, rows in results.items():
        sps = statistics.mean(r["env_steps_per_s"] for r in rows)
        learn = statistics.mean(r["learn_s_per_update"] for r in rows)
        print(f"  {device:>4}: {sps:8.0f} env steps/s, learning {learn:.3f} s an update")
    return 0


if __name__ == "__main__":
    sys.exit(main())
