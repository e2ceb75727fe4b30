"""The exact dynamic program over run positions, compiled with numba (after van Rijn, Takes & Vis).

Positions ``1..14`` are the ranks in run order: ``1`` the low ace, ``2..13`` the ranks,
``14`` the high ace. The sweep visits one *cell* (position, suit) at a time, then closes
the position's sets. Every unit of the cell's face either extends an open run of its
suit, starts a new run, goes to a set of the position's rank, or (at the low ace, when
aces may be high too) is set aside for a run Q-K-A at the high ace.

State (one int64, see the ``_*_SHIFT`` constants):

* per suit, the open runs of length 1, 2 and >= 3 (``c1, c2, c3``); runs of length 1 or 2
  must be extended, a run of length >= 3 may close. Closing a long run while starting a
  new one of the same suit is never better than extending it, so it is not tried;
* per suit, the aces set aside at the low ace for the high ace, only while sweeping the
  low ace and the high ace (see *lanes* below);
* ``d`` = wildcards placed minus table jokers released so far. A table joker of face
  ``f`` is released as soon as the new table holds a real ``f`` for it (``check_play``
  rule 4); releasing is never worse (the wildcard can go back where the joker was), so
  each cell releases as many as it may. At the end ``d`` is the number of hand jokers
  played, which must lie in ``0..hand jokers``. Wildcards may be placed before the
  release that pays for them: a play is one rearrangement, only the totals matter;
* the units this position has sent to sets so far (total and largest per suit): they
  can form sets exactly when some ``k`` has ``largest <= k`` and ``3k <= total + wild
  <= 4k`` (deal the units round-robin by suit into ``k`` sets).

Lanes. The aces set aside at the low ace change nothing until the high ace, but carried
in the key they would multiply the states of every position in between (up to 81 times
with two decks). So in ``explore`` the key drops them after the low ace: each state of
positions 2..13 carries instead a bit mask of *lanes*, one lane per combination of aces set
aside (mixed radix over the suits, ``_lane_layout``), and the first cell of the high ace
puts each lane's aces back into the key. Transitions in between do not depend on the lane,
so they are enumerated once per key. Per-lane values live in *slots*: a state in the lanes
has one slot per lane in its mask, in lane order, after ``_keep_finishing_lanes`` has
dropped the lanes that cannot finish; any other state has one slot. The backward and
vector passes work on slots (``_slot_pairs`` lists each edge's slot pairs). Edges into
and out of the lane layers carry their lane (``_TAG_SHIFT``). ``optima`` keeps the aces in
the key: its dominance test compares per-state values, which lanes would mix.

The passes:

1. ``optima``: ``_build`` with no edges, in rounds with targets (every live hand card
   played first): states that can reach no target, or that a state with longer open
   runs (:func:`_dominated`) matches, are dropped; a round whose optima reach their
   targets is exact (see :func:`optima`);
2. ``explore``: ``_build`` with the edges (each with the hand cards it plays and their
   points), keeping the states that can reach ``need_n`` cards or ``need_p`` points
   (with per-count points targets, see :func:`_build`), and dropping at once every new
   state that :func:`_may_finish` shows cannot finish; then backward, per slot the
   exact best future points, future cards and future points with no hand joker;
3. forward vector pass: per slot, the best points for every count of real hand cards
   played, stored only for the counts that can still reach ``need_n`` cards or ``need_p``
   points (so every final entry a suggestion slot can pick is exact); ``trace`` then
   finds, for the few entries picked, the pair each step came from.

Every array has one fixed dtype, so that every jitted function compiles for one signature:
int64, except the largest per-slot arrays (slot pairs, the vector pass's entries), which
are int32 to halve the memory of a heavy solve. The hot loops call no helper that takes
an array: numba updates an array's reference count (an atomic operation) on every such
call, inlined or not, and in these loops that cost more than the work itself.
"""

from __future__ import annotations

import numpy as np
from numba import njit

_SUIT_BITS = 9  # c1, c2, c3: 3 bits each
_ASIDE_SHIFT = 36  # 3 bits per suit
_D_SHIFT = 48  # d + _D_BIAS, 4 bits
_D_BIAS = 4
_TX_SHIFT = 52  # set units at this position, 5 bits
_MX_SHIFT = 57  # largest per suit, 3 bits
_ASIDE_BITS = np.int64(4095) << _ASIDE_SHIFT
_NEG = -(1 << 40)
_ABSENT = np.int32(-(1 << 30))  # a missing entry of the vector pass (see :func:`vector`)
_HASH = np.uint64(0x9E3779B97F4A7C15)  # Fibonacci hashing
NO_BUDGET = 1 << 60  # no state budget
SLOTS_PER_STATE = 4  # the slots that can finish, per state of the budget
_MAX_LANES = 128  # two mask words; past that the aces stay in the key

# a state row: key, forward max real cards, forward max points, alive, lane mask (2 words)
_MASK = 4
# an edge is two int64: (from | to << 32, code | (lane + 1) << 24 | hand cards << 32 | their
# points << 40); the lane only on edges into the lane layers and out of them
_LOW = (1 << 32) - 1
_TAG_SHIFT = 24
_CODE = (1 << _TAG_SHIFT) - 1


