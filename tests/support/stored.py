"""The stored solver positions with their MILP optima.

``tests/data/solver_positions.jsonl``: each line holds a position in RULES.md notation, its
variant and deck count, where it came from (``synthetic`` or ``game``) and the MILP's optima;
``tests/data/generate_solver_positions`` writes them. ``tests/data/agent_positions.jsonl``
(:func:`agent_positions`): the same line format plus ``players``, with ``source`` the set
(``agent-2p`` .. ``agent-5p``): the positions the env asked the solver at the shipped agents'
own games; ``tests/data/generate_agent_positions`` writes them. ``tests/data/hard_positions.jsonl``
(:func:`hard_positions`): the same format, ``source`` ``hard-<set>``: every solve of the
shipped agents' games that took over 50 ms (``benchmarks.solve_corpus --hard``). The tests compare the solver
with these optima; the benchmarks time it on them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from carousel_env.core.cards import Hand, Table, parse_hand, parse_table
from carousel_env.games.carousel.engine.rules import Rules, carousel, manipulation_rummy

STORED_POSITIONS = Path(__file__).resolve().parents[1] / "data" / "solver_positions.jsonl"
AGENT_POSITIONS = Path(__file__).resolve().parents[1] / "data" / "agent_positions.jsonl"
AGENT_SOURCE = "agent-"  # the agent sets' ``source``: agent-2p, agent-3p, ...
HARD_POSITIONS = Path(__file__).resolve().parents[1] / "data" / "hard_positions.jsonl"
HARD_SOURCE = "hard-"  # the hard set's ``source``: hard-<the corpus set it came from>, hard-eval-stall
# The position that stalled ``carousel eval --checkpoint checkpoints/ppo_4p --opponents smart
# --players 3 --games 600 --seed 4243 --workers 2`` (minutes in the sweeps' branch and
# bound), as the issue that reported it gave it: the hard set's first line.
STALLED_PLAYERS = 3
STALLED_TABLE = (
    "2C 2H 2S | 6C 6D 6H 6S | AC 2C 3C 4C | AD 2D 3D | 5D 6D 7D | 4H 5H 6H 7H 8H | AS 2S 3S | 3S 4S 5S | "
    "5S 6S 7S | 7S 8S 9S"
)
STALLED_HAND = (
    "AD AH AH AS 2D 2H 3C 3H 3H 4C 4D 4D 4S 5C 5C 5D 5H 7C 7D 7H 8C 8C 8D 8D 8H 8S 9C 9D 9D 9H 9H 9S 10C 10S "
    "10S JC JH JH QC QC QS QS KC KS JK JK"
)
HEAVY_HAND = 15  # synthetic two-deck hands this large take up to a second: the slow test set


@dataclass(frozen=True)
class StoredPosition:
    table: Table
    hand: Hand
    rules: Rules
    source: str  # "synthetic", "game" or an agent set ("agent-2p" ...)
    decks: int  # 1 or 2
    best_points: int
    best_cards: int
    line: str  # the JSON line itself
    ms: float | None = None  # the hard set's: how long its solve took in play (a busy machine's figure)

    @property
    def set_name(self) -> str:
        """The set this position belongs to, e.g. ``game 1 deck(s) carousel`` or ``agent-4p``."""
        if self.source.startswith(AGENT_SOURCE):
            return self.source
        if self.source.startswith(HARD_SOURCE):
            return "hard"
        return f"{self.source} {self.decks} deck(s) {self.rules.variant.value}"

    @property
    def heavy(self) -> bool:
        """A synthetic two-deck position with a hand of ``HEAVY_HAND`` cards or more."""
        return self.source == "synthetic" and self.decks == 2 and len(self.hand) >= HEAVY_HAND


def rules_of(variant: str, decks: int, players: int | None = None) -> Rules:
    """The rules a stored position was solved under: at ``players`` where the line names them,
    else the fewest players that deal ``decks`` (Carousel deals two decks from three players)."""
    if variant == "manipulation_rummy":
        return manipulation_rummy(players or 4)
    rules = carousel(players or decks + 1)
    if rules.decks != decks:
        raise ValueError(f"{players} players deal {rules.decks} deck(s), the line says {decks}")
    return rules


def _load(path: Path) -> tuple[StoredPosition, ...]:
    """Every position in ``path``, in file order (empty when the file has not been generated)."""
    if not path.exists():
        return ()
    positions = []
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        item = json.loads(line)
        positions.append(
            StoredPosition(
                parse_table(item["table"]),
                parse_hand(item["hand"]),
                rules_of(item["variant"], item["decks"], item.get("players")),
                item["source"],
                item["decks"],
                item["best_points"],
                item["best_cards"],
                line,
                item.get("ms"),
            )
        )
    return tuple(positions)


@cache
def stored_positions() -> tuple[StoredPosition, ...]:
    """Every position of ``solver_positions.jsonl`` (synthetic and game sets), in file order."""
    return _load(STORED_POSITIONS)


@cache
def agent_positions() -> tuple[StoredPosition, ...]:
    """Every position of ``agent_positions.jsonl`` (the agent sets), in file order."""
    return _load(AGENT_POSITIONS)


@cache
def hard_positions() -> tuple[StoredPosition, ...]:
    """Every position of ``hard_positions.jsonl``: the slowest solves of real play
    (``benchmarks.solve_corpus --hard``), in file order."""
    return _load(HARD_POSITIONS)
