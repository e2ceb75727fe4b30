"""Solver vs MILP reference on fixed seeded position sets.

    .venv/bin/python -m benchmarks.bench_solver [--n 200] [--agent-n N] [--milp-n N] [--block 10]
        [--sets all|agent|hard|stress] [--no-milp] [--no-startup]

Headline rows: ``tests/data/agent_positions.jsonl``, the positions the env asked the solver in
the shipped agents' self-play (``agent-2p`` .. ``agent-5p``, every position of each by default,
``--agent-n`` to cut them; ``tests.support.stored.agent_positions``), one row per set and one
over all of them together, with the solver's median, p99, p99.9 and max; then the hard set
(``tests/data/hard_positions.jsonl``: every solve over 50 ms of ``benchmarks.solve_corpus``'s
recorded games, ``tests.support.stored.hard_positions``) as one row. Stress rows after
them: ``tests/data/solver_positions.jsonl`` (one-deck / two-deck, synthetic / game, each a set,
the first ``--n`` of each; ``tests.support.stored.stored_positions``). Prints
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
from carousel_env.games.carousel.solver import solve_counts
from tests.support.stored import StoredPosition, agent_positions, hard_positions, stored_positions

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


def position_sets(
    n: int | None, positions: tuple[StoredPosition, ...] | None = None
) -> list[tuple[str, list[StoredPosition]]]:
    """``positions`` (default: the stress sets) by set, the first ``n`` of each (None: all),
    sets in name order."""
    sets: dict[str, list[StoredPosition]] = {}
    for position in stored_positions() if positions is None else positions:
        sets.setdefault(position.set_name, []).append(position)
    return [(name, items[:n]) for name, items in sorted(sets.items())]


def time_set(items: list[StoredPosition], milp_n: int, block: int) -> tuple[list[float], list[float]]:
    """Seconds per position of the solver on ``items``, and of the MILP (both objectives) on
    the first ``milp_n`` of them, timed in alternating blocks of ``block`` positions."""
    from carousel_env.games.carousel.solver import solve

    if milp_n:
        from tests.support.milp_reference import milp_best
    ts: list[float] = []
    tm: list[float] = []
    # Solver and MILP take turns a block of positions at a time, so that both are timed
    # under the same conditions: this machine's speed drifts by up to 2x within minutes,
    # and timing a whole set with one, then with the other, put that drift in the ratio.
    # Each block of solves starts after a pause: HiGHS may leave threads spinning for a
    # moment after it returns, which slowed the next solves.
    for start in range(0, len(items), block):
        chunk = items[start : start + block]
        time.sleep(0.05)
        for position in chunk:
            a = time.perf_counter()
            # The solver alone; bench_position_check times the public entry's position check.
            solve(position.table, position.hand, position.rules, check_position=False)
            ts.append(time.perf_counter() - a)
        for position in chunk[: max(0, milp_n - start)]:
            a = time.perf_counter()
            milp_best(position.table, position.hand, position.rules, "points")
            milp_best(position.table, position.hand, position.rules, "cards")
            tm.append(time.perf_counter() - a)
    return ts, tm


def milp_part(ts: list[float], tm: list[float]) -> str:
    """The MILP's figures and the ratios, on the positions both timed (``ts[:len(tm)]``)."""
    if not tm:
        return ""
    line = f" | milp (n={len(tm)}) median {1000 * statistics.median(tm):.2f} ms p99 {1000 * pct(tm, 0.99):.1f} ms"
    same = ts[: len(tm)]  # the solver on the positions the MILP solved
    line += f" | ratio of medians {statistics.median(tm) / statistics.median(same):.1f}x"
    line += f" (per position: median {statistics.median(m / s for m, s in zip(tm, same)):.1f}x)"
    return line


def headline_line(name: str, ts: list[float], tm: list[float]) -> str:
    """An agent set's row: the tail to p99.9 and the max."""
    line = f"{name}: n={len(ts)} solver median {1000 * statistics.median(ts):.3f} ms"
    line += f" p99 {1000 * pct(ts, 0.99):.2f} ms p99.9 {1000 * pct(ts, 0.999):.2f} ms max {1000 * max(ts):.1f} ms"
    line += f" mean {1000 * statistics.fmean(ts):.3f} ms"
    return line + milp_part(ts, tm)


