"""Small pure statistics for reporting results and for search: 95% intervals for a win rate
and a mean, and whether paired gains clear their noise.

Torch-free and game-free, so that every layer (an integration's runner, the command line)
reports its intervals the same way (``training.evaluate`` too): ``wilson_interval`` for a
win rate, ``mean_interval`` the normal interval for a mean, optionally clipped (a mean of
per-deal win shares lies in [0, 1]).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

Z_95 = 1.959963984540054
# Below this many deals the normal interval over the deals' means is too rough to trust.
MIN_DEALS_FOR_INTERVAL = 20


def wilson_interval(wins: float, n: int, z: float = Z_95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion (draws may count as half wins);
    ``(0, 1)`` when ``n`` is 0."""
    if n <= 0:
        return (0.0, 1.0)
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def mean_interval(
    values: Sequence[float], z: float = Z_95, clip: tuple[float, float] | None = None
) -> tuple[float, float]:
    """Normal interval for the mean of ``values`` (the sample's standard error), clipped to
    ``clip`` when given; with fewer than 2 values there is no spread to estimate, and it is
    ``clip`` or ``(-inf, inf)``."""
    n = len(values)
    if n < 2:
        return clip if clip is not None else (-math.inf, math.inf)
    mean = sum(values) / n
    variance = sum((x - mean) ** 2 for x in values) / (n - 1)
    half = z * math.sqrt(variance / n)
    low, high = mean - half, mean + half
    if clip is not None:
        low, high = max(clip[0], low), min(clip[1], high)
    return (low, high)


def is_margin(value: object) -> bool:
    """Whether ``value`` is a margin :func:`clear_gain` takes: a number of standard errors >= 0."""
    return not isinstance(value, bool) and isinstance(value, (int, float)) and not value < 0


def clear_gain(gains: Sequence[float], margin: float) -> bool:
    """Whether the mean of paired ``gains`` is positive and above ``margin`` standard errors
    (a single gain: positive). The search players leave their default move only for that."""
    n = len(gains)
    mean = sum(gains) / n
    if mean <= 0:
        return False
    if n < 2:
        return True
    variance = sum((g - mean) ** 2 for g in gains) / (n - 1)
    return mean > margin * math.sqrt(variance / n)
