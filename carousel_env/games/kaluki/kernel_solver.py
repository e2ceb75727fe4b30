"""Kaluki's lay-down search compiled with numba: the new melds a hand can lay, best first, as
:func:`carousel_env.games.kaluki.solver.arrangements` finds them.

:mod:`carousel_env.games.kaluki.solver` is the reference: this module gives the same layouts in
the same order, and ``tests/games/kaluki/test_kaluki_kernel_solver.py`` holds it to the solver on
random, dense and played hands. It searches as the solver does (a sweep over the hand's natural
kinds in card order, taking pieces whose lowest natural is the kind or keeping its copies, cut by
a memoised bound on the value still to lay), over arrays:

* a *reading* is one new meld: kind, low cell, units, opening value, jokers, the hand kinds it
  takes (a bit each: a meld never holds two copies of a card) and its notation entry;
* a *piece* is the readings that take the same kinds and jokers (they differ in opening value
  and notation only), expanded into readings at the leaves;
* a notation entry is ``ENTRY_WIDTH`` ints that sort as the solver's entry tuples do (units
  padded with -1, below every card), and a key (value left, jokers, the sorted entries) compares
  as the solver's.

A search that passes ``node_budget`` steps stops and says so (``exact`` false): the caller asks
the Python solver instead, so that answers never depend on the machine's speed.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from pathlib import Path

import numpy as np
from numba import njit, types
from numba.typed import Dict

from carousel_env.core import compiled
from carousel_env.core.cards import JOKER, NUM_CARDS, TABLE_JOKER, Card
from carousel_env.games.kaluki.melds import Meld, MeldKind
from carousel_env.games.kaluki.rules import (
    HIGH_ACE,
    LOW_ACE,
    LOW_ACE_MELD_VALUE,
    MELD_MIN,
    RUN_MAX,
    SET_MAX,
    KalukiRules,
)
from carousel_env.games.kaluki.solver import Layout
from carousel_env.games.kaluki.state import NO_CARD

HERE = Path(__file__).resolve().parent
SOURCES = tuple(HERE / f"{name}.py" for name in ("kernel_solver", "rules", "solver_pieces"))
compiled.drop_stale_cache(HERE / "__pycache__", SOURCES)
compiled.name_entry_points(__name__, {"arrange": ("Kaluki's compiled lay-down search", 20)})

ENTRY_WIDTH = 4 + RUN_MAX  # first card, tag, kind, low cell, then the units (-1 past the last)
MELD_TAG = 0  # solver_pieces.MELD_TAG
SET_ENTRY, RUN_ENTRY = 0, 1  # solver_pieces.SET_ENTRY, RUN_ENTRY
MAX_ENTRIES = 24  # entries a layout holds (a hand of at most 24 cards lays at most 8 melds)
NO_WAY = -(10**6)  # the bound of a node that cannot be completed
NODE_BUDGET = 2_000_000  # search steps before the caller falls back on the Python solver
MAX_KINDS = 30  # natural kinds the memo's key can hold (3 ** 30 * 31 * 64 < 2 ** 63)
READINGS_CAPACITY = 1024  # readings written before counting past it (then all are written again)


# ---------------------------------------------------------------- readings


@njit(cache=True)
def _card(rank: int, suit: int) -> int:
    return (rank - 1) * 4 + suit


@njit(cache=True)
def _card_at(suit: int, cell: int) -> int:
    return _card(1 if cell == HIGH_ACE else cell, suit)


@njit(cache=True)
def _unit_value(unit: int, run: bool, cell: int, card_value: np.ndarray) -> int:
    if run and cell == LOW_ACE:
        return LOW_ACE_MELD_VALUE
    return card_value[unit & 63]


@njit(cache=True)
def _add_reading(out, count, kind, low, units, n, jokers, need, first, value) -> int:
    """Write one reading at ``count`` (growing the buffers' rows is the caller's: see ``_readings``)."""
    kinds, lows, unit_rows, sizes, joker_counts, needs, firsts, values = out
    if count < kinds.shape[0]:
        kinds[count] = kind
        lows[count] = low
        unit_rows[count, :] = -1
        unit_rows[count, :n] = units[:n]
        sizes[count] = n
        joker_counts[count] = jokers
        needs[count] = need
        firsts[count] = first
        values[count] = value
    return count + 1


@njit(cache=True)
def _runs_from(out, count, suit, low, high_cell, jokers, pos, card_value) -> int:
    """Every run of ``suit`` from cell ``low`` (the solver's ``_run_readings``): a walk up the
    cells, each a natural held or a joker, kept from 3 cells with a natural. Loops, not
    recursion: numba's cache cannot hold recursive functions."""
    units = np.full(RUN_MAX, -1, np.int64)
    tried = np.zeros(RUN_MAX + 1, np.int64)  # at each length: 0 nothing tried, 1 the natural, 2 both
    need = np.zeros(RUN_MAX + 1, np.int64)  # the totals at each length
    first = np.full(RUN_MAX + 1, NUM_CARDS, np.int64)
    value = np.zeros(RUN_MAX + 1, np.int64)
    used = np.zeros(RUN_MAX + 1, np.int64)
    naturals = np.zeros(RUN_MAX + 1, np.int64)
    n = 0
    while n >= 0:
        cell = low + n
        if tried[n] == 0 and n >= MELD_MIN and naturals[n] > 0:
            count = _add_reading(out, count, RUN_ENTRY, low, units, n, used[n], need[n], first[n], value[n])
        if cell > high_cell or n == RUN_MAX or tried[n] == 2:
            tried[n] = 0
            n -= 1
            continue
        card = _card_at(suit, cell)
        worth = LOW_ACE_MELD_VALUE if cell == LOW_ACE else card_value[card]
        if tried[n] == 0:
            tried[n] = 1
            if pos[card] >= 0:
                units[n] = card
                need[n + 1] = need[n] | (np.int64(1) << pos[card])
                first[n + 1] = min(first[n], card)
                value[n + 1], used[n + 1], naturals[n + 1] = value[n] + worth, used[n], naturals[n] + 1
                n += 1
            continue
        tried[n] = 2
        if used[n] < jokers:
            units[n] = TABLE_JOKER + card
            need[n + 1], first[n + 1] = need[n], first[n]
            value[n + 1], used[n + 1], naturals[n + 1] = value[n] + worth, used[n] + 1, naturals[n]
            n += 1
    return count


@njit(cache=True)
def _readings(out, pos, jokers, ace_low, ace_high, card_value) -> int:
    """Every new meld the hand (``pos[card]``: its kind's position, -1 not held) can lay with up
    to ``jokers`` jokers, written to ``out``; returns how many there are (more than ``out``
    holds means: call again with bigger buffers)."""
    count = 0
    units = np.full(RUN_MAX, -1, np.int64)
    for rank in range(1, 14):
        held = 0
        for suit in range(4):
            if pos[_card(rank, suit)] >= 0:
                held |= 1 << suit
        for mask in range(1, 16):
            if mask & ~held:
                continue
            naturals = 0
            for suit in range(4):
                naturals += mask >> suit & 1
            for size in range(max(MELD_MIN, naturals), SET_MAX + 1):
                used = size - naturals
                if used > jokers:
                    continue
                n, need, first, value, free = 0, np.int64(0), NUM_CARDS, 0, used
                for suit in range(4):  # units in suit order, jokers on the lowest missing suits
                    card = _card(rank, suit)
                    if mask >> suit & 1:
                        units[n] = card
                        need |= np.int64(1) << pos[card]
                        first = min(first, card)
                    elif free > 0:
                        units[n] = TABLE_JOKER + card
                        free -= 1
                    else:
                        continue
                    value += card_value[card]
                    n += 1
                count = _add_reading(out, count, SET_ENTRY, 0, units, n, used, need, first, value)
    low_cell = LOW_ACE if ace_low else LOW_ACE + 1
    high_cell = HIGH_ACE if ace_high else HIGH_ACE - 1
    for suit in range(4):
        for low in range(low_cell, high_cell - MELD_MIN + 2):
            count = _runs_from(out, count, suit, low, high_cell, jokers, pos, card_value)
    return count


# ---------------------------------------------------------------- entries and keys


@njit(cache=True)
def _entry(kind: int, low: int, units: np.ndarray, n: int, first: int) -> np.ndarray:
    row = np.full(ENTRY_WIDTH, -1, np.int64)
    row[0], row[1], row[2], row[3] = first, MELD_TAG, kind, low
    row[4 : 4 + n] = units[:n]
    return row


@njit(cache=True)
def _row_less(a: np.ndarray, b: np.ndarray) -> int:
    """-1, 0 or 1 as entry ``a`` sorts before, with or after ``b``."""
    for i in range(ENTRY_WIDTH):
        if a[i] != b[i]:
            return -1 if a[i] < b[i] else 1
    return 0


@njit(cache=True)
def _compare_keys(left_a, jokers_a, rows_a, n_a, left_b, jokers_b, rows_b, n_b) -> int:
    """-1, 0 or 1 as key a (value left, jokers laid, sorted entries) sorts before, with or after b."""
    if left_a != left_b:
        return -1 if left_a < left_b else 1
    if jokers_a != jokers_b:
        return -1 if jokers_a < jokers_b else 1
    for i in range(min(n_a, n_b)):
        c = _row_less(rows_a[i], rows_b[i])
        if c != 0:
            return c
    if n_a != n_b:
        return -1 if n_a < n_b else 1
    return 0


@njit(cache=True)
def _sort_rows(rows: np.ndarray, tags: np.ndarray, n: int) -> None:
    """Sort the first ``n`` entries (and their tags, the reading each is) in place: insertion sort."""
    for i in range(1, n):
        j = i
        while j > 0 and _row_less(rows[j], rows[j - 1]) < 0:
            for k in range(ENTRY_WIDTH):
                rows[j, k], rows[j - 1, k] = rows[j - 1, k], rows[j, k]
            tags[j], tags[j - 1] = tags[j - 1], tags[j]
            j -= 1


# ---------------------------------------------------------------- the search

# The problem, an int array (``pb``): what :class:`~carousel_env.games.kaluki.solver_search.Problem` holds.
HAND_VALUE, HAND_JOKERS, KEEP, TAKEN, MUST_OPEN, THRESHOLD, WITH_MELDS, LIMIT, MUST_USE = range(9)
HAND_CARDS, HAND_NATURALS, TAKEN_COPIES = 9, 10, 11
PROBLEM_SIZE = 12
# The search's running totals (``st``).
BALANCE, LAID_VALUE, JOKERS_LAID, CARDS_LAID, NATURALS_LAID, OPEN_VALUE, MELDS, DEPTH, TAKEN_LAID, FOUND = range(10)
STATE_SIZE = 10
PACK = 1 << 20  # a bound's two values packed in one memo entry, each offset by this


@njit(cache=True)
def _memo_key(counts: np.ndarray, p: int, jokers: int) -> int:
    code = 0
    for q in range(counts.shape[0] - 1, p - 1, -1):
        code = code * 3 + counts[q]
    return (code * (MAX_KINDS + 1) + p) * 64 + jokers + 32


@njit(cache=True)
def _fits(need: int, counts: np.ndarray) -> bool:
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
def _bound(p0, counts, jokers0, pieces, start, memo, budget):
    """(Most hand value, most opening value) the kinds from ``p0`` on can still lay with
    ``jokers0`` jokers (the solver's ``_Walker.bound``), memoised on what is left from the
    kind. The recursion runs on a stack of frames (numba's cache cannot hold recursion)."""
    kinds = counts.shape[0]
    need, jokers_in, value, open_value = pieces[0], pieces[1], pieces[2], pieces[3]
    size = kinds + int(counts.sum()) + 2  # each frame below another skips a kind or lays a card
    fp = np.zeros(size, np.int64)
    fj = np.zeros(size, np.int64)
    fstep = np.zeros(size, np.int64)  # 0 new, 1 the kind kept, 2 a piece taken (fpiece)
    fpiece = np.zeros(size, np.int64)
    flaid = np.zeros(size, np.int64)
    fopen = np.zeros(size, np.int64)
    fkey = np.zeros(size, np.int64)
    top = 0
    fp[0], fj[0], fstep[0] = p0, jokers0, 0
    got_laid, got_open = 0, 0  # what the frame just popped returns
    while top >= 0:
        p, jokers = fp[top], fj[top]
        if fstep[top] == 0:
            while p < kinds and counts[p] == 0:
                p += 1
            fp[top] = p
            if p == kinds:
                got_laid, got_open = (0, 0) if jokers >= 0 else (NO_WAY, NO_WAY)
                top -= 1
                continue
            key = _memo_key(counts, p, jokers)
            hit = memo.get(key, -1)
            if hit >= 0:
                got_laid, got_open = (hit >> 22) - PACK, (hit & ((1 << 22) - 1)) - PACK
                top -= 1
                continue
            budget[0] -= 1
            fkey[top], fstep[top] = key, 1
            top += 1
            fp[top], fj[top], fstep[top] = p + 1, jokers, 0  # keep every copy of kind p
            continue
        if fstep[top] == 1:
            flaid[top], fopen[top] = got_laid, got_open
            i = start[p]
        else:
            i = fpiece[top]
            _take_kinds(need[i], counts, -1)
            if got_laid > NO_WAY:
                flaid[top] = max(flaid[top], got_laid + value[i])
                fopen[top] = max(fopen[top], got_open + open_value[i])
            i += 1
        while i < start[p + 1] and (jokers_in[i] > jokers or not _fits(need[i], counts)):
            i += 1
        if i < start[p + 1]:
            _take_kinds(need[i], counts, 1)
            fpiece[top], fstep[top] = i, 2
            top += 1
            fp[top], fj[top], fstep[top] = p, jokers - jokers_in[i], 0
            continue
        got_laid, got_open = flaid[top], fopen[top]
        memo[fkey[top]] = (got_laid + PACK) << 22 | (got_open + PACK)
        top -= 1
    return got_laid, got_open


@njit(cache=True)
def _keeps(left: int, opening: int, jokers_laid: int, melds: int, pb, st, best_left, best_jokers) -> bool:
    """Whether a node with these bounds may still give one of the ``limit`` best layouts."""
    if (pb[MUST_OPEN] or (melds and pb[WITH_MELDS])) and opening < pb[THRESHOLD]:
        return False
    limit = pb[LIMIT]
    if st[FOUND] >= limit:
        worst_left, worst_jokers = best_left[limit - 1], best_jokers[limit - 1]
        if left > worst_left or (left == worst_left and jokers_laid > worst_jokers):
            return False
    return True


@njit(cache=True)
def _node_bounds(p, counts, st, pb, pieces, start, memo, budget):
    """(Least hand value left, most opening value) below the node at kind ``p``; NO_WAY if dead."""
    laid, more_open = _bound(p, counts, st[BALANCE], pieces, start, memo, budget)
    if laid <= NO_WAY:
        return NO_WAY, NO_WAY
    return pb[HAND_VALUE] - st[LAID_VALUE] - laid, st[OPEN_VALUE] + more_open


@njit(cache=True)
def _take_piece(i: int, sign: int, counts, st, pieces, chosen, pb) -> None:
    need, jokers_in, value, open_value, cards = pieces[0], pieces[1], pieces[2], pieces[3], pieces[4]
    _take_kinds(need[i], counts, sign)
    st[BALANCE] -= sign * jokers_in[i]
    st[LAID_VALUE] += sign * value[i]
    st[JOKERS_LAID] += sign * jokers_in[i]
    st[CARDS_LAID] += sign * cards[i]
    st[NATURALS_LAID] += sign * (cards[i] - jokers_in[i])
    st[OPEN_VALUE] += sign * open_value[i]
    st[MELDS] += sign
    if pb[TAKEN] >= 0 and need[i] >> pb[TAKEN] & 1:
        st[TAKEN_LAID] += sign
    if sign > 0:
        chosen[st[DEPTH]] = i
        st[DEPTH] += 1
    else:
        st[DEPTH] -= 1


@njit(cache=True)
def _insert(left, jokers, rows, tags, n, opening, limit, st, best) -> None:
    """Put a layout among the ``limit`` best, in key order (a layout no better than the
    ``limit``-th is left out)."""
    best_left, best_jokers, best_rows, best_n, best_tags, best_open = best
    found = st[FOUND]
    at = found
    while at > 0:
        c = _compare_keys(
            left, jokers, rows, n, best_left[at - 1], best_jokers[at - 1], best_rows[at - 1], best_n[at - 1]
        )
        if c >= 0:
            break
        at -= 1
    if at >= limit:
        return
    for j in range(min(found, limit - 1), at, -1):
        best_left[j] = best_left[j - 1]
        best_jokers[j] = best_jokers[j - 1]
        best_rows[j] = best_rows[j - 1]
        best_n[j] = best_n[j - 1]
        best_tags[j] = best_tags[j - 1]
        best_open[j] = best_open[j - 1]
    best_left[at] = left
    best_jokers[at] = jokers
    best_rows[at, :, :] = rows
    best_n[at] = n
    best_tags[at, :] = -1
    best_tags[at, :n] = tags[:n]
    best_open[at] = opening
    st[FOUND] = min(found + 1, limit)


@njit(cache=True)
def _record(chosen, st, pb, pieces, readings, entries, best) -> None:
    """Every reading of the pieces taken that the rules keep, into the best layouts (the
    solver's ``_record``, without the table's pieces)."""
    depth = st[DEPTH]
    if depth == 0:
        return
    cards_left = pb[HAND_CARDS] - st[CARDS_LAID]
    if cards_left < pb[KEEP]:
        return
    taken = pb[TAKEN]
    if cards_left and taken != -1:  # a hand may not hold only copies of the card taken
        jokers_left = pb[HAND_JOKERS] - st[JOKERS_LAID]
        naturals_left = pb[HAND_NATURALS] - st[NATURALS_LAID]
        if taken == -2:
            if st[JOKERS_LAID] == 0 and naturals_left == 0 and jokers_left > 0:
                return
        elif st[TAKEN_LAID] == 0 and jokers_left == 0 and naturals_left == pb[TAKEN_COPIES]:
            return
    left = pb[HAND_VALUE] - st[LAID_VALUE]
    jokers = st[JOKERS_LAID]
    reading_start, reading_count = pieces[5], pieces[6]
    values = readings[7]
    need_open = pb[MUST_OPEN] or pb[WITH_MELDS]
    pick = np.empty(depth, np.int64)
    for i in range(depth):
        pick[i] = reading_start[chosen[i]]
    rows = np.full((MAX_ENTRIES, ENTRY_WIDTH), -1, np.int64)
    tags = np.empty(MAX_ENTRIES, np.int64)
    while True:
        opening = 0
        for i in range(depth):
            opening += values[pick[i]]
        if not (need_open and opening < pb[THRESHOLD]):
            for i in range(depth):
                rows[i, :] = entries[pick[i]]
                tags[i] = pick[i]
            _sort_rows(rows, tags, depth)
            _insert(left, jokers, rows, tags, depth, opening, pb[LIMIT], st, best)
        # The next readings: each piece taken n times reads as a multiset of n of its readings.
        i = depth - 1
        while i >= 0 and pick[i] == reading_start[chosen[i]] + reading_count[chosen[i]] - 1:
            i -= 1
        if i < 0:
            return
        pick[i] += 1
        for j in range(i + 1, depth):
            pick[j] = pick[i] if chosen[j] == chosen[i] else reading_start[chosen[j]]


@njit(cache=True)
def _search(counts, st, pb, pieces, start, memo, budget, chosen, readings, entries, best, full) -> None:
    """The sweep (the solver's ``_Walker.visit``): at kind ``p`` take a piece whose lowest natural
    is ``p`` (from the piece taken last there on, so that each multiset of pieces is met once),
    or keep the copies of ``p`` left; children in order of their bound on the value left. The
    recursion runs on a stack of frames (numba's cache cannot hold recursion)."""
    kinds = counts.shape[0]
    jokers_in = pieces[1]
    best_left, best_jokers = best[0], best[1]
    size = kinds + int(counts.sum()) + 2
    width = start[kinds] + 1
    fp = np.zeros(size, np.int64)
    ffirst = np.zeros(size, np.int64)
    fnext = np.full(size, -1, np.int64)  # -1: children not listed yet; else the next child's place
    fcount = np.zeros(size, np.int64)
    fchild = np.zeros(size, np.int64)  # the child being visited (a piece, -1 the kept kind)
    fsaved = np.zeros(size, np.int64)
    which = np.zeros((size, width), np.int64)
    bounds = np.zeros(width, np.int64)
    top = 0
    fp[0], ffirst[0], fnext[0] = 0, 0, -1
    while top >= 0:
        p = fp[top]
        if fnext[top] == -1:  # a node entered
            budget[0] -= 1
            if budget[0] < 0:
                return
            while p < kinds and counts[p] == 0:
                p += 1
                ffirst[top] = start[p]
            fp[top] = p
            if p == kinds:
                if not (pb[MUST_USE] == -2 and st[JOKERS_LAID] == 0):
                    _record(chosen, st, pb, pieces, readings, entries, best)
                top -= 1
                continue
            n = 0
            for i in range(ffirst[top], start[p + 1]):
                if jokers_in[i] > st[BALANCE] or not _fits(pieces[0][i], counts):
                    continue
                _take_piece(i, 1, counts, st, pieces, chosen, pb)
                left, opening = _node_bounds(p, counts, st, pb, pieces, start, memo, budget)
                if left > NO_WAY and _keeps(left, opening, st[JOKERS_LAID], st[MELDS], pb, st, best_left, best_jokers):
                    bounds[n], which[top, n] = left * 2 + 1, i
                    n += 1
                _take_piece(i, -1, counts, st, pieces, chosen, pb)
            if not (pb[MUST_USE] == p and counts[p] == full[p]):
                saved = counts[p]
                counts[p] = 0
                left, opening = _node_bounds(p + 1, counts, st, pb, pieces, start, memo, budget)
                if left > NO_WAY and _keeps(left, opening, st[JOKERS_LAID], st[MELDS], pb, st, best_left, best_jokers):
                    bounds[n], which[top, n] = left * 2, -1
                    n += 1
                counts[p] = saved
            order = np.argsort(bounds[:n], kind="mergesort")
            which[top, :n] = which[top, :n][order]
            fcount[top], fnext[top] = n, 0
        else:  # back from a child: undo it
            if fchild[top] < 0:
                counts[p] = fsaved[top]
            else:
                _take_piece(fchild[top], -1, counts, st, pieces, chosen, pb)
        entered = False
        while fnext[top] < fcount[top] and not entered:
            i = which[top, fnext[top]]
            fnext[top] += 1
            if i < 0:
                fsaved[top] = counts[p]
                counts[p] = 0
                left, opening = _node_bounds(p + 1, counts, st, pb, pieces, start, memo, budget)
                if left > NO_WAY and _keeps(left, opening, st[JOKERS_LAID], st[MELDS], pb, st, best_left, best_jokers):
                    fchild[top] = -1
                    fp[top + 1], ffirst[top + 1], fnext[top + 1] = p + 1, start[p + 1], -1
                    entered = True
                else:
                    counts[p] = fsaved[top]
                continue
            _take_piece(i, 1, counts, st, pieces, chosen, pb)
            left, opening = _node_bounds(p, counts, st, pb, pieces, start, memo, budget)
            if left > NO_WAY and _keeps(left, opening, st[JOKERS_LAID], st[MELDS], pb, st, best_left, best_jokers):
                fchild[top] = i
                fp[top + 1], ffirst[top + 1], fnext[top + 1] = p, i, -1
                entered = True
            else:
                _take_piece(i, -1, counts, st, pieces, chosen, pb)
        if entered:
            top += 1
        else:
            top -= 1


@njit(cache=True)
def solve_layouts(counts, pb, pieces, start, readings, entries, node_budget):
    """The best ``pb[LIMIT]`` layouts of the pieces (grouped by their lowest kind, ``start``):
    (their number, value left, jokers laid, readings in notation order, opening values, exact)."""
    limit = pb[LIMIT]
    best = (
        np.zeros(limit, np.int64),
        np.zeros(limit, np.int64),
        np.full((limit, MAX_ENTRIES, ENTRY_WIDTH), -1, np.int64),
        np.zeros(limit, np.int64),
        np.full((limit, MAX_ENTRIES), -1, np.int64),
        np.zeros(limit, np.int64),
    )
    st = np.zeros(STATE_SIZE, np.int64)
    st[BALANCE] = pb[HAND_JOKERS]
    memo = Dict.empty(key_type=types.int64, value_type=types.int64)
    budget = np.array([node_budget], np.int64)
    chosen = np.zeros(MAX_ENTRIES, np.int64)
    work = counts.copy()
    _search(work, st, pb, pieces, start, memo, budget, chosen, readings, entries, best, counts)
    return st[FOUND], best[0], best[1], best[4], best[5], budget[0] >= 0


# ---------------------------------------------------------------- pieces from readings


@njit(cache=True)
def _pieces(readings, count, card_value, joker_value, kinds):
    """The readings grouped into pieces (by the kinds and jokers they take; each group's readings
    in notation order), the pieces grouped by their lowest kind, and every reading's entry."""
    kind, low, units, sizes, jokers, needs, firsts, values = readings
    entries = np.empty((count, ENTRY_WIDTH), np.int64)
    for r in range(count):
        entries[r] = _entry(kind[r], low[r], units[r], sizes[r], firsts[r])
    group_key = needs[:count] * 64 + jokers[:count]
    order = np.argsort(group_key, kind="mergesort")
    # each group's readings in notation order (groups are small: an insertion sort)
    g = 0
    while g < count:
        h = g
        while h < count and group_key[order[h]] == group_key[order[g]]:
            h += 1
        for i in range(g + 1, h):
            j = i
            while j > g and _row_less(entries[order[j]], entries[order[j - 1]]) < 0:
                order[j], order[j - 1] = order[j - 1], order[j]
                j -= 1
        g = h
    groups = 0
    for i in range(count):
        if i == 0 or group_key[order[i]] != group_key[order[i - 1]]:
            groups += 1
    need = np.zeros(groups, np.int64)
    jokers_in = np.zeros(groups, np.int64)
    value = np.zeros(groups, np.int64)
    open_value = np.zeros(groups, np.int64)
    cards = np.zeros(groups, np.int64)
    reading_start = np.zeros(groups, np.int64)
    reading_count = np.zeros(groups, np.int64)
    lowest = np.zeros(groups, np.int64)
    k = -1
    for i in range(count):
        r = order[i]
        if i == 0 or group_key[r] != group_key[order[i - 1]]:
            k += 1
            need[k], jokers_in[k], reading_start[k] = needs[r], jokers[r], i
            naturals, worth = 0, jokers[r] * joker_value
            for q in range(kinds.shape[0]):
                if needs[r] >> q & 1:
                    naturals += 1
                    worth += card_value[kinds[q]]
                    if naturals == 1:
                        lowest[k] = q
            value[k], cards[k] = worth, naturals + jokers[r]
        reading_count[k] += 1
        open_value[k] = max(open_value[k], values[r])
    # the pieces by their lowest kind, the most laid first (as the solver's ``_by_first``)
    by_first = np.argsort(lowest * 4096 - value, kind="mergesort")
    start = np.zeros(kinds.shape[0] + 1, np.int64)
    for k in range(groups):
        start[lowest[k] + 1] += 1
    for q in range(kinds.shape[0]):
        start[q + 1] += start[q]
    pieces = (
        need[by_first],
        jokers_in[by_first],
        value[by_first],
        open_value[by_first],
        cards[by_first],
        reading_start[by_first],
        reading_count[by_first],
    )
    sorted_readings = (
        kind[order],
        low[order],
        units[order],
        sizes[order],
        jokers[order],
        needs[order],
        firsts[order],
        values[order],
    )
    return pieces, start, sorted_readings, entries[order]


@njit(cache=True)
def _reading_buffers(capacity: int):
    return (
        np.zeros(capacity, np.int64),
        np.zeros(capacity, np.int64),
        np.zeros((capacity, RUN_MAX), np.int64),
        np.zeros(capacity, np.int64),
        np.zeros(capacity, np.int64),
        np.zeros(capacity, np.int64),
        np.zeros(capacity, np.int64),
        np.zeros(capacity, np.int64),
    )


@njit(cache=True)
def arrange(counts, kinds, pos, pb, ace_low, ace_high, card_value, joker_value, node_budget):
    """The best ``pb[LIMIT]`` layouts of new melds (the solver's ``arrangements``): the readings
    in the order the answer's reading numbers refer to, and the search's answer
    (:func:`solve_layouts`)."""
    out = _reading_buffers(READINGS_CAPACITY)
    count = _readings(out, pos, pb[HAND_JOKERS], ace_low, ace_high, card_value)
    if count > READINGS_CAPACITY:  # a hand with many jokers: write them again, all of them
        out = _reading_buffers(count)
        _readings(out, pos, pb[HAND_JOKERS], ace_low, ace_high, card_value)
    pieces, start, readings, entries = _pieces(out, count, card_value, joker_value, kinds)
    return readings, solve_layouts(counts, pb, pieces, start, readings, entries, node_budget)


# ---------------------------------------------------------------- the solver's answers


@lru_cache(maxsize=16)
def card_values(rules: KalukiRules) -> np.ndarray:
    """Each card's hand value under ``rules`` (the joker last), as the kernel reads it."""
    values = np.array([rules.card_value(c) for c in range(JOKER + 1)], np.int64)
    values.flags.writeable = False  # shared by every solve under these rules
    return values


def _meld(readings: tuple, r: int) -> Meld:
    kind, low, units, sizes = readings[0], readings[1], readings[2], readings[3]
    laid = tuple(int(u) for u in units[r, : sizes[r]])
    if kind[r] == RUN_ENTRY:
        return Meld(MeldKind.RUN, laid, int(low[r]))
    return Meld(MeldKind.SET, laid)


def arrangements(
    hand,
    rules: KalukiRules,
    *,
    threshold: int,
    must_use: Card | None = None,
    keep: int = 0,
    limit: int,
    taken: Card | None = None,
    node_budget: int = NODE_BUDGET,
) -> list[Layout] | None:
    """:func:`carousel_env.games.kaluki.solver.arrangements` compiled (the same layouts in the
    same order), or None where this search does not answer: a hand of more natural kinds than
    ``MAX_KINDS``, or a search past ``node_budget`` steps (ask the solver then)."""
    if limit == 0:
        return []
    held = Counter(hand)
    if must_use is not None and not held[must_use]:
        return []
    kinds = np.array(sorted(c for c in held if c != JOKER), np.int64)
    if len(kinds) > MAX_KINDS:
        return None
    pos = np.full(NUM_CARDS, -1, np.int64)
    pos[kinds] = np.arange(len(kinds))
    counts = np.array([held[int(c)] for c in kinds], np.int64)
    jokers = held[JOKER]
    pb = np.zeros(PROBLEM_SIZE, np.int64)
    pb[HAND_VALUE] = rules.hand_value(hand)
    pb[HAND_JOKERS] = jokers
    pb[KEEP] = keep
    pb[TAKEN] = _position(pos, taken)
    pb[MUST_OPEN] = 1
    pb[THRESHOLD] = threshold
    pb[WITH_MELDS] = 1
    pb[LIMIT] = limit
    pb[MUST_USE] = _position(pos, must_use)
    pb[HAND_CARDS] = len(hand)
    pb[HAND_NATURALS] = len(hand) - jokers
    pb[TAKEN_COPIES] = held[taken] if taken is not None and taken not in (NO_CARD, JOKER) else 0
    readings, answer = compiled.first_call(
        arrange, counts, kinds, pos, pb, rules.ace_low_runs, rules.ace_high_runs, card_values(rules),
        rules.joker_value, node_budget,
    )  # fmt: skip
    found, lefts, jokers_laid, tags, opens, exact = answer
    if not exact:
        return None
    return [
        Layout(
            tuple(_meld(readings, int(r)) for r in tags[i] if r >= 0), int(lefts[i]), int(opens[i]), int(jokers_laid[i])
        )
        for i in range(found)
    ]


def _position(pos: np.ndarray, card: Card | None) -> int:
    """A kind's position for the search: -1 none, -2 the joker (the solver's ``_position_of``)."""
    if card is None or card == NO_CARD:
        return -1
    return -2 if card == JOKER else int(pos[card])