def stress_line(name: str, ts: list[float], tm: list[float]) -> str:
    line = f"{name}: n={len(ts)} solver median {1000 * statistics.median(ts):.3f} ms"
    line += f" p99 {1000 * pct(ts, 0.99):.1f} ms mean {1000 * statistics.fmean(ts):.2f} ms max {1000 * max(ts):.0f} ms"
    return line + milp_part(ts, tm)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=200, help="positions per stress set")
    ap.add_argument("--agent-n", type=int, default=None, help="positions per agent set (default: all of them)")
    ap.add_argument(
        "--milp-n", type=int, default=None, help="positions per set also timed with the MILP (default: all of them)"
    )
    ap.add_argument("--block", type=int, default=10, help="positions per turn of solver, then MILP")
    ap.add_argument(
        "--sets",
        choices=["all", "agent", "hard", "stress"],
        default="all",
        help="the agent sets, the hard set (every solve over 50 ms of the recorded games), the stress sets, or all",
    )
    ap.add_argument("--no-milp", action="store_true")
    ap.add_argument("--no-startup", action="store_true", help="skip the start-up timings (a cold one compiles)")
    args = ap.parse_args()
    if args.block < 1:
        ap.error(f"--block must be at least 1, got {args.block}")
    for option in ("n", "agent_n", "milp_n"):
        value = getattr(args, option)
        if value is not None and value < 0:
            ap.error(f"--{option.replace('_', '-')} must be at least 0, got {value}")

    print(f"load average before: {os.getloadavg()}")
    if not args.no_startup:
        with tempfile.TemporaryDirectory() as empty:
            print(f"start-up (import + first solve), cold numba cache: {startup(empty):.2f} s")
        startup(None)  # make sure the default cache is filled
        print(f"start-up (import + first solve), warm numba cache: {startup(None):.3f} s")

    # this process loads the compiled code at its first solve (start-up is measured above)
    first_solve()

    def milp_n(items: list[StoredPosition]) -> int:
        return 0 if args.no_milp else len(items) if args.milp_n is None else args.milp_n

    if args.sets in ("all", "agent"):
        agent_sets = position_sets(args.agent_n, agent_positions())
        if not agent_sets:
            print("agent sets: tests/data/agent_positions.jsonl not generated (tests.data.generate_agent_positions)")
        else:
            print("headline: positions from the shipped agents' self-play (tests/data/agent_positions.jsonl)")
        every_ts: list[float] = []
        every_pairs: list[tuple[float, float]] = []
        for name, items in agent_sets:
            ts, tm = time_set(items, milp_n(items), args.block)
            every_ts += ts
            every_pairs += zip(ts, tm)
            print(headline_line(name, ts, tm), flush=True)
        if agent_sets:
            # Over all the agent positions: the MILP columns on the positions both timed.
            line = headline_line("all agent positions", every_ts, [])
            if every_pairs:
                line += milp_part([s for s, _ in every_pairs], [m for _, m in every_pairs])
            print(line, flush=True)
    if args.sets in ("all", "hard"):
        hard = list(hard_positions())
        if not hard:
            print("hard set: tests/data/hard_positions.jsonl not generated (benchmarks.solve_corpus --hard)")
        else:
            print("hard set: every solve over 50 ms in the recorded games (tests/data/hard_positions.jsonl)")
            before = solve_counts()
            ts, tm = time_set(hard, milp_n(hard), args.block)
            after = solve_counts()
            counts = f" | integer programs {after.programs - before.programs}, inexact {after.inexact - before.inexact}"
            print(headline_line("hard", ts, tm) + counts, flush=True)
    if args.sets in ("all", "stress"):
        print("stress rows: synthetic and scripted-game positions (tests/data/solver_positions.jsonl)")
        for name, items in position_sets(args.n):
            ts, tm = time_set(items, milp_n(items), args.block)
            print(stress_line(name, ts, tm), flush=True)
    print(f"peak resident memory: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")
    print(f"load average after: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
