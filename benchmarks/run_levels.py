"""A training run's time to strength, read from its ``metrics.csv``: for each level of one
metric, the learner decisions and the seconds of training (``charts/wall_s``, every resume
included) at the first evaluation that reached it. Runs side by side compare recipes (issue
53's time-to-strength tables).

    .venv/bin/python -m benchmarks.run_levels runs/gin_a runs/gin_b --metric eval/score_diff --levels=-40,-30,-20
    .venv/bin/python -m benchmarks.run_levels runs/gin_a --metric eval/win_rate --levels 0.1,0.25,0.5

A level counts as reached when the metric is at least it (``--lower`` for metrics where less is
better). A run that never reached a level shows its best value instead.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from training.logger import levels_reached, read_metrics


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("runs", nargs="+", type=Path, help="run directories (each with its metrics.csv)")
    p.add_argument("--metric", default="eval/win_rate")
    p.add_argument("--levels", required=True, help="comma-separated levels of the metric")
    p.add_argument("--lower", action="store_true", help="less is better for this metric")
    args = p.parse_args()
    levels = [float(x) for x in args.levels.split(",") if x.strip()]
    print(f"| run | {args.metric} | learner decisions | seconds trained |")
    print("| --- | ---: | ---: | ---: |")
    for run in args.runs:
        metrics = read_metrics(run / "metrics.csv")
        if args.metric not in metrics:
            raise SystemExit(f"{run}: no {args.metric!r} logged (its metrics: {', '.join(sorted(metrics))})")
        series = metrics[args.metric]
        for r in levels_reached(metrics, args.metric, levels, args.lower):
            if r.decisions is None:
                best = (min if args.lower else max)(v for _, v in series)
                print(f"| {run} | {r.level:g} | not reached (best {best:.3g}) | |")
            else:
                wall = "" if r.wall_s is None else f"{r.wall_s:.0f}"
                print(f"| {run} | {r.level:g} | {r.decisions:,} | {wall} |")


if __name__ == "__main__":
    main()
