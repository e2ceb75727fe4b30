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
from typing import NamedTuple

from training.logger import read_metrics


class Reached(NamedTuple):
    level: float
    decisions: int | None  # None: not reached
    wall_s: float | None


def levels_reached(metrics_csv: Path, metric: str, levels: list[float], lower: bool = False) -> list[Reached]:
    """The first logged step at which ``metric`` reached each of ``levels``, with the seconds trained by then."""
    series = read_metrics(metrics_csv)
    if metric not in series:
        raise SystemExit(f"{metrics_csv}: no {metric!r} logged (its metrics: {', '.join(sorted(series))})")
    walls = dict(series.get("charts/wall_s", []))
    out = []
    for level in levels:
        first = next(((s, v) for s, v in series[metric] if (v <= level if lower else v >= level)), None)
        wall = None if first is None else walls.get(first[0])
        out.append(Reached(level, None if first is None else first[0], wall))
    return out


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
        series = read_metrics(run / "metrics.csv").get(args.metric, [])
        for r in levels_reached(run / "metrics.csv", args.metric, levels, args.lower):
            if r.decisions is None:
                best = (min if args.lower else max)(v for _, v in series)
                print(f"| {run} | {r.level:g} | not reached (best {best:.3g}) | |")
            else:
                wall = "" if r.wall_s is None else f"{r.wall_s:.0f}"
                print(f"| {run} | {r.level:g} | {r.decisions:,} | {wall} |")


if __name__ == "__main__":
    main()
