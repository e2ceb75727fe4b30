"""The solves of real play: every solve the env makes in the shipped agents' games, timed.

    .venv/bin/python -m benchmarks.solve_corpus [--scale 1.0] [--only NAME ...] [--out runs/corpus]
        [--hard tests/data/hard_positions.jsonl] [--hard-ms 50]

Plays each set of ``PLAN`` (a shipped agent at 2 to 5 players, against itself, ``smart`` and
``search``, in both variants; ``--scale`` multiplies the games) in the AEC env and times every
call the env makes to ``carousel_env.games.carousel.solver.solve`` (``aec.solve``, wrapped), with the
table's and hand's sizes, whether the integer programs answered and whether the answer was
exact. The search player's own look-ahead solves are not env decisions and are not counted.

Prints per set and over all: solves, median, p99, p99.9 and max, the solves the integer
programs answered and the inexact ones; then the same quantiles per table size (cards on the
table, in tens). Writes ``OUT/times.npz`` (every solve's time and sizes) and each position
over ``--hard-ms`` to ``OUT/slow.jsonl``; with ``--hard``, also appends those (deduplicated,
with their MILP optima: ``tests.data.generate_solver_positions.record``) to that file, the
hard set the tests check (``tests/games/carousel/test_hard_positions.py``). Timings are taken in play, with
whatever else the machine runs: re-time the slow ones with ``benchmarks.bench_solver``.
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from carousel_env.core.cards import hand_str, table_str
from carousel_env.games.carousel import solver
from carousel_env.games.carousel.agents.match import play_match
from carousel_env.games.carousel.envs import aec
from carousel_env.games.carousel.envs.config import EnvConfig
from carousel_env.games.carousel.envs.observation import layout
from training.policies import load_policy

ROOT = Path(__file__).resolve().parents[1]
K = EnvConfig().k_suggestions


@dataclass(frozen=True)
class CorpusSet:
    name: str
    checkpoint: str
    players: int
    variant: str
    opponent: str  # "self", or a scripted policy's name at every other seat
    games: int
    seed: int


PLAN = (
    CorpusSet("2p-self", "checkpoints/ppo_2p", 2, "carousel", "self", 400, 37_200_000),
    CorpusSet("2p-smart", "checkpoints/ppo_2p", 2, "carousel", "smart", 300, 37_210_000),
    CorpusSet("2p-search", "checkpoints/ppo_2p", 2, "carousel", "search", 20, 37_220_000),
    *(
        CorpusSet(f"{n}p-{opp}", "checkpoints/ppo_4p", n, "carousel", opp, games, 37_000_000 + 100_000 * n + i)
        for n in (3, 4, 5)
        for i, (opp, games) in enumerate((("self", 150), ("smart", 150), ("search", 8)))
    ),
    *(
        CorpusSet(f"mr{n}p-{opp}", "checkpoints/ppo_4p", n, "manipulation_rummy", opp, 100, 38_000_000 + 1000 * n + i)
        for n in (3, 4, 5)
        for i, opp in enumerate(("self", "smart"))
    ),
)


class Recorder:
    """Wraps ``aec.solve`` while inside: every env solve's time, sizes and position."""

    def __init__(self) -> None:
        self.seconds: list[float] = []
        self.table_cards: list[int] = []
        self.hand_cards: list[int] = []
        self.programs: list[bool] = []
        self.inexact: list[bool] = []
        self.slow: list[tuple] = []
        self.slow_after = 0.05

    def __enter__(self) -> Recorder:
        real = self._real = aec.solve

        def timed(table, hand, rules, **options):
            before = solver.solve_counts()
            start = time.perf_counter()
            result = real(table, hand, rules, **options)
            took = time.perf_counter() - start
            after = solver.solve_counts()
            self.seconds.append(took)
            self.table_cards.append(sum(len(m) for m in table))
            self.hand_cards.append(len(hand))
            self.programs.append(after.programs > before.programs)
            self.inexact.append(not result.exact)
            if took > self.slow_after:
                self.slow.append((table, hand, rules, took))
            return result

        aec.solve = timed
        return self

    def __exit__(self, *_) -> None:
        aec.solve = self._real


def play(entry: CorpusSet, scale: float) -> None:
    games = max(1, round(entry.games * scale))
    lay = layout(K)
    agent = str(ROOT / entry.checkpoint)
    policies = []
    for seat in range(entry.players):
        if entry.opponent == "self" or seat == 0:
            policies.append(load_policy(agent, lay, seed=entry.seed + seat))
        else:
            policies.append(entry.opponent)
    play_match(policies, games, seed=entry.seed, k_suggestions=K, variant=entry.variant)


