"""Carioca's melds on the table (RULES.md, "Cards and melds", "Jokers on the table").

A :class:`Meld` is a trio (three or more cards of one rank, suits may repeat) or an
escalera (four or more cards of one suit in sequence over the cells 1..14, the low ace
being cell 1 and the high ace cell 14). Units are the core's table units: a real card, or
a joker with the card it stands for (``JK=7H``). A joker in a trio stands for the rank and
is written with clubs.

Lay-offs (:func:`laid_off`) follow the joker rules: a joker at an end of an escalera is
pushed one cell outward when the real card it stands for is tucked in beside it; a card
may also extend past it; a joker never moves to the other end, one inside never changes,
and one standing for an ace at the end of the cells stays (the card cannot go in).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from enum import Enum, IntEnum
from typing import NamedTuple

from carousel_env.core.cards import (
    JOKER,
    Card,
    Unit,
    card_str,
    face,
    is_table_joker,
    joker_as,
    make_card,
    meld_str,
    rank_of,
    suit_of,
)
from carousel_env.core.errors import CarouselError
from carousel_env.games.carioca.rules import (
    ESCALERA_SIZE,
    HIGH_ACE,
    JOKERS_PER_MELD_GOING_DOWN,
    LOW_ACE,
    TRIO_JOKER_SUIT,
    TRIO_SIZE,
    Contract,
    card_at,
)


class MeldError(CarouselError):
    """A meld or a contract that breaks a rule; the message names the rule."""


class MeldKind(str, Enum):
    TRIO = "trio"
    ESCALERA = "escalera"


class End(IntEnum):
    """Where a lay-off goes: an escalera's low or high end; a trio has one place, ``LOW``."""

    LOW = 0
    HIGH = 1


@dataclass(frozen=True)
class Meld:
    """A meld on the table. ``units`` run from the low cell for an escalera; ``low`` is the
    cell of ``units[0]`` (1..14) for an escalera and 0 for a trio."""

    kind: MeldKind
    units: tuple[Unit, ...]
    low: int = 0

    @property
    def high(self) -> int:
        """An escalera's highest cell."""
        return self.low + len(self.units) - 1

    @property
    def rank(self) -> int:
        """A trio's rank (1..13)."""
        return rank_of(self.units[0])

    @property
    def suit(self) -> int:
        """An escalera's suit (0..3)."""
        return suit_of(face(self.units[0]))

    @property
    def jokers(self) -> int:
        return sum(is_table_joker(u) for u in self.units)

    def cards(self) -> tuple[Card, ...]:
        """The hand cards the meld is made of (a joker as ``JOKER``), sorted."""
        return tuple(sorted(JOKER if is_table_joker(u) else u for u in self.units))

    def end_joker(self, end: End) -> bool:
        """Whether the unit at ``end`` of an escalera is a joker."""
        return is_table_joker(self.units[0 if end is End.LOW else -1])

    def __str__(self) -> str:
        return meld_str(self.units)


def trio(units) -> Meld:
    """The trio of ``units`` (real cards of one rank and jokers standing for it)."""
    units = tuple(units)
    if len(units) < TRIO_SIZE:
        raise MeldError(f"{meld_str(units)}: a trio has at least {TRIO_SIZE} cards")
    real = [u for u in units if not is_table_joker(u)]
    if not real:
        raise MeldError(f"{meld_str(units)}: a trio needs a real card")
    rank = rank_of(real[0])
    for u in units:
        if rank_of(face(u)) != rank:
            raise MeldError(f"{meld_str(units)}: every card of a trio has one rank ({card_str(face(u))} is not)")
    return Meld(MeldKind.TRIO, units)


def escalera(units, low: int) -> Meld:
    """The escalera of ``units`` starting at cell ``low`` (1..14)."""
    units = tuple(units)
    if len(units) < ESCALERA_SIZE:
        raise MeldError(f"{meld_str(units)}: an escalera has at least {ESCALERA_SIZE} cards")
    if low < LOW_ACE or low + len(units) - 1 > HIGH_ACE:
        raise MeldError(f"{meld_str(units)}: an escalera runs within A-2-...-K-A (cells 1..14)")
    real = [u for u in units if not is_table_joker(u)]
    if not real:
        raise MeldError(f"{meld_str(units)}: an escalera needs a real card")
    suit = suit_of(real[0])
    for i, u in enumerate(units):
        if face(u) != card_at(suit, low + i):
            raise MeldError(f"{meld_str(units)}: an escalera is one suit in sequence ({card_str(face(u))} breaks it)")
    return Meld(MeldKind.ESCALERA, units, low)


