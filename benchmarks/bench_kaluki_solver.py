"""Solve times of Kaluki's lay-down solver (``carousel_env.games.kaluki.solver``).

    nice python -m benchmarks.bench_kaluki_solver --positions 400 --limit 8 --seed 0

Times, per kind of position, the median, the 99th percentile and the largest solve, in
milliseconds, and how many solves ran out of the time budget (inexact):

* ``random``: :func:`arrangements` on a hand of 10 to 16 cards drawn from the preset's pack, at
  its opening requirement and at 0 (an opened player), for each preset;
* ``dense``: :func:`arrangements` at 51 on 13 cards of two suits and 4 jokers (book);
* ``played``: :func:`best_play` in the PLAY phase of games where every player lays one of the
  solver's best plays (lay-offs and exchanges on the table included), for each preset.

It asserts nothing about the times; the machine's load shows in them (run it with ``nice``
next to other work, alone for figures worth comparing).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from carousel_env.core.cards import JOKER, make_card, make_deck
from carousel_env.games.kaluki.deal import new_game
from carousel_env.games.kaluki.engine import apply
from carousel_env.games.kaluki.legal import legal_discards, legal_draws
from carousel_env.games.kaluki.rules import PRESETS
from carousel_env.games.kaluki.solver import TIME_BUDGET_S, arrangements, best_play, solve_counts
from carousel_env.games.kaluki.state import Phase, discard

PRESET_NAMES = ("book", "uk40", "uk51", "rummy")


def timed(solve, *args, **kwargs) -> tuple[float, object]:
    """Seconds ``solve(*args, **kwargs)`` took, and its answer."""
    start = time.perf_counter()
    answer = solve(*args, **kwargs)
    return time.perf_counter() - start, answer


def summary(name: str, seconds: list[float], inexact: int) -> str:
    ms = sorted(s * 1000 for s in seconds)
    p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
    return (
        f"{name:<14} n={len(ms):<5} median {statistics.median(ms):7.2f} ms  p99 {p99:7.2f} ms  "
        f"max {ms[-1]:7.2f} ms  inexact {inexact}"
    )


def random_hands(rng: random.Random, preset: str, count: int, limit: int, budget: float) -> list[float]:
    rules = PRESETS[preset]
    deck = make_deck(rules.decks, rules.jokers)
    times = []
    for i in range(count):
        hand = tuple(sorted(rng.sample(deck, rng.randint(10, 16))))
        threshold = rules.opening if i % 2 else 0
        times.append(timed(arrangements, hand, rules, threshold=threshold, limit=limit, time_budget_s=budget)[0])
    return times


def dense_hands(rng: random.Random, count: int, limit: int, budget: float) -> list[float]:
    rules = PRESETS["book"]
    times = []
    for _ in range(count):
        suits = rng.sample(range(4), 2)
        cards = [make_card(r, s) for r in range(1, 14) for s in suits] * 2
        hand = tuple(sorted(rng.sample(cards, 13) + [JOKER] * 4))
        times.append(timed(arrangements, hand, rules, threshold=51, limit=limit, time_budget_s=budget)[0])
    return times


def played(rng: random.Random, preset: str, count: int, limit: int, budget: float) -> list[float]:
    rules = PRESETS[preset]
    times: list[float] = []
    while len(times) < count:
        state = new_game(rules, rng.randint(2, 4), seed=rng.randrange(1 << 30))
        for _ in range(300):
            if state.over or len(times) >= count:
                break
            if state.phase is Phase.DRAW:
                state = apply(state, rng.choice(legal_draws(state, limit=2)))
                continue
            seconds, plays = timed(best_play, state, limit, time_budget_s=budget)
            times.append(seconds)
            if plays and rng.random() < 0.8:
                for move in rng.choice(plays[:4]).moves:
                    state = apply(state, move)
            if not state.over and state.phase is Phase.PLAY:
                state = apply(state, discard(rng.choice(legal_discards(state))))
    return times


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=400, help="positions per kind and preset")
    parser.add_argument("--limit", type=int, default=8, help="answers asked of each solve")
    parser.add_argument("--budget", type=float, default=TIME_BUDGET_S, help="time budget of a solve, seconds")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    n, limit, budget = args.positions, args.limit, args.budget
    runs = [(f"random {p}", lambda p=p: random_hands(rng, p, n, limit, budget)) for p in PRESET_NAMES]
    runs.append(("dense book", lambda: dense_hands(rng, n, limit, budget)))
    runs += [(f"played {p}", lambda p=p: played(rng, p, n, limit, budget)) for p in PRESET_NAMES]
    for name, run in runs:
        before = solve_counts().inexact
        times = run()
        print(summary(name, times, solve_counts().inexact - before), flush=True)


if __name__ == "__main__":
    main()
