"""Conquian's immutable state, its moves and the records of finished hands and games.

A turn runs through the phases ``FACED`` (take the faced card, melding it, or pass),
``TURNED`` (the same for the stock card just turned up: passing leaves it to the opponent),
``FORCE`` (the opponent of a player who passed a card that fits that player's melds decides
whether to force it), ``FORCED`` (the forced player melds it) and ``DISCARD``; then
``HAND_OVER`` or ``GAME_OVER``. Moves are :class:`Move` tuples of a :class:`MoveKind`.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum, IntEnum
from typing import NamedTuple

from carousel_env.core.cards import Card, card_str, hand_str
from carousel_env.games.conquian.melds import Melds, melds_str
from carousel_env.games.conquian.rules import ConquianRules

Hand = tuple[Card, ...]
NO_CARD = -1


class Phase(str, Enum):
    FACED = "faced"  # take the faced card (the opponent's discard, or a stock card left) or pass
    TURNED = "turned"  # take the stock card just turned up, or leave it
    FORCE = "force"  # the opponent decides whether to force the card just passed
    FORCED = "forced"  # meld the forced card
    DISCARD = "discard"
    HAND_OVER = "hand_over"
    GAME_OVER = "game_over"


class MoveKind(IntEnum):
    TAKE = 0  # take the faced card; ``melds``: the player's melds after
    PASS = 1  # pass the faced card, leave the turned one, or do not force (``melds``: laid before leaving)
    FORCE = 2  # force the card just passed on the opponent
    DISCARD = 3  # ``card``


class Move(NamedTuple):
    """A player's move; the fields a kind does not use keep their defaults."""

    kind: MoveKind
    card: Card = NO_CARD
    melds: Melds = ()

    def __str__(self) -> str:
        if self.kind is MoveKind.DISCARD:
            return f"discard {card_str(self.card)}"
        if self.kind is MoveKind.TAKE:
            return f"take, melds {melds_str(self.melds)}"
        if self.kind is MoveKind.PASS and self.melds:
            return f"pass, melds {melds_str(self.melds)}"
        return self.kind.name.lower()


PASS = Move(MoveKind.PASS)
FORCE = Move(MoveKind.FORCE)


def take(melds: Melds) -> Move:
    return Move(MoveKind.TAKE, melds=tuple(melds))


def leave(melds: Melds) -> Move:
    """Leave the turned card after laying ``melds`` from the hand (``hand_melds_on_turn_up``)."""
    return Move(MoveKind.PASS, melds=tuple(melds))


def discard(card: Card) -> Move:
    return Move(MoveKind.DISCARD, card=card)


class HandEnd(str, Enum):
    OUT = "out"  # a player melded 11 cards
    TABLEAU = "tableau"  # the stock ran out: a draw


@dataclass(frozen=True)
class HandResult:
    """A finished hand: how it ended, its winner (-1: a tableau), what it was worth (one more
    for each tableau pooled before it), each seat's score and the hands left."""

    number: int  # 1-based
    end: HandEnd
    winner: int
    worth: int
    scores: tuple[int, ...]
    hands: tuple[Hand, ...]

    @property
    def points(self) -> tuple[int, ...]:
        """The hand as the family scores hands, higher better."""
        return self.scores


@dataclass(frozen=True)
class GameResult:
    """A finished game: the totals and the seats that won it (both on a tie, none after a
    single hand that was a tableau)."""

    totals: tuple[int, ...]
    winners: tuple[int, ...]


@dataclass(frozen=True)
class ConquianState:
    """A Conquian position, with full information (observations hide what they must)."""

    rules: ConquianRules
    seed: int
    hand_number: int  # 0-based
    dealer: int
    current: int  # the seat to act, -1 between hands
    phase: Phase
    hands: tuple[Hand, Hand]
    melds: tuple[Melds, Melds]  # each seat's melds, in front of it
    stock: tuple[Card, ...]  # the top is the last
    dead: tuple[Card, ...]  # cards turned face down, in order (each was seen face up)
    faced: Card  # the card face up on the pile (NO_CARD: none)
    faced_by: int  # the seat that discarded or turned it up (-1: the deal's upcard)
    upcard: bool  # the faced card is the deal's upcard, still being offered
    left_card: bool  # in FORCE: the passed card was a turned card left (else a faced card declined)
    declined: tuple[tuple[Card, ...], tuple[Card, ...]]  # per seat, the cards it passed this hand
    totals: tuple[int, int]
    pool: int = 0  # tableaus in a row before this hand (``tableau_pool``)
    results: tuple[HandResult, ...] = ()
    game_result: GameResult | None = None

    @property
    def num_players(self) -> int:
        return 2

    @property
    def over(self) -> bool:
        """Whether the hand is over (and maybe the game)."""
        return self.phase in (Phase.HAND_OVER, Phase.GAME_OVER)

    @property
    def last_hand(self) -> HandResult | None:
        return self.results[-1] if self.results else None

    def melded(self, seat: int) -> int:
        """Cards ``seat`` has melded."""
        return sum(len(m) for m in self.melds[seat])

    def __str__(self) -> str:
        lines = [f"hand {self.hand_number + 1}, {self.phase.value}, player {self.current} to act"]
        for seat in range(2):
            mark = " (dealer)" if seat == self.dealer else ""
            lines.append(f"  player {seat}{mark}, total {self.totals[seat]}: {hand_str(self.hands[seat]) or '-'}")
            lines.append(f"    melds: {melds_str(self.melds[seat]) or '-'}")
        faced = card_str(self.faced) if self.faced != NO_CARD else "-"
        lines.append(f"  faced {faced}, stock {len(self.stock)}, dead {len(self.dead)}")
        return "\n".join(lines)
