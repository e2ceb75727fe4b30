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
* per suit, the aces set aside at the low ace for the high ace;
* ``d`` = wildcards placed minus table jokers released so far. A table joker of face
  ``f`` is released as soon as the new table holds a real ``f`` for it (``check_play``
  rule 4); releasing is never worse (the wildcard can go back where the joker was), so
  each cell releases as many as it may. At the end ``d`` is the number of hand jokers
  played, which must lie in ``0..hand jokers``. Wildcards may be placed before the
  release that pays for them: a play is one rearrangement, only the totals matter;
* the units this position has sent to sets so far (total and largest per suit): they
  can form sets exactly when some ``k`` has ``largest <= k`` and ``3k <= total + wild
  <= 4k`` (deal the units round-robin by suit into ``k`` sets).

The passes:

1. ``optima``: ``_build`` with no edges, in rounds with targets (every live hand card
   played first): states that can reach no target, or that a state with longer open
   runs (:func:`_dominated`) matches, are dropped; a round whose optima reach their
   targets is exact (see :func:`optima`);
2. ``explore``: ``_build`` with the edges (each with the hand cards it plays and their
   points), keeping the states that can reach ``need_n`` cards or ``need_p`` points
   (with per-count points targets, see :func:`_build`); then backward, per state the
   exact best future points, future cards and future points with no hand joker;
3. forward vector pass: per state, the best points for every count of real hand cards
   played, keeping only entries that can still reach ``need_n`` cards or ``need_p``
   points (so every final entry a suggestion slot can pick is exact), with one
   back-pointer (edge) per entry, stored only for the counts that can still matter.

Everything is int64 so that every jitted function compiles for one signature.
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
_NEG = -(1 << 40)
NO_BUDGET = 1 << 62  # no state budget

