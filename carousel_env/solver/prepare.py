"""Turn a position into the arrays the compiled rank DP (``core``) sweeps.

Only counts matter to meld validity, so a position becomes per-face counts (face = real
card 0..51):

* ``table_real[f]``: real copies of ``f`` on the table (mandatory, score nothing);
* ``hand[f]``: real copies of ``f`` in the hand (optional, score their points);
* ``hand_jokers``: optional wildcards worth 25 each;
* ``table_jokers[f]``: table jokers declaring ``f``: mandatory units of face ``f`` unless
  released, which ``check_play`` allows for as many as the new table holds real ``f``
  (the DP decides that per cell from the hand copies it plays).

The sweep visits positions ``1..14`` in run order (``1`` the low ace, ``14`` the high
ace) and, at each, the four suits (cells).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from carousel_env.cards import JOKER, NUM_CARDS, Hand, Table, face, is_table_joker

RANK_POINTS = (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10, 1)  # by position; 14 is the high ace


@dataclass(frozen=True)
class Position:
    table_real: tuple[int, ...]
    table_jokers: tuple[int, ...]
    hand: tuple[int, ...]
    hand_jokers: int


def face_at(position: int, suit: int) -> int:
    return ((position - 1) % 13) * 4 + suit


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


@dataclass(frozen=True)
class Layout:
    """The sweep's inputs, per position index ``i`` (``positions[i]``) and suit ``s``."""

    positions: tuple[int, ...]
    both_aces: bool  # the last position is the high ace, whose units were set aside at the low ace
    arrays: tuple[np.ndarray, ...]  # ``core.explore``'s array arguments, in order


@lru_cache(maxsize=4)
def _faces(ace_low: bool, ace_high: bool) -> tuple[tuple[int, ...], np.ndarray]:
    """The sweep's positions and the face at every (position index, suit) cell."""
    positions = tuple(range(1 if ace_low else 2, (14 if ace_high else 13) + 1))
    faces = np.array([[face_at(p, s) for s in range(4)] for p in positions], dtype=np.int64)
    return positions, faces


def layout(pos: Position, hand: tuple[int, ...], ace_low: bool, ace_high: bool) -> Layout:
    """``hand``: the (live) hand counts the DP may play."""
    both = ace_low and ace_high
    positions, faces = _faces(ace_low, ace_high)
    npos = len(positions)
    # Whole-array numpy here: this runs once per solve, including every no-play position.
    table_real = np.asarray(pos.table_real, dtype=np.int64)[faces]
    table_jokers = np.asarray(pos.table_jokers, dtype=np.int64)[faces]
    hand_here = np.asarray(hand, dtype=np.int64)[faces]
    realu = np.zeros((npos + 2, 4), dtype=np.int64)  # units that may stand at a cell (padded by 2)
    realu[:npos] = table_real + table_jokers + hand_here
    lay_t, lay_k, lay_h = table_real, table_jokers, hand_here
    lastace = np.zeros(npos, dtype=np.int64)
    if both:
        # the high ace's units are the aces set aside at position 1, carried in the state
        lay_t[-1] = lay_k[-1] = lay_h[-1] = 0
        lastace[npos - 1] = 1
    wild = pos.hand_jokers + sum(pos.table_jokers)
    # a run of a suit can only pass a cell near a real unit of that suit, or on 3+ wildcards
    present = np.vstack([np.zeros((2, 4), dtype=bool), realu > 0])  # row i + 2 is cell i
    near = np.zeros((npos + 2, 4), dtype=np.int64)
    near[:npos] = np.logical_or.reduce([present[k : k + npos] for k in range(5)])
    avail = realu + np.where((near != 0) | (wild >= 3), wild, 0)
    setok = (((realu[:npos] > 0).sum(axis=1) + wild >= 3) & (lastace == 0)).astype(np.int64)
    defer = np.zeros((npos, 4), dtype=np.int64)
    if both:
        for s in range(4):
            if avail[npos - 3, s] and avail[npos - 2, s]:  # a queen and a king may stand above it
                defer[0, s] = realu[0, s]
    # the most table jokers that cells after (i, s) can still release
    releasable = np.minimum(lay_k, lay_t + lay_h).ravel()
    rafter = (np.cumsum(releasable[::-1])[::-1] - releasable).reshape(npos, 4)
    rp = np.array([RANK_POINTS[p] for p in positions], dtype=np.int64)
    arrays = (lay_t, lay_k, lay_h, realu, near, setok, defer, lastace, np.ascontiguousarray(rafter), rp)
    return Layout(positions, both, arrays)


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
    ace_positions = ([1] if ace_low else []) + ([14] if ace_high else [])
    positions = ace_positions if rank0 == 0 else [rank0 + 1]
    lo, hi = (1 if ace_low else 2), (14 if ace_high else 13)
    for p in positions:
        for start in range(max(lo, p - 2), min(p, hi - 2) + 1):
            missing = 0
            for q in range(start, start + 3):
                if q != p and not units[face_at(q, suit)]:
                    missing += 1
            if missing <= wild:
                return True
    return False