def meld_from_units(units) -> Meld:
    """The meld that ``units`` (as written: parsed notation) form, or :class:`MeldError`."""
    units = tuple(units)
    faces = {rank_of(face(u)) for u in units}
    if len(faces) == 1:  # an escalera's ranks differ: one rank is a trio or nothing
        return trio(units)
    for low in range(LOW_ACE, HIGH_ACE - len(units) + 2):
        try:
            return escalera(units, low)
        except MeldError:
            continue
    raise MeldError(f"{meld_str(units)}: neither a trio nor an escalera")


def check_contract(melds, contract: Contract) -> None:
    """Raise :class:`MeldError` unless ``melds`` lay out exactly ``contract`` as going down
    must: each trio 3 cards, each escalera 4, at most one joker a meld, trios of different
    ranks (the project's reading)."""
    trios = [m for m in melds if m.kind is MeldKind.TRIO]
    escaleras = [m for m in melds if m.kind is MeldKind.ESCALERA]
    if len(trios) != contract.trios or len(escaleras) != contract.escaleras:
        raise MeldError(
            f"going down lays out exactly the contract, {contract}: got {len(trios)} trio(s) and "
            f"{len(escaleras)} escalera(s)"
        )
    for m in melds:
        size = TRIO_SIZE if m.kind is MeldKind.TRIO else ESCALERA_SIZE
        if len(m.units) != size:
            raise MeldError(f"{m}: going down, a {m.kind.value} has exactly {size} cards")
        if m.jokers > JOKERS_PER_MELD_GOING_DOWN:
            raise MeldError(f"{m}: going down, a meld holds at most {JOKERS_PER_MELD_GOING_DOWN} joker")
    ranks = Counter(m.rank for m in trios)
    for rank, n in ranks.items():
        if n > 1:
            raise MeldError(
                f"the trios of a contract have different ranks ({n} trios of {card_str(make_card(rank, 0))[:-1]})"
            )


def trio_joker(rank: int) -> Unit:
    """The unit of a joker standing in a trio of ``rank``."""
    return joker_as(make_card(rank, TRIO_JOKER_SUIT))


def laid_off(meld: Meld, card: Card, end: End) -> Meld | None:
    """``meld`` with ``card`` (a hand card, ``JOKER`` for a joker) laid off at ``end``, or
    None when the rules do not allow it."""
    if meld.kind is MeldKind.TRIO:
        if end is not End.LOW:
            return None
        if card == JOKER:
            return Meld(MeldKind.TRIO, (*meld.units, trio_joker(meld.rank)))
        return Meld(MeldKind.TRIO, (*meld.units, card)) if rank_of(card) == meld.rank else None
    suit = meld.suit
    if end is End.LOW:
        outer, edge = meld.low - 1, meld.low
        if outer < LOW_ACE:
            return None
        if card == JOKER:
            return Meld(MeldKind.ESCALERA, (joker_as(card_at(suit, outer)), *meld.units), outer)
        if card == card_at(suit, outer):
            return Meld(MeldKind.ESCALERA, (card, *meld.units), outer)
        if meld.end_joker(End.LOW) and card == card_at(suit, edge):  # tucked in: the joker moves out
            return Meld(MeldKind.ESCALERA, (joker_as(card_at(suit, outer)), card, *meld.units[1:]), outer)
        return None
    outer, edge = meld.high + 1, meld.high
    if outer > HIGH_ACE:
        return None
    if card == JOKER:
        return Meld(MeldKind.ESCALERA, (*meld.units, joker_as(card_at(suit, outer))), meld.low)
    if card == card_at(suit, outer):
        return Meld(MeldKind.ESCALERA, (*meld.units, card), meld.low)
    if meld.end_joker(End.HIGH) and card == card_at(suit, edge):
        return Meld(MeldKind.ESCALERA, (*meld.units[:-1], card, joker_as(card_at(suit, outer))), meld.low)
    return None


class LayOff(NamedTuple):
    """A lay-off: ``card`` onto meld ``meld`` of seat ``seat``'s melds, at ``end``."""

    card: Card
    seat: int
    meld: int
    end: End

    def __str__(self) -> str:
        return (
            f"lay off {card_str(self.card)} on player {self.seat}'s meld {self.meld + 1}, {self.end.name.lower()} end"
        )
