"""Turn a position into the counting problems the rank DP solves.

Only counts matter to meld validity, so a position becomes per-face counts (face = real
card 0..51):

* ``table_real[f]``: real copies of ``f`` on the table (mandatory, score nothing);
* ``hand[f]``: real copies of ``f`` in the hand (optional, score their points);
* ``hand_jokers``: optional wildcards worth 25 each;
* ``table_jokers[f]``: table jokers declaring ``f``.

A table joker is either *kept* (it is one more mandatory unit of face ``f``) or *released*
(a mandatory wildcard). ``check_play`` allows ``r_f`` released jokers of ``f`` exactly when
the new table holds at least ``r_f`` real ``f``: the table's own ``table_real[f]`` plus the
hand copies played. So one :class:`Variant` fixes every ``r_f`` and turns the release
condition into "play at least ``max(0, r_f - table_real[f])`` hand copies of ``f``"
(``forced``). Releasing more is never worse when it costs no forced card, because a
released joker may be placed back on its old face; so only
``r_f in [min(k_f, table_real[f]), min(k_f, table_real[f] + hand[f])]`` is enumerated.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from carousel_env.cards import JOKER, NUM_CARDS, Hand, Table, face, is_table_joker


@dataclass(frozen=True)
class Position:
    table_real: tuple[int, ...]
    table_jokers: tuple[int, ...]
    hand: tuple[int, ...]
    hand_jokers: int


@dataclass(frozen=True)
class Variant:
    """One choice of released table jokers: the DP's input."""

    mandatory: tuple[int, ...]  # table real + kept jokers, per face
    kept: tuple[int, ...]  # kept table jokers per face (part of ``mandatory``)
    forced: tuple[int, ...]  # hand copies that must be played (releases), per face
    released: tuple[int, ...]  # released table jokers per old declaration
    wild_mandatory: int  # released table jokers: wildcards that must be placed
    wild_optional: int  # hand jokers


def position_of(table: Table, hand: Hand) -> Position:
    real = [0] * NUM_CARDS
    jok = [0] * NUM_CARDS
    for meld in table:
        for u in meld:
            if is_table_joker(u):
                jok[face(u)] += 1
            else:
                real[u] += 1
    h = [0] * NUM_CARDS
    jokers = 0
    for c in hand:
        if c == JOKER:
            jokers += 1
        else:
            h[c] += 1
    return Position(tuple(real), tuple(jok), tuple(h), jokers)


def variants(pos: Position, hand: tuple[int, ...]) -> list[Variant]:
    """Every release choice worth trying (see the module docstring), fewest forced cards first.

    ``hand`` is the (possibly pruned) hand count vector the DP will use.
    """
    declared = [f for f in range(NUM_CARDS) if pos.table_jokers[f]]
    ranges = []
    for f in declared:
        k, t = pos.table_jokers[f], pos.table_real[f]
        ranges.append(range(min(k, t), min(k, t + hand[f]) + 1))
    result = []
    for choice in itertools.product(*ranges):
        kept = list(pos.table_jokers)
        forced = [0] * NUM_CARDS
        released = [0] * NUM_CARDS
        for f, r in zip(declared, choice):
            kept[f] -= r
            released[f] = r
            forced[f] = max(0, r - pos.table_real[f])
        mandatory = tuple(pos.table_real[f] + kept[f] for f in range(NUM_CARDS))
        result.append(Variant(mandatory, tuple(kept), tuple(forced), tuple(released), sum(choice), pos.hand_jokers))
    result.sort(key=lambda v: sum(v.forced))
    return result


def live_hand(pos: Position, ace_low: bool, ace_high: bool) -> tuple[int, ...]:
    """The hand counts without cards that can be in no meld at all.

    A hand card is dead when, even with every other unit available (table units, live hand
    cards, every joker as a wildcard), no set and no run window of three holds it. Removing
    a dead card changes no legal play, and removing it may kill others, so iterate.
    """
    wild = pos.hand_jokers + sum(pos.table_jokers)
    hand = list(pos.hand)
    if wild >= 2:
        return tuple(hand)  # two wildcards make a meld with any card
    while True:
        units = [pos.table_real[f] + pos.table_jokers[f] + hand[f] for f in range(NUM_CARDS)]
        changed = False
        for f in range(NUM_CARDS):
            if hand[f] and not _alive(f, units, wild, ace_low, ace_high):
                hand[f] = 0
                changed = True
        if not changed:
            return tuple(hand)


def _alive(f: int, units: list[int], wild: int, ace_low: bool, ace_high: bool) -> bool:
    rank0, suit = f >> 2, f & 3
    others = sum(1 for s in range(4) if s != suit and units[rank0 * 4 + s])
    if others + wild >= 2:
        return True
    if rank0 == 0:
        positions = ([1] if ace_low else []) + ([14] if ace_high else [])
    else:
        positions = [rank0 + 1]
    lo, hi = (1 if ace_low else 2), (14 if ace_high else 13)
    for p in positions:
        for start in range(max(lo, p - 2), min(p, hi - 2) + 1):
            missing = 0
            for q in range(start, start + 3):
                if q != p and not units[((q - 1) % 13) * 4 + suit]:
                    missing += 1
            if missing <= wild:
                return True
    return False
