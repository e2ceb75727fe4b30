"""Kaluki's melds on the table (RULES.md, "Kaluki", "Melds" and "A turn").

A :class:`Meld` is a set (3 or 4 cards of one rank, every member a different suit, a
joker's declared suit included) or a run (3 to 13 cards of one suit in consecutive cells,
cell 1 the low ace, 2..13 the ranks 2..K, 14 the high ace; the rules say which aces a run
may hold). Units are the core's table units: a real card, or a joker with the card it
declares (``JK=7H``), fixed when it is placed. Every meld holds at least one natural card.

:func:`meld_value` counts a meld toward the opening (an ace in cell 1 counts 1, a joker its
declared card), :func:`laid_off` extends a meld by one unit, :func:`exchanged` puts natural
cards in a joker's place under the rules' ``set_joker_release``.

Decisions where RULES.md is silent:

* A run written with an ace that fits both ends (only ``A 2 ... K``, 13 cards) reads the ace
  low when it is written first, high otherwise.
* An ace laid off on a run it could end at either end (``2 ... K``) goes to the low end
  unless the lay-off names the high end.
* ``all_missing`` makes the set the four naturals, so it releases every joker of the set.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum, IntEnum

from carousel_env.core.cards import (
    JOKER,
    Card,
    Unit,
    card_str,
    face,
    is_table_joker,
    make_card,
    meld_str,
    rank_of,
    suit_of,
)
from carousel_env.core.errors import CarouselError
from carousel_env.games.kaluki.rules import (
    HIGH_ACE,
    LOW_ACE,
    LOW_ACE_MELD_VALUE,
    MELD_MIN,
    RUN_MAX,
    SET_MAX,
    KalukiRules,
    SetJokerRelease,
)

SUIT_COUNT = 4
NEAR_RANKS = 2  # a card of its suit this close in rank could make a run with it


class MeldError(CarouselError):
    """A meld, lay-off or exchange that breaks a rule; the message names the rule."""


class MeldKind(str, Enum):
    SET = "set"
    RUN = "run"


class End(IntEnum):
    """A run's end, for an ace laid off on a run it could end at either end."""

    LOW = 0
    HIGH = 1


def card_at(suit: int, cell: int) -> Card:
    """The card in ``cell`` (1..14) of a run of ``suit``: both cells 1 and 14 are the ace."""
    return make_card(1 if cell == HIGH_ACE else cell, suit)


@dataclass(frozen=True)
class Meld:
    """A meld on the table. A run's ``units`` go up from cell ``low``; a set's ``low`` is 0."""

    kind: MeldKind
    units: tuple[Unit, ...]
    low: int = 0

    @property
    def high(self) -> int:
        """A run's highest cell."""
        return self.low + len(self.units) - 1

    @property
    def rank(self) -> int:
        """A set's rank (1..13)."""
        return rank_of(face(self.units[0]))

    @property
    def suit(self) -> int:
        """A run's suit (0..3)."""
        return suit_of(face(self.units[0]))

    @property
    def jokers(self) -> int:
        return sum(is_table_joker(u) for u in self.units)

    def cards(self) -> tuple[Card, ...]:
        """The hand cards the meld is made of (a joker as ``JOKER``), sorted."""
        return tuple(sorted(JOKER if is_table_joker(u) else u for u in self.units))

    def __str__(self) -> str:
        return meld_str(self.units)


def _check_natural(units: tuple[Unit, ...], what: str) -> None:
    if all(is_table_joker(u) for u in units):
        raise MeldError(f"{meld_str(units)}: every meld holds at least one natural card, not only jokers ({what})")


def lays_card(melds, card: Card) -> bool:
    """Whether ``melds`` put ``card`` (a natural, or ``JOKER`` for any joker) on the table."""
    if card == JOKER:
        return any(is_table_joker(u) for m in melds for u in m.units)
    return any(u == card for m in melds for u in m.units)


def make_set(units) -> Meld:
    """The set of ``units``: 3 or 4 of one rank, every member (joker declarations too) a different
    suit. Its units are kept in suit order (C D H S), so that equal sets are equal."""
    units = tuple(units)
    if not MELD_MIN <= len(units) <= SET_MAX:
        raise MeldError(f"{meld_str(units)}: a set has {MELD_MIN} or {SET_MAX} cards, not {len(units)}")
    _check_natural(units, "set")
    rank = rank_of(face(units[0]))
    for u in units:
        if rank_of(face(u)) != rank:
            raise MeldError(f"{meld_str(units)}: a set is one rank ({card_str(face(u))} is not)")
    suits = [suit_of(face(u)) for u in units]
    if len(set(suits)) != len(suits):
        raise MeldError(f"{meld_str(units)}: a set has no duplicate: every member is a different suit")
    return Meld(MeldKind.SET, tuple(sorted(units, key=lambda u: suit_of(face(u)))))


