"""Solve times of Kaluki's lay-down solver (``carousel_env.games.kaluki.solver``).

    nice python -m benchmarks.bench_kaluki_solver --positions 400 --limit 8 --seed 0
    nice python -m benchmarks.bench_kaluki_solver --real 20000 --reference-every 4 --seed 0

Times, per kind of position, the median, the 99th percentile and the largest solve, in
milliseconds, and how many solves ran out of the time budget (inexact):

* ``random``: :func:`arrangements` on a hand of 10 to 16 cards drawn from the preset's pack, at
  its opening requirement and at 0 (an opened player), for each preset;
* ``dense``: :func:`arrangements` at 51 on 13 cards of two suits and 4 jokers (book);
* ``played``: :func:`best_play` in the PLAY phase of games where every player lays one of the
  solver's best plays (lay-offs and exchanges on the table included), for each preset.

``--real N`` times instead the solver as users meet it: N decisions of each preset, recorded from
games of ``simple`` at every seat (2 to 6 players in turn; it plays every play the solver
offers first, as the shipped agents' opponents do), the env's call at each (``offers``: the
arrangements that lay the pile's top where taking it needs them, the best plays after; the
compiled search, ``kernel_solver``, where it answers) and the solver's alone on the same
position, with the median, p99, p99.9 and largest, how often their offers differ, and beside
them the independent MILP reference
(``tests/games/kaluki/kaluki_reference.py``) on every ``--reference-every``-th of those
positions: its own times and whether its optimum equals the solver's best.

It asserts nothing about the times; the machine's load shows in them (run it with ``nice``
next to other work, alone for figures worth comparing).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from carousel_env.core.cards import JOKER, make_card, make_deck
from carousel_env.games.kaluki import solver
from carousel_env.games.kaluki.deal import new_game
from carousel_env.games.kaluki.engine import apply
from carousel_env.games.kaluki.env import apply_moves, asks_solver, decision, engine_moves, offers
from carousel_env.games.kaluki.legal import legal_discards, legal_draws
from carousel_env.games.kaluki.players import simple_action
from carousel_env.games.kaluki.rules import PLAYER_COUNTS, PRESETS
from carousel_env.games.kaluki.solver import TIME_BUDGET_S, arrangements, best_play, solve_counts
from carousel_env.games.kaluki.state import KalukiState, Phase, discard
from tests.games.kaluki.reference_positions import reference_best_plays, reference_take

PRESET_NAMES = ("book", "uk40", "uk51", "rummy")


def timed(solve, *args, **kwargs) -> tuple[float, object]:
    """Seconds ``solve(*args, **kwargs)`` took, and its answer."""
    start = time.perf_counter()
    answer = solve(*args, **kwargs)
    return time.perf_counter() - start, answer


def quantile(ms: list[float], q: float) -> float:
    """The ``q`` quantile of the sorted ``ms`` (the nearest rank at or below)."""
    return ms[min(len(ms) - 1, int(len(ms) * q))]


def summary(name: str, seconds: list[float], inexact: int | None) -> str:
    """One line of times; ``inexact``: the solves that ran out of time (None: not a solver's)."""
    ms = sorted(s * 1000 for s in seconds)
    tail = f"p99.9 {quantile(ms, 0.999):7.2f} ms  " if len(ms) >= 1000 else ""
    count = "" if inexact is None else f"  inexact {inexact}"
    return (
        f"{name:<14} n={len(ms):<5} median {statistics.median(ms):7.2f} ms  p99 {quantile(ms, 0.99):7.2f} ms  "
        f"{tail}max {ms[-1]:7.2f} ms{count}"
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


def real_positions(preset: str, count: int, seed: int, limit: int) -> list[KalukiState]:
    """``count`` decisions where the solver is asked, from games of ``simple`` at every seat,
    the table sizes taken in turn."""
    rules, states, game = PRESETS[preset], [], 0
    while len(states) < count:
        state = new_game(rules, PLAYER_COUNTS[game % len(PLAYER_COUNTS)], seed=seed * 100_003 + game)
        game += 1
        while not state.over and len(states) < count:
            if asks_solver(state):
                states.append(state)
            mask, found = decision(state, limit)
            action = simple_action(state, found) if mask.sum() > 1 else int(mask.argmax())
            state = apply_moves(state, engine_moves(state, action, found))
    return states


def reference_values(state: KalukiState) -> set[int | None]:
    """The hand values the solver's first offer may keep, by the reference."""
    return reference_best_plays(state) if state.phase is Phase.PLAY else {reference_take(state)}


def real_play(preset: str, count: int, seed: int, limit: int, every: int) -> None:
    """Times the env's ``offers`` (the compiled search, the solver where it does not answer) and
    the solver's alone at ``count`` real decisions of ``preset``, one after the other at each,
    and the reference right after them on every ``every``-th, so that the machine's drift hits
    all alike; prints each and the disagreements."""
    states = real_positions(preset, count, seed, limit)
    before = solve_counts().inexact
    env_times, solver_times, reference_times, differ, unequal = [], [], [], 0, 0
    for i, state in enumerate(states):
        seconds, found = timed(offers, state, limit)
        env_times.append(seconds)
        seconds, alone = timed(offers, state, limit, solver)
        solver_times.append(seconds)
        unequal += found != alone
        if every <= 0 or i % every:
            continue
        seconds, want = timed(reference_values, state)
        reference_times.append(seconds)
        got = found[0].hand_value if found else None
        if got not in want:
            differ += 1
            print(f"  differs: solver {got}, reference {want} at\n{state}", flush=True)
    print(summary(f"real {preset}, env", env_times, None) + f"  offers unlike the solver's {unequal}", flush=True)
    print(summary("  solver alone", solver_times, solve_counts().inexact - before), flush=True)
    if reference_times:
        print(summary("  reference", reference_times, None) + f"  differs {differ}", flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=400, help="positions per kind and preset")
    parser.add_argument("--limit", type=int, default=8, help="answers asked of each solve")
    parser.add_argument("--budget", type=float, default=TIME_BUDGET_S, help="time budget of a solve, seconds")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--real", type=int, default=0, help="decisions of each preset from simple's games")
    parser.add_argument("--reference-every", type=int, default=4, help="the reference on every n-th (0: none)")
    args = parser.parse_args(argv)
    if args.real:
        for preset in PRESET_NAMES:
            real_play(preset, args.real, args.seed, args.limit, args.reference_every)
        return
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
