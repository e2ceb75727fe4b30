"""Turn a position into the arrays the compiled sweeps (``sweep``) and witness searches walk.

Only counts matter to meld validity, so a position becomes per-face counts (face = real
card 0..51):

* table real copies of a face (mandatory, score nothing);
* hand copies of a face (optional, score their points);
* hand jokers: optional wildcards worth ``cards.JOKER_POINTS`` each;
* table jokers declaring a face: mandatory units of that face unless released, which
  ``check_play`` allows for as many as the new table holds real copies of it (the sweep
  decides that per cell from the hand copies it plays).

The sweep visits positions ``1..14`` in run order (``1`` the low ace, ``14`` the high
ace) and, at each, the four suits (cells). :func:`layout` returns a :class:`Layout`, whose
``cells`` (a :class:`Cells`) are what every sweep and search takes. Everything here is
compiled too: it runs on every solve, including every position with no play.

The points of cards come from the engine's table (``carousel_env.core.cards.POINTS``,
the one source): ``CARD_POINTS`` by card, ``POSITION_POINTS`` by sweep position.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from carousel_env.core.cards import NUM_CARDS, POINTS, make_card

# numba embeds these global arrays in the compiled code as read-only constants: index
# them, and copy a slice before passing it on (a read-only array argument would compile
# the callee a second time, for a second signature).
CARD_POINTS = np.array(POINTS, dtype=np.int64)  # by card; 52 (``JOKER``): a hand joker
# by sweep position: 0 unused, 1 the low ace, 2..13 the ranks, 14 the high ace
POSITION_POINTS = np.array(
    [0, *(POINTS[make_card(rank, 0)] for rank in range(1, 14)), POINTS[make_card(1, 0)]], dtype=np.int64
)
MOST_CARD_POINTS = max(POINTS[:NUM_CARDS])  # of one real card (a constant to numba)


class Cells(NamedTuple):
    """Per cell (row: position in run order, from the first the rules allow; column: suit),
    what the sweeps and the witness searches read. With aces both low and high the high
    ace's row of ``lay_t``, ``lay_k`` and ``lay_h`` is empty: its units are the aces set
    aside at the low ace, carried in the state."""

    lay_t: np.ndarray  # table real units
    lay_k: np.ndarray  # table jokers declaring the cell's face
    lay_h: np.ndarray  # live hand cards
    realu: np.ndarray  # units that may stand at the cell (two rows of padding past the last)
    near: np.ndarray  # 1 where some unit of the suit may stand within two positions (padded likewise)
    setok: np.ndarray  # per position: 1 when it may hold sets
    defer: np.ndarray  # the low ace's row: the aces that may be set aside for the high ace
    lastace: np.ndarray  # per position: 1 at the high ace when aces are both low and high
    rafter: np.ndarray  # the most table jokers the cells after this one can still release
    rp: np.ndarray  # per position: the points of its cards


class Layout(NamedTuple):
    """A position laid out for the compiled solver (see :func:`layout`)."""

    hand_jokers: int  # -1: no hand card is live and there is no hand joker (no play)
    positions: np.ndarray  # the sweep's positions, in run order (1..14, those the rules allow)
    table_real: np.ndarray  # per face: the table's real copies
    table_jokers: np.ndarray  # per face: the table jokers declaring it
    cells: Cells


@njit(cache=True)
def face_at(position, suit):
    return ((position - 1) % 13) * 4 + suit


@njit(cache=True, inline="always")
def _alive(f, units, wild, ace_low, ace_high):
    """Whether some set or run window of three could hold a copy of face ``f``."""
    rank0, suit = f >> 2, f & 3
    others = 0
    for s in range(4):
        if s != suit and units[rank0 * 4 + s]:
            others += 1
    if others + wild >= 2:
        return True
    lo = 1 if ace_low else 2
    hi = 14 if ace_high else 13
    for p in (1, 14) if rank0 == 0 else (rank0 + 1, rank0 + 1):
        if (p == 1 and not ace_low) or (p == 14 and not ace_high):
            continue
        for start in range(max(lo, p - 2), min(p, hi - 2) + 1):
            missing = 0
            for q in range(start, start + 3):
                if q != p and not units[face_at(q, suit)]:
                    missing += 1
            if missing <= wild:
                return True
    return False


@njit(cache=True, inline="always")
def _live_hand(real, jokers, hand, wild, ace_low, ace_high):
    """The hand counts without cards that can be in no meld at all.

    A hand card is dead when, even with every other unit available (table units, live hand
    cards, every joker as a wildcard), no set and no run window of three holds it. Removing
    a dead card changes no legal play, and removing it may kill others, so iterate."""
    live = hand.copy()
    if wild >= 2:
        return live  # two wildcards make a meld with any card
    changed = True
    while changed:
        changed = False
        units = real + jokers + live
        for f in range(52):
            if live[f] and not _alive(f, units, wild, ace_low, ace_high):
                live[f] = 0
                changed = True
    return live


@njit(cache=True)
def layout(units, hand_cards, ace_low, ace_high):
    """The :class:`Layout` of a position: ``units`` the table's units, flat, ``hand_cards``
    the hand (52: a hand joker). Dead hand cards (:func:`_live_hand`) are left out."""
    real = np.zeros(52, dtype=np.int64)
    jokers = np.zeros(52, dtype=np.int64)
    hand = np.zeros(52, dtype=np.int64)
    hj = 0
    for u in units:
        if u >= 64:
            jokers[u & 63] += 1
        else:
            real[u] += 1
    for c in hand_cards:
        if c == 52:
            hj += 1
        else:
            hand[c] += 1
    wild = np.int64(hj)  # not a literal (hj starts as one): one compiled _live_hand
    for f in range(52):  # loops, not numpy's sums: each compiles a second or so on first use
        wild += jokers[f]
    live = _live_hand(real, jokers, hand, wild, ace_low, ace_high)
    nlive = 0
    for f in range(52):
        nlive += live[f]
    if hj == 0 and nlive == 0:
        hj = -1
    both = ace_low and ace_high
    first, last = (1 if ace_low else 2), (14 if ace_high else 13)
    npos = last - first + 1
    positions = np.arange(first, last + 1)
    lay_t = np.zeros((npos, 4), dtype=np.int64)
    lay_k = np.zeros((npos, 4), dtype=np.int64)
    lay_h = np.zeros((npos, 4), dtype=np.int64)
    realu = np.zeros((npos + 2, 4), dtype=np.int64)  # units that may stand at a cell (padded by 2)
    for i in range(npos):
        for s in range(4):
            f = face_at(positions[i], s)
            lay_t[i, s], lay_k[i, s], lay_h[i, s] = real[f], jokers[f], live[f]
            realu[i, s] = real[f] + jokers[f] + live[f]
    lastace = np.zeros(npos, dtype=np.int64)
    if both:
        # the high ace's units are the aces set aside at position 1, carried in the state
        lay_t[npos - 1] = 0
        lay_k[npos - 1] = 0
        lay_h[npos - 1] = 0
        lastace[npos - 1] = 1
    # a run of a suit can only pass a cell near a real unit of that suit, or on 3+ wildcards
    near = np.zeros((npos + 2, 4), dtype=np.int64)
    avail = realu.copy()
    for i in range(npos):
        for s in range(4):
            for j in range(max(0, i - 2), min(npos + 2, i + 3)):
                if realu[j, s]:
                    near[i, s] = 1
    for i in range(npos + 2):
        for s in range(4):
            if near[i, s] or wild >= 3:
                avail[i, s] += wild
    setok = np.zeros(npos, dtype=np.int64)
    for i in range(npos):
        present = 0
        for s in range(4):
            if realu[i, s]:
                present += 1
        setok[i] = present + wild >= 3 and not lastace[i]
    defer = np.zeros((npos, 4), dtype=np.int64)
    if both:
        for s in range(4):
            if avail[npos - 3, s] and avail[npos - 2, s]:  # a queen and a king may stand above it
                defer[0, s] = min(realu[0, s], avail[npos - 3, s], avail[npos - 2, s])
    # the most table jokers that cells after (i, s) can still release
    rafter = np.zeros((npos, 4), dtype=np.int64)
    after = 0
    for i in range(npos - 1, -1, -1):
        for s in range(3, -1, -1):
            rafter[i, s] = after
            after += min(lay_k[i, s], lay_t[i, s] + lay_h[i, s])
    rp = POSITION_POINTS[first : last + 1].copy()
    cells = Cells(lay_t, lay_k, lay_h, realu, near, setok, defer, lastace, rafter, rp)
    return Layout(hj, positions, real, jokers, cells)
