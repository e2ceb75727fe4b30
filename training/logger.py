"""Scalars to TensorBoard, to ``metrics.csv`` (step,name,value) and to a PNG at the end.

On resume every record after the checkpoint's step is dropped from both the CSV and
TensorBoard (``purge_step``), so curves continue from the checkpoint with no step logged
twice even if the interrupted run had logged further.
"""

from __future__ import annotations

import bisect
import csv
import os
from collections import defaultdict
from pathlib import Path
from typing import NamedTuple


class MetricLogger:
    def __init__(self, run_dir: Path, resume_step: int | None = None, tensorboard: bool = True) -> None:
        self.run_dir = Path(run_dir)
        self.csv_path = self.run_dir / "metrics.csv"
        if resume_step is not None and self.csv_path.exists():
            with self.csv_path.open() as f:
                rows = [r for r in csv.DictReader(f) if int(r["step"]) <= resume_step]
            with self.csv_path.open("w", newline="") as f:
                writer = csv.DictWriter(f, ["step", "name", "value"], lineterminator="\n")
                writer.writeheader()
                writer.writerows(rows)
        elif resume_step is None:
            self.csv_path.write_text("step,name,value\n")
        self._csv = self.csv_path.open("a", newline="")
        self._writer = csv.writer(self._csv, lineterminator="\n")
        self.tb = None
        if tensorboard:
            from torch.utils.tensorboard import SummaryWriter

            purge = resume_step + 1 if resume_step is not None else None
            self.tb = SummaryWriter(str(self.run_dir / "tb"), purge_step=purge)

    def log(self, step: int, scalars: dict[str, float]) -> None:
        for name, value in scalars.items():
            self._writer.writerow([step, name, repr(float(value))])
            if self.tb is not None:
                self.tb.add_scalar(name, float(value), step)
        self._csv.flush()

    def close(self) -> None:
        self._csv.close()
        if self.tb is not None:
            self.tb.close()


# The metrics that measure the clock, not the run: they differ between two runs of one seed.
TIMING_METRICS = ("charts/SPS", "charts/rollout_fraction", "charts/wall_s")


class Reached(NamedTuple):
    """The first logged step at which a metric reached ``level`` (None: never), with the
    seconds trained by then (``charts/wall_s``; None where the run did not log it)."""

    level: float
    decisions: int | None
    wall_s: float | None


def levels_reached(
    series: dict[str, list[tuple[int, float]]], metric: str, levels: list[float], lower: bool = False
) -> list[Reached]:
    """When a run's ``metric`` first reached each of ``levels`` (at least it, or at most it if
    ``lower``): its time to strength (``benchmarks/run_levels.py``)."""
    walls = dict(series.get("charts/wall_s", []))
    out = []
    for level in levels:
        first = next(((s, v) for s, v in series.get(metric, []) if (v <= level if lower else v >= level)), None)
        out.append(Reached(level, None, None) if first is None else Reached(level, first[0], walls.get(first[0])))
    return out


def read_metrics(path: str | Path) -> dict[str, list[tuple[int, float]]]:
    series: dict[str, list[tuple[int, float]]] = defaultdict(list)
    with Path(path).open() as f:
        for row in csv.DictReader(f):
            series[row["name"]].append((int(row["step"]), float(row["value"])))
    return dict(series)


# The panels of a run's plot: a metric, or every metric under a prefix ending in "/".
PLOTTED = (
    "charts/episodic_return",
    "eval/win_rate",
    "eval/score_diff",
    "losses/value_loss",
    "losses/explained_variance",
    "losses/entropy",
    "actions/",
    "charts/episode_decisions",
    "charts/return_std",
)
PLOT_COLUMNS = 3
PANEL_NOTES = {"actions/": " (share taken where legal)", "eval/score_diff": " (points a unit less the yardstick's)"}


def panel_series(series: dict[str, list[tuple[int, float]]], panel: str) -> dict[str, list[tuple[int, float]]]:
    """The curves one panel draws: the metric ``panel``, or every metric under it if it ends in "/"."""
    if panel.endswith("/"):
        return {name: points for name, points in sorted(series.items()) if name.startswith(panel) and points}
    return {panel: series[panel]} if series.get(panel) else {}


