"""Conquian soak: many games through the AEC env, invariants checked after every action (what
is played and checked: ``tests.support.conquian_soak``, whose slice runs in the tests).

    .venv/bin/python -m benchmarks.soak_conquian --games N [--workers W] [--seed S]

Prints games, hands, actions, how hands ended (with the forced plays and games over seen), the
time, the rate and every violation; exits 1 if any.
"""

from __future__ import annotations

import sys

from tests.support.conquian_soak import run
from tests.support.soak_runner import soak_main


def main(argv: list[str] | None = None) -> int:
    return soak_main("conquian", run, "hands", __doc__, argv)


if __name__ == "__main__":
    sys.exit(main())
