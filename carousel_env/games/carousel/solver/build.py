"""Rebuild a concrete new table from a path's edge codes, position by position (compiled).

Runs are kept per suit while sweeping; sets are dealt at each position. Every unit of one
face is interchangeable for validity, so the rebuild only decides presentation,
deterministically:

* a hand joker or released table joker put into a run declares the card it fills;
* one put into a set declares the missing suit whose real card has the fewest copies on
  the new table (ties: clubs, diamonds, hearts, spades), so that a real copy is most
  likely still in play to release it later;
* a kept table joker keeps its declaration;
* when several long runs of a suit could be extended, the oldest is extended first;
* each meld is in reading order (``answer.pack_suggestion`` then puts the melds in
  ``canonical_table`` order).

The codes are those of ``states.cell_options`` and ``states.close_options``, layer by
layer, from a sweep's trace (``entries.trace``) or a witness (``witness.search``).
Compiled: it runs once per suggestion a sweep traces, and once per witness table found.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from carousel_env.core.cards import TABLE_JOKER
from carousel_env.games.carousel.solver.prepare import face_at

MAX_UNITS = 128  # every card of two decks and four jokers, with room to spare
MAX_MELDS = 64
_MAX_RUNS = 64  # runs open at once over all suits, and their length (a sweep may pass 14 positions)
_RUN_ROOM = 16
_MAX_SETS = 16  # sets at one position: its units (8 real cards, the jokers) fill at least 3 each


@njit(cache=True)
def _emit(units, n, out, lengths, state):
    """Append ``units[:n]`` as one meld to the flat output (``state``: [units used, melds])."""
    at = state[0]
    for j in range(n):
        out[at + j] = units[j]
    lengths[state[1]] = n
    state[0] += n
    state[1] += 1


@njit(cache=True)
def _emit_run(units, n, out, lengths, state):
    """A run in reading order. The sweep may grow one from the low ace to the high ace (14
    units, a wrap): the same units always split into A..J and Q-K-A; a run of all 13 ranks
    reads 2..K then the ace (``sort_meld``: an ace after a king is high)."""
    if n == 13 and (units[0] & 63) < 4:
        last = units[0]
        for j in range(12):
            units[j] = units[j + 1]
        units[12] = last
        _emit(units, n, out, lengths, state)
    elif n > 13:
        _emit(units, n - 3, out, lengths, state)
        _emit(units[n - 3 :], np.int64(3), out, lengths, state)
    else:
        _emit(units, n, out, lengths, state)


@njit(cache=True)
def _sort_small(values, n):
    """Insertion sort of ``values[:n]`` in place (a few units: no allocation, unlike np.sort)."""
    for a in range(1, n):
        v = values[a]
        b = a
        while b > 0 and values[b - 1] > v:
            values[b] = values[b - 1]
            b -= 1
        values[b] = v


@njit(cache=True, inline="always")
def _deal_sets(units, nunits, wild, position, final_real, groups, out, lengths, state):
    """Deal ``units`` (suit-major keys ``suit * 256 + unit``, sorted here in place) and
    ``wild`` wildcards into the fewest sets ``k`` that can hold them, round-robin, then fill
    each to 3 and then to 4 with jokers (smallest sets first), each meld in suit order.
    ``groups``: scratch rows of 4 (this runs once per position per suggestion: it
    allocates nothing)."""
    _sort_small(units, nunits)
    total = nunits + wild
    k, run = 1, 0  # the most units of one suit (the keys are sorted by suit)
    for j in range(nunits):
        run = run + 1 if j and units[j] >> 8 == units[j - 1] >> 8 else 1
        k = max(k, run)
    while 4 * k < total:
        k += 1
    assert 3 * k <= total  # the DP only closes sets it can deal
    big = nunits % k  # round-robin: the first ``big`` groups hold one unit more
    for g in range(k):
        groups[g, 4] = nunits // k + (g < big)  # column 4: the group's size
    for j in range(nunits):
        groups[j % k, j // k] = units[j]
    for fill_to in (3, 4):
        for rank in range(k):  # smallest groups first, ties in group order
            g = rank + big if rank < k - big else rank - (k - big)
            size = groups[g, 4]
            while size < fill_to and wild:
                present = 0
                for j in range(size):
                    present |= 1 << (groups[g, j] >> 8)
                best = np.int64(-1)
                for s in range(4):
                    if present >> s & 1:
                        continue
                    if best < 0 or final_real[face_at(position, s)] < final_real[face_at(position, best)]:
                        best = s
                groups[g, size] = (best << 8) | (TABLE_JOKER + face_at(position, best))
                size += 1
                wild -= 1
            groups[g, 4] = size
    for g in range(k):
        size = groups[g, 4]
        _sort_small(groups[g], size)
        for j in range(size):
            groups[g, j] &= 255
        _emit(groups[g], size, out, lengths, state)


@njit(cache=True)
def assemble(positions, both_aces, table_real, table_jokers, codes):
    """The new table as flat units and meld lengths, and the real hand cards played per face."""
    npos = positions.shape[0]
    added = np.zeros(52, dtype=np.int64)
    final_real = table_real.copy()
    for i in range(npos):
        if positions[i] == 14 and both_aces:
            continue
        for s in range(4):
            dn = codes[5 * i + s] & 31
            added[face_at(positions[i], s)] += dn
            final_real[face_at(positions[i], s)] += dn
    out = np.empty(MAX_UNITS, dtype=np.int64)
    lengths = np.empty(MAX_MELDS, dtype=np.int64)
    state = np.zeros(2, dtype=np.int64)
    runs = np.empty((_MAX_RUNS, _RUN_ROOM), dtype=np.int64)
    run_len = np.zeros(_MAX_RUNS, dtype=np.int64)
    free = 0  # next unused row of ``runs``
    suit_runs = np.empty((4, _MAX_RUNS), dtype=np.int64)  # open runs per suit, in order
    suit_count = np.zeros(4, dtype=np.int64)
    aside = np.empty((4, 8), dtype=np.int64)  # aces kept at the low ace for the high end
    aside_n = np.zeros(4, dtype=np.int64)
    units = np.empty(16, dtype=np.int64)
    set_units = np.empty(32, dtype=np.int64)
    groups = np.empty((_MAX_SETS, 5), dtype=np.int64)
    kept = np.empty(_MAX_RUNS, dtype=np.int64)
    for i in range(npos):
        p = positions[i]
        nset = np.int64(0)
        for s in range(4):
            code = codes[5 * i + s]
            dn, d, w, k3, b, x, r = (
                code & 31,
                (code >> 5) & 7,
                (code >> 8) & 7,
                (code >> 11) & 7,
                (code >> 14) & 7,
                (code >> 17) & 7,
                code >> 20,
            )
            f = face_at(p, s)
            n = 0
            if p == 14 and both_aces:
                for j in range(aside_n[s]):
                    units[n] = aside[s, j]
                    n += 1
                aside_n[s] = 0
            else:
                # hand cards first, so the sets (taken from the front) hold real cards
                for _ in range(dn + table_real[f]):
                    units[n] = f
                    n += 1
                for _ in range(table_jokers[f] - r):
                    units[n] = TABLE_JOKER + f
                    n += 1
                if d:
                    for j in range(d):
                        aside[s, j] = units[n - d + j]
                    aside_n[s] = d
                    n -= d
            for j in range(x):
                set_units[nset] = (s << 8) | units[j]
                nset += 1
            for _ in range(w):
                units[n] = TABLE_JOKER + f
                n += 1
            # extend the short runs (they must grow), then the oldest k3 long ones; close the rest
            nkept = 0
            for j in range(suit_count[s]):
                if run_len[suit_runs[s, j]] < 3:
                    kept[nkept] = suit_runs[s, j]
                    nkept += 1
            long_seen = 0
            for j in range(suit_count[s]):
                run = suit_runs[s, j]
                if run_len[run] >= 3:
                    if long_seen < k3:
                        kept[nkept] = run
                        nkept += 1
                    else:
                        _emit_run(runs[run], run_len[run], out, lengths, state)
                    long_seen += 1
            assert n - x == nkept + b
            for j in range(nkept):
                run = kept[j]
                runs[run, run_len[run]] = units[x + j]
                run_len[run] += 1
                suit_runs[s, j] = run
            for j in range(b):
                runs[free, 0] = units[x + nkept + j]
                run_len[free] = 1
                suit_runs[s, nkept + j] = free
                free += 1
            suit_count[s] = nkept + b
        wset = codes[5 * i + 4]
        if nset or wset:
            _deal_sets(set_units, nset, wset, p, final_real, groups, out, lengths, state)
    for s in range(4):
        for j in range(suit_count[s]):
            run = suit_runs[s, j]
            assert run_len[run] >= 3
            _emit_run(runs[run], run_len[run], out, lengths, state)
    return out[: state[0]], lengths[: state[1]], added
