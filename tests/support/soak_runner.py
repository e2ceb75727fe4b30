"""What every family game's soak shares (Gin Rummy's, Carioca's): the report's counts, the
check of an AEC env's observations and masks, the games played in chunks on worker
processes with the chunks' reports summed, and the command line of ``benchmarks.soak_*``."""

from __future__ import annotations

import argparse
import multiprocessing as mp
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from functools import partial
from typing import TypeVar


@dataclass
class SoakReport:
    """The counts every soak keeps; a game's report adds its own (rounds, hands), and
    :meth:`add` sums them all alike."""

    games: int = 0
    actions: int = 0
    ends: Counter = field(default_factory=Counter)
    violations: list[str] = field(default_factory=list)
    seconds: float = 0.0  # the whole run's, set once by run_games

    def add(self, other: SoakReport) -> None:
        for f in fields(self):
            mine, theirs = getattr(self, f.name), getattr(other, f.name)
            if isinstance(mine, Counter):
                mine.update(theirs)  # zero counts kept, as + would drop them
            elif f.name != "seconds":
                setattr(self, f.name, mine + theirs)


R = TypeVar("R", bound=SoakReport)


def env_problems(env) -> list[str]:
    """An AEC env's observations in their space, two or more legal actions for the agent to
    act and none for the others."""
    problems = []
    for agent in env.agents:
        obs = env.observe(agent)
        if not env.observation_space(agent).contains(obs):
            problems.append(f"{agent}'s observation is outside its space")
        acting = agent == env.agent_selection and not env.terminations[agent]
        legal = int(obs["action_mask"].sum())
        if acting and legal < 2:
            problems.append(f"{agent} is asked with {legal} legal actions")
        if not acting and legal:
            problems.append(f"{agent} has legal actions out of turn")
    return problems


def _play_many(play_game: Callable[[int], R], report_type: type[R], seeds: list[int]) -> R:
    report = report_type()
    for seed in seeds:
        report.add(play_game(seed))
    return report


def run_games(
    play_game: Callable[[int], R], report_type: type[R], games: int, seed: int, workers: int, chunk: int
) -> R:
    """``play_game`` (a module-level function: workers import it) over the seeds ``seed ..
    seed + games - 1``, in chunks of ``chunk`` on ``workers`` processes (0: this one)."""
    start = time.perf_counter()
    seeds = list(range(seed, seed + games))
    play_many = partial(_play_many, play_game, report_type)
    if workers == 0:
        report = play_many(seeds)
    else:
        chunks = [seeds[i : i + chunk] for i in range(0, len(seeds), chunk)]
        report = report_type()
        with mp.get_context("spawn").Pool(workers) as pool:
            for part in pool.imap_unordered(play_many, chunks):
                report.add(part)
    report.seconds = time.perf_counter() - start
    return report


def soak_main(
    game: str, run: Callable[[int, int, int], SoakReport], episodes: str, doc: str, argv: list[str] | None
) -> int:
    """``benchmarks.soak_<game>``: ``--games N [--workers W] [--seed S]``; prints the games,
    the ``episodes`` (the report's field: rounds, hands), the actions, how they ended, the
    time and the violations; 1 if any."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--games", type=int, required=True, help="games to play")
    parser.add_argument("--workers", type=int, default=2, help="worker processes (0: this process; default 2)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the first game (default 0)")
    args = parser.parse_args(argv)
    if args.games < 1 or args.workers < 0:
        parser.error("--games must be at least 1 and --workers at least 0")
    report = run(args.games, args.seed, args.workers)
    print(
        f"{game} soak: {report.games} games (seeds {args.seed}..{args.seed + args.games - 1}), {args.workers} workers"
    )
    print(f"{episodes} {getattr(report, episodes)}  actions {report.actions}  ends {dict(sorted(report.ends.items()))}")
    print(
        f"time {report.seconds:.1f} s  games/s {report.games / report.seconds:.2f}  violations {len(report.violations)}"
    )
    for violation in report.violations[:50]:
        print(f"VIOLATION {violation}")
    return 1 if report.violations else 0