# edge columns
# an edge is two int64: (from | to << 32, code | hand cards << 32 | their points << 40)
_LOW = (1 << 32) - 1


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
    h = (np.uint64(key) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(32)
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
def _cell_options(key, s, i, lay_t, lay_k, lay_h, realu, near, setok, defer, lastace, rafter, hj, out):
    """Transitions of ``key`` at cell (position index ``i``, suit ``s``) into ``out``; returns the count.

    Each row: new key, hand cards played, code (dn, aside, w, k3, b, x, r packed 5/3/3/3/3/3/3 bits).
    """
    sh = _SUIT_BITS * s
    c1 = (key >> sh) & 7
    c2 = (key >> (sh + 3)) & 7
    c3 = (key >> (sh + 6)) & 7
    aside = (key >> (_ASIDE_SHIFT + 3 * s)) & 7
    d = ((key >> _D_SHIFT) & 15) - _D_BIAS
    tx = (key >> _TX_SHIFT) & 31
    mx = (key >> _MX_SHIFT) & 7
    need = c1 + c2
    if lastace[i]:
        t_real, k_jok, hand, dmax, set_here = aside, 0, 0, 0, False
    else:
        t_real, k_jok, hand, dmax, set_here = lay_t[i, s], lay_k[i, s], lay_h[i, s], defer[i, s], setok[i] != 0
    ra = rafter[i, s]
    base = key & ~((np.int64(511) << sh) | (np.int64(15) << _D_SHIFT))
    if lastace[i]:
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
                n1 = realu[i + 1, s] + (left if (near[i + 1, s] or left >= 3) else 0)
                n2 = realu[i + 2, s] + (left if (near[i + 2, s] or left >= 3) else 0)
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


@njit(cache=True)
def _close_options(key, i, setok, rafter, hj, out):
    """Wildcards put into this position's sets (code = how many)."""
    d = ((key >> _D_SHIFT) & 15) - _D_BIAS
    tx = (key >> _TX_SHIFT) & 31
    mx = (key >> _MX_SHIFT) & 7
    base = key & ~((np.int64(15) << _D_SHIFT) | (np.int64(31) << _TX_SHIFT) | (np.int64(7) << _MX_SHIFT))
    count = 0
    for wset in range(max(hj + rafter[i, 3] - d, -1) + 1):
        if wset and not setok[i]:
            break
        if _sets_ok(tx, mx, wset):
            out[count, 0] = base | ((d + wset + _D_BIAS) << _D_SHIFT)
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
    forward max points, alive), ``edges`` rows, and the layer bounds.

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
    bounds = np.zeros(nlayers + 1, dtype=np.int64)
    states = np.empty((1024, 4), dtype=np.int64)
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
        if table.shape[0] < size:
            table = np.full(size, -1, dtype=np.int64)
        else:
            table[:] = -1
        mask = table.shape[0] - 1
        filled = 0
        for a in range(lo, hi):
            if not states[a, 3]:
                continue
            key = states[a, 0]
            if s < 4:
                count = _cell_options(
                    key, s, i, lay_t, lay_k, lay_h, realu, near, setok, defer, lastace, rafter, hj, out
                )
            else:
                count = _close_options(key, i, setok, rafter, hj, out)
            if not optima:
                edges = _grow(edges, nedges + count)
            for j in range(count):
                new = out[j, 0]
                if 2 * (filled + 1) > table.shape[0]:  # keep the load under one half
                    table = np.full(2 * table.shape[0], -1, dtype=np.int64)
                    mask = table.shape[0] - 1
                    for b in range(hi, nstates):
                        table[_find(table, states, states[b, 0], mask)] = b
                slot = _find(table, states, new, mask)
                b = table[slot]
                if b < 0:
                    states = _grow(states, nstates + 1)
                    b = nstates
                    nstates += 1
                    states[b, 0] = new
                    states[b, 1] = -1
                    states[b, 2] = -1
                    states[b, 3] = 1
                    table[slot] = b
                    filled += 1
                dn = out[j, 1]
                states[b, 1] = max(states[b, 1], states[a, 1] + dn)
                states[b, 2] = max(states[b, 2], states[a, 2] + dn * rp[i])
                if not optima:
                    edges[nedges, 0] = a | (b << 32)
                    edges[nedges, 1] = out[j, 2] | (dn << 32) | ((dn * rp[i]) << 40)
                    nedges += 1
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
    while True:
        states, _edges, bounds = _build(
            lay_t,
            lay_k,
            lay_h,
            realu,
            near,
            setok,
            defer,
            lastace,
            rafter,
            rp,
            hj,
            need[1],
            need[0],
            need[2],
            step[:1],
            NO_BUDGET,
        )
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
    state, the best future points, cards and points without hand jokers (``_NEG``: the
    state cannot finish)."""
    states, edges, bounds = _build(
        lay_t, lay_k, lay_h, realu, near, setok, defer, lastace, rafter, rp, hj, need_n, need_p, -1, tgt, max_states
    )
    nstates = states.shape[0]
    if bounds.shape[0] == 1:
        return states, edges, bounds, np.empty((0, 3), dtype=np.int64)
    nlayers = bounds.shape[0] - 1
    fut = np.full((nstates, 3), _NEG, dtype=np.int64)  # points, cards, points with no hand joker
    for b in range(bounds[nlayers - 1], bounds[nlayers]):
        d = ((states[b, 0] >> _D_SHIFT) & 15) - _D_BIAS
        if states[b, 3] and 0 <= d <= hj:
            fut[b, 0] = 25 * d
            fut[b, 1] = d
            if d == 0:
                fut[b, 2] = 0
    for e in range(edges.shape[0] - 1, -1, -1):
        a, b = edges[e, 0] & _LOW, edges[e, 0] >> 32
        if fut[b, 1] == _NEG:
            continue
        dn, dp = (edges[e, 1] >> 32) & 255, edges[e, 1] >> 40
        fut[a, 0] = max(fut[a, 0], fut[b, 0] + dp)
        fut[a, 1] = max(fut[a, 1], fut[b, 1] + dn)
        if fut[b, 2] != _NEG:
            fut[a, 2] = max(fut[a, 2], fut[b, 2] + dp)
    return states, edges, bounds, fut


@njit(cache=True)
def vector(states, edges, bounds, fut, hj, need_n, need_p, tgt):
    """Pass 3: best points per (cards, hand jokers) for every entry with at least ``need_n``
    cards or ``need_p`` points (exact: no prefix of such a play is ever pruned), and with
    ``tgt`` (see :func:`_build`) only the entries of ``n >= need_n`` cards that reach
    ``tgt[n]`` points or ``need_p`` (exact; the caller checks that each count reached its
    target, else the best of that count may be missing).

    Returns ``(best, where, back, offsets)``: ``best[c, j]`` the points (-1: none or not
    needed), ``where[c, j]`` the (final state, real cards) holding it; ``back`` and
    ``offsets`` are for :func:`trace`.
    """
    nstates = states.shape[0]
    nlayers = bounds.shape[0] - 1
    # entry (state a, n real cards) at offsets[a] + n, for n in lo[a] .. hi[a] - 1: an entry
    # with fewer than lo[a] cards (at most 10 points each) can reach neither need_n nor need_p
    offsets = np.zeros(nstates + 1, dtype=np.int64)
    lo = np.zeros(nstates, dtype=np.int64)
    hi = np.zeros(nstates, dtype=np.int64)
    start = 0
    for a in range(nstates):
        if fut[a, 1] != _NEG:
            hi[a] = states[a, 1] + 1
            if a:
                lo[a] = min(hi[a], max(0, min(need_n - fut[a, 1], (need_p - fut[a, 0] + 9) // 10)))
        offsets[a] = start - lo[a]
        start += hi[a] - lo[a]
    offsets[nstates] = start
    val = np.full(start, -1, dtype=np.int64)
    back = np.full(start, -1, dtype=np.int64)
    val[0] = 0
    for e in range(edges.shape[0]):
        a, b = edges[e, 0] & _LOW, edges[e, 0] >> 32
        fn, fp = fut[b, 1], fut[b, 0]
        if fn == _NEG:
            continue
        dn, dp = (edges[e, 1] >> 32) & 255, edges[e, 1] >> 40
        oa, ob = offsets[a], offsets[b]
        for n in range(lo[a], hi[a]):
            v = val[oa + n]
            if v < 0:
                continue
            n2, v2 = n + dn, v + dp
            if n2 + fn < need_n and v2 + fp < need_p:
                continue
            if v2 > val[ob + n2]:
                val[ob + n2] = v2
                back[ob + n2] = e
    most = fut[0, 1]
    best = np.full((most + 1, hj + 1), -1, dtype=np.int64)
    where = np.zeros((most + 1, hj + 1, 2), dtype=np.int64)
    for b in range(bounds[nlayers - 1], bounds[nlayers]):
        if fut[b, 1] == _NEG:
            continue
        d = ((states[b, 0] >> _D_SHIFT) & 15) - _D_BIAS
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
    return best, where, back, offsets


@njit(cache=True)
def trace(edges, back, offsets, nlayers, state, n):
    """The edge codes, layer by layer from the root, of the stored optimum ending in ``(state, n)``."""
    codes = np.empty(nlayers, dtype=np.int64)
    for layer in range(nlayers - 1, -1, -1):
        e = back[offsets[state] + n]
        codes[layer] = edges[e, 1] & _LOW
        n -= (edges[e, 1] >> 32) & 255
        state = edges[e, 0] & _LOW
    return codes
