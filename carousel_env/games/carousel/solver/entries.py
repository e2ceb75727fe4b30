"""The vector pass and the trace: the best play of every entry, and the choices that make it (compiled).

An *entry* is a pair (cards played, hand jokers among them). Over the slots and slot
pairs of the DAG that ``sweep.explore`` returns (``lanes``), :func:`vector` computes per
slot the best points for every count of real hand cards played, forward, stored only for
the counts that can still reach ``need_n`` cards or ``need_p`` points (so every final
entry a suggestion slot can pick is exact), and reads each entry's best off the final
states. No back-pointers are kept: :func:`trace` finds, for the few entries picked, the
pair each step came from (with :func:`incoming`'s index of the pairs into each slot),
giving the edge codes ``build`` rebuilds the table from.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from carousel_env.core.cards import JOKER_POINTS
from carousel_env.games.carousel.solver.prepare import MOST_CARD_POINTS
from carousel_env.games.carousel.solver.states import CODE_BITS, D_BIAS, D_SHIFT
from carousel_env.games.carousel.solver.sweep import NEG_INF

_ABSENT = np.int32(-(1 << 30))  # a missing entry of the vector pass (see :func:`vector`)


@njit(cache=True)
def no_entries(hj):
    """:func:`vector`'s answer when the entries would pass the memory cap (or an earlier
    pass gave up at it): ``best`` and ``where`` with no row, and no entries."""
    none = np.zeros(1, dtype=np.int64)
    no_best, no_where = np.full((0, hj + 1), -1, dtype=np.int64), np.zeros((0, hj + 1, 2), dtype=np.int64)
    return no_best, no_where, (np.empty(0, dtype=np.int32), none, none, none)


@njit(cache=True)
def vector(states, first, pairs, edges, bounds, fut, hj, need_n, need_p, max_entries):
    """Pass 3: best points per (cards, hand jokers) for every entry with at least ``need_n``
    cards or ``need_p`` points (exact: no prefix of such a play is ever pruned).

    Returns ``(best, where, entries)``: ``best[c, j]`` the points (-1: none or not needed),
    ``where[c, j]`` the (final slot, real cards) holding it; ``entries`` (``val, offsets, lo,
    hi``: every slot's best points per real cards count) is for :func:`trace`. ``best`` has
    no row when the entries would number more than ``max_entries`` (the memory cap): none
    is made.
    """
    nslots = first[-1]
    nlayers = bounds.shape[0] - 1
    # entry (slot a, n real cards) at offsets[a] + n, for n in lo[a] .. hi[a] - 1: an entry
    # with fewer than lo[a] cards (at most MOST_CARD_POINTS each) can reach neither need_n nor need_p
    offsets = np.zeros(nslots + 1, dtype=np.int64)
    lo = np.zeros(nslots, dtype=np.int64)
    hi = np.zeros(nslots, dtype=np.int64)
    start = 0
    for state in range(states.shape[0]):
        for a in range(first[state], first[state + 1]):
            if fut[a, 1] != NEG_INF:
                hi[a] = states[state, 1] + 1
                if a:
                    fewest = (need_p - fut[a, 0] + MOST_CARD_POINTS - 1) // MOST_CARD_POINTS  # to reach need_p
                    lo[a] = min(hi[a], max(0, min(need_n - fut[a, 1], fewest)))
            offsets[a] = start - lo[a]
            start += hi[a] - lo[a]
    offsets[nslots] = start
    if start > max_entries:
        return no_entries(hj)
    # The entries are most of the memory a heavy solve touches: 32 bits each (points stay
    # under 1,000) halve it. A missing entry holds _ABSENT, so far below 0 that no path's
    # points (under 1,000) lift it to 0: the update below is a plain max over a stretch of
    # entries, with no test and no back-pointer per entry, which the compiler vectorises.
    # (A slot's entries can hold more than the need allows, from paths the need would
    # have cut: they are below the best of their entry or lead to no final entry a slot
    # may pick, so no result and no trace changes.)
    val = np.full(start, _ABSENT, dtype=np.int32)
    val[0] = 0
    for p in range(pairs.shape[0]):
        # unsigned indices: see the note on sweep.explore's backward loop
        a, b, e = np.uint64(pairs[p, 0]), np.uint64(pairs[p, 1]), np.uint64(pairs[p, 2])
        if fut[b, 1] == NEG_INF:
            continue
        dn, dp = (edges[e, 1] >> 32) & 255, np.int32(edges[e, 1] >> 40)
        # every n + dn < hi[b]: b's most cards are at least a's plus this edge's. Unsigned
        # indices (every one is >= 0; the sums wrap as signed ones would) skip numba's
        # negative-index check, the only thing that kept this loop from being vectorised.
        oa, ob = np.uint64(offsets[a]), np.uint64(offsets[b] + dn)
        for n in range(np.uint64(max(lo[a], lo[b] - dn)), np.uint64(hi[a])):
            val[ob + n] = max(val[ob + n], val[oa + n] + dp)
    most = fut[0, 1]
    best = np.full((most + 1, hj + 1), -1, dtype=np.int64)
    where = np.zeros((most + 1, hj + 1, 2), dtype=np.int64)
    for state in range(bounds[nlayers - 1], bounds[nlayers]):
        b = first[state]  # final states have one slot
        if fut[b, 1] == NEG_INF:
            continue
        d = ((states[state, 0] >> D_SHIFT) & 15) - D_BIAS
        for n in range(lo[b], hi[b]):
            v = val[offsets[b] + n]
            if v < 0:
                continue
            cards, pts = n + d, v + JOKER_POINTS * d
            if cards < 1 or (cards < need_n and pts < need_p):
                continue  # possibly inexact (pruned): no slot may use it
            if pts > best[cards, d]:
                best[cards, d] = pts
                where[cards, d, 0] = b
                where[cards, d, 1] = n
    return best, where, (val, offsets, lo, hi)


@njit(cache=True)
def incoming(pairs, entries):
    """``(start, into)``: the slot pairs into slot ``b`` are ``into[start[b]:start[b + 1]]``,
    in pair order (for :func:`trace`; ``entries``: from :func:`vector`, for the slot count)."""
    nslots = entries[1].shape[0] - 1  # offsets: one per slot, and the end
    start = np.zeros(nslots + 1, dtype=np.int64)
    for p in range(pairs.shape[0]):
        start[pairs[p, 1] + 1] += 1
    for b in range(nslots):
        start[b + 1] += start[b]
    fill = start[:-1].copy()
    into = np.empty(pairs.shape[0], dtype=np.int32)
    for p in range(pairs.shape[0]):
        b = pairs[p, 1]
        into[fill[b]] = p
        fill[b] += 1
    return start, into


@njit(cache=True)
def trace(pairs, edges, entries, start, into, nlayers, slot, n):
    """The edge codes, layer by layer from the root, of the optimum ending in ``(slot, n)``
    (``entries``: from :func:`vector`; ``start, into``: from :func:`incoming`).

    At each slot it steps back along the first pair, in pair order, whose source entry
    plus the edge's points gives the entry's value: the pair that first set that value in
    the vector pass, so the same input always traces the same play."""
    val, offsets, lo, hi = entries
    codes = np.empty(nlayers, dtype=np.int64)
    for layer in range(nlayers - 1, -1, -1):
        v = val[offsets[slot] + n]
        a = e = dn = -1
        for q in range(start[slot], start[slot + 1]):
            p = into[q]
            a, e = pairs[p, 0], pairs[p, 2]
            dn, dp = (edges[e, 1] >> 32) & 255, edges[e, 1] >> 40
            if lo[a] <= n - dn < hi[a] and val[offsets[a] + n - dn] + dp == v:
                break
            a = -1
        assert a >= 0  # every entry on a traced path was set by some pair
        codes[layer] = edges[e, 1] & CODE_BITS
        n -= dn
        slot = a
    return codes
