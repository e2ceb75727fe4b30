"""Kaluki's offers in the vector kernel: each offer written down from the compiled search's
answer (:func:`record_offer`), and made on the row's arrays as the engine makes it
(:func:`make_offer`), for :mod:`carousel_env.games.kaluki.kernel_rows`.

An offer is what :mod:`carousel_env.games.kaluki.kernel_solver` turns a layout into: its new
melds (the readings it takes), and its table pieces' lay-offs and exchanges and the jokers it
lays alone. It is made in the order :func:`carousel_env.games.kaluki.solver.play_moves` gives
the engine: a player who has not opened opens first, with every new meld, or, where the offer
exchanges jokers, with the first combination of its melds that reaches the opening with jokers
from the hand alone (as ``play_moves`` picks it); then the pieces that exchange, the other new
melds, the other pieces and the lone jokers. A take of the pile's top lays the arrangement's
melds with it. The engine accepts that order wherever no card taken from the pile is in hand:
the opening holds its own jokers, the exchanges' naturals stay in hand until they are made,
and the other melds come after every joker is released (the solver checks it with the engine;
the kernel leaves a play with a card taken in hand to the solver). What every player sees is
tracked move by move, as ``engine.apply`` tracks it. An offer that empties the hand is left to
the engine, which ends the hand.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from carousel_env.core.cards import JOKER, TABLE_JOKER
from carousel_env.games.kaluki import kernel_leaves as kl
from carousel_env.games.kaluki import kernel_table as kt
from carousel_env.games.kaluki.kernel_readings import (
    READING_JOKERS,
    READING_KIND,
    READING_LOW,
    READING_SIZE,
    READING_UNITS,
    READING_VALUE,
    RUN_ENTRY,
    cell_card,
)
from carousel_env.games.kaluki.melds import End
from carousel_env.games.kaluki.rules import HIGH_ACE, LOW_ACE
from carousel_env.games.kaluki.solver_pieces import FACE
from carousel_env.games.kaluki.state import Phase

MAX_NEW = kl.MAX_ENTRIES // 3 + 1  # new melds in a play: 3 cards each at least
MAX_PLAY_OPS = kl.MAX_ENTRIES + 8  # a play's lay-offs and exchanges: each puts a hand card down
OP_SEAT, OP_INDEX, OP_KIND, OP_UNIT, OP_END, OP_CARDS = range(6)  # the meld it is made on, then kt's op columns
OP_WIDTH = 6
NO_CARD = -1
HIGH_END = int(End.HIGH)
PLAY_PHASE = tuple(Phase).index(Phase.PLAY)  # kernel_rows.PLAY


# ---------------------------------------------------------------- writing an offer down


@njit(cache=True)
def _card(unit: int) -> int:
    """The hand card a table unit is laid from (a joker's unit is the joker)."""
    return JOKER if unit >= TABLE_JOKER else unit


@njit(cache=True)
def _sort_set(units, size: int) -> None:
    """A set's units in suit order (melds.make_set keeps them so)."""
    for i in range(1, size):
        unit = units[i]
        j = i - 1
        while j >= 0 and (units[j] & FACE) % 4 > (unit & FACE) % 4:
            units[j + 1] = units[j]
            j -= 1
        units[j + 1] = unit


@njit(cache=True)
def _put_op(a, g: int, i: int, n: int, seat: int, index: int, op) -> int:
    """Op ``n`` of offer ``i``: ``op`` (kt's columns) on meld ``index`` of ``seat``."""
    if n >= MAX_PLAY_OPS:
        return n + 1  # counted past the buffer: the offer is left to Python
    row = a.offer_ops[g, i, n]
    row[OP_SEAT], row[OP_INDEX] = seat, index
    row[OP_KIND], row[OP_UNIT], row[OP_END], row[OP_CARDS] = op[0], op[1], op[2], op[3]
    return n + 1


@njit(cache=True)
def _first_opening(values, jokers, m: int, threshold: int, hand_jokers: int, pick) -> int:
    """solver.play_moves' opening for a player who opens and exchanges: of the ``m`` new melds
    (their opening ``values`` and ``jokers``), the first combination, fewest melds first and
    then in order, that reaches ``threshold`` with jokers from the hand alone; its size (0:
    none), its melds' places in ``pick``."""
    for size in range(1, m + 1):
        for k in range(size):
            pick[k] = k
        while True:
            value, used = 0, 0
            for k in range(size):
                value += values[pick[k]]
                used += jokers[pick[k]]
            if value >= threshold and used <= hand_jokers:
                return size
            k = size - 1  # the next combination of this size
            while k >= 0 and pick[k] == m - size + k:
                k -= 1
            if k < 0:
                break
            pick[k] += 1
            for j in range(k + 1, size):
                pick[j] = pick[j - 1] + 1
    return 0


@njit(cache=True)
def _opening_first(a, g: int, i: int, m: int, values, jokers, released: int, pb) -> int:
    """The new melds of offer ``i`` of a player who has not opened, the opening's first (an
    offer that ``released`` jokers is made as the opening, the exchanges, then the other
    melds); how many the opening lays, 0 where no opening can be laid first."""
    if not m or not released:
        return m  # nothing exchanged: every new meld is the opening
    pick = np.empty(m, np.int64)
    size = _first_opening(values, jokers, m, pb[kl.THRESHOLD], pb[kl.HAND_JOKERS], pick)
    if size == 0:
        return 0
    melds = a.offer_melds[g, i, :m].copy()
    chosen = np.zeros(m, np.bool_)
    for k in range(size):
        a.offer_melds[g, i, k] = melds[pick[k]]
        chosen[pick[k]] = True
    n = size
    for k in range(m):
        if not chosen[k]:
            a.offer_melds[g, i, n] = melds[k]
            n += 1
    return size


@njit(cache=True)
def record_offer(a, g: int, i: int, readings, best, order, table_ops, cards: int, pb) -> bool:
    """Layout ``i`` of the search's answer (to problem ``pb``) as offer ``i`` of row ``g``: its
    new melds and ops in the engine's order, the hand's cards it lays (less the jokers its
    exchanges release; observation's ``_laid``), the value it leaves, its opening value, its
    jokers and whether it empties the hand; False where it does not fit the buffers."""
    ops, where, js_entries, js_ops = table_ops
    released = best[kl.BEST_RELEASED][i]
    laid = a.offer_laid[g, i]
    laid[:] = 0
    total = 0
    m = 0
    values = np.zeros(MAX_NEW, np.int64)
    jokers = np.zeros(MAX_NEW, np.int64)
    for r in best[kl.BEST_READINGS][i]:
        if r < 0:
            continue
        if m == MAX_NEW:
            return False
        values[m], jokers[m] = readings[READING_VALUE][r], readings[READING_JOKERS][r]
        row = a.offer_melds[g, i, m]
        row[:] = -1
        size = readings[READING_SIZE][r]
        row[kt.KIND] = kt.RUN_KIND if readings[READING_KIND][r] == RUN_ENTRY else kt.SET_KIND
        row[kt.LOW] = readings[READING_LOW][r] if row[kt.KIND] == kt.RUN_KIND else 0
        row[kt.SIZE] = size
        for u in range(size):
            unit = readings[READING_UNITS][r, u]
            row[kt.UNITS + u] = unit
            laid[_card(unit)] += 1
            total += 1
        if row[kt.KIND] == kt.SET_KIND:
            _sort_set(row[kt.UNITS :], size)
        m += 1
    a.offer_melds_n[g, i] = m
    if a.opened[g, a.current[g]]:
        a.offer_open_n[g, i] = 0
    else:
        a.offer_open_n[g, i] = _opening_first(a, g, i, m, values, jokers, released, pb)
        if a.offer_open_n[g, i] == 0 and m:
            return False
    n = 0
    for exchanges in (True, False):  # the pieces that exchange first (solver._sequence)
        for x in range(best[kl.BEST_PIECES_N][i]):
            t = order[best[kl.BEST_PIECES][i, x]]
            if t < 0:
                continue
            swap = False
            for o in range(ops.shape[1]):
                if ops[t, o, 0] < 0:
                    break
                swap = swap or ops[t, o, 0] == kt.OP_SWAP
            if swap != exchanges:
                continue
            for o in range(ops.shape[1]):
                kind, unit, cards_mask = ops[t, o, 0], ops[t, o, 1], ops[t, o, 3]
                if kind < 0:
                    break
                n = _put_op(a, g, i, n, where[t, 0], where[t, 1], ops[t, o])
                if kind == kt.OP_SWAP:
                    for suit in range(4):
                        if cards_mask >> suit & 1:
                            laid[(unit & ~3) + suit] += 1
                            total += 1
                else:
                    laid[_card(unit)] += 1
                    total += 1
        if exchanges:
            a.offer_swap_ops[g, i] = n
    for e in range(best[kl.BEST_EXTRA_N][i]):  # the jokers laid alone
        j, d = divmod(best[kl.BEST_EXTRA][i, e], kl.PLACES)
        n = _put_op(a, g, i, n, js_entries[j, d, 2], js_entries[j, d, 3], js_ops[j, d])
        laid[JOKER] += 1
        total += 1
    if n > MAX_PLAY_OPS:
        return False
    a.offer_ops_n[g, i] = n
    a.offer_out[g, i] = cards - total + released == 0
    laid[JOKER] = max(laid[JOKER] - released, 0)
    a.offer_left[g, i] = best[kl.BEST_LEFT][i]
    a.offer_open[g, i] = best[kl.BEST_OPEN][i]
    a.offer_jokers[g, i] = best[kl.BEST_JOKERS][i]
    return True


# ---------------------------------------------------------------- making it


@njit(cache=True)
def _known_change(a, g: int, s: int, change, seen: bool) -> None:
    """engine._track_known after one move that changed the mover's hand by ``change``: known
    cards are what went in less what went out, never below none; only a move seen going in
    (``seen``) changes a seat known to hold nothing."""
    known = a.known[g, s]
    if not seen:
        empty = True
        for c in range(known.shape[0]):
            if known[c] > 0:
                empty = False
                break
        if empty:
            return
    for c in range(known.shape[0]):
        if change[c] != 0:
            known[c] = max(known[c] + change[c], 0)


@njit(cache=True)
def _give(a, g: int, s: int, card: int, copies: int, change) -> None:
    """``copies`` of ``card`` into (or, negative, out of) the mover's hand."""
    a.hands[g, s, card] += copies
    a.hand_n[g, s] += copies
    change[card] += copies
    if copies < 0 and card == a.taken[g]:
        a.taken[g] = NO_CARD  # a copy of the taken card is on the table: it may be discarded now


@njit(cache=True)
def take_top(a, g: int, s: int) -> int:
    """The pile's top into the mover's hand, the card taken this turn (engine._take_discard's
    take); the card."""
    a.discards_n[g] -= 1
    card = a.discards[g, a.discards_n[g]]
    a.hands[g, s, card] += 1
    a.hand_n[g, s] += 1
    a.pile_takes[g] += 1
    a.taken[g] = card
    a.phase[g] = PLAY_PHASE
    return card


@njit(cache=True)
def _row_of(a, g: int, seat: int, index: int) -> int:
    for m in range(a.table_n[g]):
        if a.table[g, m, kt.SEAT] == seat and a.table[g, m, kt.INDEX] == index:
            return m
    return -1


@njit(cache=True)
def _lay_melds(a, g: int, s: int, i: int, first: int, last: int, change) -> None:
    """Offer ``i``'s new melds ``first`` to ``last``, after the mover's melds on the table
    (engine._put_melds)."""
    count = last - first
    if count == 0:
        return
    n = a.table_n[g]
    at = 0
    while at < n and a.table[g, at, kt.SEAT] <= s:
        at += 1
    a.table[g, at + count : n + count] = a.table[g, at:n].copy()  # the later seats' melds move down
    for m in range(count):
        row = a.table[g, at + m]
        row[:] = a.offer_melds[g, i, first + m]
        row[kt.SEAT], row[kt.INDEX] = s, a.seat_melds[g, s] + m
        for u in range(row[kt.SIZE]):
            _give(a, g, s, _card(row[kt.UNITS + u]), -1, change)
    a.table_n[g] = n + count
    a.seat_melds[g, s] += count
    a.opened[g, s] = True


@njit(cache=True)
def _lay_off(row, unit: int, end: int) -> None:
    """melds.laid_off: a run extended at the end the unit fits (``end`` where both do), a set
    completed in suit order."""
    size = row[kt.SIZE]
    if row[kt.KIND] == kt.SET_KIND:
        row[kt.UNITS + size] = unit
        row[kt.SIZE] = size + 1
        _sort_set(row[kt.UNITS :], size + 1)
        return
    low = row[kt.LOW]
    high = low + size - 1
    suit = (row[kt.UNITS] & FACE) % 4
    card = unit & FACE
    fits_low = low > LOW_ACE and card == cell_card(suit, low - 1)
    fits_high = high < HIGH_ACE and card == cell_card(suit, high + 1)
    if fits_low and (end != HIGH_END or not fits_high):
        for u in range(size, 0, -1):
            row[kt.UNITS + u] = row[kt.UNITS + u - 1]
        row[kt.UNITS] = unit
        row[kt.LOW] = low - 1
    else:
        row[kt.UNITS + size] = unit
    row[kt.SIZE] = size + 1


@njit(cache=True)
def _exchange(row, joker: int, cards_mask: int, release: int) -> int:
    """melds.exchanged: the joker declaring ``joker`` replaced by the naturals of ``cards_mask``
    (suits of its rank); the jokers it releases."""
    size = row[kt.SIZE]
    at = 0
    while row[kt.UNITS + at] != TABLE_JOKER + joker:
        at += 1
    rank_base = joker & ~3
    if row[kt.KIND] == kt.RUN_KIND or release == kt.DECLARED:
        row[kt.UNITS + at] = joker
        return 1
    if release == kt.EITHER_MISSING:
        for suit in range(4):
            if cards_mask >> suit & 1:
                row[kt.UNITS + at] = rank_base + suit
        _sort_set(row[kt.UNITS :], size)
        return 1
    jokers = 0  # all_missing: the naturals it holds and every missing suit, its jokers all released
    n = 0
    for u in range(size):
        unit = row[kt.UNITS + u]
        if unit >= TABLE_JOKER:
            jokers += 1
        else:
            row[kt.UNITS + n] = unit
            n += 1
    for suit in range(4):
        if cards_mask >> suit & 1:
            row[kt.UNITS + n] = rank_base + suit
            n += 1
    row[kt.UNITS + n : kt.UNITS + size] = -1
    row[kt.SIZE] = n
    _sort_set(row[kt.UNITS :], n)
    return jokers


@njit(cache=True)
def _make_op(a, g: int, s: int, op, release: int, change) -> None:
    """One lay-off or exchange of an offer (engine._lay_off, engine._exchange)."""
    row = a.table[g, _row_of(a, g, op[OP_SEAT], op[OP_INDEX])]
    unit = op[OP_UNIT]
    if op[OP_KIND] != kt.OP_SWAP:
        _give(a, g, s, _card(unit), -1, change)
        _lay_off(row, unit, op[OP_END])
        return
    for suit in range(4):
        if op[OP_CARDS] >> suit & 1:
            _give(a, g, s, (unit & ~3) + suit, -1, change)
    released = _exchange(row, unit, op[OP_CARDS], release)
    a.hands[g, s, JOKER] += released  # back to the hand (a play the kernel makes never reuses it now)
    a.hand_n[g, s] += released
    change[JOKER] += released


@njit(cache=True)
def _meld_move(a, g: int, s: int, i: int, first: int, last: int, change) -> None:
    """The move that lays offer ``i``'s new melds ``first`` to ``last`` (OPEN, or MELD once
    opened), if there are any."""
    if first == last:
        return
    change[:] = 0
    _lay_melds(a, g, s, i, first, last, change)
    _known_change(a, g, s, change, False)


@njit(cache=True)
def make_offer(a, g: int, i: int, take: bool, release: int) -> bool:
    """Offer ``i`` of row ``g``: a take of the pile's top with its arrangement (``take``), else a
    play; False where it empties the hand (left to the engine, which ends the hand).
    ``release``: the rules' set_joker_release (kernel_table's DECLARED, EITHER_MISSING, ALL_MISSING)."""
    if a.offer_out[g, i]:
        return False
    s = a.current[g]
    change = np.zeros(a.known.shape[2], np.int64)
    a.laid_now[g] = True
    melds_n = a.offer_melds_n[g, i]
    if take:  # one move: the top goes in, seen by all, and the arrangement goes down with it
        change[take_top(a, g, s)] += 1
        _lay_melds(a, g, s, i, 0, melds_n, change)
        _known_change(a, g, s, change, True)
        return True
    ops_n, swaps_n, open_n = a.offer_ops_n[g, i], a.offer_swap_ops[g, i], a.offer_open_n[g, i]
    _meld_move(a, g, s, i, 0, open_n, change)  # the opening, if the player opens now
    for o in range(ops_n):
        if o == swaps_n:  # after the exchanges, the other new melds
            _meld_move(a, g, s, i, open_n, melds_n, change)
        change[:] = 0
        op = a.offer_ops[g, i, o]
        _make_op(a, g, s, op, release, change)
        _known_change(a, g, s, change, op[OP_KIND] == kt.OP_SWAP)
    if ops_n == swaps_n:
        _meld_move(a, g, s, i, open_n, melds_n, change)
    return True
