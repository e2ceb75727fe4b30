"""The exact lay-down search of :mod:`carousel_env.games.kaluki.solver_search`, compiled with
numba, over arrays: the same best layouts in the same order (the module docstring there says
how the sweep, the bound and the leaves work; this one follows it, function by function).

The pieces (:data:`PIECE_FIELDS`) are one tuple of arrays, sorted by their lowest kind (``start``
says where each kind's begin); a new meld's piece points at its readings, a table piece carries
its notation entry (``fixed``). A free table place that takes a joker alone is a *joker slot*.
What the solver keeps in Python objects is kept here in int arrays named by constants: the
problem (``pb``), the running totals (``st``) and the best layouts (:data:`BEST_FIELDS`).

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

from carousel_env.games.kaluki.kernel_readings import ENTRY_WIDTH, row_less

MAX_ENTRIES = 32  # entries a layout holds: its melds, table pieces and jokers laid alone
NO_WAY = -(10**6)  # the bound of a node that cannot be completed
MAX_KINDS = 30  # natural kinds the memo's key can hold (3 ** 30 * 31 * 64 * 2 < 2 ** 63)
PACK = 1 << 20  # a bound's two values packed in one memo entry, each offset by this
PACK_BITS = 22  # the bits of the second value (PACK and more fit)
PLACES = 16  # a joker laid alone is noted slot * PLACES + its place (a slot has at most RUN_MAX)
DEBT = 32  # the most jokers a balance may owe to later exchanges, in the memo's key

# The problem (``pb``): what solver_search.Problem holds, and what makes a layout risky.
# WAYS: the ways to lay jokers alone tried at a leaf, the caller's limit (LIMIT may be more).
(HAND_VALUE, HAND_JOKERS, KEEP, TAKEN, MUST_OPEN, THRESHOLD, WITH_MELDS, LIMIT, MUST_USE, HAND_CARDS,
 HAND_NATURALS, TAKEN_COPIES, JOKER_VALUE, REUSE_NOW, RISKY_RELEASE, RISKY_EMPTY, OPENS_NOW,
 WAYS) = range(18)  # fmt: skip
PROBLEM_SIZE = 18
# The running totals (``st``).
(BALANCE, LAID_VALUE, JOKERS_LAID, CARDS_LAID, NATURALS_LAID, OPEN_VALUE, MELDS, DEPTH, TAKEN_LAID,
 FOUND, RELEASED, MELD_JOKERS, STOP, STEPS) = range(14)  # fmt: skip
STATE_SIZE = 14
# The pieces' arrays, in this order.
PIECE_FIELDS = ("need", "jokers_in", "jokers_out", "value", "open_value", "cards", "reading_start",
                "reading_count", "slot", "run", "added")  # fmt: skip
NEED, JOKERS_IN, JOKERS_OUT, VALUE, OPEN, CARDS, READING_START, READING_COUNT, SLOT, RUN, ADDED = range(11)
# The best layouts' arrays, in this order.
(BEST_LEFT, BEST_JOKERS, BEST_ROWS, BEST_ROWS_N, BEST_READINGS, BEST_OPEN, BEST_PIECES, BEST_PIECES_N, BEST_EXTRA,
 BEST_EXTRA_N, BEST_RELEASED, BEST_RISKY) = range(12)  # fmt: skip
BEST_FIELDS = ("left", "jokers", "rows", "rows_n", "readings", "open_value", "pieces", "pieces_n",
               "extra", "extra_n", "released", "risky")  # fmt: skip


# ---------------------------------------------------------------- keys


@njit(cache=True)
def compare_keys(left_a, jokers_a, rows_a, n_a, left_b, jokers_b, rows_b, n_b) -> int:
    """-1, 0 or 1 as key a (value left, jokers laid, sorted entries) sorts before, with or after b."""
    if left_a != left_b:
        return -1 if left_a < left_b else 1
    if jokers_a != jokers_b:
        return -1 if jokers_a < jokers_b else 1
    for i in range(min(n_a, n_b)):
        c = row_less(rows_a[i], rows_b[i])
        if c != 0:
            return c
    if n_a != n_b:
        return -1 if n_a < n_b else 1
    return 0


@njit(cache=True)
def _sort_rows(rows: np.ndarray, tags: np.ndarray, n: int) -> None:
    """Sort the first ``n`` entries (and their tags) in place: an insertion sort (n is small)."""
    for i in range(1, n):
        j = i
        while j > 0 and row_less(rows[j], rows[j - 1]) < 0:
            for k in range(ENTRY_WIDTH):
                rows[j, k], rows[j - 1, k] = rows[j - 1, k], rows[j, k]
            tags[j], tags[j - 1] = tags[j - 1], tags[j]
            j -= 1


# ---------------------------------------------------------------- the bound


@njit(cache=True)
def _memo_key(counts: np.ndarray, p: int, jokers: int, upfront: int) -> int:
    code = 0
    for q in range(counts.shape[0] - 1, p - 1, -1):
        code = code * 3 + counts[q]
    return ((code * (MAX_KINDS + 1) + p) * 64 + jokers + DEBT) * 2 + upfront


@njit(cache=True)
def _fits_kinds(need: int, counts: np.ndarray) -> bool:
    for q in range(counts.shape[0]):  # noqa: SIM110 (numba compiles loops, not generators)
        if need >> q & 1 and counts[q] < 1:
            return False
    return True


@njit(cache=True)
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
    fp[0], fj[0] = p0, jokers0
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
def _node_bounds(p, counts, st, pb, pieces, start, release, sink, memo, budget):
    """(Least hand value left, most opening value) below the node at kind ``p``; NO_WAY if dead
    (solver_search's ``_bound_after``, the node's piece already taken)."""
    jokers = st[BALANCE]
    if jokers < -release[p]:
        return NO_WAY, NO_WAY
    joker_value = pb[JOKER_VALUE]
    laid, more_open = bound(p, counts, jokers, 0, pieces, start, release, sink, joker_value, memo, budget)
    if laid <= NO_WAY:
        return NO_WAY, NO_WAY
    if pb[THRESHOLD] and release[0]:
        # An opening is laid before any exchange: its jokers come from the hand alone.
        upfront = bound(p, counts, pb[HAND_JOKERS], 1, pieces, start, release, sink, joker_value, memo, budget)
        more_open = min(more_open, upfront[1])
    return pb[HAND_VALUE] - st[LAID_VALUE] + joker_value * st[RELEASED] - laid, st[OPEN_VALUE] + more_open


@njit(cache=True)
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


@njit(cache=True)
def _fits(i: int, counts, pieces, slot_used, run_added, run_room) -> bool:
    slot, run = pieces[SLOT][i], pieces[RUN][i]
    if slot >= 0 and slot_used[slot]:
        return False
    if run >= 0 and run_added[run] + pieces[ADDED][i] > run_room[run]:
        return False
    return _fits_kinds(pieces[NEED][i], counts)


@njit(cache=True)
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


# ---------------------------------------------------------------- the leaves


@njit(cache=True)
def _insert(left, jokers, rows, tags, n, opening, risky, st, pb, chosen, extra, extra_n, best) -> None:
    """Put a layout among the ``limit`` best, in key order (one no better than the ``limit``-th
    is left out)."""
    limit = pb[LIMIT]
    b_left, b_jokers, b_rows, b_n, b_tags, b_open, b_pieces, b_pieces_n, b_extra, b_extra_n, b_released, b_risky = best
    found = st[FOUND]
    at = found
    while (
        at > 0
        and compare_keys(left, jokers, rows, n, b_left[at - 1], b_jokers[at - 1], b_rows[at - 1], b_n[at - 1]) < 0
    ):
        at -= 1
    if at >= limit:
        return
    for j in range(min(found, limit - 1), at, -1):
        for field in (b_left, b_jokers, b_n, b_open, b_pieces_n, b_extra_n, b_released, b_risky):
            field[j] = field[j - 1]
        b_rows[j] = b_rows[j - 1]
        b_tags[j] = b_tags[j - 1]
        b_pieces[j] = b_pieces[j - 1]
        b_extra[j] = b_extra[j - 1]
    b_left[at], b_jokers[at], b_n[at], b_open[at] = left, jokers, n, opening
    b_rows[at, :, :] = rows
    b_tags[at, :] = -1
    b_tags[at, :n] = tags[:n]
    depth = st[DEPTH]
    b_pieces[at, :] = -1
    b_pieces[at, :depth] = chosen[:depth]
    b_pieces_n[at] = depth
    b_extra[at, :] = -1
    b_extra[at, :extra_n] = extra[:extra_n]
    b_extra_n[at] = extra_n
    b_released[at] = st[RELEASED]
    b_risky[at] = risky
    st[FOUND] = min(found + 1, limit)


@njit(cache=True)
def _only_taken_left(laid_jokers: int, st, pb) -> bool:
    """Whether every card left is a copy of the card taken from the pile (and none was laid)."""
    jokers_left = pb[HAND_JOKERS] + st[RELEASED] - st[JOKERS_LAID] - laid_jokers
    naturals_left = pb[HAND_NATURALS] - st[NATURALS_LAID]
    if pb[TAKEN] == -2:
        return st[JOKERS_LAID] + laid_jokers == 0 and naturals_left == 0 and jokers_left > 0
    if st[TAKEN_LAID]:
        return False
    return jokers_left == 0 and naturals_left == pb[TAKEN_COPIES]


@njit(cache=True)
def _opens_first(pick, n_melds, reading_values, reading_jokers, pb) -> bool:
    """Whether some of the new melds reach the opening with jokers from the hand alone: a play
    that opens and exchanges lays its opening first (solver.play_moves; else it is dropped)."""
    for subset in range(1, 1 << n_melds):
        value, jokers = 0, 0
        for k in range(n_melds):
            if subset >> k & 1:
                value += reading_values[pick[k]]
                jokers += reading_jokers[pick[k]]
        if value >= pb[THRESHOLD] and jokers <= pb[HAND_JOKERS]:
            return True
    return False


@njit(cache=True)
def _record(
    extra, extra_n, chosen, st, pb, pieces, reading_values, reading_jokers, reading_entries, fixed, js_entries, best,
    budget,
):  # fmt: skip
    """Every reading of the new melds taken that the rules keep, with the table pieces and the
    jokers laid alone (``extra``: slot * PLACES + place), into the best layouts."""
    depth = st[DEPTH]
    if depth == 0 and extra_n == 0:
        return
    cards_left = pb[HAND_CARDS] + st[RELEASED] - st[CARDS_LAID] - extra_n
    if cards_left < pb[KEEP]:
        return
    if cards_left and pb[TAKEN] != -1 and _only_taken_left(extra_n, st, pb):
        return
    if pb[MUST_OPEN] and not st[MELDS]:
        return
    left = pb[HAND_VALUE] - st[LAID_VALUE] + pb[JOKER_VALUE] * (st[RELEASED] - extra_n)
    jokers = st[JOKERS_LAID] + extra_n
    risky = (st[RELEASED] > 0 and pb[RISKY_RELEASE]) or (pb[RISKY_EMPTY] and cards_left == 0)
    need_open = pb[MUST_OPEN] or (st[MELDS] and pb[WITH_MELDS])
    given = np.full((MAX_ENTRIES, ENTRY_WIDTH), -1, np.int64)  # the table pieces' and lone jokers' entries
    fixed_n = 0
    melds = np.empty(depth, np.int64)  # the chosen new melds' pieces
    n_melds = 0
    for k in range(depth):
        i = chosen[k]
        if pieces[SLOT][i] >= 0:
            given[fixed_n, :] = fixed[i]
            fixed_n += 1
        else:
            melds[n_melds] = i
            n_melds += 1
    for k in range(extra_n):
        given[fixed_n, :] = js_entries[extra[k] // PLACES, extra[k] % PLACES]
        fixed_n += 1
    rows = np.full((MAX_ENTRIES, ENTRY_WIDTH), -1, np.int64)
    tags = np.full(MAX_ENTRIES, -1, np.int64)
    starts, counts = pieces[READING_START], pieces[READING_COUNT]
    pick = np.empty(n_melds, np.int64)
    for k in range(n_melds):
        pick[k] = starts[melds[k]]
    limit = pb[LIMIT]
    while budget[0] >= 0:
        budget[0] -= 1  # a leaf's readings count as steps: a leaf may have many
        opening = 0
        for k in range(n_melds):
            opening += reading_values[pick[k]]
        opens = not (need_open and opening < pb[THRESHOLD])
        if opens and pb[OPENS_NOW] and st[RELEASED] and n_melds:
            opens = _opens_first(pick, n_melds, reading_values, reading_jokers, pb)
        if opens:
            rows[:fixed_n] = given[:fixed_n]
            n = fixed_n
            tags[:] = -1
            for k in range(n_melds):
                rows[n, :] = reading_entries[pick[k]]
                tags[n] = pick[k]
                n += 1
            _sort_rows(rows, tags, n)
            if (
                st[FOUND] < limit
                or compare_keys(
                    left,
                    jokers,
                    rows,
                    n,
                    best[BEST_LEFT][limit - 1],
                    best[BEST_JOKERS][limit - 1],
                    best[BEST_ROWS][limit - 1],
                    best[BEST_ROWS_N][limit - 1],
                )
                < 0
            ):
                _insert(left, jokers, rows, tags, n, opening, risky, st, pb, chosen, extra, extra_n, best)
        # The next readings: each piece taken n times reads as a multiset of n of its readings.
        k = n_melds - 1
        while k >= 0 and pick[k] == starts[melds[k]] + counts[melds[k]] - 1:
            k -= 1
        if k < 0:
            return
        pick[k] += 1
        for j in range(k + 1, n_melds):
            pick[j] = pick[k] if melds[j] == melds[k] else starts[melds[j]]


@njit(cache=True)
def _joker_room(slot_used, run_added, run_room, js_slot, js_run, js_most) -> int:
    """How many jokers the free joker slots can take alone."""
    room = 0
    runs = np.zeros(run_room.shape[0], np.int64)
    for j in range(js_slot.shape[0]):
        if slot_used[js_slot[j]]:
            continue
        if js_run[j] < 0:
            room += js_most[j]
        else:
            runs[js_run[j]] += js_most[j]
    for r in range(run_room.shape[0]):
        if runs[r]:
            room += min(runs[r], run_room[r] - run_added[r])
    return room


@njit(cache=True)
def _finish(
    chosen, st, pb, pieces, reading_values, reading_jokers, reading_entries, fixed, slots, best, budget
) -> None:
    """A leaf: every count of jokers laid alone that the balance allows, most first, each in the
    first ``limit`` ways in entry order (solver_search's ``_finish`` and ``_joker_layouts``)."""
    slot_used, run_added, run_room, js_slot, js_run, js_most, js_entries = slots
    if st[BALANCE] < 0:
        return
    if pb[REUSE_NOW] and st[MELD_JOKERS] < st[RELEASED]:
        return
    if pb[MUST_USE] == -2 and st[MELD_JOKERS] == 0:
        return
    free = np.empty(js_slot.shape[0], np.int64)
    nfree = 0
    for j in range(js_slot.shape[0]):
        if not slot_used[js_slot[j]]:
            free[nfree] = j
            nfree += 1
    most = min(st[BALANCE], _joker_room(slot_used, run_added, run_room, js_slot, js_run, js_most))
    extra = np.empty(MAX_ENTRIES, np.int64)
    take = np.zeros(nfree + 1, np.int64)
    room = run_added.copy()
    ways = pb[WAYS]  # as many as the solver tries, however many layouts are asked
    for count in range(most, -1, -1):
        made, level, left, entering = 0, 0, count, True
        while level >= 0:
            if entering:
                if left == 0:
                    made += 1
                    extra_n = 0
                    for lv in range(level):
                        for d in range(take[lv]):
                            extra[extra_n] = free[lv] * PLACES + d
                            extra_n += 1
                    _record(
                        extra, extra_n, chosen, st, pb, pieces, reading_values, reading_jokers, reading_entries, fixed,
                        js_entries, best, budget,
                    )  # fmt: skip
                    if budget[0] < 0:
                        return
                    if st[STOP]:
                        return
                    level -= 1
                    entering = False
                    continue
                if level == nfree or made >= ways:
                    level -= 1
                    entering = False
                    continue
                j = free[level]
                cap = js_most[j]
                if js_run[j] >= 0:
                    cap = min(cap, run_room[js_run[j]] - room[js_run[j]])
                take[level] = min(cap, left)
            else:  # back from the level below: undo this level's jokers, then try one fewer
                j = free[level]
                left += take[level]
                if js_run[j] >= 0:
                    room[js_run[j]] -= take[level]
                if made >= ways or take[level] == 0:
                    level -= 1
                    continue
                take[level] -= 1
            j = free[level]
            left -= take[level]
            if js_run[j] >= 0:
                room[js_run[j]] += take[level]
            level += 1
            entering = True


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
    which = np.zeros((size, width), np.int64)
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
                _finish(
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
                left, opening = _node_bounds(p, counts, st, pb, pieces, start, release, sink, memo, budget)
                if _keeps(left, opening, pb, st, best[BEST_LEFT], best[BEST_JOKERS]):
                    bounds[n], which[top, n] = left * 2 + 1, i
                    n += 1
                _take(i, -1, counts, st, pb, pieces, chosen, slot_used, run_added)
            if not (pb[MUST_USE] == p and counts[p] == full[p]):
                saved = counts[p]
                counts[p] = 0
                left, opening = _node_bounds(p + 1, counts, st, pb, pieces, start, release, sink, memo, budget)
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
                left, opening = _node_bounds(p + 1, counts, st, pb, pieces, start, release, sink, memo, budget)
                if _keeps(left, opening, pb, st, best[BEST_LEFT], best[BEST_JOKERS]):
                    fchild[top] = -1
                    fp[top + 1], ffirst[top + 1], fnext[top + 1] = p + 1, start[p + 1], -1
                    entered = True
                else:
                    counts[p] = fsaved[top]
                continue
            _take(i, 1, counts, st, pb, pieces, chosen, slot_used, run_added)
            left, opening = _node_bounds(p, counts, st, pb, pieces, start, release, sink, memo, budget)
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