def _pyplot():
    """matplotlib's pyplot, drawing to files only (no display needed)."""
    os.environ.setdefault("MPLBACKEND", "Agg")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_learning_curves(csv_path: str | Path, png_path: str | Path) -> None:
    """Draw a run's ``metrics.csv`` as one panel per entry of :data:`PLOTTED` (a panel with
    nothing logged stays empty, titled), learner decisions along every x axis."""
    plt = _pyplot()

    series = read_metrics(csv_path)
    rows = -(-len(PLOTTED) // PLOT_COLUMNS)
    fig, axes = plt.subplots(rows, PLOT_COLUMNS, figsize=(4.2 * PLOT_COLUMNS, 3.3 * rows))
    for ax, panel in zip(axes.flat, PLOTTED):
        curves = panel_series(series, panel)
        for name, points in curves.items():
            xs, ys = zip(*points)
            ax.plot(xs, ys, marker="." if len(xs) < 30 else None, label=name.removeprefix(panel))
            if name == "eval/win_rate":
                lo = dict(series.get("eval/win_rate_ci_low", []))
                hi = dict(series.get("eval/win_rate_ci_high", []))
                if lo and hi:
                    ax.fill_between(xs, [lo.get(x, y) for x, y in points], [hi.get(x, y) for x, y in points], alpha=0.2)
        if panel.endswith("/") and curves:
            ax.legend(fontsize=7)
        ax.set_title(panel + PANEL_NOTES.get(panel, ""), fontsize=9)
        ax.set_xlabel("learner decisions")
        ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(png_path, dpi=100)
    plt.close(fig)


def running_mean(points: list[tuple[int, float]], window: int) -> list[tuple[int, float]]:
    """Each point's value replaced by the mean of it and the ``window - 1`` before it: evaluations
    of a few dozen games are noisy, and the mean shows where a run stands."""
    if window < 1:
        raise ValueError(f"window must be at least 1, got {window}")
    out, total = [], 0.0
    for i, (step, value) in enumerate(points):
        total += value - (points[i - window][1] if i >= window else 0.0)
        out.append((step, total / min(i + 1, window)))
    return out


def seconds_at(series: dict[str, list[tuple[int, float]]], steps: list[int]) -> list[float | None]:
    """The seconds trained (``charts/wall_s``) at each step: the last value logged at or before it."""
    walls = series.get("charts/wall_s", [])
    wall_steps = [s for s, _ in walls]
    out = []
    for step in steps:
        i = bisect.bisect_right(wall_steps, step) - 1
        out.append(walls[i][1] if i >= 0 else None)
    return out


def plot_runs(
    runs: dict[str, dict[str, list[tuple[int, float]]]],
    metric: str,
    png_path: str | Path,
    window: int = 10,
    levels: tuple[float, ...] = (),
) -> None:
    """Draw ``metric`` of several runs (name -> its :func:`read_metrics`) side by side, against
    learner decisions and against seconds trained: each run's values as faint points, their
    :func:`running_mean` over ``window`` as its line, ``levels`` as dashed lines."""
    plt = _pyplot()

    missing = [name for name, series in runs.items() if not series.get(metric)]
    if missing:
        raise ValueError(f"no {metric!r} logged in: {', '.join(missing)}")
    fig, (by_decisions, by_seconds) = plt.subplots(1, 2, figsize=(12, 4.2), sharey=True)
    for i, (name, series) in enumerate(runs.items()):
        color = f"C{i % 10}"
        points = series[metric]
        steps = [s for s, _ in points]
        mean = [v for _, v in running_mean(points, window)]
        seconds = seconds_at(series, steps)
        by_decisions.plot(steps, [v for _, v in points], ".", color=color, alpha=0.25, markersize=3)
        by_decisions.plot(steps, mean, color=color, label=name)
        timed = [(t, v, m) for t, (_, v), m in zip(seconds, points, mean) if t is not None]
        if timed:
            times, values, means = zip(*timed)
            by_seconds.plot(times, values, ".", color=color, alpha=0.25, markersize=3)
            by_seconds.plot(times, means, color=color, label=name)
    for ax, label in ((by_decisions, "learner decisions"), (by_seconds, "seconds trained")):
        for level in levels:
            ax.axhline(level, color="k", linestyle="--", linewidth=0.8)
        ax.set_xlabel(label)
        ax.grid(alpha=0.3)
    by_decisions.set_ylabel(f"{metric} (line: mean of the last {window})")
    by_decisions.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(png_path, dpi=100)
    plt.close(fig)