def quantiles(seconds: np.ndarray) -> str:
    if not len(seconds):
        return "no solves"
    ms = seconds * 1e3
    p50, p99, p999 = np.percentile(ms, [50, 99, 99.9])
    return f"{len(ms):>9,} solves  median {p50:7.3f} ms  p99 {p99:7.2f}  p99.9 {p999:7.2f}  max {ms.max():8.1f}"


def summary(rec: Recorder, start: int, name: str) -> str:
    seconds = np.array(rec.seconds[start:])
    programs, inexact = sum(rec.programs[start:]), sum(rec.inexact[start:])
    return f"{name:<12} {quantiles(seconds)}  programs {programs}  inexact {inexact}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every set's games")
    parser.add_argument("--only", nargs="*", default=None, help="the sets to play (default: all)")
    parser.add_argument("--out", default="runs/corpus", help="folder for times.npz and slow.jsonl")
    parser.add_argument("--hard", default=None, help="append the slow positions, with MILP optima, to this file")
    parser.add_argument("--hard-ms", type=float, default=50.0, help="what counts as slow, in milliseconds")
    args = parser.parse_args()
    torch.set_num_threads(1)
    plan = [e for e in PLAN if args.only is None or e.name in args.only]
    unknown = set(args.only or ()) - {e.name for e in PLAN}
    if unknown:
        parser.error(f"unknown sets {sorted(unknown)}; known: {[e.name for e in PLAN]}")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rec = Recorder()
    rec.slow_after = args.hard_ms / 1e3
    slow_at: list[tuple[str, int]] = []
    with rec:
        for entry in plan:
            start, slow_start, t0 = len(rec.seconds), len(rec.slow), time.perf_counter()
            play(entry, args.scale)
            slow_at += [(entry.name, entry.players)] * (len(rec.slow) - slow_start)
            print(f"{summary(rec, start, entry.name)}  ({time.perf_counter() - t0:.0f} s)", flush=True)
    seconds = np.array(rec.seconds)
    print(summary(rec, 0, "all"))
    tables = np.array(rec.table_cards)
    for low in range(0, int(tables.max(initial=0)) + 10, 10):
        chosen = (tables >= low) & (tables < low + 10)
        if chosen.any():
            print(f"  table {low:>3}-{low + 9:<3} {quantiles(seconds[chosen])}")
    np.savez_compressed(
        out / "times.npz",
        seconds=seconds,
        table_cards=tables,
        hand_cards=np.array(rec.hand_cards),
        programs=np.array(rec.programs),
        inexact=np.array(rec.inexact),
    )
    lines = [
        {
            "table": table_str(t),
            "hand": hand_str(h),
            "variant": r.variant.value,
            "players": r.num_players,
            "set": name,
            "ms": round(s * 1e3, 1),
        }
        for (t, h, r, s), (name, _) in zip(rec.slow, slow_at)
    ]
    (out / "slow.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    print(f"{out / 'times.npz'}: {len(seconds):,} solves; {out / 'slow.jsonl'}: {len(lines)} over {args.hard_ms} ms")
    if args.hard:
        add_hard(Path(args.hard), rec.slow, slow_at)


def add_hard(path: Path, slow: list[tuple], slow_at: list[tuple[str, int]]) -> None:
    """Append the slow positions not in ``path`` yet, with their MILP optima and the time
    their solve took in play (``ms``; a new file starts with the position that stalled an
    evaluation, ``tests.support.stored``, with no time of its own: 0)."""
    from carousel_env.core.cards import parse_hand, parse_table
    from carousel_env.games.carousel.engine.rules import carousel
    from tests.data.generate_solver_positions import record
    from tests.support.stored import HARD_SOURCE, STALLED_HAND, STALLED_PLAYERS, STALLED_TABLE

    if not path.exists():
        stalled = (parse_table(STALLED_TABLE), parse_hand(STALLED_HAND), carousel(STALLED_PLAYERS), 0.0)
        slow, slow_at = [stalled, *slow], [("eval-stall", STALLED_PLAYERS), *slow_at]
    known = set()
    if path.exists():
        for line in path.read_text().splitlines():
            row = json.loads(line)
            known.add((row["table"], row["hand"], row["variant"], row["players"]))
    added = 0
    with path.open("a") as f:
        for (table, hand, rules, took), (name, players) in zip(slow, slow_at):
            key = (table_str(table), hand_str(hand), rules.variant.value, players)
            if key in known:
                continue
            known.add(key)
            line = record(table, hand, rules, f"{HARD_SOURCE}{name}") | {"players": players, "ms": round(took * 1e3, 1)}
            f.write(json.dumps(line) + "\n")
            added += 1
    print(f"{path}: {added} positions added")


if __name__ == "__main__":
    main()
