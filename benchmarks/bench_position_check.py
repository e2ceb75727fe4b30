"""What the position check costs a public ``solve``: ``check_position`` against the solve itself.

    .venv/bin/python -m benchmarks.bench_position_check [--n N] [--repeat 20]

Positions: ``tests/data/solver_positions.jsonl`` (``tests.support.stored``): all of them, or
the first ``--n`` of each set. Per position, in turns (check, then solve, then the next position), so
that the machine's drift reaches both alike: ``check_position`` once (its first call on the
position: melds not seen before miss ``is_valid_meld_cached``), then ``--repeat`` more calls
(their mean: the cost once the melds are known, as on a table that stays turn after turn),
then ``solve(..., check_position=False)``, the solve the check is added to. Prints, per set
and over all positions, the median and p99 of each, the ratio of the medians and the median
of the per-position ratios; and the load average (other processes skew timings).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from benchmarks.bench_solver import pct, position_sets
from benchmarks.solver_startup import first_solve
from tests.support.stored import stored_positions


def summary(name: str, first: list[float], repeated: list[float], solves: list[float]) -> str:
    def us(values: list[float]) -> str:
        return f"median {1e6 * statistics.median(values):.1f} us p99 {1e6 * pct(values, 0.99):.1f} us"

    per_position = statistics.median(c / s for c, s in zip(first, solves))
    return (
        f"{name}: n={len(solves)} | check, first call {us(first)} | check, repeated {us(repeated)}"
        f" | solve {us(solves)}"
        f" | check/solve: ratio of medians {100 * statistics.median(first) / statistics.median(solves):.2f}%"
        f" (per position: median {100 * per_position:.2f}%)"
    )


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=None, help="positions per set (default: all of them)")
    ap.add_argument("--repeat", type=int, default=20, help="further check calls per position, averaged")
    args = ap.parse_args()
    if (args.n is not None and args.n < 1) or args.repeat < 1:
        ap.error("--n and --repeat must be at least 1")

    from carousel_env.games.carousel.engine.positions import check_position
    from carousel_env.games.carousel.solver import solve

    first_solve()  # loads the compiled code (start-up is bench_solver's to measure)
    sets = position_sets(len(stored_positions()) if args.n is None else args.n)
    if not sets:
        ap.error("no stored positions: generate tests/data/solver_positions.jsonl first")
    print(f"load average before: {os.getloadavg()}")
    everything: tuple[list[float], list[float], list[float]] = ([], [], [])
    for name, items in sets:
        first, repeated, solves = [], [], []
        for position in items:
            table, hand, rules = position.table, position.hand, position.rules
            start = time.perf_counter()
            check_position(table, hand, rules)
            first.append(time.perf_counter() - start)
            start = time.perf_counter()
            for _ in range(args.repeat):
                check_position(table, hand, rules)
            repeated.append((time.perf_counter() - start) / args.repeat)
            start = time.perf_counter()
            solve(table, hand, rules, check_position=False)
            solves.append(time.perf_counter() - start)
        print(summary(name, first, repeated, solves), flush=True)
        for total, values in zip(everything, (first, repeated, solves)):
            total.extend(values)
    print(summary("all", *everything))
    print(f"load average after: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
