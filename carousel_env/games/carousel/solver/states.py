"""The sweep's states: a state's key in one int64, and the transitions between states (compiled).

Positions ``1..14`` are the ranks in run order: ``1`` the low ace, ``2..13`` the ranks,
``14`` the high ace. A sweep visits one *cell* (position, suit) at a time, then closes
the position's sets (a *layer* each: ``5 * position index + suit``, suit 4 the close).
Every unit of the cell's face either extends an open run of its suit, starts a new run,
goes to a set of the position's rank, or (at the low ace, when aces may be high too) is
set aside for a run Q-K-A at the high ace.

A state's key (one int64, see the ``*_SHIFT`` constants):

* per suit, the open runs of length 1, 2 and >= 3 (``c1, c2, c3``); runs of length 1 or 2
  must be extended, a run of length >= 3 may close. Closing a long run while starting a
  new one of the same suit is never better than extending it, so it is not tried;
* per suit, the aces set aside at the low ace for the high ace, only while sweeping the
  low ace and the high ace (between them the sweep carries them as *lanes*: ``lanes``);
* ``d`` = wildcards placed minus table jokers released so far (stored as ``d + D_BIAS``).
  A table joker of face ``f`` is released as soon as the new table holds a real ``f`` for
  it (``check_play`` rule 4); releasing is never worse (the wildcard can go back where the
  joker was), so each cell releases as many as it may. At the end ``d`` is the number of
  hand jokers played, which must lie in ``0..hand jokers``. Wildcards may be placed before
  the release that pays for them: a play is one rearrangement, only the totals matter;
* the units this position has sent to sets so far (total and largest per suit): they
  can form sets exactly when some ``k`` has ``largest <= k`` and ``3k <= total + wild
  <= 4k`` (deal the units round-robin by suit into ``k`` sets).

The root's key is ``D_BIAS << D_SHIFT`` (nothing open, ``d = 0``). The transitions are
shared by the exact sweeps (``sweep``) and the witness searches (``witness``):
:func:`layer_inputs` reads a layer's cell once, :func:`cell_options` and
:func:`close_options` list a state's successors (each ``(key, hand cards played, code)``;
the code is what ``build`` rebuilds the table from), and every successor they list passes
:func:`may_finish`, a necessary condition to reach a complete table.

Also here, as both ``lanes`` and ``sweep`` read them: the layout of a row of the sweep's
state table and of an edge.
"""

from __future__ import annotations

import numpy as np
from numba import njit

SUIT_BITS = 9  # c1, c2, c3: 3 bits each
ASIDE_SHIFT = 36  # 3 bits per suit
D_SHIFT = 48  # d + D_BIAS, 4 bits
D_BIAS = 4
TX_SHIFT = 52  # set units at this position, 5 bits
MX_SHIFT = 57  # largest per suit, 3 bits
ASIDE_BITS = np.int64(4095) << ASIDE_SHIFT
HASH = np.uint64(0x9E3779B97F4A7C15)  # Fibonacci hashing of keys

