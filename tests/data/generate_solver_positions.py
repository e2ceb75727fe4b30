"""Regenerate ``solver_positions.jsonl``: seeded solver positions with their MILP optima.

    .venv/bin/python -m tests.data.generate_solver_positions

Each line: ``{"table", "hand", "decks", "variant", "source", "best_points", "best_cards"}``
in RULES.md notation. ``source`` is ``synthetic`` (tests/support/positions.py) or ``game``: a
decision point of a real seeded game, played by players who knock when allowed, play the
MILP's best play (points or cards, at random) most of the time when they may, and
otherwise draw again or end the turn. The MILP reference (tests/support/milp_reference.py) runs
with ``cross_check=True`` (presolve on and off must agree), so a HiGHS presolve bug cannot
slip into the stored answers. Storing them keeps the test suite from re-solving thousands
of MILPs on every run; a live sample in the tests re-checks the file against the MILP.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from carousel_env.core.cards import hand_str, table_str
from carousel_env.games.carousel.engine.game import ActionKind, Phase, allowed, apply, new_game, next_round
from carousel_env.games.carousel.engine.rules import Rules, carousel, manipulation_rummy
from carousel_env.games.carousel.solver import can_play
from tests.support.milp_reference import milp_best, milp_play
from tests.support.positions import synthetic_positions

OUT = Path(__file__).resolve().parent / "solver_positions.jsonl"


def game_positions(rules: Rules, n: int, seed: int):
    """``n`` decision points where a play may be proposed, from seeded random games."""
    rng = random.Random(seed)
    found = 0
    game = 0
    while found < n:
        state = new_game(rules, seed * 1000 + game, can_play=can_play)
        game += 1
        while not state.is_over and found < n:
            if state.phase is Phase.ROUND_OVER:
                state = next_round(state)
                continue
            kinds = allowed(state)
            hand = state.hands[state.current]
            if ActionKind.PLAY in kinds:
                # Thin out: consecutive decisions of one turn look alike.
                if rng.random() < 0.5:
                    found += 1
                    yield state.table, hand
                must = kinds == {ActionKind.PLAY}  # the variant's must-play decision
                if must or (ActionKind.KNOCK not in kinds and rng.random() < 0.85):
                    play = milp_play(state.table, hand, rules, rng.choice(["points", "cards"]))
                    if play is not None:
                        state = apply(state, play)
                        continue
            if ActionKind.KNOCK in kinds:
                state = apply(state, ActionKind.KNOCK)
            elif ActionKind.DRAW_AGAIN in kinds:
                state = apply(state, ActionKind.DRAW_AGAIN)
            else:
                state = apply(state, ActionKind.END_TURN)


def record(table, hand, rules: Rules, source: str) -> dict:
    return {
        "table": table_str(table),
        "hand": hand_str(hand),
        "decks": rules.decks,
        "variant": rules.variant.value,
        "source": source,
        "best_points": milp_best(table, hand, rules, "points", cross_check=True),
        "best_cards": milp_best(table, hand, rules, "cards", cross_check=True),
    }


def main() -> None:
    one, two, variant = carousel(2), carousel(3), manipulation_rummy(4)
    plan = [
        (one, "synthetic", synthetic_positions(700, 101, 1, 1, one)),
        (two, "synthetic", synthetic_positions(700, 202, 2, 2, two)),
        (variant, "synthetic", synthetic_positions(150, 303, 2, 0, variant)),
        (one, "game", game_positions(one, 350, 404)),
        (two, "game", game_positions(two, 250, 505)),
        (carousel(5), "game", game_positions(carousel(5), 150, 606)),
        (variant, "game", game_positions(variant, 60, 707)),
    ]
    lines = []
    for rules, source, positions in plan:
        for table, hand in positions:
            lines.append(json.dumps(record(table, hand, rules, source)))
        print(f"{rules.variant.value} decks={rules.decks} {source}: {len(lines)} lines so far", flush=True)
    OUT.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
