"""Soak benchmark: many complete games through the AEC env, every invariant checked after
every action (what is played and checked: ``tests.support.soak``, whose 1,000-game slice
runs in the tests).

    .venv/bin/python -m benchmarks.soak --games N [--workers W] [--seed S]

Prints games, rounds, actions, time and violations (each with the game's seed and a
replay command); exits 1 if there was any.
"""

from __future__ import annotations

import argparse
import sys

from tests.support.soak import SoakReport, run_soak


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, required=True, help="complete games to play")
    parser.add_argument("--workers", type=int, default=2, help="worker processes (0: this process; default 2)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the first game (default 0)")
    args = parser.parse_args(argv)
    every = max(1000, args.games // 10)  # a progress line per tenth of a long run
    shown = [0]

    def progress(report: SoakReport, seconds: float) -> None:
        if report.games // every > shown[0]:
            shown[0] = report.games // every
            print(f"  ... {report.games} games, {len(report.violations)} violations, {seconds:.0f} s", flush=True)

    try:
        report = run_soak(args.games, args.workers, args.seed, progress)
    except ValueError as exc:
        parser.error(str(exc))
    seconds = report.seconds
    last = args.seed + args.games - 1
    print(f"soak: {report.games} games (seeds {args.seed}..{last}), {args.workers} workers")
    for table, count in sorted(report.tables.items()):
        print(f"  {table:<28} {count:>7} games")
    print(
        f"games {report.games}  rounds {report.rounds}  actions {report.actions}"
        f" ({report.decisions} decisions, {report.auto_actions} by the env)"
    )
    print(
        f"time {seconds:.1f} s  games/s {report.games / seconds:.2f}"
        f"  actions/s {report.actions / seconds:.0f}  violations {len(report.violations)}"
    )
    for violation in report.violations[:50]:
        print(f"VIOLATION {violation}")
    if len(report.violations) > 50:
        print(f"... and {len(report.violations) - 50} more")
    return 1 if report.violations else 0


if __name__ == "__main__":
    sys.exit(main())
