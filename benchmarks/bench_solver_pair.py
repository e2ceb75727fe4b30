"""Two versions of the solver, timed in alternation on the same stored positions.

    .venv/bin/python -m benchmarks.bench_solver_pair OLD_TREE [NEW_TREE] [--n 200] [--only TEXT ...]

A tree is a checkout of this repository (for example ``git worktree add /tmp/old <commit>``;
NEW_TREE defaults to this one). Each tree's solver runs in its own process, and every
position is solved by both in the order old, new, new, old (then new, old, old, new on the
next position), keeping each side's best of two. Machines whose speed drifts within minutes
then give the same conditions to both sides, which timing one version after the other does
not. Prints per set (the sets of ``tests/data/solver_positions.jsonl``, first ``--n`` each)
(``--only``: the sets whose name contains one of the given texts, for example ``--only
"synthetic 2"``) both sides' median, p99 and mean, the median per-position speed-up, and how many positions
got different results (optima or suggestion summaries). The first solve in each process
loads or compiles its code and is not timed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

from benchmarks.bench_solver import ROOT, pct, position_sets
from benchmarks.solver_startup import FIRST_HAND, FIRST_TABLE

SERVER = Path(__file__).with_name("solver_server.py")  # run by path: it must not import this tree


class _Solver:
    def __init__(self, tree: Path) -> None:
        # By file path, with PYTHONPATH naming the tree: the server's carousel_env is the tree's.
        self.proc = subprocess.Popen(
            [sys.executable, str(SERVER), FIRST_TABLE, FIRST_HAND],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONPATH": str(tree.resolve())},
        )
        if self.proc.stdout.readline().strip() != "ready":
            raise SystemExit(f"the solver in {tree} did not start")

    def solve(self, line: str) -> tuple[float, list]:
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        seconds, summary = json.loads(self.proc.stdout.readline())
        return seconds, summary


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("old", type=Path, help="checkout of the version to compare against")
    ap.add_argument("new", type=Path, nargs="?", default=ROOT, help="checkout to measure (default: this one)")
    ap.add_argument("--n", type=int, default=200, help="positions per set")
    ap.add_argument("--only", nargs="+", metavar="TEXT", help="time only the sets whose name contains a TEXT")
    args = ap.parse_args()
    for tree in (args.old, args.new):
        if not (tree / "carousel_env" / "solver").is_dir():
            ap.error(f"{tree} is not a checkout of this repository")
    sides = (_Solver(args.old), _Solver(args.new))
    differing = 0
    for name, positions in position_sets(args.n):
        if args.only and not any(text in name for text in args.only):
            continue
        times: tuple[list[float], list[float]] = ([], [])
        for j, position in enumerate(positions):
            best = [float("inf"), float("inf")]
            summaries = [None, None]
            for side in (0, 1, 1, 0) if j % 2 == 0 else (1, 0, 0, 1):
                seconds, summaries[side] = sides[side].solve(position.line)
                best[side] = min(best[side], seconds)
            differing += summaries[0] != summaries[1]
            times[0].append(1000 * best[0])
            times[1].append(1000 * best[1])
        old, new = times
        speedup = statistics.median(a / b for a, b in zip(old, new))
        print(
            f"{name}: n={len(old)} old median {statistics.median(old):.3f} ms p99 {pct(old, 0.99):.2f} mean"
            f" {statistics.fmean(old):.2f} | new median {statistics.median(new):.3f} ms p99 {pct(new, 0.99):.2f}"
            f" mean {statistics.fmean(new):.2f} | median speed-up {speedup:.2f}x",
            flush=True,
        )
    print(f"positions with different results: {differing}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
