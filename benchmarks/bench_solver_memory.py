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

The worker first makes one solve (``benchmarks.solver_startup``) so that the compiled
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
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.bench_solver import pct
from tests.data.generate_stress_positions import OUT as STRESS

ROOT = Path(__file__).resolve().parents[1]
MMAP_THRESHOLD = str(128 * 1024)


def _status_kib(field: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"no {field} in /proc/self/status")


class PeakResident:
    """The resident-set peak of a block over the resident set before it, in KiB (the module
    docstring: ``malloc_trim``, ``VmRSS``, ``VmHWM`` reset by ``clear_refs``). Run with
    ``MALLOC_MMAP_THRESHOLD_`` at :data:`MMAP_THRESHOLD`, as the workers are, for freed
    arrays to leave the resident set."""

    def __enter__(self) -> PeakResident:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
        self.base_kib = _status_kib("VmRSS")
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return self

    def __exit__(self, *exc) -> None:
        self.peak_kib = _status_kib("VmHWM") - self.base_kib

    @property
    def mib(self) -> float:
        return self.peak_kib / 1024


def worker(full_sweep_states: int | None) -> None:
    """Reads JSON lines ``{"table", "hand", "decks", "variant"}`` (and ``"players"`` where
    the line names them) on stdin; writes one JSON line per position: ``{"i", "peak_kib",
    "seconds", "base_kib"}``. ``full_sweep_states``: the solver's budget for this worker."""
    from benchmarks.solver_startup import first_solve
    from carousel_env import solver
    from carousel_env.core.cards import parse_hand, parse_table
    from carousel_env.solver import solve
    from tests.support.stored import rules_of

    if full_sweep_states is not None:
        # solve reads the module's constant at each call (the vector kernel freezes it: not used here)
        solver.FULL_SWEEP_STATES = full_sweep_states
    first_solve()
    for i, line in enumerate(sys.stdin):
        item = json.loads(line)
        table, hand, rules = (
            parse_table(item["table"]),
            parse_hand(item["hand"]),
            rules_of(item["variant"], item["decks"], item.get("players")),
        )
        for _ in range(2):  # the second: a first crowded table loads (or compiles) the witnesses
            with PeakResident() as peak:
                start = time.perf_counter()
                solve(table, hand, rules, check_position=False)
                seconds = time.perf_counter() - start
        row = {"i": i, "peak_kib": peak.peak_kib, "seconds": seconds, "base_kib": peak.base_kib}
        print(json.dumps(row), flush=True)


def measure(
    lines: list[str], batch: int, timeout: float | None = None, full_sweep_states: int | None = None
) -> list[dict]:
    """One row per position (``worker``'s), ``i`` its index in ``lines``; with ``timeout``
    (seconds per worker), a position whose worker ran past it gets ``{"i", "timeout": True}``
    and the rest of its batch goes to a new worker. ``full_sweep_states``: the solver's
    unpruned-sweep budget in the workers (None: the solver's own)."""
    budget = [] if full_sweep_states is None else ["--full-sweep-states", str(full_sweep_states)]
    env = dict(os.environ, MALLOC_MMAP_THRESHOLD_=MMAP_THRESHOLD, PYTHONPATH=str(ROOT))
    results: list[dict] = []
    start = 0
    while start < len(lines):
        chunk = lines[start : start + batch]
        try:
            out = subprocess.run(
                [sys.executable, "-m", "benchmarks.bench_solver_memory", "--worker", *budget],
                input="\n".join(chunk) + "\n",
                env=env,
                cwd=ROOT,
                capture_output=True,
                text=True,
                check=True,
                timeout=timeout,
            ).stdout
            done = False
        except subprocess.TimeoutExpired as e:
            out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
            done = True
        rows = [json.loads(row) for row in out.splitlines() if row.strip()]
        for item in rows:
            item["i"] += start
            results.append(item)
        if done:  # the position after the last row ran past the timeout
            results.append({"i": start + len(rows), "timeout": True})
            start += len(rows) + 1
        else:
            start += len(chunk)
    return results


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
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
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
    if args.worker:
        worker(args.full_sweep_states[0])
        return 0
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
