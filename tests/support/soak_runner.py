"""What every game's soak shares: its games played in chunks on worker processes, the
chunks' reports summed, and the time taken."""

from __future__ import annotations

import multiprocessing as mp
import time
from collections.abc import Callable
from typing import Protocol, TypeVar


class SoakReport(Protocol):
    seconds: float

    def add(self, other) -> None: ...


R = TypeVar("R", bound=SoakReport)


def run_games(play_many: Callable[[list[int]], R], games: int, seed: int, workers: int, chunk: int) -> R:
    """``play_many`` (a module-level function: workers import it) over the seeds ``seed ..
    seed + games - 1``, in chunks of ``chunk`` on ``workers`` processes (0: this one)."""
    start = time.perf_counter()
    seeds = list(range(seed, seed + games))
    if workers == 0:
        report = play_many(seeds)
    else:
        chunks = [seeds[i : i + chunk] for i in range(0, len(seeds), chunk)]
        report = play_many([])
        with mp.get_context("spawn").Pool(workers) as pool:
            for part in pool.imap_unordered(play_many, chunks):
                report.add(part)
    report.seconds = time.perf_counter() - start
    return report
