"""Carioca's distance to the contract, compiled: the fewest cards a hand lacks to hold a
round's contract (as :func:`carousel_env.games.carioca.solver.reference_distance`, by another
route: the same search over target melds, each candidate's fill by a min cut rather than
augmenting paths). The solver, the players and the vector env's kernel ask it; the
reference stays in Python, checked against brute force, and this against the reference.

It holds the on-disk cache's stamp for every compiled module of Carioca (this one and
:mod:`carousel_env.games.carioca.kernel`, which share the folder's cache).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from numba import njit

from carousel_env.core import compiled
from carousel_env.core.cards import JOKER
from carousel_env.games.carioca.rules import (
    CONTRACTS,
    ESCALERA_SIZE,
    HIGH_ACE,
    LOW_ACE,
    TRIO_SIZE,
)

_HERE = Path(__file__).resolve().parent
# The compiled code embeds the constants of these modules: its cache depends on them.
SOURCES = (
    *(
        _HERE / name
        for name in ("distance.py", "kernel.py", "engine.py", "env.py", "observation.py", "rules.py", "melds.py")
    ),
    compiled.PACKAGE / "core" / "cards.py",
)
compiled.name_entry_points(__name__, {"distance": ("Carioca's distance to the contract", 8)})
compiled.drop_stale_cache(_HERE / "__pycache__", SOURCES)

TRIO, ESCALERA = 1, 2  # a target meld's kind (and a meld slot's in the kernel; 0: none)
WINDOWS = 4 * (HIGH_ACE - ESCALERA_SIZE + 1)  # escaleras of 4: suit-major, then the low cell
CONTRACT_TRIOS = np.array([c.trios for c in CONTRACTS], np.int64)
CONTRACT_ESCALERAS = np.array([c.escaleras for c in CONTRACTS], np.int64)
_MAX_TARGETS = 3


# ---------------------------------------------------------------- cards


@njit(cache=True, inline="always")
def card_rank(card):
    return card // 4 + 1


@njit(cache=True, inline="always")
def card_at(suit, cell):
    """The card in ``cell`` (1..14) of an escalera of ``suit`` (as rules.card_at)."""
    rank = 1 if cell == HIGH_ACE else cell
    return (rank - 1) * 4 + suit


# ---------------------------------------------------------------- the distance


@njit(cache=True)
def _target_cards(kind, index, cards):
    """The 4 cards target ``index`` may take: a trio's rank (any suit), a window's cells."""
    if kind == TRIO:
        for s in range(4):
            cards[s] = index * 4 + s  # index: rank - 1
    else:
        suit, low = index // (HIGH_ACE - ESCALERA_SIZE + 1), index % (HIGH_ACE - ESCALERA_SIZE + 1) + LOW_ACE
        for i in range(ESCALERA_SIZE):
            cards[i] = card_at(suit, low + i)


@njit(cache=True)
def _exact(counts, kinds, indices, n):
    """Cards missing to make exactly the ``n`` targets, jokers placed best: for each set of
    melds given a joker, the most real cards placed, by the min cut of cards to melds."""
    cards = np.empty(4 * _MAX_TARGETS, np.int64)
    demand = np.zeros((4 * _MAX_TARGETS, _MAX_TARGETS), np.int64)
    size = np.empty(_MAX_TARGETS, np.int64)
    distinct = 0
    buffer = np.empty(4, np.int64)
    for m in range(n):
        size[m] = TRIO_SIZE if kinds[m] == TRIO else ESCALERA_SIZE
        _target_cards(kinds[m], indices[m], buffer)
        for i in range(4):
            card = buffer[i]
            j = 0
            while j < distinct and cards[j] != card:
                j += 1
            if j == distinct:
                cards[j] = card
                for mm in range(_MAX_TARGETS):
                    demand[j, mm] = 0
                distinct += 1
            demand[j, m] = TRIO_SIZE if kinds[m] == TRIO else 1
    total = 0
    for m in range(n):
        total += size[m]
    best = total
    jokers = counts[JOKER]
    for given in range(1 << n):
        used = 0
        for m in range(n):
            used += (given >> m) & 1
        if used > jokers:
            continue
        filled = 1 << 30
        for side in range(1 << n):  # side's bits: the melds whose card edges are cut
            cut = 0
            for m in range(n):
                if not (side >> m) & 1:
                    cut += size[m] - ((given >> m) & 1)
            for j in range(distinct):
                asked = 0
                for m in range(n):
                    if (side >> m) & 1:
                        asked += demand[j, m]
                cut += min(counts[cards[j]], asked)
            filled = min(filled, cut)
        best = min(best, total - used - filled)
    return best


@njit(cache=True, inline="always")
def _bound(raw, gaps, jokers):
    """A lower bound on the cards missing: the targets' gaps alone (``raw`` cards over
    ``gaps`` melds), each gapped meld given a joker while there are jokers."""
    return raw - min(jokers, gaps)


@njit(cache=True)
def distance(counts, trios, escaleras):
    """The fewest cards the hand ``counts`` lacks to hold ``trios`` trios of different ranks
    and ``escaleras`` escaleras (as solver.distance): every choice of target melds, pruned by
    their gaps alone, each whole choice filled exactly."""
    jokers = counts[JOKER]
    trio_raw = np.empty(13, np.int64)
    for r in range(13):
        real = 0
        for s in range(4):
            real += min(counts[r * 4 + s], TRIO_SIZE)
        trio_raw[r] = TRIO_SIZE - min(real, TRIO_SIZE)
    window_raw = np.empty(WINDOWS, np.int64)
    buffer = np.empty(4, np.int64)
    for w in range(WINDOWS):
        _target_cards(ESCALERA, w, buffer)
        real = 0
        for i in range(ESCALERA_SIZE):
            real += counts[buffer[i]] > 0
        window_raw[w] = ESCALERA_SIZE - real
    trio_order = np.argsort(trio_raw, kind="mergesort")
    window_order = np.argsort(window_raw, kind="mergesort")
    best = trios * TRIO_SIZE + escaleras * ESCALERA_SIZE
    kinds = np.empty(_MAX_TARGETS, np.int64)
    indices = np.empty(_MAX_TARGETS, np.int64)
    # The trios: ``trios`` of the 13 ranks, increasing in trio_order (a stand-in loop of one
    # pass at each depth the contract does not use); then the escaleras, non-decreasing.
    for i1 in range(13 if trios >= 1 else 1):
        r1 = trio_raw[trio_order[i1]] if trios >= 1 else 0
        g1 = 1 if r1 > 0 else 0
        if _bound(r1, g1, jokers) >= best:
            continue
        for i2 in range(i1 + 1 if trios >= 2 else 0, 13 if trios >= 2 else 1):
            r2 = r1 + (trio_raw[trio_order[i2]] if trios >= 2 else 0)
            g2 = g1 + (1 if trios >= 2 and trio_raw[trio_order[i2]] > 0 else 0)
            if _bound(r2, g2, jokers) >= best:
                continue
            for i3 in range(i2 + 1 if trios >= 3 else 0, 13 if trios >= 3 else 1):
                r3 = r2 + (trio_raw[trio_order[i3]] if trios >= 3 else 0)
                g3 = g2 + (1 if trios >= 3 and trio_raw[trio_order[i3]] > 0 else 0)
                if _bound(r3, g3, jokers) >= best:
                    continue
                n = 0
                for depth, i in ((1, i1), (2, i2), (3, i3)):
                    if trios >= depth:
                        kinds[n], indices[n] = TRIO, trio_order[i]
                        n += 1
                if escaleras == 0:
                    best = min(best, _exact(counts, kinds, indices, n))
                    continue
                for j1 in range(WINDOWS):
                    w1 = window_raw[window_order[j1]]
                    r4, g4 = r3 + w1, g3 + (1 if w1 > 0 else 0)
                    if _bound(r4, g4, jokers) >= best:
                        break  # sorted by gap: the rest are no better
                    kinds[n], indices[n] = ESCALERA, window_order[j1]
                    if escaleras == 1:
                        best = min(best, _exact(counts, kinds, indices, n + 1))
                        continue
                    for j2 in range(j1, WINDOWS):
                        w2 = window_raw[window_order[j2]]
                        if _bound(r4 + w2, g4 + (1 if w2 > 0 else 0), jokers) >= best:
                            break
                        kinds[n + 1], indices[n + 1] = ESCALERA, window_order[j2]
                        best = min(best, _exact(counts, kinds, indices, n + 2))
    return best
