"""The compiled lay-down search's arrays and its leaves (:mod:`carousel_env.games.kaluki.kernel_search`
sweeps, this module records): the fields of the problem (``pb``), the running totals (``st``), the
pieces and the best layouts, named once; the solver's key and its order; and what happens where
the sweep has settled every kind (solver_search's ``_finish``, ``_joker_layouts``, ``_record``):
the jokers laid alone on free table places, each reading of the new melds taken, the rules a
layout must keep, the best ``limit`` in key order.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from carousel_env.games.kaluki.kernel_readings import ENTRY_WIDTH, row_less

MAX_ENTRIES = 32  # entries a layout holds: its melds, table pieces and jokers laid alone
PLACES = 16  # a joker laid alone is noted slot * PLACES + its place (a slot has at most RUN_MAX)

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
def sort_rows(rows: np.ndarray, tags: np.ndarray, n: int) -> None:
    """Sort the first ``n`` entries (and their tags) in place: an insertion sort (n is small)."""
    for i in range(1, n):
        j = i
        while j > 0 and row_less(rows[j], rows[j - 1]) < 0:
            for k in range(ENTRY_WIDTH):
                rows[j, k], rows[j - 1, k] = rows[j - 1, k], rows[j, k]
            tags[j], tags[j - 1] = tags[j - 1], tags[j]
            j -= 1


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
            sort_rows(rows, tags, n)
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
def finish(chosen, st, pb, pieces, reading_values, reading_jokers, reading_entries, fixed, slots, best, budget) -> None:
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
