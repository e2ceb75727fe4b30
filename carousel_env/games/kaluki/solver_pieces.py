"""The pieces a Kaluki play is made of, for :mod:`carousel_env.games.kaluki.solver_search`.

* New melds: every set (3 or 4 suits of a rank, at least one natural, jokers declaring the
  lowest suits the naturals miss) and every run (3 to 13 cells of a suit where the rules let
  the ace stand, each cell a natural held or a joker, at least one natural) the hand can lay,
  grouped by the naturals and jokers they take: a group is one piece, its readings (the melds
  themselves, with their opening values) are expanded only at the end of the search.
* A table run: at each end, every run of cells outward whose cells are naturals held or jokers,
  with at least one natural (a piece on that end's place), its joker-only extensions (a joker
  slot), and, for a player who had opened, each of its jokers exchanged for the card it declares.
* A table set: every outcome of up to four exchanges and lay-offs on it (found by trying them in
  every order with :func:`~carousel_env.games.kaluki.melds.exchanged` and ``laid_off``, kept once
  per final set, cards used and net jokers), and a joker laid off alone if it has room.

Each piece carries its notation entries (the solver's order) and the operations that make it.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from typing import NamedTuple

from carousel_env.core.cards import JOKER, Card, is_table_joker, joker_as, make_card, suit_of
from carousel_env.games.kaluki import solver_search as ss
from carousel_env.games.kaluki.melds import (
    End,
    Meld,
    MeldError,
    MeldKind,
    card_at,
    exchanged,
    laid_off,
    make_run,
    make_set,
    meld_value,
)
from carousel_env.games.kaluki.rules import HIGH_ACE, LOW_ACE, MELD_MIN, RUN_MAX, SET_MAX, KalukiRules

SUITS = range(4)
FACE = 63  # a table unit's face: the card a joker declares
SET_ENTRY, RUN_ENTRY = 0, 1
MELD_TAG, LAY_TAG, SWAP_TAG, SET_TAG = 0, 1, 2, 3
SET_END = 2  # a lay-off entry's end for a set
JOKERS_FIRST = 64  # jokers laid off alone come after every piece with a natural (cards are 0..51)


# ---------------------------------------------------------------- new melds


READINGS_CACHE_SIZE = 1 << 14  # a suit's or a rank's readings, by what of it the hand holds


class Reading(NamedTuple):
    """A new meld the hand can lay, with what :func:`meld_pieces` groups and sorts it by."""

    meld: Meld
    naturals: tuple[Card, ...]
    entry: tuple
    value: int  # its opening value


def _reading(meld: Meld, rules: KalukiRules) -> Reading:
    naturals = tuple(u for u in meld.units if not is_table_joker(u))
    return Reading(meld, naturals, meld_entry(meld), meld_value(meld, rules))


@lru_cache(maxsize=READINGS_CACHE_SIZE)
def _set_readings(rank: int, suits: tuple[int, ...], jokers: int, rules: KalukiRules) -> tuple[Reading, ...]:
    """Every set of ``rank`` from its ``suits`` held and up to ``jokers`` jokers."""
    found = []
    for mask in range(1, 1 << len(suits)):
        naturals = [suits[i] for i in range(len(suits)) if mask >> i & 1]
        missing = [s for s in SUITS if s not in naturals]
        for size in range(max(MELD_MIN, len(naturals)), SET_MAX + 1):
            if size - len(naturals) <= jokers:
                units = [make_card(rank, s) for s in naturals]
                units += [joker_as(make_card(rank, s)) for s in missing[: size - len(naturals)]]
                found.append(_reading(make_set(units), rules))
    return tuple(found)


@lru_cache(maxsize=READINGS_CACHE_SIZE)
def _run_readings(suit: int, cells: frozenset[int], jokers: int, rules: KalukiRules) -> tuple[Reading, ...]:
    """Every run of ``suit`` from its ``cells`` held and up to ``jokers`` jokers."""
    low_cell = LOW_ACE if rules.ace_low_runs else LOW_ACE + 1
    high_cell = HIGH_ACE if rules.ace_high_runs else HIGH_ACE - 1
    found = []

    def grow(low: int, units: list, naturals: int, used: int) -> None:
        cell = low + len(units)
        if len(units) >= MELD_MIN and naturals:
            found.append(_reading(make_run(units, low, rules), rules))
        if cell > high_cell or len(units) == RUN_MAX:
            return
        card = card_at(suit, cell)
        if cell in cells:
            grow(low, [*units, card], naturals + 1, used)
        if used < jokers:
            grow(low, [*units, joker_as(card)], naturals, used + 1)

    for low in range(low_cell, high_cell - MELD_MIN + 2):
        grow(low, [], 0, 0)
    return tuple(found)


def _readings(held: Counter, jokers: int, rules: KalukiRules) -> list[Reading]:
    """Every new meld ``held`` can lay with up to ``jokers`` jokers: each rank's sets and each
    suit's runs, looked up by what of the rank or suit the hand holds (hands change a card or
    two a turn, so most are found again)."""
    found = []
    for rank in range(1, 14):
        suits = tuple(s for s in SUITS if held[make_card(rank, s)])
        if suits:
            found += _set_readings(rank, suits, jokers, rules)
    for suit in SUITS:
        cells = frozenset(c for c in range(LOW_ACE, HIGH_ACE + 1) if held[card_at(suit, c)])
        if cells:
            found += _run_readings(suit, cells, jokers, rules)
    return found


def meld_entry(meld: Meld) -> tuple:
    """A new meld's notation entry: its lowest natural card, then kind, low cell and units."""
    first = min(u for u in meld.units if not is_table_joker(u))
    return (first, MELD_TAG, RUN_ENTRY if meld.kind is MeldKind.RUN else SET_ENTRY, meld.low, meld.units)


