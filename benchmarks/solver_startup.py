"""Import + first solve, timed in this fresh interpreter; prints the seconds.

    .venv/bin/python -m benchmarks.solver_startup

``bench_solver`` runs it with an empty and with a full numba cache (cold and warm start).
The first position is also the untimed first solve of every solver benchmark: it loads (or
compiles) the compiled code.
"""

from __future__ import annotations

import time

FIRST_TABLE, FIRST_HAND = "3C 4C 5C 6C | 3D 4D 5D 6D", "6H JK"


def first_solve() -> None:
    from carousel_env.core.cards import parse_hand, parse_table
    from carousel_env.engine.rules import carousel
    from carousel_env.solver import solve

    solve(parse_table(FIRST_TABLE), parse_hand(FIRST_HAND), carousel(2))


if __name__ == "__main__":
    start = time.perf_counter()
    first_solve()
    print(time.perf_counter() - start)
