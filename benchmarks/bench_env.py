"""Throughput of random legal play through the wrapped Carousel AEC env, and the same
measurement for PettingZoo's gin_rummy_v4 as a reference point.

    .venv/bin/python -m benchmarks.bench_env [--seconds 10] [--players 2 3 5] [--rounds 3]
        [--gin-python /tmp/ginvenv/bin/python]

The random player reads the action mask from the observation, as a learner would.
gin_rummy_v4 was removed from PettingZoo after 1.26.1, so it runs in its own virtual
environment (``pip install pettingzoo==1.26.1 rlcard pygame``) whose python is given by
``--gin-python``; the measurement runs there as a subprocess, with the same loop. Without
it the script says so and prints only Carousel's figures.

``--round-robin N`` also plays N two-player games between every pair of baselines.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

from benchmarks import random_play


def carousel(players: int, seconds: float) -> tuple[float, float, int, int]:
    import carousel_env

    return random_play.measure(lambda: carousel_env.env(num_players=players), seconds)


def gin(python: str, seconds: float) -> dict | str:
    if not python or not Path(python).exists():
        return f"no python at {python!r}"
    try:
        done = subprocess.run(
            [python, random_play.__file__, str(seconds)],
            capture_output=True,
            text=True,
            timeout=seconds * 10 + 60,
            env={**os.environ, "PYGAME_HIDE_SUPPORT_PROMPT": "1"},
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return str(exc)
    if done.returncode != 0:
        return done.stderr.strip().splitlines()[-1] if done.stderr.strip() else f"exit {done.returncode}"
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="time per measurement (default 10)")
    parser.add_argument("--players", type=int, nargs="+", default=[2, 3, 5])
    parser.add_argument("--rounds", type=int, default=3, help="alternated 2-player / gin_rummy_v4 rounds (default 3)")
    parser.add_argument("--gin-python", default="/tmp/ginvenv/bin/python", help="python of a pettingzoo 1.26.1 venv")
    parser.add_argument("--round-robin", type=int, default=0, metavar="N", help="also play N games per baseline pair")
    args = parser.parse_args(argv)

    # This machine's speed drifts by tens of percent within minutes, so 2-player Carousel and
    # gin_rummy_v4 are measured in alternation, ``--rounds`` times, and compared round by round.
    ratios, own, reference_speeds = [], [], []
    for n in args.players:
        for r in range(args.rounds if n == 2 else 1):
            steps_s, games_s, steps, games = carousel(n, args.seconds)
            counts = f"({steps} steps, {games} games)"
            print(f"carousel {n}p: {steps_s:8.0f} agent-steps/s  {games_s:6.2f} games/s  {counts}")
            if n != 2:
                continue
            own.append(steps_s)
            reference = gin(args.gin_python, args.seconds)
            if not isinstance(reference, dict):
                print(f"gin_rummy_v4: unavailable ({reference})")
                continue
            reference_speeds.append(reference["steps_per_s"])
            ratios.append(steps_s / reference["steps_per_s"])
            speed = f"{reference['steps_per_s']:8.0f} agent-steps/s  {reference['games_per_s']:6.2f} games/s"
            counts = f"({reference['steps']} steps, {reference['games']} games)"
            print(f"gin_rummy_v4 2p: {speed}  {counts}  round {r + 1} ratio {ratios[-1]:.2f}")
    if ratios:
        print(
            f"ratio carousel 2p / gin_rummy_v4 over {len(ratios)} alternated rounds:"
            f" median {statistics.median(ratios):.2f} (min {min(ratios):.2f}, max {max(ratios):.2f});"
            f" medians {statistics.median(own):.0f} vs {statistics.median(reference_speeds):.0f} agent-steps/s"
        )

    if args.round_robin:
        from carousel_env.games.carousel.agents.match import round_robin
        from carousel_env.games.carousel.agents.registry import policy_names

        for match in round_robin(list(policy_names()), games=args.round_robin):
            a, b = match.names
            print(
                f"{a:>7} vs {b:<7} {len(match.games)} games: {a} wins {match.win_rate(0):.0%}, "
                f"mean totals {match.mean_total(0):.0f} - {match.mean_total(1):.0f}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
