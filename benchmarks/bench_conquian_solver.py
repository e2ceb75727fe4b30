"""Conquian's melding solver (``carousel_env.games.conquian.solver``) against its brute-force
reference (``tests/games/conquian/solver_reference.py``): agreement and times.

    nice python -m benchmarks.bench_conquian_solver --positions 2000 --seed 0
    nice python -m benchmarks.bench_conquian_solver --positions 500 --max-run none

For each ``rearrange`` mode (``free``, ``borrow``, ``none``) it draws ``--positions`` random
positions (:func:`random_position`: a player's melds, a hand making 10 cards with them and a
card to take; random, dense and long-run kinds in turn) and asks both sides three questions of
each: melding the taken card, melding from the hand alone, and the forced card (a position of
:func:`random_forcing`, compared where :func:`can_force` holds; ``can_force`` itself is checked
against "the reference lays the card with the table alone" on every one). It prints the
positions, the questions compared, how many answers differ (must be 0: the first few are
written out, and the exit status is 1), and the median, the 99th percentile and the largest
time of the solver and of the reference, in milliseconds, over all the questions of the mode.

It asserts nothing about the times; the machine's load shows in them (run it with ``nice``
next to other work, alone for figures worth comparing).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time

from carousel_env.core.cards import card_str, hand_str
from carousel_env.games.conquian.melds import melds_str
from carousel_env.games.conquian.rules import ConquianRules
from carousel_env.games.conquian.solver import arrangements, can_force
from tests.games.conquian.solver_reference import KINDS, random_forcing, random_position, reference_arrangements

MODES = ("free", "borrow", "none")
SHOWN = 5  # differences written out per mode


def timed(solve, *args, **kwargs) -> tuple[float, object]:
    """Seconds ``solve(*args, **kwargs)`` took, and its answer."""
    start = time.perf_counter()
    answer = solve(*args, **kwargs)
    return time.perf_counter() - start, answer


def quantile(ms: list[float], q: float) -> float:
    """The ``q`` quantile of the sorted ``ms`` (the nearest rank at or below)."""
    return ms[min(len(ms) - 1, int(len(ms) * q))]


def summary(name: str, seconds: list[float]) -> str:
    ms = sorted(s * 1000 for s in seconds)
    return (
        f"  {name:<10} n={len(ms):<6} median {statistics.median(ms):7.3f} ms  p99 {quantile(ms, 0.99):7.3f} ms  "
        f"max {ms[-1]:8.3f} ms"
    )


def position_text(rules: ConquianRules, melds, hand, taken, forced: bool) -> str:
    return (
        f"rearrange {rules.rearrange.value} max_run {rules.max_run}: table [{melds_str(melds)}] "
        f"hand [{hand_str(hand)}] taken {card_str(taken) if taken is not None else None} forced {forced}"
    )


def compare_mode(rules: ConquianRules, count: int, seed: int) -> int:
    """Compares the solver and the reference on ``count`` positions of ``rules``; prints the
    figures and returns how many answers differ."""
    rng = random.Random(f"{seed}/{rules.rearrange.value}/{rules.max_run}")
    solver_times: list[float] = []
    reference_times: list[float] = []
    compared = forced_count = differ = 0

    def compare(melds, hand, taken, forced: bool) -> None:
        nonlocal compared, differ
        seconds, found = timed(arrangements, rules, melds, hand, taken, forced=forced)
        solver_times.append(seconds)
        seconds, want = timed(reference_arrangements, rules, melds, hand, taken, forced)
        reference_times.append(seconds)
        compared += 1
        got = {a.melds for a in found}
        if got != want:
            differ += 1
            if differ <= SHOWN:
                extra = sorted(melds_str(m) for m in got - want)
                missing = sorted(melds_str(m) for m in want - got)
                print(f"  differs: {position_text(rules, melds, hand, taken, forced)}", flush=True)
                print(f"    solver adds {extra}, misses {missing}", flush=True)

    for i in range(count):
        kind = KINDS[i % len(KINDS)]
        melds, hand, taken = random_position(rng, rules, kind)
        compare(melds, hand, taken, False)
        compare(melds, hand, None, False)
        melds, hand, card = random_forcing(rng, rules, kind)
        forcible = can_force(rules, melds, card)
        if forcible != bool(reference_arrangements(rules, melds, (), card, True)):
            differ += 1
            if differ <= SHOWN:
                print(f"  can_force {forcible} differs: {position_text(rules, melds, (), card, True)}", flush=True)
        if forcible:
            forced_count += 1
            compare(melds, hand, card, True)
    print(
        f"{rules.rearrange.value:<7} max_run {rules.max_run!s:<5} positions {count}  compared {compared} "
        f"({forced_count} forced)  differ {differ}",
        flush=True,
    )
    print(summary("solver", solver_times), flush=True)
    print(summary("reference", reference_times), flush=True)
    return differ


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=500, help="random positions per mode")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-run", default="8", help="the rules' max_run, 3 to 10 or 'none'")
    args = parser.parse_args(argv)
    max_run = None if args.max_run.lower() == "none" else int(args.max_run)
    differ = sum(compare_mode(ConquianRules(rearrange=m, max_run=max_run), args.positions, args.seed) for m in MODES)
    if differ:
        print(f"{differ} answers differ from the reference", flush=True)
        sys.exit(1)


if __name__ == "__main__":
    main()