class Hand:
    """The hand's natural kinds in card order, their counts and values."""

    def __init__(self, hand, rules: KalukiRules) -> None:
        self.rules = rules
        self.held = Counter(hand)
        self.kinds = sorted(c for c in self.held if c != JOKER)
        self.pos = {c: i for i, c in enumerate(self.kinds)}
        self.jokers = self.held[JOKER]

    def need(self, cards) -> tuple[tuple[int, int], ...]:
        return tuple(sorted(Counter(self.pos[c] for c in cards).items()))

    def value(self, cards) -> int:
        return sum(self.rules.card_value(c) for c in cards)


def meld_pieces(hand: Hand, jokers: int) -> list[ss.Piece]:
    """New melds grouped by the naturals and jokers they take from the hand."""
    rules, groups = hand.rules, {}
    for reading in _readings(hand.held, jokers, rules):
        groups.setdefault((hand.need(reading.naturals), reading.meld.jokers), []).append(reading)
    pieces = []
    for (need, used), group in groups.items():
        readings = tuple(sorted((r.entry, r.meld, r.value) for r in group))
        naturals = [hand.kinds[q] for q, n in need for _ in range(n)]
        value = hand.value(naturals) + used * rules.joker_value
        opening = max(r[2] for r in readings)
        pieces.append(
            ss.Piece(need[0][0], need, used, 0, value, opening, len(naturals) + used, None, None, 0, readings)
        )
    return pieces


# ---------------------------------------------------------------- the table