def make_run(units, low: int, rules: KalukiRules) -> Meld:
    """The run of ``units`` going up from cell ``low`` (1..14)."""
    units = tuple(units)
    if not MELD_MIN <= len(units) <= RUN_MAX:
        raise MeldError(f"{meld_str(units)}: a run has {MELD_MIN} to {RUN_MAX} cards, not {len(units)}")
    high = low + len(units) - 1
    if low < LOW_ACE or high > HIGH_ACE:
        raise MeldError(f"{meld_str(units)}: a run never wraps (K-A-2)")
    if low == LOW_ACE and not rules.ace_low_runs:
        raise MeldError(f"{meld_str(units)}: the ace is not low in a run under these rules (ace_low_runs)")
    if high == HIGH_ACE and not rules.ace_high_runs:
        raise MeldError(f"{meld_str(units)}: the ace is not high in a run under these rules (ace_high_runs)")
    _check_natural(units, "run")
    suit = suit_of(face(units[0]))
    for i, u in enumerate(units):
        if face(u) != card_at(suit, low + i):
            broken = card_str(face(u))
            raise MeldError(f"{meld_str(units)}: a run is one suit in consecutive ranks ({broken} breaks it)")
    return Meld(MeldKind.RUN, units, low)


def _cells(units: tuple[Unit, ...], ace_cell: int) -> list[int]:
    return [ace_cell if rank_of(face(u)) == 1 else rank_of(face(u)) for u in units]


def meld_from_units(units, rules: KalukiRules) -> Meld:
    """The meld that ``units`` (as written: parsed notation, any order) form, or :class:`MeldError`."""
    units = tuple(units)
    if len({rank_of(face(u)) for u in units}) == 1:  # a run's ranks differ: one rank is a set or nothing
        return make_set(units)
    ranks = {rank_of(face(u)) for u in units}
    if {1, 2, 13} <= ranks and len({suit_of(face(u)) for u in units}) == 1 and len(units) < RUN_MAX:
        raise MeldError(f"{meld_str(units)}: a run never wraps (K-A-2): the ace is low or high, never both")
    ace_first = bool(units) and rank_of(face(units[0])) == 1
    readings = [LOW_ACE, HIGH_ACE] if ace_first else [HIGH_ACE, LOW_ACE]
    error: MeldError | None = None
    for ace_cell in readings:
        ordered = sorted(zip(_cells(units, ace_cell), units))
        try:
            return make_run([u for _, u in ordered], ordered[0][0] if ordered else LOW_ACE, rules)
        except MeldError as exc:
            error = error or exc
    if len({suit_of(face(u)) for u in units}) > 1:
        raise MeldError(f"{meld_str(units)}: neither a set (one rank) nor a run (one suit)")
    assert error is not None
    raise error


def meld_value(meld: Meld, rules: KalukiRules) -> int:
    """What ``meld`` counts toward the opening: each card its hand value, a joker its declared
    card's, except that an ace in cell 1 (A-2-3) counts 1."""
    total = 0
    for i, unit in enumerate(meld.units):
        low_ace = meld.kind is MeldKind.RUN and meld.low + i == LOW_ACE
        total += LOW_ACE_MELD_VALUE if low_ace else rules.card_value(face(unit))
    return total


def laid_off(meld: Meld, unit: Unit, rules: KalukiRules, end: End | None = None) -> Meld:
    """``meld`` with ``unit`` (a natural card, or a joker with its declared card) laid off:
    a run extended at an end, a set completed to 4. :class:`MeldError` names the rule."""
    if meld.kind is MeldKind.SET:
        if len(meld.units) >= SET_MAX:
            raise MeldError(f"{meld}: a set has at most {SET_MAX} cards: no fifth")
        return make_set((*meld.units, unit))
    card, suit = face(unit), meld.suit
    fits_low = meld.low > LOW_ACE and card == card_at(suit, meld.low - 1)
    fits_high = meld.high < HIGH_ACE and card == card_at(suit, meld.high + 1)
    if len(meld.units) >= RUN_MAX:
        raise MeldError(f"{meld}: a run has at most {RUN_MAX} cards")
    if fits_low and (end is not End.HIGH or not fits_high):
        return make_run((unit, *meld.units), meld.low - 1, rules)
    if fits_high:
        return make_run((*meld.units, unit), meld.low, rules)
    raise MeldError(f"{card_str(card)} does not extend the run {meld} at either end")


