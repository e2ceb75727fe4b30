"""Carioca soak: many games through the AEC env, invariants checked after every action
(what is played and checked: ``tests.support.carioca_soak``, whose slice runs in the tests).

    .venv/bin/python -m benchmarks.soak_carioca --games N [--workers W] [--seed S]

Prints games, rounds, actions, how rounds ended, the lay-offs and tucked jokers seen, time
and violations; exits 1 if any.
"""

from __future__ import annotations

import argparse
import sys

from tests.support.carioca_soak import run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, required=True, help="games to play")
    parser.add_argument("--workers", type=int, default=2, help="worker processes (0: this process; default 2)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the first game (default 0)")
    args = parser.parse_args(argv)
    if args.games < 1 or args.workers < 0:
        parser.error("--games must be at least 1 and --workers at least 0")
    report = run(args.games, args.seed, args.workers)
    print(
        f"carioca soak: {report.games} games (seeds {args.seed}..{args.seed + args.games - 1}), {args.workers} workers"
    )
    print(f"rounds {report.rounds}  actions {report.actions}  {dict(sorted(report.ends.items()))}")
    print(
        f"time {report.seconds:.1f} s  games/s {report.games / report.seconds:.2f}  violations {len(report.violations)}"
    )
    for violation in report.violations[:50]:
        print(f"VIOLATION {violation}")
    return 1 if report.violations else 0


if __name__ == "__main__":
    sys.exit(main())
