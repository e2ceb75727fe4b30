"""A training run's time to strength, read from its ``metrics.csv``: for each level of one
metric, the learner decisions and the seconds of training (``charts/wall_s``, every resume
included) at the first evaluation that reached it. Runs side by side compare recipes (issue
53's time-to-strength tables).

    .venv/bin/python -m benchmarks.run_levels runs/gin_a runs/gin_b --metric eval/score_diff --levels=-40,-30,-20
    .venv/bin/python -m benchmarks.run_levels runs/gin_a --metric eval/win_rate --levels 0.1,0.25,0.5
    .venv/bin/python -m benchmarks.run_levels runs/a runs/b --levels 0.3,0.5 --plot curves.png --window 10

A level counts as reached when the metric is at least it (``--lower`` for metrics where less is
better). A run that never reached a level shows its best value instead. ``--plot`` draws the
metric of every run against learner decisions and against seconds trained, with its running
mean over ``--window`` evaluations (``training.logger.plot_runs``).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from training.logger import levels_reached, plot_runs, read_metrics


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("runs", nargs="+", type=Path, help="run directories (each with its metrics.csv)")
    p.add_argument("--metric", default="eval/win_rate")
    p.add_argument("--levels", required=True, help="comma-separated levels of the metric")
    p.add_argument("--lower", action="store_true", help="less is better for this metric")
    p.add_argument("--plot", type=Path, help="a PNG to draw the runs' curves of the metric in")
    p.add_argument("--window", type=int, default=10, help="evaluations in the plot's running mean")
    p.add_argument("--labels", help="comma-separated names of the runs in the plot (default: their paths)")
    args = p.parse_args()
    if args.window < 1:
        raise SystemExit(f"--window must be at least 1, got {args.window}")
    labels = [x.strip() for x in args.labels.split(",")] if args.labels else [str(run) for run in args.runs]
    if len(labels) != len(args.runs):
        raise SystemExit(f"--labels names {len(labels)} runs, but {len(args.runs)} were given")
    levels = [float(x) for x in args.levels.split(",") if x.strip()]
    print(f"| run | {args.metric} | learner decisions | seconds trained |")
    print("| --- | ---: | ---: | ---: |")
    every = {}
    for run, label in zip(args.runs, labels):
        metrics = every[label] = read_metrics(run / "metrics.csv")
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
    if args.plot:
        plot_runs(every, args.metric, args.plot, window=args.window, levels=tuple(levels))
        print(f"curves: {args.plot}")


if __name__ == "__main__":
    main()
