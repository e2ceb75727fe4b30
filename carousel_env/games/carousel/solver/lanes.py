"""Lanes: the aces set aside at the low ace, carried beside the key (compiled).

The aces set aside at the low ace (see ``states``) change nothing until the high ace, but
carried in the key they would multiply the states of every position in between (up to 81
times with two decks). So ``sweep.explore`` drops them from the key after the low ace:
each state of positions 2..13 carries instead a bit mask of *lanes*, one lane per
combination of aces set aside (mixed radix over the suits, :func:`lane_layout`), and the
first cell of the high ace puts each lane's aces back into the key. Transitions in between
do not depend on the lane, so they are enumerated once per key. Edges into and out of the
lane layers carry their lane (``states.LANE_TAG_SHIFT``).

Per-lane values live in *slots*: a state in the lanes has one slot per lane in its mask,
in lane order, after :func:`keep_finishing_lanes` has dropped the lanes that cannot
finish; any other state has one slot (:func:`first_slots`). The backward and vector
passes work on slots (:func:`slot_pairs` lists each edge's slot pairs). ``sweep.optima``
keeps the aces in the key: its dominance test compares per-state values, which lanes
would mix; so do the witness searches, which visit few states per layer.

A lane mask is two int64 words (``m0``: lanes 0..63, ``m1``: 64..127); past
``_MAX_LANES`` lanes the aces stay in the key.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from carousel_env.games.carousel.solver.states import ASIDE_SHIFT, D_BIAS, D_SHIFT, LANE_MASK, LANE_TAG_SHIFT, LOW_WORD

_MAX_LANES = 128  # two mask words; past that the aces stay in the key


@njit(cache=True)
def lane_layout(defer, lastace, optima):
    """``(lanes, radix, key bits per lane)``; ``lanes`` 0 when the aces stay in the key (always
    for the optima pass, ``optima``)."""
    radix = np.ones(5, dtype=np.int64)
    for s in range(4):
        radix[s + 1] = radix[s] * (defer[0, s] + 1)
    lanes = radix[4]
    if optima or not lastace[lastace.shape[0] - 1] or lanes < 2 or lanes > _MAX_LANES:
        return 0, radix, np.zeros(1, dtype=np.int64)
    bits = np.zeros(lanes, dtype=np.int64)
    for lane in range(lanes):
        for s in range(4):
            bits[lane] |= ((lane // radix[s]) % (defer[0, s] + 1)) << (ASIDE_SHIFT + 3 * s)
    return lanes, radix, bits


@njit(cache=True)
def lane_layers(npos):
    """``(strip, expand)``: the layer whose outputs enter the lanes (the low ace's sets) and
    the layer that puts each lane's aces back into the key (the high ace's first cell); the
    states in the lanes are those of layers ``strip + 1 .. expand``."""
    return 4, 5 * (npos - 1)


@njit(cache=True)
def lane_of(key, radix):
    """The lane of the aces set aside in ``key``."""
    lane = 0
    for s in range(4):
        lane += ((key >> (ASIDE_SHIFT + 3 * s)) & 7) * radix[s]
    return lane


@njit(cache=True)
def has_lane(m0, m1, lane):
    """Whether the mask words ``(m0, m1)`` hold lane ``lane``."""
    return ((m0 >> lane) & 1 if lane < 64 else (m1 >> (lane - 64)) & 1) != 0


@njit(cache=True)
def lane_bit(lane):
    """The mask words ``(m0, m1)`` of lane ``lane`` alone."""
    if lane < 64:
        return np.int64(1) << lane, np.int64(0)
    return np.int64(0), np.int64(1) << (lane - 64)


@njit(cache=True)
def _popcount(x):
    count = 0
    while x:
        x &= x - 1
        count += 1
    return count


@njit(cache=True)
def _rank(m0, m1, lane):
    """The slot index of ``lane`` among the lanes of mask ``(m0, m1)``."""
    if lane < 64:
        return _popcount(m0 & ((np.int64(1) << lane) - 1))
    return _popcount(m0) + _popcount(m1 & ((np.int64(1) << (lane - 64)) - 1))


@njit(cache=True)
def keep_finishing_lanes(states, edges, bounds, lo_mid, hi_mid, hj):
    """Drop from every lane mask (states ``lo_mid .. hi_mid - 1``) the lanes with which the
    state cannot finish, in one backward pass over the edges.

    Lanes die at the high ace, where their aces must extend runs Q-K, and in heavy
    positions most slots belonged to lanes that could not finish: without them the
    backward and vector passes touch a fraction of the slots."""
    ok = np.zeros(states.shape[0], dtype=np.bool_)  # states outside the lanes that can finish
    use = np.zeros((states.shape[0], 2), dtype=np.int64)  # lanes that can finish
    nlayers = bounds.shape[0] - 1
    for b in range(bounds[nlayers - 1], bounds[nlayers]):
        d = ((states[b, 0] >> D_SHIFT) & 15) - D_BIAS
        ok[b] = states[b, 3] != 0 and 0 <= d <= hj
    for e in range(edges.shape[0] - 1, -1, -1):  # edges come layer by layer
        a, b = edges[e, 0] & LOW_WORD, edges[e, 0] >> 32
        lane = ((edges[e, 1] >> LANE_TAG_SHIFT) & 255) - 1
        a_mid = lo_mid <= a < hi_mid
        if lo_mid <= b < hi_mid:
            if a_mid:
                use[a, 0] |= use[b, 0]
                use[a, 1] |= use[b, 1]
            elif has_lane(use[b, 0], use[b, 1], lane):
                ok[a] = True
        elif ok[b]:
            if a_mid:
                bit0, bit1 = lane_bit(lane)
                use[a, 0] |= bit0
                use[a, 1] |= bit1
            else:
                ok[a] = True
    for b in range(lo_mid, hi_mid):
        states[b, LANE_MASK] &= use[b, 0]
        states[b, LANE_MASK + 1] &= use[b, 1]


@njit(cache=True)
def first_slots(states, lo_mid, hi_mid):
    """``first[b]``: the first slot of state ``b`` (``first[-1]``: the number of slots): one
    per lane in the mask of a state in the lanes (none when no lane can finish), else one."""
    first = np.zeros(states.shape[0] + 1, dtype=np.int64)
    for b in range(states.shape[0]):
        if lo_mid <= b < hi_mid:
            first[b + 1] = first[b] + _popcount(states[b, LANE_MASK]) + _popcount(states[b, LANE_MASK + 1])
        else:
            first[b + 1] = first[b] + 1
    return first


@njit(cache=True)
def count_pairs(states, edges, lo_mid, hi_mid):
    """The rows :func:`slot_pairs` will make: an edge within the lanes (states ``lo_mid ..
    hi_mid - 1``) gives one row per lane in both masks; an edge into or out of the lanes
    names its lane, and gives a row if the lane is in the mask. Counted before they are
    made, for the memory cap (``sweep.explore``)."""
    nedges = edges.shape[0]
    total = 0
    for e in range(nedges):
        a, b = edges[e, 0] & LOW_WORD, edges[e, 0] >> 32
        lane = ((edges[e, 1] >> LANE_TAG_SHIFT) & 255) - 1
        a_mid, b_mid = lo_mid <= a < hi_mid, lo_mid <= b < hi_mid
        if a_mid and b_mid:
            total += _popcount(states[a, LANE_MASK] & states[b, LANE_MASK])
            total += _popcount(states[a, LANE_MASK + 1] & states[b, LANE_MASK + 1])
        elif a_mid:
            total += has_lane(states[a, LANE_MASK], states[a, LANE_MASK + 1], lane)
        elif b_mid:
            total += has_lane(states[b, LANE_MASK], states[b, LANE_MASK + 1], lane)
        else:
            total += 1
    return total


@njit(cache=True)
def slot_pairs(states, edges, first, lo_mid, hi_mid, total):
    """Every edge as (from slot, to slot, edge) rows, in edge order (``first``: see
    :func:`first_slots`; ``total``: :func:`count_pairs`). Written out as one loop: a helper
    taking arrays, called per edge, would cost two atomic reference-count updates per array
    and call."""
    nedges = edges.shape[0]
    pairs = np.empty((total, 3), dtype=np.int32)  # the largest array of a heavy solve
    p = 0
    for e in range(nedges):
        a, b = edges[e, 0] & LOW_WORD, edges[e, 0] >> 32
        ua, ub = np.uint64(a), np.uint64(b)  # for indexing: see the note on sweep.explore's backward loop
        lane = ((edges[e, 1] >> LANE_TAG_SHIFT) & 255) - 1
        a_mid, b_mid = lo_mid <= a < hi_mid, lo_mid <= b < hi_mid
        ma0, ma1 = states[ua, LANE_MASK], states[ua, LANE_MASK + 1]
        mb0, mb1 = states[ub, LANE_MASK], states[ub, LANE_MASK + 1]
        if a_mid and b_mid:  # within the lanes: the lanes of both, walked in order
            ja, jb = first[ua], first[ub]
            for word in range(2):
                ma, mb = (ma0, mb0) if word == 0 else (ma1, mb1)
                both = ma | mb
                while both:
                    low = both & -both
                    if ma & low and mb & low:
                        pairs[p, 0], pairs[p, 1], pairs[p, 2] = ja, jb, e
                        p += 1
                    if ma & low:
                        ja += 1
                    if mb & low:
                        jb += 1
                    both ^= low
            continue
        if a_mid:  # out of the lanes, at the high ace
            if not has_lane(ma0, ma1, lane):
                continue
            pairs[p, 0], pairs[p, 1] = first[ua] + _rank(ma0, ma1, lane), first[ub]
        elif b_mid:  # into the lanes, after the low ace
            if not has_lane(mb0, mb1, lane):
                continue
            pairs[p, 0], pairs[p, 1] = first[ua], first[ub] + _rank(mb0, mb1, lane)
        else:
            pairs[p, 0], pairs[p, 1] = first[ua], first[ub]
        pairs[p, 2] = e
        p += 1
    return pairs
