"""The stored solver positions (``tests/data/solver_positions.jsonl``) with their MILP optima.

Each line holds a position in RULES.md notation, its variant and deck count, where it came
from (``synthetic`` or ``game``) and the MILP's optima; ``tests/data/generate_solver_positions``
writes them. The tests compare the solver with these optima; the benchmarks time it on them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from carousel_env.engine.cards import Hand, Table, parse_hand, parse_table
from carousel_env.engine.rules import Rules, carousel, manipulation_rummy

STORED_POSITIONS = Path(__file__).resolve().parents[1] / "data" / "solver_positions.jsonl"
HEAVY_HAND = 15  # synthetic two-deck hands this large take up to a second: the slow test set


@dataclass(frozen=True)
class StoredPosition:
    table: Table
    hand: Hand
    rules: Rules
    source: str  # "synthetic" or "game"
    decks: int  # 1 or 2
    best_points: int
    best_cards: int
    line: str  # the JSON line itself

    @property
    def set_name(self) -> str:
        """The set this position belongs to, e.g. ``game 1 deck(s) carousel``."""
        return f"{self.source} {self.decks} deck(s) {self.rules.variant.value}"

    @property
    def heavy(self) -> bool:
        """A synthetic two-deck position with a hand of ``HEAVY_HAND`` cards or more."""
        return self.source == "synthetic" and self.decks == 2 and len(self.hand) >= HEAVY_HAND


def rules_of(variant: str, decks: int) -> Rules:
    """The rules a stored position was solved under (Carousel deals two decks from three players)."""
    return manipulation_rummy(4) if variant == "manipulation_rummy" else carousel(decks + 1)


@cache
def stored_positions() -> tuple[StoredPosition, ...]:
    """Every stored position, in file order (empty when the file has not been generated)."""
    if not STORED_POSITIONS.exists():
        return ()
    positions = []
    for line in STORED_POSITIONS.read_text().splitlines():
        if not line.strip():
            continue
        item = json.loads(line)
        positions.append(
            StoredPosition(
                parse_table(item["table"]),
                parse_hand(item["hand"]),
                rules_of(item["variant"], item["decks"]),
                item["source"],
                item["decks"],
                item["best_points"],
                item["best_cards"],
                line,
            )
        )
    return tuple(positions)
