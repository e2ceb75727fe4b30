"""Peak memory of each solve: the resident-set growth one ``solve`` causes, per position.

    .venv/bin/python -m benchmarks.bench_solver_memory [--sets agent stored stress] [--n N] [--batch 50] [--top 10]
        [--full-sweep-states N [N ...]]

What it measures. The solver's arrays are allocated by numba's runtime through the C
library's ``malloc``, which ``tracemalloc`` does not see, so this measures the process's
resident set instead, per solve, in worker subprocesses (``--batch`` positions each):

* each worker runs with ``MALLOC_MMAP_THRESHOLD_`` fixed at 128 KiB, which turns off glibc's
  dynamic threshold: every array over 128 KiB is its own ``mmap`` and goes back to the
  system when freed, so one solve's large arrays cannot hide in pages an earlier solve
  left in the heap;
* before each solve: ``malloc_trim(0)`` (returns the heap's free pages), the resident set
  ``VmRSS`` read from ``/proc/self/status``, and the peak ``VmHWM`` reset to it (``5`` written
  to ``/proc/self/clear_refs``, Linux 4.0+);
* after it, ``VmHWM - VmRSS before`` is the solve's peak: every page it touched at its
  highest point (arrays not yet freed, numba's temporaries, the Python objects of its
  answer), in KiB of 4 KiB pages. Pages an array allocates but never writes do not count
  (they take no memory either).

The worker (``tests.support.solver_memory``) first makes one solve so that the compiled
code, loaded or compiled then, is in the baseline and not in the first position's figure;
each position is solved twice and the second figure kept (a first crowded table loads the
witnesses' compiled code, megabytes that are not the solve's). Sets: ``agent``
(``tests/data/agent_positions.jsonl``, the positions of the shipped agents' games, per
table size), ``stored`` (``tests/data/solver_positions.jsonl``, per set) and ``stress``
(``tests/data/solver_stress_positions.jsonl``: adversarial positions built to blow up the
state count, see ``tests/data/generate_stress_positions.py``). Prints per set
the median, p99 and max of the per-solve peak in MiB, the worker's baseline resident set,
and the ``--top`` worst positions with their times.

``--full-sweep-states`` measures each set once per value of ``solver.FULL_SWEEP_STATES``
(the unpruned sweep's state budget), the values taking turns set by set, so that the
memory and the time each budget costs are compared under the same load.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics

from benchmarks.bench_solver import pct
from tests.data.generate_stress_positions import OUT as STRESS
from tests.support.solver_memory import measure


def position_sets(names: list[str], n: int | None) -> list[tuple[str, list[str]]]:
    sets: dict[str, list[str]] = {}
    if "agent" in names:
        from tests.support.stored import agent_positions

        for position in agent_positions():
            sets.setdefault(position.set_name, []).append(position.line)
    if "stored" in names:
        from tests.support.stored import stored_positions

        for position in stored_positions():
            sets.setdefault(position.set_name, []).append(position.line)
    if "stress" in names:
        for line in STRESS.read_text().splitlines():
            if line.strip():
                item = json.loads(line)
                sets.setdefault(f"stress {item['decks']} deck(s) {item['variant']}", []).append(line)
    return [(name, lines[:n]) for name, lines in sorted(sets.items())]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sets", nargs="+", default=["agent", "stored", "stress"], choices=["agent", "stored", "stress"])
    ap.add_argument("--n", type=int, default=None, help="first N positions of each set")
    ap.add_argument("--batch", type=int, default=100, help="positions per worker process")
    ap.add_argument("--timeout", type=float, default=None, help="seconds per worker process")
    ap.add_argument("--top", type=int, default=5, help="worst positions listed per set")
    ap.add_argument(
        "--full-sweep-states",
        type=int,
        nargs="+",
        default=[None],
        help="the solver's unpruned-sweep budgets to compare, taking turns set by set (default: its own)",
    )
    args = ap.parse_args()
    if any(b is not None and b < 0 for b in args.full_sweep_states):
        ap.error(f"--full-sweep-states: budgets are state counts >= 0, got {args.full_sweep_states}")
    print(f"load average before: {os.getloadavg()}")
    worst_all = 0.0
    for (name, lines), budget in (
        (named, budget) for named in position_sets(args.sets, args.n) for budget in args.full_sweep_states
    ):
        if budget is not None:
            name = f"{name} [FULL_SWEEP_STATES={budget:,}]"
        results = measure(lines, args.batch, args.timeout, budget)
        for r in results:
            if r.get("timeout"):
                print(f"  #{r['i']}: past --timeout, not measured")
        results = [r for r in results if not r.get("timeout")]
        peaks = [r["peak_kib"] / 1024 for r in results]
        times_ms = [r["seconds"] * 1000 for r in results]
        base = statistics.median(r["base_kib"] / 1024 for r in results)
        worst_all = max(worst_all, max(peaks))
        print(
            f"{name}: n={len(peaks)} peak per solve median {statistics.median(peaks):.1f} MiB"
            f" p99 {pct(peaks, 0.99):.1f} MiB max {max(peaks):.1f} MiB (worker baseline {base:.0f} MiB);"
            f" time p99.9 {pct(times_ms, 0.999):.1f} ms max {max(times_ms):.1f} ms",
            flush=True,
        )
        for r in sorted(results, key=lambda r: -r["peak_kib"])[: args.top]:
            item = json.loads(lines[r["i"]])
            print(
                f"  {r['peak_kib'] / 1024:7.1f} MiB {r['seconds']:7.3f} s  #{r['i']}"
                f" hand {len(item['hand'].split())} table {sum(t != '|' for t in item['table'].split())}"
                f" {item.get('how', '')}"
            )
    print(f"worst peak per solve: {worst_all:.1f} MiB")
    print(f"load average after: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
