"""Import + first solve, timed in this fresh interpreter; prints the seconds.

    .venv/bin/python -m benchmarks.solver_startup

``bench_solver`` runs it with an empty and with a full numba cache (cold and warm start).
The first position is also the untimed first solve of every solver benchmark: it loads (or
compiles) the compiled code.
"""

from __future__ import annotations

import time

from tests.support.solver_memory import FIRST_HAND, FIRST_TABLE, first_solve

__all__ = ["FIRST_HAND", "FIRST_TABLE", "first_solve"]


if __name__ == "__main__":
    start = time.perf_counter()
    first_solve()
    print(time.perf_counter() - start)
