"""The exact lay-down search of :mod:`carousel_env.games.kaluki.solver_search`, compiled with
numba, over arrays: the same best layouts in the same order (the module docstring there says
how the sweep, the bound and the leaves work; this one follows it, function by function).

The pieces are one tuple of arrays, sorted by their lowest kind (``start`` says where each
kind's begin); a new meld's piece points at its readings, a table piece carries its notation
entry (``fixed``). A free table place that takes a joker alone is a *joker slot*. What the
solver keeps in Python objects is kept in int arrays whose fields
:mod:`carousel_env.games.kaluki.kernel_leaves` names: the problem (``pb``), the running totals
(``st``), the pieces and the best layouts; the leaves are there too.

Left to the caller: the search stops and says so (``st[STOP]``) when it runs past its budget of
steps (the caller asks the Python solver then); a layout that the solver checks against the
engine's order of moves is marked ``risky``, for the caller to check (it asks for more layouts
when some fail). The solver's cut on the notation of tied layouts is not repeated (it only saves
time). Loops on stacks of frames, never recursion: numba's cache cannot hold recursive functions.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.typed import Dict

from carousel_env.games.kaluki.kernel_leaves import (
    ADDED,
    BALANCE,
    BEST_JOKERS,
    BEST_LEFT,
    CARDS,
    CARDS_LAID,
    DEPTH,
    FOUND,
    HAND_JOKERS,
    HAND_VALUE,
    JOKER_VALUE,
    JOKERS_IN,
    JOKERS_LAID,
    JOKERS_OUT,
    LAID_VALUE,
    LIMIT,
    MAX_ENTRIES,
    MELD_JOKERS,
    MELDS,
    MUST_OPEN,
    MUST_USE,
    NATURALS_LAID,
    NEED,
    OPEN,
    OPEN_VALUE,
    OPENS_NOW,
    RELEASED,
    RUN,
    SLOT,
    STATE_SIZE,
    STEPS,
    STOP,
    TAKEN,
    TAKEN_LAID,
    THRESHOLD,
    VALUE,
    WITH_MELDS,
    finish,
)
from carousel_env.games.kaluki.kernel_readings import ENTRY_WIDTH

NO_WAY = -(10**6)  # the bound of a node that cannot be completed
MAX_KINDS = 30  # natural kinds the memo's key can hold (3 ** 30 * 31 * 64 * 2 < 2 ** 63)
PACK = 1 << 20  # a bound's two values packed in one memo entry, each offset by this
PACK_BITS = 22  # the bits of the second value (PACK and more fit)
DEBT = 32  # the most jokers a balance may owe to later exchanges, in the memo's key


# ---------------------------------------------------------------- the bound


@njit(cache=True, inline="always")
def _memo_key(counts: np.ndarray, p: int, jokers: int, upfront: int) -> int:
    code = 0
    for q in range(counts.shape[0] - 1, p - 1, -1):
        code = code * 3 + counts[q]
    return ((code * (MAX_KINDS + 1) + p) * 64 + jokers + DEBT) * 2 + upfront


@njit(cache=True, inline="always")
def _fits_kinds(need: int, counts: np.ndarray) -> bool:
    for q in range(counts.shape[0]):  # noqa: SIM110 (numba compiles loops, not generators)
        if need >> q & 1 and counts[q] < 1:
            return False
    return True


@njit(cache=True, inline="always")
def _take_kinds(need: int, counts: np.ndarray, sign: int) -> None:
    for q in range(counts.shape[0]):
        if need >> q & 1:
            counts[q] -= sign


@njit(cache=True)
def bound(p0, counts, jokers0, upfront, pieces, start, release, sink, joker_value, memo, budget):
    """(Most hand value laid less ``joker_value`` a joker released, most opening value) from
    kind ``p0`` on, with a joker balance that may owe what later exchanges release; ``upfront``:
    the balance is the most jokers still laid, releases ignored (solver_search's ``bound``)."""
    kinds = counts.shape[0]
    p = p0
    while p < kinds and counts[p] == 0:
        p += 1
    if p == kinds:
        return (jokers0 * joker_value if sink else 0, 0) if jokers0 >= 0 else (NO_WAY, NO_WAY)
    hit = memo.get(_memo_key(counts, p, jokers0, upfront), -1)
    if hit >= 0:  # most nodes' bounds were met before: answered without the frames below
        return (hit >> PACK_BITS) - PACK, (hit & ((1 << PACK_BITS) - 1)) - PACK
    need, jokers_in, jokers_out, value, open_value = (
        pieces[NEED],
        pieces[JOKERS_IN],
        pieces[JOKERS_OUT],
        pieces[VALUE],
        pieces[OPEN],
    )
    size = kinds + int(counts.sum()) + 2  # each frame below another keeps a kind or lays a card
    fp = np.zeros(size, np.int64)
    fj = np.zeros(size, np.int64)
    fstep = np.zeros(size, np.int64)  # 0 entered, 1 back from keeping kind p, 2 back from piece fpiece
    fpiece = np.zeros(size, np.int64)
    flaid = np.zeros(size, np.int64)
    fopen = np.zeros(size, np.int64)
    fkey = np.zeros(size, np.int64)
    top = 0
    fp[0], fj[0] = p, jokers0
    got_laid, got_open = 0, 0  # what the frame just left gives back
    while top >= 0:
        p, jokers = fp[top], fj[top]
        if fstep[top] == 0:
            while p < kinds and counts[p] == 0:
                p += 1
            fp[top] = p
            if p == kinds:
                if jokers >= 0:
                    got_laid, got_open = (jokers * joker_value if sink else 0), 0
                else:
                    got_laid, got_open = NO_WAY, NO_WAY
                top -= 1
                continue
            key = _memo_key(counts, p, jokers, upfront)
            hit = memo.get(key, -1)
            if hit >= 0:
                got_laid, got_open = (hit >> PACK_BITS) - PACK, (hit & ((1 << PACK_BITS) - 1)) - PACK
                top -= 1
                continue
            budget[0] -= 1
            fkey[top], fstep[top] = key, 1
            if jokers >= -release[p + 1]:
                top += 1
                fp[top], fj[top], fstep[top] = p + 1, jokers, 0  # keep every copy of kind p
                continue
            got_laid, got_open = NO_WAY, NO_WAY
        if fstep[top] == 1:
            flaid[top], fopen[top] = got_laid, got_open
            i = start[p]
        else:
            i = fpiece[top]
            _take_kinds(need[i], counts, -1)
            if got_laid > NO_WAY:
                gain = value[i] - (0 if upfront else joker_value * jokers_out[i])
                flaid[top] = max(flaid[top], got_laid + gain)
                fopen[top] = max(fopen[top], got_open + open_value[i])
            i += 1
        after = 0
        while i < start[p + 1]:
            after = jokers - jokers_in[i] + (0 if upfront else jokers_out[i])
            if after >= (0 if upfront else -release[p]) and _fits_kinds(need[i], counts):
                break
            i += 1
        if i < start[p + 1]:
            _take_kinds(need[i], counts, 1)
            fpiece[top], fstep[top] = i, 2
            top += 1
            fp[top], fj[top], fstep[top] = p, after, 0
            continue
        got_laid, got_open = flaid[top], fopen[top]
        if got_laid <= NO_WAY:
            got_laid, got_open = NO_WAY, NO_WAY
        memo[fkey[top]] = (max(got_laid, NO_WAY) + PACK) << PACK_BITS | (max(got_open, NO_WAY) + PACK)
        top -= 1
    return got_laid, got_open


# ---------------------------------------------------------------- the sweep's nodes


@njit(cache=True)
def _opening_reach(p, counts, st, pb, pieces, start, release, sink, memo, budget, chosen) -> int:
    """The most opening value with jokers from the hand alone: the new melds taken so far with
    ``j`` of them (each meld at its best reading, a knapsack of their jokers), and those still to
    take from kind ``p`` on with the rest (the bound, ``upfront``), at the best ``j``."""
    hand = pb[HAND_JOKERS]
    plain = 0
    most = np.zeros(hand + 1, np.int64)  # most[j]: the most value of jokered melds with j jokers or fewer
    for k in range(st[DEPTH]):
        i = chosen[k]
        if pieces[SLOT][i] >= 0:
            continue
        need, value = pieces[JOKERS_IN][i], pieces[OPEN][i]
        if need == 0:
            plain += value
            continue
        for j in range(hand, need - 1, -1):  # a meld with more jokers than the hand has is left out
            most[j] = max(most[j], most[j - need] + value)
    reach = NO_WAY
    for j in range(hand + 1):
        rest = bound(p, counts, hand - j, 1, pieces, start, release, sink, pb[JOKER_VALUE], memo, budget)[1]
        reach = max(reach, most[j] + rest)
    return plain + reach


@njit(cache=True)
def _node_bounds(p, counts, st, pb, pieces, start, release, sink, memo, budget, chosen):
    """(Least hand value left, most opening value) below the node at kind ``p``; NO_WAY if dead
    (solver_search's ``_bound_after``, the node's piece already taken)."""
    jokers = st[BALANCE]
    if jokers < -release[p]:
        return NO_WAY, NO_WAY
    joker_value = pb[JOKER_VALUE]
    most_open = NO_WAY
    upfront = pb[THRESHOLD] and release[0]  # an opening to reach, and exchanges that could release jokers
    if upfront:
        # An opening is laid before any exchange: its jokers come from the hand alone. A player
        # who must open and cannot, so, is cut here, before the costlier bound is asked.
        most_open = bound(p, counts, pb[HAND_JOKERS], 1, pieces, start, release, sink, joker_value, memo, budget)[1]
        must = pb[MUST_OPEN] and pb[OPENS_NOW]
        if (
            must
            and _opening_reach(p, counts, st, pb, pieces, start, release, sink, memo, budget, chosen) < pb[THRESHOLD]
        ):
            return NO_WAY, NO_WAY
    laid, more_open = bound(p, counts, jokers, 0, pieces, start, release, sink, joker_value, memo, budget)
    if laid <= NO_WAY:
        return NO_WAY, NO_WAY
    if upfront:
        more_open = min(more_open, most_open)
    return pb[HAND_VALUE] - st[LAID_VALUE] + joker_value * st[RELEASED] - laid, st[OPEN_VALUE] + more_open


@njit(cache=True, inline="always")
def _keeps(left: int, opening: int, pb, st, best_left, best_jokers) -> bool:
    """Whether a node with these bounds may still give one of the ``limit`` best layouts."""
    if left <= NO_WAY:
        return False
    if (pb[MUST_OPEN] or (st[MELDS] and pb[WITH_MELDS])) and opening < pb[THRESHOLD]:
        return False
    limit = pb[LIMIT]
    if st[FOUND] >= limit:
        worst_left, worst_jokers = best_left[limit - 1], best_jokers[limit - 1]
        if left > worst_left or (left == worst_left and st[JOKERS_LAID] > worst_jokers):
            return False
    return True


@njit(cache=True, inline="always")
def _fits(i: int, counts, pieces, slot_used, run_added, run_room) -> bool:
    slot, run = pieces[SLOT][i], pieces[RUN][i]
    if slot >= 0 and slot_used[slot]:
        return False
    if run >= 0 and run_added[run] + pieces[ADDED][i] > run_room[run]:
        return False
    return _fits_kinds(pieces[NEED][i], counts)


@njit(cache=True, inline="always")
def _take(i: int, sign: int, counts, st, pb, pieces, chosen, slot_used, run_added) -> None:
    """Take piece ``i`` (``sign`` 1) or put it back (-1)."""
    jokers_in, jokers_out = pieces[JOKERS_IN][i], pieces[JOKERS_OUT][i]
    _take_kinds(pieces[NEED][i], counts, sign)
    st[BALANCE] += sign * (jokers_out - jokers_in)
    st[LAID_VALUE] += sign * pieces[VALUE][i]
    st[RELEASED] += sign * jokers_out
    st[JOKERS_LAID] += sign * jokers_in
    st[CARDS_LAID] += sign * pieces[CARDS][i]
    st[NATURALS_LAID] += sign * (pieces[CARDS][i] - jokers_in)
    st[OPEN_VALUE] += sign * pieces[OPEN][i]
    slot = pieces[SLOT][i]
    if slot < 0:
        st[MELDS] += sign
        st[MELD_JOKERS] += sign * jokers_in
    else:
        slot_used[slot] = sign > 0
    run = pieces[RUN][i]
    if run >= 0:
        run_added[run] += sign * pieces[ADDED][i]
    if pb[TAKEN] >= 0 and pieces[NEED][i] >> pb[TAKEN] & 1:
        st[TAKEN_LAID] += sign
    if sign > 0:
        chosen[st[DEPTH]] = i
        st[DEPTH] += 1
    else:
        st[DEPTH] -= 1


# ---------------------------------------------------------------- the sweep


@njit(cache=True)
def search(counts, pb, pieces, start, reading_values, reading_jokers, reading_entries, fixed, slots, node_budget):
    """The best ``pb[LIMIT]`` layouts (:data:`BEST_FIELDS`) and the final totals (``st[STOP]``
    set: the search stopped, past its budget). The sweep (solver_search's
    ``visit``): at kind ``p`` take a piece whose lowest natural is ``p`` (from the piece taken
    last there on, so that each multiset of pieces is met once) or keep the copies of ``p``
    left; children in order of their bound on the value left."""
    slot_used, run_added, run_room, js_slot, _js_run, _js_most, _js_entries = slots
    kinds = counts.shape[0]
    limit = pb[LIMIT]
    best = (
        np.zeros(limit, np.int64),
        np.zeros(limit, np.int64),
        np.full((limit, MAX_ENTRIES, ENTRY_WIDTH), -1, np.int64),
        np.zeros(limit, np.int64),
        np.full((limit, MAX_ENTRIES), -1, np.int64),
        np.zeros(limit, np.int64),
        np.full((limit, MAX_ENTRIES), -1, np.int64),
        np.zeros(limit, np.int64),
        np.full((limit, MAX_ENTRIES), -1, np.int64),
        np.zeros(limit, np.int64),
        np.zeros(limit, np.int64),
        np.zeros(limit, np.int64),
    )
    st = np.zeros(STATE_SIZE, np.int64)
    st[BALANCE] = pb[HAND_JOKERS]
    full = counts
    counts = counts.copy()
    memo = Dict.empty(key_type=types.int64, value_type=types.int64)
    budget = np.array([node_budget], np.int64)
    chosen = np.zeros(MAX_ENTRIES, np.int64)
    sink = js_slot.shape[0] > 0
    # The most jokers exchanges at kinds from p on may release: each table place's best once.
    release = np.zeros(kinds + 1, np.int64)
    best_out = np.zeros(slot_used.shape[0], np.int64)
    for p in range(kinds - 1, -1, -1):
        for i in range(start[p], start[p + 1]):
            if pieces[JOKERS_OUT][i]:
                best_out[pieces[SLOT][i]] = max(best_out[pieces[SLOT][i]], pieces[JOKERS_OUT][i])
        release[p] = best_out.sum()
    size = kinds + int(counts.sum()) + 2
    width = start[kinds] + 1
    fp = np.zeros(size, np.int64)
    ffirst = np.zeros(size, np.int64)
    fnext = np.full(size, -1, np.int64)  # -1: children not listed yet; else the next child's place
    fcount = np.zeros(size, np.int64)
    fchild = np.zeros(size, np.int64)  # the child being visited (a piece; -1 the kind kept)
    fsaved = np.zeros(size, np.int64)
    which = np.empty((size, width), np.int64)  # each node writes its children before reading them
    bounds = np.zeros(width, np.int64)
    top = 0
    while top >= 0:
        p = fp[top]
        if fnext[top] == -1:  # a node entered
            budget[0] -= 1
            if budget[0] < 0 or st[STOP]:
                st[STOP] = 1
                break
            while p < kinds and counts[p] == 0:
                p += 1
                ffirst[top] = start[p]
            fp[top] = p
            if p == kinds:
                finish(
                    chosen, st, pb, pieces, reading_values, reading_jokers, reading_entries, fixed, slots, best, budget
                )
                top -= 1
                continue
            n = 0
            for i in range(ffirst[top], start[p + 1]):
                budget[0] -= 1  # each child weighed is a step
                if not _fits(i, counts, pieces, slot_used, run_added, run_room):
                    continue
                _take(i, 1, counts, st, pb, pieces, chosen, slot_used, run_added)
                left, opening = _node_bounds(p, counts, st, pb, pieces, start, release, sink, memo, budget, chosen)
                if _keeps(left, opening, pb, st, best[BEST_LEFT], best[BEST_JOKERS]):
                    bounds[n], which[top, n] = left * 2 + 1, i
                    n += 1
                _take(i, -1, counts, st, pb, pieces, chosen, slot_used, run_added)
            if not (pb[MUST_USE] == p and counts[p] == full[p]):
                saved = counts[p]
                counts[p] = 0
                left, opening = _node_bounds(p + 1, counts, st, pb, pieces, start, release, sink, memo, budget, chosen)
                if _keeps(left, opening, pb, st, best[BEST_LEFT], best[BEST_JOKERS]):
                    bounds[n], which[top, n] = left * 2, -1
                    n += 1
                counts[p] = saved
            order = np.argsort(bounds[:n], kind="mergesort")
            which[top, :n] = which[top, :n][order]
            fcount[top], fnext[top] = n, 0
        elif fchild[top] < 0:  # back from a child: undo it
            counts[p] = fsaved[top]
        else:
            _take(fchild[top], -1, counts, st, pb, pieces, chosen, slot_used, run_added)
        entered = False
        while fnext[top] < fcount[top] and not entered:
            i = which[top, fnext[top]]
            fnext[top] += 1
            if i < 0:
                fsaved[top] = counts[p]
                counts[p] = 0
                left, opening = _node_bounds(p + 1, counts, st, pb, pieces, start, release, sink, memo, budget, chosen)
                if _keeps(left, opening, pb, st, best[BEST_LEFT], best[BEST_JOKERS]):
                    fchild[top] = -1
                    fp[top + 1], ffirst[top + 1], fnext[top + 1] = p + 1, start[p + 1], -1
                    entered = True
                else:
                    counts[p] = fsaved[top]
                continue
            _take(i, 1, counts, st, pb, pieces, chosen, slot_used, run_added)
            left, opening = _node_bounds(p, counts, st, pb, pieces, start, release, sink, memo, budget, chosen)
            if _keeps(left, opening, pb, st, best[BEST_LEFT], best[BEST_JOKERS]):
                fchild[top] = i
                fp[top + 1], ffirst[top + 1], fnext[top + 1] = p, i, -1
                entered = True
            else:
                _take(i, -1, counts, st, pb, pieces, chosen, slot_used, run_added)
        top = top + 1 if entered else top - 1
    if budget[0] < 0:  # spent in the last leaves too
        st[STOP] = 1
    st[STEPS] = node_budget - budget[0]
    return best, st