def run_pieces(hand: Hand, seat: int, index: int, meld: Meld, jokers: int, swaps: bool):
    """Cards added at each end of a table run (with a natural), its joker-only places, its exchanges."""
    rules = hand.rules
    run = (seat, index)
    room = RUN_MAX - len(meld.units)
    low_cell = LOW_ACE if rules.ace_low_runs else LOW_ACE + 1
    high_cell = HIGH_ACE if rules.ace_high_runs else HIGH_ACE - 1
    pieces, slots = [], []
    for end in (End.LOW, End.HIGH):
        step = -1 if end is End.LOW else 1
        start = meld.low - 1 if end is End.LOW else meld.high + 1
        cells = [c for c in range(start, low_cell - 1 if step < 0 else high_cell + 1, step)][:room]
        slot = (seat, index, int(end))

        def entry(d: int, unit: int, end=end) -> tuple:
            return (JOKERS_FIRST, LAY_TAG, seat, index, int(end), d, unit)

        if cells:
            units = []
            for d, cell in enumerate(cells):
                unit = joker_as(card_at(meld.suit, cell))
                units.append((entry(d + 1, unit), (unit, end)))
            slots.append(ss.JokerSlot(slot, run, len(cells), tuple(units)))

        def grow(units: list, naturals: list, used: int, end=end, cells=cells, slot=slot, entry=entry) -> None:
            if naturals:
                ops = tuple((u, end) for u in units)
                entries = (min(naturals), LAY_TAG, seat, index, int(end), tuple(units))
                need = hand.need(naturals)
                value = hand.value(naturals) + used * rules.joker_value
                piece = ss.Piece(
                    need[0][0], need, used, 0, value, 0, len(units), slot, run, len(units), ((entries, ops),)
                )
                pieces.append(piece)
            if len(units) == len(cells):
                return
            card = card_at(meld.suit, cells[len(units)])
            if hand.held[card] > naturals.count(card):
                grow([*units, card], [*naturals, card], used)
            if used < jokers:
                grow([*units, joker_as(card)], naturals, used + 1)

        grow([], [], 0)
    if swaps:
        for i, unit in enumerate(meld.units):
            card = unit & FACE
            if is_table_joker(unit) and hand.held[card]:
                entries = (card, SWAP_TAG, seat, index, i, (card,))
                ops = (("swap", card, (card,)),)
                need = hand.need([card])
                pieces.append(
                    ss.Piece(
                        need[0][0],
                        need,
                        0,
                        1,
                        hand.value([card]),
                        0,
                        1,
                        (seat, index, "x", i),
                        None,
                        0,
                        ((entries, ops),),
                    )
                )
    return pieces, slots


def set_pieces(hand: Hand, seat: int, index: int, meld: Meld, swaps: bool):
    """What can be done to a table set (lay-off and exchanges, found by trying every order)."""
    rules = hand.rules
    slot = (seat, index, "set")
    start = (meld, (), 0, 0, ())
    seen = {(meld.units, (), 0)}
    frontier, outcomes = [start], []
    while frontier:
        nxt = []
        for current, used, jin, jout, ops in frontier:
            for op, after, cards, jin2, jout2 in _set_steps(hand, current, used, jin, jout, swaps):
                key = (after.units, cards, jout2 - jin2)
                if key in seen:
                    continue
                seen.add(key)
                state = (after, cards, jin2, jout2, (*ops, op))
                nxt.append(state)
                if cards:
                    outcomes.append(state)
        frontier = nxt
    pieces = []
    for _, cards, jin, jout, ops in outcomes:
        need = hand.need(cards)
        value = hand.value(cards) + jin * rules.joker_value
        entry = (min(cards), SET_TAG, seat, index, (jin, jout), cards)
        pieces.append(ss.Piece(need[0][0], need, jin, jout, value, 0, len(cards) + jin, slot, None, 0, ((entry, ops),)))
    slots = []
    if len(meld.units) < SET_MAX:
        missing = [s for s in SUITS if s not in {suit_of(u & FACE) for u in meld.units}]
        unit = joker_as(make_card(meld.rank, missing[0]))
        slots.append(
            ss.JokerSlot(slot, None, 1, (((JOKERS_FIRST, LAY_TAG, seat, index, SET_END, 1, unit), (unit, None)),))
        )
    return pieces, slots


def _set_steps(hand: Hand, meld: Meld, used: tuple, jin: int, jout: int, swaps: bool):
    """One more exchange or lay-off on a table set: (op, set after, naturals used, jokers in, out)."""
    rules = hand.rules
    spare = Counter(hand.held) - Counter(used)
    naturals = [make_card(meld.rank, s) for s in SUITS if spare[make_card(meld.rank, s)]]
    if swaps:
        for joker in sorted({u & FACE for u in meld.units if is_table_joker(u)}):
            tries = [(c,) for c in naturals] + [tuple(naturals)]
            for cards in dict.fromkeys(tries):
                try:
                    after, released = exchanged(meld, joker, cards, rules)
                except MeldError:
                    continue
                yield ("swap", joker, cards), after, tuple(sorted(used + cards)), jin, jout + released
    if len(meld.units) < SET_MAX:
        for card in naturals:
            try:
                yield (card, None), laid_off(meld, card, rules), tuple(sorted((*used, card))), jin, jout
            except MeldError:
                continue
        if hand.jokers + jout - jin > 0:
            missing = [s for s in SUITS if s not in {suit_of(u & FACE) for u in meld.units}]
            unit = joker_as(make_card(meld.rank, missing[0]))
            yield (unit, None), laid_off(meld, unit, rules), used, jin + 1, jout
