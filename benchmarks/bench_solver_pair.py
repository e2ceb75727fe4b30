"""Two versions of the solver, timed in alternation on the same stored positions.

    python benchmarks/bench_solver_pair.py OLD_TREE [NEW_TREE] [--n 200] [--only TEXT ...]

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
import statistics
import subprocess
import sys
from pathlib import Path

from bench_solver import DATA, FIRST_HAND, FIRST_TABLE, ROOT, pct, set_name

_SERVER = f"""
import json, sys, time
sys.path.insert(0, sys.argv[1])
from carousel_env.engine.cards import parse_hand, parse_table
from carousel_env.engine.rules import carousel, manipulation_rummy
from carousel_env.solver import solve
solve(parse_table("{FIRST_TABLE}"), parse_hand("{FIRST_HAND}"), carousel(2))
print("ready", flush=True)
for line in sys.stdin:
    item = json.loads(line)
    rules = manipulation_rummy(4) if item["variant"] == "manipulation_rummy" else carousel(item["decks"] + 1)
    table, hand = parse_table(item["table"]), parse_hand(item["hand"])
    start = time.perf_counter()
    result = solve(table, hand, rules)
    seconds = time.perf_counter() - start
    summary = [result.best_points, result.best_cards, [(s.reason, s.cards, s.points) for s in result.suggestions]]
    print(json.dumps([seconds, summary]), flush=True)
"""


class _Solver:
    def __init__(self, tree: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", _SERVER, str(tree)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
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
    sets: dict[str, list[str]] = {}
    for line in DATA.read_text().splitlines():
        item = json.loads(line)
        sets.setdefault(set_name(item), []).append(line)
    differing = 0
    for name, lines in sorted(sets.items()):
        if args.only and not any(text in name for text in args.only):
            continue
        times: tuple[list[float], list[float]] = ([], [])
        for j, line in enumerate(lines[: args.n]):
            best = [float("inf"), float("inf")]
            summaries = [None, None]
            for side in (0, 1, 1, 0) if j % 2 == 0 else (1, 0, 0, 1):
                seconds, summaries[side] = sides[side].solve(line)
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
