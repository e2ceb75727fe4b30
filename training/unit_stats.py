"""One side's figures in the unit a game scores (Gin's hands, the others' rounds), with their
95% intervals: what ``carousel eval`` (``training.evaluate``) and the leaderboard's per-unit
table (``training.leaderboard_page``) both report, counted once here.

Per unit: the side's points, its opponents' mean points and the difference; decided units
(the seats' points differ) and the share it won (its points alone the highest); its knock,
go-out and undercut counts (undercuts of its knocks). Points and differences get normal
intervals over the units, rates Wilson's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from carousel_env.core.stats import mean_interval, wilson_interval


@dataclass(frozen=True)
class UnitReport:
    """A side's figures over ``units`` scoring units (module docstring)."""

    units: int
    points: float
    points_ci: tuple[float, float]
    opponents_points: float
    opponents_points_ci: tuple[float, float]
    difference: float
    difference_ci: tuple[float, float]
    decided: int
    decided_won_rate: float
    decided_won_ci: tuple[float, float]
    knocks: int
    knock_rate: float
    knock_rate_ci: tuple[float, float]
    go_out_rate: float
    go_out_rate_ci: tuple[float, float]
    undercut_rate: float
    undercut_rate_ci: tuple[float, float]


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


@dataclass
class UnitTally:
    """A side's units, added one at a time; :meth:`report` gives the figures."""

    own: list[float] = field(default_factory=list)
    theirs: list[float] = field(default_factory=list)
    decided: int = 0
    won: int = 0
    knocks: int = 0
    outs: int = 0
    undercuts: int = 0

    def add(self, points: Sequence[int], seat: int) -> None:
        """One unit: every seat's points (higher better), the side in ``seat``."""
        others = [p for i, p in enumerate(points) if i != seat]
        self.own.append(points[seat])
        self.theirs.append(sum(others) / len(others))
        if len(set(points)) > 1:
            self.decided += 1
            self.won += points[seat] > max(others)

    def add_events(self, knocked: int, went_out: int, undercut: int) -> None:
        """The side's knocks, goings out and undercut knocks, over one unit or more."""
        self.knocks += knocked
        self.outs += went_out
        self.undercuts += undercut

    def report(self) -> UnitReport:
        n = len(self.own)
        diffs = [mine - theirs for mine, theirs in zip(self.own, self.theirs)]
        return UnitReport(
            units=n,
            points=_mean(self.own),
            points_ci=mean_interval(self.own),
            opponents_points=_mean(self.theirs),
            opponents_points_ci=mean_interval(self.theirs),
            difference=_mean(diffs),
            difference_ci=mean_interval(diffs),
            decided=self.decided,
            decided_won_rate=self.won / self.decided if self.decided else 0.0,
            decided_won_ci=wilson_interval(self.won, self.decided),
            knocks=self.knocks,
            knock_rate=self.knocks / n if n else 0.0,
            knock_rate_ci=wilson_interval(self.knocks, n),
            go_out_rate=self.outs / n if n else 0.0,
            go_out_rate_ci=wilson_interval(self.outs, n),
            undercut_rate=self.undercuts / self.knocks if self.knocks else 0.0,
            undercut_rate_ci=wilson_interval(self.undercuts, self.knocks),
        )
