"""Kaluki's immutable state, its moves and the records of finished hands and games.

A hand runs through the phases ``DRAW`` (take the top of the stock or of the discard pile),
``PLAY`` (open, lay melds, lay off, exchange jokers, then discard) and ``HAND_OVER`` or
``GAME_OVER``. Moves are :class:`Move` tuples of a :class:`MoveKind`; the constructors below
build each kind. Seats never change; a seat eliminated under ``penalty_end: eliminate`` is
out (``in_play``), holds no cards and is skipped.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum, IntEnum
from typing import NamedTuple

from carousel_env.core.cards import Card, card_str, hand_str, joker_as, unit_str
from carousel_env.games.kaluki.melds import End, Meld
from carousel_env.games.kaluki.rules import KalukiRules

Hand = tuple[Card, ...]
NO_CARD = -1


class Phase(str, Enum):
    DRAW = "draw"
    PLAY = "play"
    HAND_OVER = "hand_over"
    GAME_OVER = "game_over"


class MoveKind(IntEnum):
    DRAW_STOCK = 0
    TAKE_DISCARD = 1  # ``melds``: what is laid with the taken card, where the rules require it
    OPEN = 2  # ``melds``: the opening
    MELD = 3  # ``melds``: further melds, after opening
    LAY_OFF = 4  # ``card`` onto meld ``meld`` of seat ``seat``; a joker ``declare``s its card
    EXCHANGE = 5  # ``cards`` take the place of the joker declaring ``card`` in meld ``meld`` of ``seat``
    DISCARD = 6  # ``card``


class Move(NamedTuple):
    """A player's move; the fields a kind does not use keep their defaults."""

    kind: MoveKind
    card: Card = NO_CARD
    melds: tuple[Meld, ...] = ()
    seat: int = -1
    meld: int = -1
    declare: Card = NO_CARD
    cards: tuple[Card, ...] = ()
    end: End | None = None

    def __str__(self) -> str:
        laid = " | ".join(str(m) for m in self.melds)
        if self.kind is MoveKind.DISCARD:
            return f"discard {card_str(self.card)}"
        if self.kind in (MoveKind.OPEN, MoveKind.MELD):
            return f"{self.kind.name.lower()}: {laid}"
        if self.kind is MoveKind.LAY_OFF:
            what = unit_str(joker_as(self.declare)) if self.declare >= 0 else card_str(self.card)
            return f"lay off {what} on player {self.seat}'s meld {self.meld + 1}"
        if self.kind is MoveKind.EXCHANGE:
            text = f"exchange {hand_str(self.cards)} for JK={card_str(self.card)} in player {self.seat}'s meld"
            return f"{text} {self.meld + 1}" + (f", laying {laid}" if laid else "")
        name = self.kind.name.lower().replace("_", " ")
        return f"{name}, laying {laid}" if laid else name


DRAW_STOCK = Move(MoveKind.DRAW_STOCK)


def take_discard(melds=()) -> Move:
    return Move(MoveKind.TAKE_DISCARD, melds=tuple(melds))


def open_with(melds) -> Move:
    return Move(MoveKind.OPEN, melds=tuple(melds))


def lay_melds(melds) -> Move:
    return Move(MoveKind.MELD, melds=tuple(melds))


def lay_off(card: Card, seat: int, meld: int, declare: Card = NO_CARD, end: End | None = None) -> Move:
    return Move(MoveKind.LAY_OFF, card=card, seat=seat, meld=meld, declare=declare, end=end)


def exchange(seat: int, meld: int, joker: Card, cards, melds=()) -> Move:
    """Put ``cards`` in place of the joker declaring ``joker``; under ``reuse_now`` ``melds``
    are the new melds the released joker(s) go into, this same move."""
    return Move(MoveKind.EXCHANGE, card=joker, seat=seat, meld=meld, cards=tuple(cards), melds=tuple(melds))


def discard(card: Card) -> Move:
    return Move(MoveKind.DISCARD, card=card)


class HandEnd(str, Enum):
    OUT = "out"  # a player emptied the hand
    STOCK = "stock"  # the stock ran out after its restocks: no winner
    PILE_LIMIT = "pile_limit"  # the pile was taken from PILE_TAKE_LIMIT times (the project's bound): no winner


