"""Kaluki soak (plain Rummy with --preset rummy): many games through the AEC env, invariants
checked after every action (what is played and checked: ``tests.support.kaluki_soak``, whose
slice runs in the tests). --preset P plays only preset P (book, uk40, uk51, rummy).

    .venv/bin/python -m benchmarks.soak_kaluki --games N [--workers W] [--seed S] [--preset P]

Prints games, hands, actions, how hands ended (with the lay-offs, joker exchanges, restocks,
rummies and games over seen), the time, the rate and every violation; exits 1 if any.
"""

from __future__ import annotations

import argparse
import sys
from functools import partial

from tests.support.kaluki_soak import PRESETS, run
from tests.support.soak_runner import soak_main


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(add_help=False)  # --preset here, the rest is the family's command line
    parser.add_argument("--preset", choices=PRESETS, default=None)
    args, rest = parser.parse_known_args(argv)
    name = f"kaluki ({args.preset or 'all presets'})"
    return soak_main(name, partial(run, preset=args.preset), "hands", __doc__, rest)


if __name__ == "__main__":
    sys.exit(main())