# a state row: key, forward max real cards, forward max points, alive, lane mask (2 words)
LANE_MASK = 4  # the column of the lane mask's first word
# an edge is two int64: (from | to << 32, code | (lane + 1) << 24 | hand cards << 32 | their
# points << 40); the lane only on edges into the lane layers and out of them
LOW_WORD = (1 << 32) - 1
LANE_TAG_SHIFT = 24
CODE_BITS = (1 << LANE_TAG_SHIFT) - 1


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
def homeless_units(lay_t, realu, setok, defer):
    """Per cell (one row past the last position, all 0), the table units that with no
    wildcard could go neither to a new run, nor to a set, nor be set aside: at most the
    new runs its next two cells can carry, and one unit per set of the most sets its rank
    can hold (largest ``k`` with ``sum over suits of min(units, k) >= 3k``). A wildcard
    adds at most one new run and one set (the most sets grow by at most one per wildcard:
    past the no-wildcard most, each step of ``k`` loses at least one unit of room).
    These units must extend open runs (see :func:`may_finish`)."""
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
def may_finish(key, s, wild, ahead):
    """A necessary condition for ``key``, just after the cell of suit ``s`` (4: after the
    close), to reach a complete table with at most ``wild`` more wildcards; ``ahead``: per
    suit, the units that may stand at its next cell, then (see :func:`homeless_units`) the table
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
        c1 = (key >> (SUIT_BITS * t)) & 7
        runs = c1 + ((key >> (SUIT_BITS * t + 3)) & 7)
        short += max(0, runs - ahead[t]) + max(0, c1 - ahead[8 + t])  # runs of length 1 grow twice
        most_homeless = max(most_homeless, ahead[4 + t] - runs - ((key >> (SUIT_BITS * t + 6)) & 7))
    wild -= short
    if wild < 0 or most_homeless > 2 * wild:
        return False
    units = (key >> TX_SHIFT) & 31
    if units == 0:
        return True
    k = max((key >> MX_SHIFT) & 7, 1)
    while True:
        room = units + wild
        for t in range(s + 1, 4):  # the position's later suits: the units their runs leave free
            runs = ((key >> (SUIT_BITS * t)) & 7) + ((key >> (SUIT_BITS * t + 3)) & 7)
            room += min(max(0, ahead[t] - runs), k)
        if 3 * k > room:  # room gains at most 3 per step of k: no larger k fits either
            return False
        if 4 * k >= units:
            return True
        k += 1


@njit(cache=True)
def layer_inputs(layer, lay_t, lay_k, lay_h, realu, near, setok, defer, lastace, rafter, homeless):
    """``(ahead, cell)`` of a layer, as scalars: see :func:`may_finish` and :func:`cell_options`
    (called once per layer, or once per state a witness search expands)."""
    i, s = layer // 5, layer % 5
    c = min(s, 3)
    # each suit's next cell (this position's for the later suits), for may_finish
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
def cell_options(key, s, cell, hj, out):
    """Transitions of ``key`` at a cell of suit ``s`` into ``out``; returns the count.

    ``cell``: what the transitions read of the cell's arrays, as scalars, read once per layer
    by ``sweep``'s layer loop (every array passed to a function, inlined or not, costs two atomic
    reference-count updates per call).

    Each row: new key, hand cards played, code (dn, aside, w, k3, b, x, r packed 5/3/3/3/3/3/3 bits).
    """
    lay_t, lay_k, lay_h, defer, setok, lastace, ra, real1, real2, near1, near2, ahead = cell
    sh = SUIT_BITS * s
    c1 = (key >> sh) & 7
    c2 = (key >> (sh + 3)) & 7
    c3 = (key >> (sh + 6)) & 7
    aside = (key >> (ASIDE_SHIFT + 3 * s)) & 7
    d = ((key >> D_SHIFT) & 15) - D_BIAS
    tx = (key >> TX_SHIFT) & 31
    mx = (key >> MX_SHIFT) & 7
    need = c1 + c2
    if lastace:
        t_real, k_jok, hand, dmax, set_here = aside, 0, 0, 0, False
    else:
        t_real, k_jok, hand, dmax, set_here = lay_t, lay_k, lay_h, defer, setok != 0
    base = key & ~((np.int64(511) << sh) | (np.int64(15) << D_SHIFT))
    if lastace:
        base &= ~(np.int64(7) << (ASIDE_SHIFT + 3 * s))  # the aces set aside are placed here
    base &= ~((np.int64(31) << TX_SHIFT) | (np.int64(7) << MX_SHIFT))
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
                        new |= dd << (ASIDE_SHIFT + 3 * s)
                        new |= (d2 + D_BIAS) << D_SHIFT
                        new |= (tx + x) << TX_SHIFT
                        new |= max(mx, x) << MX_SHIFT
                        if not may_finish(new, s, left, ahead):
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
def close_options(key, setok, jokers_left, hj, ahead, out):
    """Wildcards put into this position's sets (code = how many); ``setok``: whether the
    position may hold sets, ``jokers_left``: the table jokers releasable after it,
    ``ahead``: as for :func:`may_finish`, the next position's cells."""
    d = ((key >> D_SHIFT) & 15) - D_BIAS
    tx = (key >> TX_SHIFT) & 31
    mx = (key >> MX_SHIFT) & 7
    base = key & ~((np.int64(15) << D_SHIFT) | (np.int64(31) << TX_SHIFT) | (np.int64(7) << MX_SHIFT))
    count = 0
    for wset in range(max(hj + jokers_left - d, -1) + 1):
        if wset and not setok:
            break
        new = base | ((d + wset + D_BIAS) << D_SHIFT)
        if _sets_ok(tx, mx, wset) and may_finish(new, 4, hj + jokers_left - d - wset, ahead):
            out[count, 0] = new
            out[count, 1] = 0
            out[count, 2] = wset
            count += 1
    return count