@dataclass(frozen=True)
class HandResult:
    """A finished hand: how it ended, who went out (-1: nobody), each seat's hand value and
    score change, whether it was a rummy (out in one turn, nothing laid before), the hands,
    and whether the scores are penalties (``scoring: penalty``)."""

    number: int  # 1-based
    end: HandEnd
    out: int
    values: tuple[int, ...]
    scores: tuple[int, ...]
    rummy: bool
    hands: tuple[Hand, ...]
    penalties: bool = False

    @property
    def points(self) -> tuple[int, ...]:
        """The hand as the family scores hands, higher better: the scores, penalties negated."""
        return tuple(-s for s in self.scores) if self.penalties else self.scores


@dataclass(frozen=True)
class GameResult:
    """A finished game: the totals and the seats that won it (several on a tie; none for a
    single hand nobody won)."""

    totals: tuple[int, ...]
    winners: tuple[int, ...]


@dataclass(frozen=True)
class KalukiState:
    """A Kaluki position, with full information (observations hide what they must)."""

    rules: KalukiRules
    num_players: int
    seed: int
    hand_number: int  # 0-based
    dealer: int
    current: int  # the seat to act, -1 between hands
    phase: Phase
    hands: tuple[Hand, ...]
    melds: tuple[tuple[Meld, ...], ...]  # each seat's melds on the table (their owner), in the order laid
    stock: tuple[Card, ...]  # the top is the last
    discards: tuple[Card, ...]  # the pile, bottom first: the top is the last
    opened: tuple[bool, ...]
    in_play: tuple[bool, ...]  # seats still in the game (penalty elimination)
    totals: tuple[int, ...]
    restocks_used: int = 0
    pile_takes: int = 0  # cards taken from the pile this hand
    taken: Card = NO_CARD  # the card taken from the pile this turn, while it may not be discarded
    laid_now: bool = False  # the player to act has put cards on the table this turn
    laid: tuple[bool, ...] = ()  # per seat: put cards on the table on an earlier turn of this hand
    # Per seat: the cards every player saw go into its hand this hand (taken from the pile, jokers
    # won by an exchange) less those seen to leave it, sorted: public, as at a real table. A draw
    # from a stock turned over is not counted, though a perfect memory of the pile would know it.
    known: tuple[Hand, ...] = ()
    results: tuple[HandResult, ...] = ()
    game_result: GameResult | None = None

    def __post_init__(self) -> None:
        if not self.known:  # nothing seen yet: every seat's known cards empty
            object.__setattr__(self, "known", ((),) * self.num_players)
        elif len(self.known) != self.num_players:
            raise ValueError(f"known holds one hand per seat: {len(self.known)} for {self.num_players} seats")

    @property
    def over(self) -> bool:
        """Whether the hand is over (and maybe the game)."""
        return self.phase in (Phase.HAND_OVER, Phase.GAME_OVER)

    @property
    def top(self) -> Card:
        """The top of the discard pile (-1 when it is empty)."""
        return self.discards[-1] if self.discards else NO_CARD

    @property
    def last_hand(self) -> HandResult | None:
        return self.results[-1] if self.results else None

    def table(self) -> tuple[Meld, ...]:
        """Every meld on the table, seat by seat."""
        return tuple(m for seat in self.melds for m in seat)

    def __str__(self) -> str:
        lines = [f"hand {self.hand_number + 1}, {self.phase.value}, player {self.current} to act"]
        for seat in range(self.num_players):
            if not self.in_play[seat]:
                lines.append(f"  player {seat}: out of the game, total {self.totals[seat]}")
                continue
            table = " | ".join(str(m) for m in self.melds[seat]) or "-"
            mark = "opened" if self.opened[seat] else "not opened"
            lines.append(f"  player {seat} ({mark}, total {self.totals[seat]}): {hand_str(self.hands[seat])}")
            lines.append(f"    melds: {table}")
        top = card_str(self.top) if self.discards else "-"
        lines.append(f"  pile top {top} ({len(self.discards)}), stock {len(self.stock)}")
        return "\n".join(lines)