@njit(cache=True)
def _grow(arr, need):
    if need <= arr.shape[0]:
        return arr
    size = arr.shape[0]
    while size < need:
        size *= 2
    out = np.empty((size, arr.shape[1]), dtype=np.int64)
    out[: arr.shape[0]] = arr
    return out


@njit(cache=True)
def _find(table, keys, key, mask):
    """Slot of ``key`` in the open-addressing ``table`` (indices into ``keys``), or its free slot."""
    h = (np.uint64(key) * _HASH) >> np.uint64(32)
    slot = np.int64(h) & mask
    while True:
        idx = table[slot]
        if idx < 0 or keys[idx, 0] == key:
            return slot
        slot = (slot + 1) & mask


@njit(cache=True)
def _sets_ok(total_x, max_x, wild):
    total = total_x + wild
    if total == 0:
        return True
    k = max(max_x, 1)
    while 3 * k <= total:
        if total <= 4 * k:
            return True
        k += 1
    return False


@njit(cache=True)
def _lane_layout(defer, lastace, optima):
    """``(lanes, radix, key bits per lane)``; ``lanes`` 0 when the aces stay in the key."""
    radix = np.ones(5, dtype=np.int64)
    for s in range(4):
        radix[s + 1] = radix[s] * (defer[0, s] + 1)
    lanes = radix[4]
    if optima or not lastace[lastace.shape[0] - 1] or lanes < 2 or lanes > _MAX_LANES:
        return 0, radix, np.zeros(1, dtype=np.int64)
    bits = np.zeros(lanes, dtype=np.int64)
    for lane in range(lanes):
        for s in range(4):
            bits[lane] |= ((lane // radix[s]) % (defer[0, s] + 1)) << (_ASIDE_SHIFT + 3 * s)
    return lanes, radix, bits


@njit(cache=True)
def _lane_layers(npos):
    """``(strip, expand)``: the layer whose outputs enter the lanes (the low ace's sets) and
    the layer that puts each lane's aces back into the key (the high ace's first cell); the
    states in the lanes are those of layers ``strip + 1 .. expand``."""
    return 4, 5 * (npos - 1)


@njit(cache=True)
def _lane_of(key, radix):
    lane = 0
    for s in range(4):
        lane += ((key >> (_ASIDE_SHIFT + 3 * s)) & 7) * radix[s]
    return lane


@njit(cache=True)
def _has_lane(m0, m1, lane):
    return ((m0 >> lane) & 1 if lane < 64 else (m1 >> (lane - 64)) & 1) != 0


@njit(cache=True)
def _lane_bit(lane):
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
def _keep_finishing_lanes(states, edges, bounds, lo_mid, hi_mid, hj):
    """Drop from every lane mask (states ``lo_mid .. hi_mid - 1``) the lanes with which the
    state cannot finish, in one backward pass over the edges.

    Lanes die at the high ace, where their aces must extend runs Q-K, and in heavy
    positions most slots belonged to lanes that could not finish: without them the
    backward and vector passes touch a fraction of the slots."""
    ok = np.zeros(states.shape[0], dtype=np.bool_)  # states outside the lanes that can finish
    use = np.zeros((states.shape[0], 2), dtype=np.int64)  # lanes that can finish
    nlayers = bounds.shape[0] - 1
    for b in range(bounds[nlayers - 1], bounds[nlayers]):
        d = ((states[b, 0] >> _D_SHIFT) & 15) - _D_BIAS
        ok[b] = states[b, 3] != 0 and 0 <= d <= hj
    for e in range(edges.shape[0] - 1, -1, -1):  # edges come layer by layer
        a, b = edges[e, 0] & _LOW, edges[e, 0] >> 32
        lane = ((edges[e, 1] >> _TAG_SHIFT) & 255) - 1
        a_mid = lo_mid <= a < hi_mid
        if lo_mid <= b < hi_mid:
            if a_mid:
                use[a, 0] |= use[b, 0]
                use[a, 1] |= use[b, 1]
            elif _has_lane(use[b, 0], use[b, 1], lane):
                ok[a] = True
        elif ok[b]:
            if a_mid:
                bit0, bit1 = _lane_bit(lane)
                use[a, 0] |= bit0
                use[a, 1] |= bit1
            else:
                ok[a] = True
    for b in range(lo_mid, hi_mid):
        states[b, _MASK] &= use[b, 0]
        states[b, _MASK + 1] &= use[b, 1]


@njit(cache=True)
def _slots(states, lo_mid, hi_mid):
    """``first[b]``: the first slot of state ``b`` (``first[-1]``: the number of slots): one
    per lane in the mask of a state in the lanes (none when no lane can finish), else one."""
    first = np.zeros(states.shape[0] + 1, dtype=np.int64)
    for b in range(states.shape[0]):
        if lo_mid <= b < hi_mid:
            first[b + 1] = first[b] + _popcount(states[b, _MASK]) + _popcount(states[b, _MASK + 1])
        else:
            first[b + 1] = first[b] + 1
    return first


@njit(cache=True)
def _slot_pairs(states, edges, first, lo_mid, hi_mid):
    """Every edge as (from slot, to slot, edge) rows, in edge order (``first``: see
    :func:`_slots`). An edge within the lanes (states ``lo_mid .. hi_mid - 1``) gives one
    row per lane in both masks; an edge into or out of the lanes names its lane, and gives
    a row if the lane is in the mask. Written out as one loop: a helper taking arrays,
    called per edge, would cost two atomic reference-count updates per array and call."""
    nedges = edges.shape[0]
    total = 0
    for e in range(nedges):
        a, b = edges[e, 0] & _LOW, edges[e, 0] >> 32
        lane = ((edges[e, 1] >> _TAG_SHIFT) & 255) - 1
        a_mid, b_mid = lo_mid <= a < hi_mid, lo_mid <= b < hi_mid
        if a_mid and b_mid:
            total += _popcount(states[a, _MASK] & states[b, _MASK])
            total += _popcount(states[a, _MASK + 1] & states[b, _MASK + 1])
        elif a_mid:
            total += _has_lane(states[a, _MASK], states[a, _MASK + 1], lane)
        elif b_mid:
            total += _has_lane(states[b, _MASK], states[b, _MASK + 1], lane)
        else:
            total += 1
    pairs = np.empty((total, 3), dtype=np.int32)  # the largest array of a heavy solve
    p = 0
    for e in range(nedges):
        a, b = edges[e, 0] & _LOW, edges[e, 0] >> 32
        ua, ub = np.uint64(a), np.uint64(b)  # for indexing: see the note on explore's backward loop
        lane = ((edges[e, 1] >> _TAG_SHIFT) & 255) - 1
        a_mid, b_mid = lo_mid <= a < hi_mid, lo_mid <= b < hi_mid
        ma0, ma1 = states[ua, _MASK], states[ua, _MASK + 1]
        mb0, mb1 = states[ub, _MASK], states[ub, _MASK + 1]
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
            if not _has_lane(ma0, ma1, lane):
                continue
            pairs[p, 0], pairs[p, 1] = first[ua] + _rank(ma0, ma1, lane), first[ub]
        elif b_mid:  # into the lanes, after the low ace
            if not _has_lane(mb0, mb1, lane):
                continue
            pairs[p, 0], pairs[p, 1] = first[ua], first[ub] + _rank(mb0, mb1, lane)
        else:
            pairs[p, 0], pairs[p, 1] = first[ua], first[ub]
        pairs[p, 2] = e
        p += 1
    return pairs


@njit(cache=True)
def _homeless(lay_t, realu, setok, defer):
    """Per cell (one row past the last position, all 0), the table units that with no
    wildcard could go neither to a new run, nor to a set, nor be set aside: at most the
    new runs its next two cells can carry, and one unit per set of the most sets its rank
    can hold (largest ``k`` with ``sum over suits of min(units, k) >= 3k``). A wildcard
    adds at most one new run and one set (the most sets grow by at most one per wildcard:
    past the no-wildcard most, each step of ``k`` loses at least one unit of room).
    These units must extend open runs (see :func:`_may_finish`)."""
    npos = lay_t.shape[0]
    out = np.zeros((npos + 1, 4), dtype=np.int64)
    for i in range(npos):
        sets = 0
        while setok[i]:
            k = sets + 1
            room = 0
            for s in range(4):
                room += min(realu[i, s], k)
            if room < 3 * k:
                break
            sets = k
        for s in range(4):
            new_runs = min(realu[i + 1, s], realu[i + 2, s])
            out[i, s] = lay_t[i, s] - defer[i, s] - new_runs - min(realu[i, s], sets)
    return out


@njit(cache=True, inline="always")
def _may_finish(key, s, wild, ahead):
    """A necessary condition for ``key``, just after the cell of suit ``s`` (4: after the
    close), to reach a complete table with at most ``wild`` more wildcards; ``ahead``: per
    suit, the units that may stand at its next cell, then (see :func:`_homeless`) the table
    units there that no open run can take, then the units that may stand at the cell after.

    * Every open run of length 1 or 2 takes one unit at its suit's next cell, and every run
      of length 1 one more at the cell after: the units missing there must come from the
      wildcards.
    * The table units of that cell that can go neither to a new run nor to a set nor be
      set aside must extend open runs, one per run, or take wildcards (at most two per
      wildcard: one as a new run's unit, one as a set's).
    * The units this position has sent to sets (``_TX``, at most ``_MX`` of one suit) must
      still close into some ``k >= largest`` sets: ``4k >= units`` and ``3k <= units +
      the wildcards left + what the later suits of the position can add``, a later suit
      adding at most one unit per set and only the units its runs leave free.

    Checked as each state is made, so that a state that cannot finish dies at once
    instead of spawning successors that die a layer or two later (on crowded two-deck
    tables, most of the states that cannot finish)."""
    short = most_homeless = np.int64(0)
    for t in range(4):
        c1 = (key >> (_SUIT_BITS * t)) & 7
        runs = c1 + ((key >> (_SUIT_BITS * t + 3)) & 7)
        short += max(0, runs - ahead[t]) + max(0, c1 - ahead[8 + t])  # runs of length 1 grow twice
        most_homeless = max(most_homeless, ahead[4 + t] - runs - ((key >> (_SUIT_BITS * t + 6)) & 7))
    wild -= short
    if wild < 0 or most_homeless > 2 * wild:
        return False
    units = (key >> _TX_SHIFT) & 31
    if units == 0:
        return True
    k = max((key >> _MX_SHIFT) & 7, 1)
    while True:
        room = units + wild
        for t in range(s + 1, 4):  # the position's later suits: the units their runs leave free
            runs = ((key >> (_SUIT_BITS * t)) & 7) + ((key >> (_SUIT_BITS * t + 3)) & 7)
            room += min(max(0, ahead[t] - runs), k)
        if 3 * k > room:  # room gains at most 3 per step of k: no larger k fits either
            return False
        if 4 * k >= units:
            return True
        k += 1


@njit(cache=True)
def _layer_inputs(layer, lay_t, lay_k, lay_h, realu, near, setok, defer, lastace, rafter, homeless):
    """``(ahead, cell)`` of a layer, as scalars: see :func:`_may_finish` and :func:`_cell_options`
    (called once per layer, or once per state a witness search expands)."""
    i, s = layer // 5, layer % 5
    c = min(s, 3)
    # each suit's next cell (this position's for the later suits), for _may_finish
    n0, n1, n2, n3 = i + (c >= 0), i + (c >= 1), i + (c >= 2), i + (c >= 3)
    ahead = (
        realu[n0, 0], realu[n1, 1], realu[n2, 2], realu[n3, 3],
        homeless[n0, 0], homeless[n1, 1], homeless[n2, 2], homeless[n3, 3],
        realu[n0 + 1, 0], realu[n1 + 1, 1], realu[n2 + 1, 2], realu[n3 + 1, 3],
    )  # fmt: skip
    cell = (
        lay_t[i, c], lay_k[i, c], lay_h[i, c], defer[i, c], setok[i], lastace[i], rafter[i, c],
        realu[i + 1, c], realu[i + 2, c], near[i + 1, c], near[i + 2, c], ahead,
    )  # fmt: skip
    return ahead, cell


@njit(cache=True, inline="always")
def _cell_options(key, s, cell, hj, out):
    """Transitions of ``key`` at a cell of suit ``s`` into ``out``; returns the count.

    ``cell``: what the transitions read of the cell's arrays, as scalars, read once per layer
    by :func:`_build` (every array passed to a function, inlined or not, costs two atomic
    reference-count updates per call).

    Each row: new key, hand cards played, code (dn, aside, w, k3, b, x, r packed 5/3/3/3/3/3/3 bits).
    """
    lay_t, lay_k, lay_h, defer, setok, lastace, ra, real1, real2, near1, near2, ahead = cell
    sh = _SUIT_BITS * s
    c1 = (key >> sh) & 7
    c2 = (key >> (sh + 3)) & 7
    c3 = (key >> (sh + 6)) & 7
    aside = (key >> (_ASIDE_SHIFT + 3 * s)) & 7
    d = ((key >> _D_SHIFT) & 15) - _D_BIAS
    tx = (key >> _TX_SHIFT) & 31
    mx = (key >> _MX_SHIFT) & 7
    need = c1 + c2
    if lastace:
        t_real, k_jok, hand, dmax, set_here = aside, 0, 0, 0, False
    else:
        t_real, k_jok, hand, dmax, set_here = lay_t, lay_k, lay_h, defer, setok != 0
    base = key & ~((np.int64(511) << sh) | (np.int64(15) << _D_SHIFT))
    if lastace:
        base &= ~(np.int64(7) << (_ASIDE_SHIFT + 3 * s))  # the aces set aside are placed here
    base &= ~((np.int64(31) << _TX_SHIFT) | (np.int64(7) << _MX_SHIFT))
    count = 0
    for dn in range(hand + 1):
        r = min(k_jok, t_real + dn)
        u = t_real + k_jok - r + dn
        for dd in range(min(u, dmax) + 1):
            low = u - dd
            wmax = hj + ra - d + r  # so that the final d can still be <= hand jokers
            for w in range(max(wmax, -1) + 1):
                total = low + w
                if total < need:
                    continue
                d2 = d + w - r
                left = hj + ra - d2  # wildcards that may still be placed later
                n1 = real1 + (left if (near1 or left >= 3) else 0)
                n2 = real2 + (left if (near2 or left >= 3) else 0)
                rest = total - need
                for k3 in range(min(c3, rest) + 1):
                    bmax = rest - k3 if k3 == c3 else 0
                    for b in range(bmax + 1):
                        x = rest - k3 - b
                        if x and (not set_here or x > low):
                            continue
                        if b + c1 > n1 or b > n2:
                            continue
                        n3 = min(c2 + k3, n1 - b - c1)
                        new = base | ((b | (c1 << 3) | (n3 << 6)) << sh)
                        new |= dd << (_ASIDE_SHIFT + 3 * s)
                        new |= (d2 + _D_BIAS) << _D_SHIFT
                        new |= (tx + x) << _TX_SHIFT
                        new |= max(mx, x) << _MX_SHIFT
                        if not _may_finish(new, s, left, ahead):
                            continue
                        dup = False
                        for j in range(count):
                            if out[j, 0] == new and out[j, 1] == dn:
                                dup = True
                                break
                        if dup:
                            continue
                        code = dn | (dd << 5) | (w << 8) | (k3 << 11) | (b << 14) | (x << 17) | (r << 20)
                        out[count, 0] = new
                        out[count, 1] = dn
                        out[count, 2] = code
                        count += 1
    return count


@njit(cache=True, inline="always")
def _close_options(key, setok, jokers_left, hj, ahead, out):
    """Wildcards put into this position's sets (code = how many); ``setok``: whether the
    position may hold sets, ``jokers_left``: the table jokers releasable after it,
    ``ahead``: as for :func:`_may_finish`, the next position's cells."""
    d = ((key >> _D_SHIFT) & 15) - _D_BIAS
    tx = (key >> _TX_SHIFT) & 31
    mx = (key >> _MX_SHIFT) & 7
    base = key & ~((np.int64(15) << _D_SHIFT) | (np.int64(31) << _TX_SHIFT) | (np.int64(7) << _MX_SHIFT))
    count = 0
    for wset in range(max(hj + jokers_left - d, -1) + 1):
        if wset and not setok:
            break
        new = base | ((d + wset + _D_BIAS) << _D_SHIFT)
        if _sets_ok(tx, mx, wset) and _may_finish(new, 4, hj + jokers_left - d - wset, ahead):
            out[count, 0] = new
            out[count, 1] = 0
            out[count, 2] = wset
            count += 1
    return count


@njit(cache=True)
def _dominated(key, fp, fn, table, states, mask):
    """Whether a state one step better than ``key`` (same layer, at a position boundary) has
    forward points and cards at least ``fp`` and ``fn``.

    A state whose open runs are each at least as long as another's (matched run by run,
    same suit), possibly with extra runs of length >= 3, can finish every table the other
    can with the same hand cards: it extends or closes its runs exactly like the other and
    closes the extras. So it can reach every optimum the other can."""
    for s in range(4):
        sh = _SUIT_BITS * s
        c1 = (key >> sh) & 7
        c2 = (key >> (sh + 3)) & 7
        c3 = (key >> (sh + 6)) & 7
        rest = key & ~(np.int64(511) << sh)
        for step in range(3):
            if step == 0 and c3 < 7:
                up = c1 | (c2 << 3) | ((c3 + 1) << 6)
            elif step == 1 and c1 and c2 < 7:
                up = (c1 - 1) | ((c2 + 1) << 3) | (c3 << 6)
            elif step == 2 and c2 and c3 < 7:
                up = c1 | ((c2 - 1) << 3) | ((c3 + 1) << 6)
            else:
                continue
            idx = table[_find(table, states, rest | (up << sh), mask)]
            if idx >= 0 and states[idx, 2] >= fp and states[idx, 1] >= fn:
                return True
    return False


@njit(cache=True)
def _build(
    lay_t, lay_k, lay_h, realu, near, setok, defer, lastace, rafter, rp, hj, need_n, need_p, need_q, tgt, max_states
):
    """The reachable states layer by layer: ``states`` rows (key, forward max real cards,
    forward max points, alive, lane mask in two words), ``edges`` rows, and the layer bounds
    (a single bound when more than ``max_states`` states were reached).

    ``need_q >= 0``: optima only: no edges, and a state is dropped when a better state of
    the same layer (:func:`_dominated`) matches its forward values (exact for the three
    optima, not per cards count), or when even every later live hand card and every hand
    joker could reach neither ``need_n`` cards nor ``need_p`` points, nor ``need_q`` points
    with no hand joker. Otherwise every edge is kept and a state is dropped when it could
    reach neither ``need_n`` cards nor ``need_p`` points, where with ``tgt`` (one entry per
    real cards count, used only when longer than 1 and with no hand joker) reaching ``n``
    cards counts only with at least ``tgt[n]`` points: a play with ``n`` cards skips at least
    the points the state's best prefix skipped, and at least the ``top - n`` cheapest cards.
    """
    npos = lay_t.shape[0]
    nlayers = 5 * npos + 1
    optima = need_q >= 0
    # the most real cards and points still playable after each layer
    fut_n = np.zeros(nlayers, dtype=np.int64)
    fut_p = np.zeros(nlayers, dtype=np.int64)
    for layer in range(nlayers - 2, -1, -1):
        i, s = layer // 5, layer % 5
        h = lay_h[i, s] if s < 4 else 0
        fut_n[layer] = fut_n[layer + 1] + h
        fut_p[layer] = fut_p[layer + 1] + h * rp[i]
    top_n, top_p = fut_n[0], fut_p[0]
    targeted = tgt.shape[0] > 1 and hj == 0
    # after each layer, the points of the q cheapest live hand cards seen so far (``bseen``)
    # and of the m cheapest still to come (``bfut``); ``_NEG`` negated where there are fewer
    bseen = np.full((nlayers if targeted else 1, top_n + 1), -_NEG, dtype=np.int64)
    bfut = np.full((nlayers if targeted else 1, top_n + 1), -_NEG, dtype=np.int64)
    if targeted:
        pts = np.empty(top_n, dtype=np.int64)
        at = np.empty(top_n, dtype=np.int64)
        m = 0
        for layer in range(nlayers - 1):
            i, s = layer // 5, layer % 5
            if s < 4:
                for _ in range(lay_h[i, s]):
                    pts[m] = rp[i]
                    at[m] = layer
                    m += 1
        for layer in range(nlayers - 1):
            seen = np.sort(pts[at <= layer])
            later = np.sort(pts[at > layer])
            bseen[layer, 0] = 0
            for q in range(seen.shape[0]):
                bseen[layer, q + 1] = bseen[layer, q] + seen[q]
            bfut[layer, 0] = 0
            for q in range(later.shape[0]):
                bfut[layer, q + 1] = bfut[layer, q] + later[q]
    homeless = _homeless(lay_t, realu, setok, defer)
    nlanes, radix, lane_bits = _lane_layout(defer, lastace, optima)
    strip_layer, expand_layer = _lane_layers(npos) if nlanes else (-1, -1)
    bounds = np.zeros(nlayers + 1, dtype=np.int64)
    states = np.empty((1024, 6), dtype=np.int64)
    edges = np.empty((1 if optima else 4096, 2), dtype=np.int64)
    states[0, 0] = np.int64(_D_BIAS) << _D_SHIFT
    states[0, 1:] = 0
    states[0, 3] = 1
    nstates, nedges = 1, 0
    bounds[1] = 1
    out = np.empty((4096, 3), dtype=np.int64)
    table = np.full(64, -1, dtype=np.int64)
    for layer in range(nlayers - 1):
        i = layer // 5
        s = layer % 5
        lo, hi = bounds[layer], bounds[layer + 1]
        size = 64
        while size < 4 * (hi - lo):
            size *= 2
        if not size <= table.shape[0] <= 4 * size:  # a table kept from a large layer
            table = np.full(size, -1, dtype=np.int64)  # would cost a large reset per layer
        else:
            table[:] = -1
        filled = 0
        ahead, cell = _layer_inputs(layer, lay_t, lay_k, lay_h, realu, near, setok, defer, lastace, rafter, homeless)
        strip, expand = layer == strip_layer, layer == expand_layer
        # The arrays grow only between passes of this loop: an array reassigned inside the
        # inner loops would have its reference count updated on every transition.
        resume, resume_lane, need = lo, 0, 0
        while True:
            mask = table.shape[0] - 1
            for a in range(resume, hi):
                if not states[a, 3]:
                    continue
                m0, m1 = states[a, _MASK], states[a, _MASK + 1]
                for lane in range(resume_lane if a == resume else 0, nlanes if expand else 1):
                    key = states[a, 0]
                    tag = 0
                    if expand:  # each lane's aces back into the key
                        if not _has_lane(m0, m1, lane):
                            continue
                        key |= lane_bits[lane]
                        tag = lane + 1
                    if s < 4:
                        count = _cell_options(key, s, cell, hj, out)
                    else:
                        count = _close_options(key, setok[i], rafter[i, 3], hj, ahead, out)
                    if (
                        nstates + count > states.shape[0]
                        or (not optima and nedges + count > edges.shape[0])
                        or 2 * (filled + count) > table.shape[0]  # keep the load under one half
                    ):
                        need, resume, resume_lane = count, a, lane
                        break
                    # unsigned indices below: see the note on explore's backward loop
                    ua, umask = np.uint64(a), np.uint64(mask)
                    for j in range(count):
                        new = out[j, 0]
                        if strip:  # the aces set aside leave the key for a lane
                            tag = _lane_of(new, radix) + 1
                            new &= ~_ASIDE_BITS
                        probe = ((np.uint64(new) * _HASH) >> np.uint64(32)) & umask  # _find, inline
                        b = table[probe]
                        while b >= 0 and states[np.uint64(b), 0] != new:
                            probe = (probe + np.uint64(1)) & umask
                            b = table[probe]
                        if b < 0:
                            b = nstates
                            nstates += 1
                            ub = np.uint64(b)
                            states[ub, 0] = new
                            states[ub, 1] = -1
                            states[ub, 2] = -1
                            states[ub, 3] = 1
                            states[ub, _MASK] = 0
                            states[ub, _MASK + 1] = 0
                            table[probe] = b
                            filled += 1
                        ub = np.uint64(b)
                        if strip:
                            bit0, bit1 = _lane_bit(tag - 1)
                            states[ub, _MASK] |= bit0
                            states[ub, _MASK + 1] |= bit1
                        elif not expand:
                            states[ub, _MASK] |= m0
                            states[ub, _MASK + 1] |= m1
                        dn = out[j, 1]
                        states[ub, 1] = max(states[ub, 1], states[ua, 1] + dn)
                        states[ub, 2] = max(states[ub, 2], states[ua, 2] + dn * rp[i])
                        if not optima:
                            ue = np.uint64(nedges)
                            edges[ue, 0] = a | (b << 32)
                            edges[ue, 1] = out[j, 2] | (tag << _TAG_SHIFT) | (dn << 32) | ((dn * rp[i]) << 40)
                            nedges += 1
                if need:
                    break
            if not need:
                break
            states = _grow(states, nstates + need)
            if not optima:
                edges = _grow(edges, nedges + need)
            if 2 * (filled + need) > table.shape[0]:
                size = table.shape[0]
                while 2 * (filled + need) > size:
                    size *= 2
                table = np.full(size, -1, dtype=np.int64)
                for b in range(hi, nstates):
                    table[_find(table, states, states[b, 0], size - 1)] = b
            need = 0
        mask = table.shape[0] - 1
        for b in range(hi, nstates):
            reach_n = states[b, 1] + fut_n[layer + 1] + hj
            if targeted and states[b, 2] + fut_p[layer + 1] < need_p:
                # every play through b skips q >= q0 seen cards worth at least ``skipped``
                skipped = top_p - fut_p[layer + 1] - states[b, 2]
                seen_n = top_n - fut_n[layer + 1]
                q0 = seen_n - states[b, 1]
                useful = False
                for n in range(need_n, min(reach_n, top_n) + 1):
                    skip = top_n - n
                    for q in range(max(q0, skip - fut_n[layer + 1]), min(skip, seen_n) + 1):
                        if top_p - max(skipped, bseen[layer, q]) - bfut[layer, skip - q] >= tgt[n]:
                            useful = True
                            break
                    if useful:
                        break
                if not useful:
                    states[b, 3] = 0
                    continue
            elif (
                reach_n < need_n
                and states[b, 2] + fut_p[layer + 1] + 25 * hj < need_p
                and (not optima or states[b, 2] + fut_p[layer + 1] < need_q)
            ):
                states[b, 3] = 0
                continue
            if optima and _dominated(states[b, 0], states[b, 2], states[b, 1], table, states, mask):
                states[b, 3] = 0
        bounds[layer + 2] = nstates
        if nstates > max_states:  # given up: a single bound tells the caller
            return states[:nstates], edges[:nedges], bounds[:1]
    return states[:nstates], edges[:nedges], bounds


@njit(cache=True)
def optima(lay_t, lay_k, lay_h, realu, near, setok, defer, lastace, rafter, rp, hj, any_play):
    """``(best points, best cards, best points with no hand joker)``; 0 where only the empty
    play exists (every card scores at least 1 point).

    Rounds of :func:`_build` with targets ``need`` (cards, points, points with no hand
    joker), starting at the upper bounds (every live hand card played): a round drops the
    states that can reach no target. An objective whose round optimum reaches its target
    is exact (its optimal path reaches the target, so no state of it was dropped) and
    keeps that value as its target (still exact in later rounds); an objective that falls
    short has its target lowered, by a step that doubles each round, never below the value
    found (which is achievable, so that round is exact for it).

    ``any_play``: stop at the first round that finds a play (only ``best cards > 0`` is
    then meaningful)."""
    top_n = hj
    top_p = 0
    for i in range(lay_h.shape[0]):
        for s in range(4):
            top_n += lay_h[i, s]
            top_p += lay_h[i, s] * rp[i]
    need = np.array([top_p + 25 * hj, top_n, top_p], dtype=np.int64)
    step = np.array([10, 1, 10], dtype=np.int64)
    no_budget = np.int64(NO_BUDGET)  # not a literal: one compiled _build for every caller
    while True:
        states, _edges, bounds = _build(
            lay_t, lay_k, lay_h, realu, near, setok, defer, lastace, rafter, rp, hj, need[1], need[0], need[2],
            step[:1], no_budget,
        )  # fmt: skip
        nlayers = bounds.shape[0] - 1
        best = np.zeros(3, dtype=np.int64)
        for b in range(bounds[nlayers - 1], bounds[nlayers]):
            d = ((states[b, 0] >> _D_SHIFT) & 15) - _D_BIAS
            if states[b, 3] and 0 <= d <= hj:
                best[0] = max(best[0], states[b, 2] + 25 * d)
                best[1] = max(best[1], states[b, 1] + d)
                if d == 0:
                    best[2] = max(best[2], states[b, 2])
        done = True
        for j in range(3):
            if best[j] >= need[j]:
                need[j] = best[j]
            else:
                done = False
                need[j] = max(best[j], need[j] - step[j])
                step[j] *= 2
        if done or (any_play and best[1] > 0):
            return best


@njit(cache=True)
def explore(lay_t, lay_k, lay_h, realu, near, setok, defer, lastace, rafter, rp, hj, need_n, need_p, tgt, max_states):
    """The pruned DAG for ``need_n`` / ``need_p`` / ``tgt`` (see :func:`_build`) and, per
    slot, the best future points, cards and points without hand jokers (cards ``_NEG``: the
    slot cannot finish; points without hand jokers negative: none finishes without one).
    Returns ``(states, edges, bounds, fut, first, pairs)`` (``first`` and ``pairs``: see
    :func:`_slot_pairs`); ``bounds`` has one entry when the sweep passed
    ``max_states`` states, or its slots that can finish ``SLOTS_PER_STATE * max_states``."""
    no_optima = np.int64(-1)  # not a literal: one compiled _build for every caller
    states, edges, bounds = _build(
        lay_t, lay_k, lay_h, realu, near, setok, defer, lastace, rafter, rp, hj, need_n, need_p, no_optima, tgt,
        max_states,
    )  # fmt: skip
    if bounds.shape[0] == 1:
        no_fut, no_pairs = np.empty((0, 3), dtype=np.int64), np.empty((0, 3), dtype=np.int32)
        return states, edges, bounds, no_fut, np.zeros(1, dtype=np.int64), no_pairs
    lo_mid = hi_mid = 0  # the states in the lanes (positions 2..13)
    if _lane_layout(defer, lastace, False)[0]:
        strip, expand = _lane_layers(lay_t.shape[0])
        lo_mid, hi_mid = bounds[strip + 1], bounds[expand + 1]
        _keep_finishing_lanes(states, edges, bounds, lo_mid, hi_mid, hj)
    first = _slots(states, lo_mid, hi_mid)
    if first[-1] > SLOTS_PER_STATE * max_states:  # checked before any per-slot array
        no_fut, no_pairs = np.empty((0, 3), dtype=np.int64), np.empty((0, 3), dtype=np.int32)
        return states, edges, bounds[:1], no_fut, first[:1], no_pairs
    pairs = _slot_pairs(states, edges, first, lo_mid, hi_mid)
    nlayers = bounds.shape[0] - 1
    fut = np.full((first[-1], 3), _NEG, dtype=np.int64)  # points, cards, points with no hand joker
    for b in range(bounds[nlayers - 1], bounds[nlayers]):
        d = ((states[b, 0] >> _D_SHIFT) & 15) - _D_BIAS
        if states[b, 3] and 0 <= d <= hj:
            fut[first[b], 0] = 25 * d
            fut[first[b], 1] = d
            if d == 0:
                fut[first[b], 2] = 0
    # Unsigned indices: numba checks every signed index for a negative one, which in this
    # loop (one pass over every slot pair) cost about a quarter of its time. A slot with no
    # play without hand jokers keeps a negative third value (_NEG plus some points).
    for p in range(pairs.shape[0] - 1, -1, -1):
        sa, sb, e = np.uint64(pairs[p, 0]), np.uint64(pairs[p, 1]), np.uint64(pairs[p, 2])
        if fut[sb, 1] == _NEG:
            continue
        dn, dp = (edges[e, 1] >> 32) & 255, edges[e, 1] >> 40
        fut[sa, 0] = max(fut[sa, 0], fut[sb, 0] + dp)
        fut[sa, 1] = max(fut[sa, 1], fut[sb, 1] + dn)
        fut[sa, 2] = max(fut[sa, 2], fut[sb, 2] + dp)
    return states, edges, bounds, fut, first, pairs


@njit(cache=True)
def vector(states, first, pairs, edges, bounds, fut, hj, need_n, need_p, tgt):
    """Pass 3: best points per (cards, hand jokers) for every entry with at least ``need_n``
    cards or ``need_p`` points (exact: no prefix of such a play is ever pruned), and with
    ``tgt`` (see :func:`_build`) only the entries of ``n >= need_n`` cards that reach
    ``tgt[n]`` points or ``need_p`` (exact; the caller checks that each count reached its
    target, else the best of that count may be missing).

    Returns ``(best, where, entries)``: ``best[c, j]`` the points (-1: none or not needed),
    ``where[c, j]`` the (final slot, real cards) holding it; ``entries`` (``val, offsets, lo,
    hi``: every slot's best points per real cards count) is for :func:`trace`.
    """
    nslots = first[-1]
    nlayers = bounds.shape[0] - 1
    # entry (slot a, n real cards) at offsets[a] + n, for n in lo[a] .. hi[a] - 1: an entry
    # with fewer than lo[a] cards (at most 10 points each) can reach neither need_n nor need_p
    offsets = np.zeros(nslots + 1, dtype=np.int64)
    lo = np.zeros(nslots, dtype=np.int64)
    hi = np.zeros(nslots, dtype=np.int64)
    start = 0
    for state in range(states.shape[0]):
        for a in range(first[state], first[state + 1]):
            if fut[a, 1] != _NEG:
                hi[a] = states[state, 1] + 1
                if a:
                    lo[a] = min(hi[a], max(0, min(need_n - fut[a, 1], (need_p - fut[a, 0] + 9) // 10)))
            offsets[a] = start - lo[a]
            start += hi[a] - lo[a]
    offsets[nslots] = start
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
        # unsigned indices: see the note on explore's backward loop
        a, b, e = np.uint64(pairs[p, 0]), np.uint64(pairs[p, 1]), np.uint64(pairs[p, 2])
        if fut[b, 1] == _NEG:
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
        if fut[b, 1] == _NEG:
            continue
        d = ((states[state, 0] >> _D_SHIFT) & 15) - _D_BIAS
        for n in range(lo[b], hi[b]):
            v = val[offsets[b] + n]
            if v < 0:
                continue
            cards, pts = n + d, v + 25 * d
            if cards < 1 or (cards < need_n and pts < need_p):
                continue  # possibly inexact (pruned): no slot may use it
            if tgt.shape[0] > 1 and hj == 0 and pts < need_p and pts < tgt[cards]:
                continue
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
        codes[layer] = edges[e, 1] & _CODE
        n -= dn
        slot = a
    return codes