def meld_partners(naturals) -> frozenset[Card]:
    """The natural cards that could meld with one of ``naturals``: another suit of its rank, or
    its suit within :data:`NEAR_RANKS` ranks. A card is never its own partner (two copies of
    it make no set). What a hand's cards may grow into, for players and observations; not a rule."""
    found = set()
    for card in naturals:
        rank, suit = rank_of(card), suit_of(card)
        found.update(make_card(rank, other) for other in range(SUIT_COUNT) if other != suit)
        near = range(max(rank - NEAR_RANKS, 1), min(rank + NEAR_RANKS, 13) + 1)
        found.update(make_card(r, suit) for r in near if r != rank)
    return frozenset(found)


def makes_meld(card: Card, naturals, rules: KalukiRules) -> bool:
    """Whether natural ``card`` makes a meld with two of the natural cards ``naturals`` (a hand's):
    a set with two other suits of its rank, or a run of three with cards of its suit next to it
    (an ace at either end where ``rules`` allow it). What a player weighs before taking the
    pile's top; not a rule."""
    if card == JOKER:
        return False
    held = set(naturals)
    rank, suit = rank_of(card), suit_of(card)
    if sum(make_card(rank, other) in held for other in range(SUIT_COUNT) if other != suit) >= 2:
        return True
    lowest = LOW_ACE if rules.ace_low_runs else LOW_ACE + 1
    highest = HIGH_ACE if rules.ace_high_runs else HIGH_ACE - 1
    cells = (LOW_ACE, HIGH_ACE) if rank == 1 else (rank,)
    for cell in cells:
        for low in range(cell - 2, cell + 1):  # the three cells of a run of three that hold ``cell``
            in_range = lowest <= low and low + 2 <= highest
            if in_range and all(card_at(suit, c) in held for c in range(low, low + 3) if c != cell):
                return True
    return False


def fits(meld: Meld, card: Card, rules: KalukiRules) -> bool:
    """Whether ``card`` can be laid off on ``meld`` now (at either end of a run)."""
    try:
        laid_off(meld, card, rules)
    except MeldError:
        return False
    return True


def natural_suits(meld: Meld) -> set[int]:
    """The suits of a meld's natural cards."""
    return {suit_of(u) for u in meld.units if not is_table_joker(u)}


def exchanged(meld: Meld, joker: Card, naturals, rules: KalukiRules) -> tuple[Meld, int]:
    """``meld`` with the joker declaring ``joker`` replaced by the natural cards ``naturals``
    (from a hand), and how many jokers that releases, under ``rules.set_joker_release``."""
    naturals = tuple(naturals)
    positions = [i for i, u in enumerate(meld.units) if is_table_joker(u) and face(u) == joker]
    if not positions:
        raise MeldError(f"{meld} holds no joker declaring {card_str(joker)}")
    if any(not 0 <= c < JOKER for c in naturals):
        raise MeldError("a joker is exchanged for natural cards, not for a joker")
    at = positions[0]
    if meld.kind is MeldKind.RUN or rules.set_joker_release is SetJokerRelease.DECLARED:
        if naturals != (joker,):
            got = " ".join(card_str(c) for c in naturals) or "nothing"
            raise MeldError(f"the joker in {meld} is released by the card it declares, {card_str(joker)}, not {got}")
        units = (*meld.units[:at], joker, *meld.units[at + 1 :])
        return (make_run(units, meld.low, rules) if meld.kind is MeldKind.RUN else make_set(units)), 1
    missing = sorted(set(range(SUIT_COUNT)) - natural_suits(meld))
    wanted = [make_card(meld.rank, s) for s in missing]
    if rules.set_joker_release is SetJokerRelease.ALL_MISSING:
        if sorted(naturals) != wanted:
            need = " ".join(card_str(c) for c in wanted)
            raise MeldError(f"the joker in {meld} is released only by every missing suit (all_missing): {need}")
        return make_set(sorted(u for u in meld.units if not is_table_joker(u)) + wanted), meld.jokers
    if len(naturals) != 1 or naturals[0] not in wanted:
        need = " ".join(card_str(c) for c in wanted)
        raise MeldError(f"the joker in {meld} is released by one natural of a missing suit (either_missing): {need}")
    try:
        return make_set((*meld.units[:at], naturals[0], *meld.units[at + 1 :])), 1
    except MeldError as exc:
        raise MeldError(f"{card_str(naturals[0])} cannot take the joker's place: {exc}") from None
