"""Carioca soak: many games through the AEC env, invariants checked after every action
(what is played and checked: ``tests.support.carioca_soak``, whose slice runs in the tests).

    .venv/bin/python -m benchmarks.soak_carioca --games N [--workers W] [--seed S]

Prints games, rounds, actions, how rounds ended, the lay-offs and tucked jokers seen, time
and violations; exits 1 if any.
"""

from __future__ import annotations

import sys

from tests.support.carioca_soak import run
from tests.support.soak_runner import soak_main


def main(argv: list[str] | None = None) -> int:
    return soak_main("carioca", run, "rounds", __doc__, argv)


if __name__ == "__main__":
    sys.exit(main())
