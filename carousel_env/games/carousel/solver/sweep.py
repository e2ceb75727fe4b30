"""The exact sweeps: every reachable state, layer by layer, compiled with numba (after van Rijn, Takes & Vis).

A sweep walks the cells of the position (``prepare.Cells``) in run order with the
transitions of ``states``, keeping every reachable state of every layer (one row per
distinct key, so a state reached by many paths is kept once), and a play is a path from
the root to a final state whose ``d`` lies in ``0..hand jokers``. The passes:

1. :func:`optima`: :func:`_build` with no edges, in rounds with targets (every live hand
   card played first): states that can reach no target, or that a state with longer open
   runs (:func:`_dominated`) matches, are dropped; a round whose optima reach their
   targets is exact (see :func:`optima`);
2. :func:`explore`: :func:`_build` with the edges (each with the hand cards it plays and
   their points), keeping the states that can reach ``need_n`` cards or ``need_p`` points
   (see :func:`_build`), and dropping at once every new
   state that ``states.may_finish`` shows cannot finish; the aces set aside travel as lanes
   (``lanes``); then backward, per slot the exact best future points, future cards and
   future points with no hand joker;
3. ``entries.vector``, forward over the slots :func:`explore` returns: per slot, the best
   points for every count of real hand cards played; ``entries.trace`` then finds, for
   the few entries picked, the pair each step came from.

Every array has one fixed dtype, so that every jitted function compiles for one signature:
int64, except the largest per-slot arrays (slot pairs, the vector pass's entries), which
are int32 to halve the memory of a heavy solve. The hot loops call no helper that takes
an array: numba updates an array's reference count (an atomic operation) on every such
call, inlined or not, and in these loops that cost more than the work itself.

Compile time: no slice is assigned an array or a tuple (numba's check of their shapes
compiles a formatted error message, seconds of compile linked into every caller) and no
array is sorted (numba's quicksort is another second); loops do both.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from carousel_env.core.cards import JOKER_POINTS
from carousel_env.games.carousel.solver.lanes import (
    count_pairs,
    first_slots,
    has_lane,
    keep_finishing_lanes,
    lane_bit,
    lane_layers,
    lane_layout,
    lane_of,
    slot_pairs,
)
from carousel_env.games.carousel.solver.states import (
    ASIDE_BITS,
    D_BIAS,
    D_SHIFT,
    HASH,
    LANE_MASK,
    LANE_TAG_SHIFT,
    SUIT_BITS,
    cell_options,
    close_options,
    homeless_units,
    layer_inputs,
)

NEG_INF = -(1 << 40)  # below every reachable value; ``explore``'s future cards of a slot that cannot finish
NO_BUDGET = 1 << 60  # no state budget
SLOTS_PER_STATE = 4  # the slots that can finish, per state of the budget
# Bytes of the arrays a pass keeps, per row, for its memory cap (``max_bytes``, see
# ``carousel_env.games.carousel.solver.MEMORY_CAP_BYTES``): a pass that would pass it gives up first.
STATE_BYTES = 48 + 8  # a state's row; its first slot (``lanes.first_slots``)
EDGE_BYTES = 16
SLOT_BYTES = 24 + 24 + 8  # ``fut``; the vector pass's offsets, lo and hi; ``entries.incoming``'s start
PAIR_BYTES = 12 + 4  # a slot pair; its place in ``entries.incoming``'s index
ENTRY_BYTES = 4  # an entry of the vector pass
TABLE_BYTES = 8  # a slot of ``_build``'s hash table (up to 4 per state of its largest layer)


@njit(cache=True)
def _grow(arr, need):
    if need <= arr.shape[0]:
        return arr
    size = arr.shape[0]
    while size < need:
        size *= 2
    out = np.empty((size, arr.shape[1]), dtype=np.int64)
    for r in range(arr.shape[0]):  # a loop, not a slice assignment: see the module docstring
        for c in range(arr.shape[1]):
            out[r, c] = arr[r, c]
    return out


@njit(cache=True)
def _capacity(rows, need):
    """The rows ``_grow`` gives an array of ``rows`` rows that must hold ``need``."""
    size = rows
    while size < need:
        size *= 2
    return size


@njit(cache=True)
def _find(table, keys, key, mask):
    """Slot of ``key`` in the open-addressing ``table`` (indices into ``keys``), or its free slot."""
    h = (np.uint64(key) * HASH) >> np.uint64(32)
    slot = np.int64(h) & mask
    while True:
        idx = table[slot]
        if idx < 0 or keys[idx, 0] == key:
            return slot
        slot = (slot + 1) & mask


@njit(cache=True)
def _dominated(key, fp, fn, table, states, mask):
    """Whether a state one step better than ``key`` (same layer, at a position boundary) has
    forward points and cards at least ``fp`` and ``fn``.

    A state whose open runs are each at least as long as another's (matched run by run,
    same suit), possibly with extra runs of length >= 3, can finish every table the other
    can with the same hand cards: it extends or closes its runs exactly like the other and
    closes the extras. So it can reach every optimum the other can."""
    for s in range(4):
        sh = SUIT_BITS * s
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
def _build(cells, hj, need_n, need_p, need_q, max_states, max_bytes):
    """The reachable states layer by layer: ``states`` rows (key, forward max real cards,
    forward max points, alive, lane mask in two words), ``edges`` rows, and the layer bounds
    (a single bound when more than ``max_states`` states were reached, or when growing the
    arrays would pass ``max_bytes``: their new rows, half again while the old are copied,
    and the hash table).

    ``need_q >= 0``: optima only: no edges, and a state is dropped when a better state of
    the same layer (:func:`_dominated`) matches its forward values (exact for the three
    optima, not per cards count), or when even every later live hand card and every hand
    joker could reach neither ``need_n`` cards nor ``need_p`` points, nor ``need_q`` points
    with no hand joker. Otherwise every edge is kept and a state is dropped when it could
    reach neither ``need_n`` cards nor ``need_p`` points.
    """
    lay_t, lay_k, lay_h, realu, near, setok, defer, lastace, rafter, rp = cells
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
    homeless = homeless_units(lay_t, realu, setok, defer)
    nlanes, radix, lane_bits = lane_layout(defer, lastace, optima)
    strip_layer, expand_layer = lane_layers(npos) if nlanes else (-1, -1)
    bounds = np.zeros(nlayers + 1, dtype=np.int64)
    states = np.empty((1024, 6), dtype=np.int64)
    edges = np.empty((1 if optima else 4096, 2), dtype=np.int64)
    states[0, 0] = np.int64(D_BIAS) << D_SHIFT
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
        ahead, cell = layer_inputs(layer, lay_t, lay_k, lay_h, realu, near, setok, defer, lastace, rafter, homeless)
        strip, expand = layer == strip_layer, layer == expand_layer
        # The arrays grow only between passes of this loop: an array reassigned inside the
        # inner loops would have its reference count updated on every transition.
        resume, resume_lane, need = lo, 0, 0
        while True:
            mask = table.shape[0] - 1
            for a in range(resume, hi):
                if not states[a, 3]:
                    continue
                m0, m1 = states[a, LANE_MASK], states[a, LANE_MASK + 1]
                for lane in range(resume_lane if a == resume else 0, nlanes if expand else 1):
                    key = states[a, 0]
                    tag = 0
                    if expand:  # each lane's aces back into the key
                        if not has_lane(m0, m1, lane):
                            continue
                        key |= lane_bits[lane]
                        tag = lane + 1
                    if s < 4:
                        count = cell_options(key, s, cell, hj, out)
                    else:
                        count = close_options(key, setok[i], rafter[i, 3], hj, ahead, out)
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
                            tag = lane_of(new, radix) + 1
                            new &= ~ASIDE_BITS
                        probe = ((np.uint64(new) * HASH) >> np.uint64(32)) & umask  # _find, inline
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
                            states[ub, LANE_MASK] = 0
                            states[ub, LANE_MASK + 1] = 0
                            table[probe] = b
                            filled += 1
                        ub = np.uint64(b)
                        if strip:
                            bit0, bit1 = lane_bit(tag - 1)
                            states[ub, LANE_MASK] |= bit0
                            states[ub, LANE_MASK + 1] |= bit1
                        elif not expand:
                            states[ub, LANE_MASK] |= m0
                            states[ub, LANE_MASK + 1] |= m1
                        dn = out[j, 1]
                        states[ub, 1] = max(states[ub, 1], states[ua, 1] + dn)
                        states[ub, 2] = max(states[ub, 2], states[ua, 2] + dn * rp[i])
                        if not optima:
                            ue = np.uint64(nedges)
                            edges[ue, 0] = a | (b << 32)
                            edges[ue, 1] = out[j, 2] | (tag << LANE_TAG_SHIFT) | (dn << 32) | ((dn * rp[i]) << 40)
                            nedges += 1
                if need:
                    break
            if not need:
                break
            grown = STATE_BYTES * _capacity(states.shape[0], nstates + need)
            if not optima:
                grown += EDGE_BYTES * _capacity(edges.shape[0], nedges + need)
            if 3 * grown // 2 + TABLE_BYTES * 4 * (filled + need) > max_bytes:
                return states[:nstates], edges[:nedges], bounds[:1]
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
            if (
                reach_n < need_n
                and states[b, 2] + fut_p[layer + 1] + JOKER_POINTS * hj < need_p
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


@njit(cache=True, inline="always")
def optima(cells, hj, any_play, max_bytes):
    """``(best points, best cards, best points with no hand joker)``; 0 where only the empty
    play exists (every card scores at least 1 point); best cards ``-1`` when a round gave up
    at ``max_bytes`` (see :func:`_build`).

    Rounds of :func:`_build` with targets ``need`` (cards, points, points with no hand
    joker), starting at the upper bounds (every live hand card played): a round drops the
    states that can reach no target. An objective whose round optimum reaches its target
    is exact (its optimal path reaches the target, so no state of it was dropped) and
    keeps that value as its target (still exact in later rounds); an objective that falls
    short has its target lowered, by a step that doubles each round, never below the value
    found (which is achievable, so that round is exact for it).

    ``any_play``: stop at the first round that finds a play (only ``best cards > 0`` is
    then meaningful)."""
    lay_h, rp = cells.lay_h, cells.rp
    top_n = hj
    top_p = 0
    for i in range(lay_h.shape[0]):
        for s in range(4):
            top_n += lay_h[i, s]
            top_p += lay_h[i, s] * rp[i]
    need = np.array([top_p + JOKER_POINTS * hj, top_n, top_p], dtype=np.int64)
    step = np.array([10, 1, 10], dtype=np.int64)
    no_budget = np.int64(NO_BUDGET)  # not a literal: one compiled _build for every caller
    while True:
        states, _edges, bounds = _build(cells, hj, need[1], need[0], need[2], no_budget, max_bytes)
        best = np.zeros(3, dtype=np.int64)
        if bounds.shape[0] == 1:
            best[1] = -1
            return best
        nlayers = bounds.shape[0] - 1
        for b in range(bounds[nlayers - 1], bounds[nlayers]):
            d = ((states[b, 0] >> D_SHIFT) & 15) - D_BIAS
            if states[b, 3] and 0 <= d <= hj:
                best[0] = max(best[0], states[b, 2] + JOKER_POINTS * d)
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


@njit(cache=True, inline="always")
def explore(cells, hj, need_n, need_p, max_states, max_bytes):
    """The pruned DAG for ``need_n`` / ``need_p`` (see :func:`_build`) and, per
    slot, the best future points, cards and points without hand jokers (cards ``NEG_INF``: the
    slot cannot finish; points without hand jokers negative: none finishes without one).
    Returns ``(states, edges, bounds, fut, first, pairs)`` (``first`` and ``pairs``: see
    :func:`slot_pairs`); ``bounds`` has one entry when the sweep passed ``max_states``
    states, its slots that can finish ``SLOTS_PER_STATE * max_states``, or its arrays with
    the slot pairs ``max_bytes`` (see :func:`footprint`)."""
    no_optima = np.int64(-1)  # not a literal: one compiled _build for every caller
    states, edges, bounds = _build(cells, hj, need_n, need_p, no_optima, max_states, max_bytes)
    if bounds.shape[0] == 1:
        no_fut, no_pairs = np.empty((0, 3), dtype=np.int64), np.empty((0, 3), dtype=np.int32)
        return states, edges, bounds, no_fut, np.zeros(1, dtype=np.int64), no_pairs
    lo_mid = hi_mid = 0  # the states in the lanes (positions 2..13)
    if lane_layout(cells.defer, cells.lastace, np.bool_(False))[0]:
        strip, expand = lane_layers(cells.lay_t.shape[0])
        lo_mid, hi_mid = bounds[strip + 1], bounds[expand + 1]
        keep_finishing_lanes(states, edges, bounds, lo_mid, hi_mid, hj)
    first = first_slots(states, lo_mid, hi_mid)
    total = count_pairs(states, edges, lo_mid, hi_mid)  # checked before any per-slot array
    if first[-1] > SLOTS_PER_STATE * max_states or footprint(states, edges, first, total) > max_bytes:
        no_fut, no_pairs = np.empty((0, 3), dtype=np.int64), np.empty((0, 3), dtype=np.int32)
        return states, edges, bounds[:1], no_fut, first[:1], no_pairs
    pairs = slot_pairs(states, edges, first, lo_mid, hi_mid, total)
    nlayers = bounds.shape[0] - 1
    fut = np.full((first[-1], 3), NEG_INF, dtype=np.int64)  # points, cards, points with no hand joker
    for b in range(bounds[nlayers - 1], bounds[nlayers]):
        d = ((states[b, 0] >> D_SHIFT) & 15) - D_BIAS
        if states[b, 3] and 0 <= d <= hj:
            fut[first[b], 0] = JOKER_POINTS * d
            fut[first[b], 1] = d
            if d == 0:
                fut[first[b], 2] = 0
    # Unsigned indices: numba checks every signed index for a negative one, which in this
    # loop (one pass over every slot pair) cost about a quarter of its time. A slot with no
    # play without hand jokers keeps a negative third value (NEG_INF plus some points).
    for p in range(pairs.shape[0] - 1, -1, -1):
        sa, sb, e = np.uint64(pairs[p, 0]), np.uint64(pairs[p, 1]), np.uint64(pairs[p, 2])
        if fut[sb, 1] == NEG_INF:
            continue
        dn, dp = (edges[e, 1] >> 32) & 255, edges[e, 1] >> 40
        fut[sa, 0] = max(fut[sa, 0], fut[sb, 0] + dp)
        fut[sa, 1] = max(fut[sa, 1], fut[sb, 1] + dn)
        fut[sa, 2] = max(fut[sa, 2], fut[sb, 2] + dp)
    return states, edges, bounds, fut, first, pairs


@njit(cache=True, inline="always")
def footprint(states, edges, first, npairs):
    """Bytes of the arrays :func:`explore` returns (``npairs`` slot pairs) and of those the
    vector pass and the trace make per slot and per pair: checked by ``explore`` before it
    makes the pairs; what is left of the memory cap is for the entries."""
    return STATE_BYTES * states.shape[0] + EDGE_BYTES * edges.shape[0] + SLOT_BYTES * first[-1] + PAIR_BYTES * npairs
