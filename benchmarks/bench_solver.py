"""Solver vs MILP reference on fixed seeded position sets.

    .venv/bin/python -m benchmarks.bench_solver [--n 200] [--milp-n N] [--block 10] [--no-milp] [--no-startup]

Positions: ``tests/data/solver_positions.jsonl`` (one-deck / two-deck, synthetic / game,
each a set; ``tests.support.stored``). Prints
per set the solver's median and p99 per position, the MILP's (both objectives, on every
position of the set, or its first ``--milp-n``) and the ratio of the two medians on those same
positions (the median of the per-position ratios too), the two timed in turns of ``--block``
positions so that the machine's drift reaches both alike; start-up time (import +
first solve, in a fresh interpreter) with a cold numba cache (empty NUMBA_CACHE_DIR) and a
warm one; peak resident memory; and the load average (other processes skew timings).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.solver_startup import first_solve
from tests.support.stored import StoredPosition, stored_positions

ROOT = Path(__file__).resolve().parents[1]


def startup(cache_dir: str | None) -> float:
    """Seconds for import + first solve in a fresh interpreter (``cache_dir``: NUMBA_CACHE_DIR)."""
    env = dict(os.environ)
    if cache_dir is not None:
        env["NUMBA_CACHE_DIR"] = cache_dir
    out = subprocess.run(
        [sys.executable, "-m", "benchmarks.solver_startup"],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return float(out.stdout.strip())


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def position_sets(n: int) -> list[tuple[str, list[StoredPosition]]]:
    """The stored positions by set, the first ``n`` of each, sets in name order."""
    sets: dict[str, list[StoredPosition]] = {}
    for position in stored_positions():
        sets.setdefault(position.set_name, []).append(position)
    return [(name, positions[:n]) for name, positions in sorted(sets.items())]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=200, help="positions per set")
    ap.add_argument(
        "--milp-n", type=int, default=None, help="positions per set also timed with the MILP (default: all of them)"
    )
    ap.add_argument("--block", type=int, default=10, help="positions per turn of solver, then MILP")
    ap.add_argument("--no-milp", action="store_true")
    ap.add_argument("--no-startup", action="store_true", help="skip the start-up timings (a cold one compiles)")
    args = ap.parse_args()
    if args.block < 1:
        ap.error(f"--block must be at least 1, got {args.block}")
    if args.milp_n is not None and args.milp_n < 0:
        ap.error(f"--milp-n must be at least 0, got {args.milp_n}")

    print(f"load average before: {os.getloadavg()}")
    if not args.no_startup:
        with tempfile.TemporaryDirectory() as empty:
            print(f"start-up (import + first solve), cold numba cache: {startup(empty):.2f} s")
        startup(None)  # make sure the default cache is filled
        print(f"start-up (import + first solve), warm numba cache: {startup(None):.3f} s")

    from carousel_env.solver import solve

    # this process loads the compiled code at its first solve (start-up is measured above)
    first_solve()
    if not args.no_milp:
        from tests.support.milp_reference import milp_best
    for name, items in position_sets(args.n):
        ts, tm = [], []
        milp_n = 0 if args.no_milp else len(items) if args.milp_n is None else args.milp_n
        # Solver and MILP take turns a block of positions at a time, so that both are timed
        # under the same conditions: this machine's speed drifts by up to 2x within minutes,
        # and timing a whole set with one, then with the other, put that drift in the ratio.
        # Each block of solves starts after a pause: HiGHS may leave threads spinning for a
        # moment after it returns, which slowed the next solves.
        for start in range(0, len(items), args.block):
            block = items[start : start + args.block]
            time.sleep(0.05)
            for position in block:
                a = time.perf_counter()
                # The solver alone; bench_position_check times the public entry's position check.
                solve(position.table, position.hand, position.rules, check_position=False)
                ts.append(time.perf_counter() - a)
            for position in block[: max(0, milp_n - start)]:
                a = time.perf_counter()
                milp_best(position.table, position.hand, position.rules, "points")
                milp_best(position.table, position.hand, position.rules, "cards")
                tm.append(time.perf_counter() - a)
        line = f"{name}: n={len(ts)} solver median {1000 * statistics.median(ts):.3f} ms"
        line += (
            f" p99 {1000 * pct(ts, 0.99):.1f} ms mean {1000 * statistics.fmean(ts):.2f} ms max {1000 * max(ts):.0f} ms"
        )
        if tm:
            line += (
                f" | milp (n={len(tm)}) median {1000 * statistics.median(tm):.2f} ms p99 {1000 * pct(tm, 0.99):.1f} ms"
            )
            same = ts[: len(tm)]  # the solver on the positions the MILP solved
            line += f" | ratio of medians {statistics.median(tm) / statistics.median(same):.1f}x"
            line += f" (per position: median {statistics.median(m / s for m, s in zip(tm, same)):.1f}x)"
        print(line, flush=True)
    print(f"peak resident memory: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")
    print(f"load average after: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
