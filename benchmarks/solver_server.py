"""One side of ``bench_solver_pair``: solves the stored positions it reads, one JSON line each.

    PYTHONPATH=TREE python benchmarks/solver_server.py "FIRST TABLE" "FIRST HAND"

It is run by file path, with ``PYTHONPATH`` naming the checkout whose solver it times, so it
imports nothing from its own folder. It makes the untimed first solve, prints ``ready``, then
answers each line of ``tests/data/solver_positions.jsonl`` read from stdin with
``[seconds, [best_points, best_cards, [(reason, cards, points), ...]]]``.
"""

from __future__ import annotations

import json
import sys
import time

try:
    from carousel_env.core.cards import parse_hand, parse_table
    from carousel_env.games.carousel.engine.rules import carousel, manipulation_rummy
except ImportError:  # a checkout from before the engine had its own package
    from carousel_env.cards import parse_hand, parse_table
    from carousel_env.rules import carousel, manipulation_rummy
from carousel_env.games.carousel.solver import solve

try:  # time the solver alone: trees since the position check have it on by default
    solve((), (), carousel(2), check_position=False)
    OPTIONS = {"check_position": False}
except TypeError:  # a tree from before the check
    OPTIONS = {}


def main(first_table: str, first_hand: str) -> None:
    solve(parse_table(first_table), parse_hand(first_hand), carousel(2), **OPTIONS)
    print("ready", flush=True)
    for line in sys.stdin:
        item = json.loads(line)
        rules = manipulation_rummy(4) if item["variant"] == "manipulation_rummy" else carousel(item["decks"] + 1)
        table, hand = parse_table(item["table"]), parse_hand(item["hand"])
        start = time.perf_counter()
        result = solve(table, hand, rules, **OPTIONS)
        seconds = time.perf_counter() - start
        summary = [result.best_points, result.best_cards, [(s.reason, s.cards, s.points) for s in result.suggestions]]
        print(json.dumps([seconds, summary]), flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
