"""The new melds a Kaluki hand can lay, compiled with numba, for the compiled lay-down search
(:mod:`carousel_env.games.kaluki.kernel_search`).

A *reading* is one new meld: its kind, low cell, units, opening value, jokers, the hand kinds it
takes (a bit each, by the kind's position among the hand's natural kinds: a meld never holds
two copies of a card) and its lowest natural card. :func:`readings` writes every set and run a
hand can lay, as the solver's ``solver_pieces._readings`` finds them; :func:`meld_pieces` groups
them into pieces, as ``solver_pieces.meld_pieces`` does: the readings that take the same kinds
and jokers (they differ in opening value and notation only), each group in notation order.

A notation entry is ``ENTRY_WIDTH`` ints that sort as the solver's entry tuples do: the tuple
flattened (its only tuples of varying length come last), padded with -1, below every card.
Loops, never recursion: numba's cache cannot hold recursive functions.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from numba import njit

from carousel_env.core import compiled
from carousel_env.core.cards import NUM_CARDS, TABLE_JOKER
from carousel_env.games.kaluki.rules import HIGH_ACE, LOW_ACE, LOW_ACE_MELD_VALUE, MELD_MIN, RUN_MAX, SET_MAX
from carousel_env.games.kaluki.solver_pieces import MELD_TAG, RUN_ENTRY, SET_ENTRY

HERE = Path(__file__).resolve().parent
# The compiled search's and the vector kernel's sources (this module is imported by each of them first): one stamp for
# the cache beside them, dropped when any changes (carousel_env.core.compiled).
PARTS = ("kernel_readings", "kernel_leaves", "kernel_search", "kernel_table", "kernel_solver", "kernel_plays",
         "kernel_rows", "kernel_observation", "kernel_players", "priors", "rules")  # fmt: skip
SOURCES = (*(HERE / f"{name}.py" for name in PARTS), compiled.PACKAGE / "core" / "cards.py")
compiled.drop_stale_cache(HERE / "__pycache__", SOURCES)

ENTRY_WIDTH = 5 + RUN_MAX  # a lay-off on a run: first card, tag, seat, meld, end, then its units
# The readings' arrays, in this order (each reading a row).
READING_FIELDS = ("kind", "low", "units", "size", "jokers", "need", "first", "value")
(READING_KIND, READING_LOW, READING_UNITS, READING_SIZE, READING_JOKERS, READING_NEED, READING_FIRST,
 READING_VALUE) = range(8)  # fmt: skip
# A new meld's piece (:func:`meld_pieces`): its arrays, in this order.
(MELD_NEED, MELD_JOKERS, MELD_VALUE, MELD_OPEN, MELD_CARDS, MELD_READING_START, MELD_READING_COUNT,
 MELD_LOWEST) = range(8)  # fmt: skip
READINGS_CAPACITY = 256  # readings written before counting past it (then all are written again)


@njit(cache=True)
def card_of(rank: int, suit: int) -> int:
    """The card of ``rank`` and ``suit`` (cards.make_card, unchecked)."""
    return (rank - 1) * 4 + suit


@njit(cache=True)
def cell_card(suit: int, cell: int) -> int:
    """The card in run cell ``cell`` of ``suit`` (melds.card_at)."""
    return card_of(1 if cell == HIGH_ACE else cell, suit)


@njit(cache=True)
def _add_reading(out, count, kind, low, units, n, jokers, need, first, value) -> int:
    """Write one reading at ``count`` if the buffers hold it (:func:`readings` counts past them)."""
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
def _walk_buffers():
    """A run walk's stacks (:func:`_runs_from`): each walk leaves them as it found them."""
    return (
        np.full(RUN_MAX, -1, np.int64),  # the units
        np.zeros(RUN_MAX + 1, np.int64),  # at each length: 0 nothing tried, 1 the natural, 2 both
        np.zeros(RUN_MAX + 1, np.int64),  # the totals at each length: kinds taken,
        np.full(RUN_MAX + 1, NUM_CARDS, np.int64),  # lowest card,
        np.zeros(RUN_MAX + 1, np.int64),  # value,
        np.zeros(RUN_MAX + 1, np.int64),  # jokers,
        np.zeros(RUN_MAX + 1, np.int64),  # naturals
    )


