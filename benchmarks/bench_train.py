"""Training throughput: environment steps per second, learning included.

Runs a few updates of a config (default: configs/default.yaml, the full-size network and
batch) for each ``num_workers`` value and prints env steps/s (every seat's decisions,
opponents too) and learner decisions/s. The first update is a warm-up and not counted.

    .venv/bin/python -m benchmarks.bench_train                      # default config, workers 0 1 2
    .venv/bin/python -m benchmarks.bench_train --updates 4 --workers 0 --set num_envs=8

``--compare A B ...`` measures each override set (``"vector_env=false"``, ``""`` for the
config as it is) in alternation, ``--rounds`` times; ``--gin-python`` adds sb3-contrib's
MaskablePPO on gin_rummy_v4 (``bench_gin_maskable_ppo.py``, in its own venv) to every
round, so the ratio to that reference is taken within a round.
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from training.config import load_config
from training.logger import read_metrics
from training.ppo import train

ROOT = Path(__file__).resolve().parent.parent


def short_run(config_path: str, updates: int, overrides: list[str]) -> tuple[dict[str, list[tuple[int, float]]], float]:
    """``updates`` updates of the config (no evaluation, no checkpoint but the last) in a
    scratch directory: the run's metrics (``training.logger.read_metrics``) and its wall time."""
    config = load_config(config_path, [*overrides, "eval_games=0", "progress_bar=false", "checkpoint_interval=1000000"])
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        train(config, tmp, max_updates=updates)
        wall = time.perf_counter() - start
        return read_metrics(Path(tmp) / "metrics.csv"), wall


def measure(config_path: str, workers: int, updates: int, overrides: list[str]) -> dict:
    metrics, wall = short_run(config_path, updates, [*overrides, f"num_workers={workers}"])
    env_steps = [value for _, value in metrics["charts/env_steps"]]
    sps = [value for _, value in metrics["charts/SPS"]]
    steps = [step for step, _ in metrics["charts/env_steps"]]
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


def gin_reference(python: str) -> float | str:
    """MaskablePPO's env steps/s on gin_rummy_v4, or why there is none."""
    script = ROOT / "benchmarks" / "bench_gin_maskable_ppo.py"
    try:
        done = subprocess.run([python, str(script)], capture_output=True, text=True, timeout=1800)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return str(exc)
    found = re.search(r"([0-9.]+) env steps/s", done.stdout)
    if done.returncode != 0 or not found:
        return (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]
    return float(found.group(1))


def compare(args: argparse.Namespace) -> int:
    sets = [[kv for kv in group.split(",") if kv] for group in args.compare]
    speeds: dict[int, list[float]] = {i: [] for i in range(len(sets))}
    ratios: dict[int, list[float]] = {i: [] for i in range(len(sets))}
    for r in range(args.rounds):
        figures = []
        for i, extra in enumerate(sets):
            m = measure(args.config, args.workers[0], args.updates, [*args.set, *extra])
            speeds[i].append(m["env_steps_per_s"])
            figures.append(f"[{','.join(extra) or 'as configured'}] {m['env_steps_per_s']:.0f}")
        reference = gin_reference(args.gin_python) if args.gin_python else None
        line = f"round {r + 1}: " + "  ".join(figures)
        if isinstance(reference, float):
            for i in speeds:
                ratios[i].append(speeds[i][-1] / reference)
            line += f"  | MaskablePPO gin_rummy_v4 {reference:.0f}"
        elif reference is not None:
            line += f"  | MaskablePPO reference failed: {reference}"
        print(line + "  env steps/s (learning included)", flush=True)
    for i, extra in enumerate(sets):
        summary = f"[{','.join(extra) or 'as configured'}]: median {statistics.median(speeds[i]):.0f} env steps/s"
        if ratios[i]:
            summary += f", {statistics.median(ratios[i]):.2f}x MaskablePPO on gin_rummy_v4 (median of rounds)"
        print(summary)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", default=str(ROOT / "configs" / "default.yaml"))
    parser.add_argument("--updates", type=int, default=3)
    parser.add_argument("--workers", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--compare", nargs="+", metavar="K=V,K=V", help="override sets measured in alternation")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of --compare (default 3)")
    parser.add_argument("--gin-python", default="", help="python of the gin venv with sb3-contrib (see above)")
    args = parser.parse_args()
    print(f"config {args.config} {' '.join(args.set)}; {args.updates} updates per setting (first is warm-up)")
    if args.compare:
        return compare(args)
    for w in args.workers:
        r = measure(args.config, w, args.updates, args.set)
        print(
            f"num_workers={w}: {r['env_steps_per_s']:8.0f} env steps/s (learning included)  "
            f"{r['env_steps']} env steps, {r['learner_steps']} learner decisions in {r['wall_s']:.1f}s wall"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
