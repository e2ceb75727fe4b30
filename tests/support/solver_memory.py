"""The per-solve memory measure: the resident-set growth one ``solve`` causes, in worker
subprocesses (how, and why not ``tracemalloc``: ``benchmarks/bench_solver_memory``'s
docstring). ``benchmarks.bench_solver_memory`` prints it per set; the tests and
``tests/data/generate_stress_positions`` use it too.

    python -m tests.support.solver_memory [--full-sweep-states N]   # a worker: JSON lines in and out
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

FIRST_TABLE, FIRST_HAND = "3C 4C 5C 6C | 3D 4D 5D 6D", "6H JK"


def first_solve() -> None:
    """The untimed first solve of every solver measurement: it loads (or compiles) the
    compiled code."""
    from carousel_env.core.cards import parse_hand, parse_table
    from carousel_env.games.carousel.engine.rules import carousel
    from carousel_env.games.carousel.solver import solve

    solve(parse_table(FIRST_TABLE), parse_hand(FIRST_HAND), carousel(2))


ROOT = Path(__file__).resolve().parents[2]
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
    from carousel_env.core.cards import parse_hand, parse_table
    from carousel_env.games.carousel import solver
    from carousel_env.games.carousel.solver import solve
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
                [sys.executable, "-m", "tests.support.solver_memory", *budget],
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


if __name__ == "__main__":
    budget = int(sys.argv[2]) if sys.argv[1:2] == ["--full-sweep-states"] else None
    worker(budget)