@njit(cache=True)
def _runs_from(out, count, suit, low, high_cell, jokers, pos, card_value, walk) -> int:
    """Every run of ``suit`` from cell ``low`` (the solver's ``_run_readings``): a walk up the
    cells, each a natural held or a joker, kept from 3 cells with a natural. Loops, not
    recursion: numba's cache cannot hold recursive functions. ``walk``: :func:`_walk_buffers`
    (only the walk's lengths above 0 are written, and ``tried`` is cleared on the way back)."""
    units, tried, need, first, value, used, naturals = walk
    n = 0
    while n >= 0:
        cell = low + n
        if tried[n] == 0 and n >= MELD_MIN and naturals[n] > 0:
            count = _add_reading(out, count, RUN_ENTRY, low, units, n, used[n], need[n], first[n], value[n])
        if cell > high_cell or n == RUN_MAX or tried[n] == 2:
            tried[n] = 0
            n -= 1
            continue
        card = cell_card(suit, cell)
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
def _some_run_from(pos, suit, low, high_cell, jokers) -> bool:
    """Whether :func:`_runs_from` finds a run from cell ``low`` (a check that saves the walk's
    call): cells from ``low`` up, a joker for each card not held, that reach 3 with a natural."""
    missing, naturals = 0, 0
    for n in range(RUN_MAX):
        cell = low + n
        if cell > high_cell:
            return False
        if pos[cell_card(suit, cell)] >= 0:
            naturals += 1
        else:
            missing += 1
            if missing > jokers:
                return False
        if n + 1 >= MELD_MIN and naturals > 0:
            return True
    return False


@njit(cache=True)
def readings(out, pos, jokers, ace_low, ace_high, card_value) -> int:
    """Every new meld the hand (``pos[card]``: its kind's position, -1 not held) can lay with up
    to ``jokers`` jokers, written to ``out``; returns how many there are (more than ``out``
    holds means: call again with bigger buffers)."""
    count = 0
    units = np.full(RUN_MAX, -1, np.int64)
    for rank in range(1, 14):
        held = 0
        for suit in range(4):
            if pos[card_of(rank, suit)] >= 0:
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
                    card = card_of(rank, suit)
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
    walk = _walk_buffers()
    for suit in range(4):
        for low in range(low_cell, high_cell - MELD_MIN + 2):
            if _some_run_from(pos, suit, low, high_cell, jokers):
                count = _runs_from(out, count, suit, low, high_cell, jokers, pos, card_value, walk)
    return count


@njit(cache=True)
def entry(kind: int, low: int, units: np.ndarray, n: int, first: int) -> np.ndarray:
    row = np.full(ENTRY_WIDTH, -1, np.int64)
    row[0], row[1], row[2], row[3] = first, MELD_TAG, kind, low
    row[4 : 4 + n] = units[:n]
    return row


@njit(cache=True)
def row_less(a: np.ndarray, b: np.ndarray) -> int:
    """-1, 0 or 1 as entry ``a`` sorts before, with or after ``b``."""
    for i in range(ENTRY_WIDTH):
        if a[i] != b[i]:
            return -1 if a[i] < b[i] else 1
    return 0


@njit(cache=True)
def meld_pieces(readings, count, card_value, joker_value, kinds):
    """The ``count`` readings grouped into pieces: (kinds taken, jokers, hand value laid, most
    opening value, cards laid, first reading, readings, lowest kind) each; the readings in the
    pieces' order (each group's in notation order) and their entries."""
    kind, low, units, sizes, jokers, needs, firsts, values = readings
    entries = np.empty((count, ENTRY_WIDTH), np.int64)
    for r in range(count):
        entries[r] = entry(kind[r], low[r], units[r], sizes[r], firsts[r])
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
            while j > g and row_less(entries[order[j]], entries[order[j - 1]]) < 0:
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
    pieces = (need, jokers_in, value, open_value, cards, reading_start, reading_count, lowest)
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
    return pieces, sorted_readings, entries[order]


@njit(cache=True)
def reading_buffers(capacity: int):
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
