"""What a Kaluki hand can do to the melds on the table, compiled with numba: the pieces of
``solver_pieces.run_pieces`` and ``set_pieces``, in their order, as the compiled search's arrays
(:mod:`carousel_env.games.kaluki.kernel_search`).

* A table run: at each end, every run of cells outward whose cells are naturals held or jokers,
  with at least one natural; a joker slot at each end with room; each of its jokers exchanged for
  the card it declares (when ``swaps``).
* A table set: every outcome of exchanges and lay-offs on it, found breadth first in the solver's
  order of steps (kept once per final set, cards used and net jokers), and a joker slot if it has
  room.

The table comes in as rows (:data:`MELD_COLUMNS`); each piece leaves with its notation entry and
the operations that make it (:data:`OP_COLUMNS`), which the caller turns back into the solver's
moves. A set's units are kept by suit: 0 none, 1 a natural, 2 a joker declaring that suit.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from carousel_env.core.cards import JOKER, NUM_CARDS, TABLE_JOKER
from carousel_env.games.kaluki import kernel_leaves as kl
from carousel_env.games.kaluki.kernel_readings import ENTRY_WIDTH, card_of, cell_card
from carousel_env.games.kaluki.melds import NEAR_RANKS
from carousel_env.games.kaluki.rules import HIGH_ACE, LOW_ACE, RUN_MAX, SET_MAX
from carousel_env.games.kaluki.solver_pieces import FACE, JOKERS_FIRST, LAY_TAG, SET_END, SET_TAG, SWAP_TAG

MELD_COLUMNS = ("seat", "index", "kind", "low", "size")  # then the units, -1 past the last
SEAT, INDEX, KIND, LOW, SIZE, UNITS = range(6)
MELD_WIDTH = UNITS + RUN_MAX
SET_KIND, RUN_KIND = 0, 1
DECLARED, EITHER_MISSING, ALL_MISSING = range(3)  # rules.SetJokerRelease, in its order
OP_COLUMNS = ("kind", "unit", "end", "cards")  # kind 0 a lay-off (end -1: none), 1 an exchange (cards: a suit mask)
OP_LAY, OP_SWAP = 0, 1
MAX_OPS = RUN_MAX  # a run's end piece lays up to 12 units, a set's outcome takes a few steps
PIECES_CAPACITY = 64  # table pieces written before counting past it (then all are written again)
MAX_SET_STATES = 64  # breadth-first states of one table set (a few dozen at most; more: the solver answers)
NO_END = -1


class SetOverflow(Exception):
    """A table set with more outcomes than the compiled search holds (the solver answers then)."""


@njit(cache=True)
def table_fits(rows, n: int, ace_low: bool, ace_high: bool, found) -> bool:
    """The cards some meld of the first ``n`` ``rows`` would take now, marked in ``found``: a
    set's missing suits while it has room, the cells beyond a run's ends (observation._fits);
    whether there are any (the joker is marked with them)."""
    lowest = LOW_ACE if ace_low else LOW_ACE + 1
    highest = HIGH_ACE if ace_high else HIGH_ACE - 1
    any_found = False
    for m in range(n):
        row = rows[m]
        size, first = row[SIZE], row[UNITS] & FACE
        if row[KIND] == SET_KIND:
            if size < SET_MAX:
                held = np.zeros(4, np.bool_)
                for u in range(size):
                    held[(row[UNITS + u] & FACE) % 4] = True
                for suit in range(4):
                    if not held[suit]:
                        found[card_of(first // 4 + 1, suit)] = True
                        any_found = True
        elif size < RUN_MAX:
            low = row[LOW]
            for cell in (low - 1, low + size):
                if lowest <= cell <= highest:
                    found[cell_card(first % 4, cell)] = True
                    any_found = True
    if any_found:
        found[JOKER] = True
    return any_found


@njit(cache=True)
def mark_partners(counts, found) -> None:
    """melds.meld_partners of the naturals held in ``counts``, marked in ``found``."""
    for card in range(NUM_CARDS):
        if counts[card] == 0:
            continue
        rank, suit = card // 4 + 1, card % 4
        for other in range(4):
            if other != suit:
                found[card_of(rank, other)] = True
        for r in range(max(rank - NEAR_RANKS, 1), min(rank + NEAR_RANKS, 13) + 1):
            if r != rank:
                found[card_of(r, suit)] = True


@njit(cache=True)
def makes_meld(card: int, counts, ace_low: bool, ace_high: bool) -> bool:
    """melds.makes_meld of the naturals held in ``counts``."""
    if card >= NUM_CARDS:
        return False
    rank, suit = card // 4 + 1, card % 4
    others = 0
    for other in range(4):
        if other != suit and counts[card_of(rank, other)] > 0:
            others += 1
    if others >= 2:
        return True
    lowest = LOW_ACE if ace_low else LOW_ACE + 1
    highest = HIGH_ACE if ace_high else HIGH_ACE - 1
    for cell in (LOW_ACE, HIGH_ACE) if rank == 1 else (rank, rank):  # an ace's two cells; another card's one
        for low in range(cell - 2, cell + 1):
            if lowest <= low and low + 2 <= highest:
                held = True
                for c in range(low, low + 3):
                    if c != cell and counts[cell_card(suit, c)] == 0:
                        held = False
                if held:
                    return True
    return False


@njit(cache=True)
def winnable_jokers(rows, n: int, held, release_rule: int) -> int:
    """solver.winnable_jokers: how many jokers of the first ``n`` ``rows`` the hand (``held``:
    copies of each card) could win by exchanges."""
    count = 0
    for m in range(n):
        row = rows[m]
        jokers = 0
        suits = np.zeros(4, np.bool_)
        for u in range(row[SIZE]):
            unit = row[UNITS + u]
            if unit < TABLE_JOKER:
                suits[unit % 4] = True
            elif row[KIND] == RUN_KIND or release_rule == DECLARED:
                count += held[unit - TABLE_JOKER] > 0  # for the card it declares
            else:
                jokers += 1
        if jokers:  # a set's, for a natural of its rank in a suit its naturals lack
            rank_base = (row[UNITS] & FACE) & ~3
            for suit in range(4):
                if not suits[suit] and held[rank_base + suit] > 0:
                    count += jokers
                    break
    return count


@njit(cache=True)
def _put(row, a, b, c, d, e, f, g) -> None:
    """The first seven columns of ``row`` (-1: a column left as it is)."""
    if a != -1:
        row[0] = a
    if b != -1:
        row[1] = b
    if c != -1:
        row[2] = c
    if d != -1:
        row[3] = d
    if e != -1:
        row[4] = e
    if f != -1:
        row[5] = f
    if g != -1:
        row[6] = g


@njit(cache=True)
def _buffers(capacity: int, slots: int):
    fields = (
        np.zeros(capacity, np.int64), np.zeros(capacity, np.int64), np.zeros(capacity, np.int64),
        np.zeros(capacity, np.int64), np.zeros(capacity, np.int64), np.zeros(capacity, np.int64),
        np.zeros(capacity, np.int64), np.zeros(capacity, np.int64), np.zeros(capacity, np.int64),
        np.zeros(capacity, np.int64), np.zeros(capacity, np.int64),
    )  # fmt: skip
    fixed = np.full((capacity, ENTRY_WIDTH), -1, np.int64)
    ops = np.full((capacity, MAX_OPS, 4), -1, np.int64)
    where = np.zeros((capacity, 2), np.int64)  # seat and meld index
    js = (
        np.zeros(slots, np.int64), np.zeros(slots, np.int64), np.zeros(slots, np.int64),
        np.full((slots, RUN_MAX, ENTRY_WIDTH), -1, np.int64), np.full((slots, RUN_MAX, 4), -1, np.int64),
    )  # fmt: skip
    return fields, fixed, ops, where, js


@njit(cache=True)
def _piece(out, count, need, jokers_in, jokers_out, value, cards, slot, run, added, entry, nops, ops, seat, index):
    """Write one piece at ``count`` (if the buffers hold it); returns the new count."""
    fields, fixed, op_rows, where, _ = out
    if count < fixed.shape[0]:
        fields[kl.NEED][count], fields[kl.JOKERS_IN][count], fields[kl.JOKERS_OUT][count] = need, jokers_in, jokers_out
        fields[kl.VALUE][count], fields[kl.CARDS][count] = value, cards
        fields[kl.SLOT][count], fields[kl.RUN][count], fields[kl.ADDED][count] = slot, run, added
        fixed[count] = entry
        op_rows[count, :nops] = ops[:nops]
        where[count, 0], where[count, 1] = seat, index
    return count + 1


@njit(cache=True)
def _some_natural_within(cells, ncells: int, held, suit: int, jokers: int) -> bool:
    """Whether a walk out over ``cells`` (a natural held or a joker each) meets a natural held
    before it needs more than ``jokers`` jokers: else it lays nothing."""
    # each cell before the first natural takes a joker
    for d in range(min(ncells, jokers + 1)):  # noqa: SIM110 (numba compiles loops, not generators)
        if held[cell_card(suit, cells[d])] > 0:
            return True
    return False


@njit(cache=True)
def _run_pieces(
    out, count, nslots, m, meld, held, pos, jokers, swaps, ace_low, ace_high, card_value, joker_value, swap_base
):
    """A table run's pieces and joker slots (solver_pieces.run_pieces)."""
    js_slot, js_run, js_most, js_entries, js_ops = out[4]
    seat, index, low, size = meld[SEAT], meld[INDEX], meld[LOW], meld[SIZE]
    suit = meld[UNITS] & 3
    room = RUN_MAX - size
    low_cell = LOW_ACE if ace_low else LOW_ACE + 1
    high_cell = HIGH_ACE if ace_high else HIGH_ACE - 1
    units = np.full(RUN_MAX, -1, np.int64)
    ops = np.full((MAX_OPS, 4), -1, np.int64)
    entry = np.full(ENTRY_WIDTH, -1, np.int64)
    cells = np.zeros(RUN_MAX, np.int64)
    # the walk's stacks: the walk below writes only above length 0 and clears ``tried`` on the way back
    tried = np.zeros(RUN_MAX + 1, np.int64)
    need = np.zeros(RUN_MAX + 1, np.int64)
    first = np.full(RUN_MAX + 1, NUM_CARDS, np.int64)  # above every card: none yet
    value = np.zeros(RUN_MAX + 1, np.int64)
    used = np.zeros(RUN_MAX + 1, np.int64)
    for end in range(2):
        ncells = 0
        cell = low - 1 if end == 0 else low + size
        while ncells < room and low_cell <= cell <= high_cell:
            cells[ncells] = cell
            ncells += 1
            cell += -1 if end == 0 else 1
        slot = 3 * m + end
        if ncells:
            j = nslots
            js_slot[j], js_run[j], js_most[j] = slot, m, ncells
            for d in range(ncells):
                unit = TABLE_JOKER + cell_card(suit, cells[d])
                _put(js_entries[j, d], JOKERS_FIRST, LAY_TAG, seat, index, end, d + 1, unit)
                _put(js_ops[j, d], OP_LAY, unit, end, -1, -1, -1, -1)
            nslots += 1
        # every run of cells outward: a natural held or a joker each, kept when it holds a natural
        n = 0 if _some_natural_within(cells, ncells, held, suit, jokers) else -1
        while n >= 0:
            if tried[n] == 0 and need[n]:
                entry[:] = -1
                _put(entry, first[n], LAY_TAG, seat, index, end, -1, -1)
                entry[5 : 5 + n] = units[:n]
                for k in range(n):
                    _put(ops[k], OP_LAY, units[k], end, -1, -1, -1, -1)
                count = _piece(
                    out, count, need[n], used[n], 0, value[n], n, slot, m, n, entry, n, ops, seat, index
                )  # fmt: skip
            if n == ncells or tried[n] == 2:
                tried[n] = 0
                n -= 1
                continue
            card = cell_card(suit, cells[n])
            if tried[n] == 0:
                tried[n] = 1
                if held[card] > 0:
                    units[n] = card
                    need[n + 1] = need[n] | (np.int64(1) << pos[card])
                    first[n + 1] = min(first[n], card)
                    value[n + 1], used[n + 1] = value[n] + card_value[card], used[n]
                    n += 1
                continue
            tried[n] = 2
            if used[n] < jokers:
                units[n] = TABLE_JOKER + card
                need[n + 1], first[n + 1] = need[n], first[n]
                value[n + 1], used[n + 1] = value[n] + joker_value, used[n] + 1
                n += 1
    if swaps:
        for i in range(size):
            unit = meld[UNITS + i]
            card = unit & FACE
            if unit >= TABLE_JOKER and held[card] > 0:
                entry[:] = -1
                _put(entry, card, SWAP_TAG, seat, index, i, card, -1)
                ops[0, :] = -1
                _put(ops[0], OP_SWAP, card, NO_END, 1 << (card & 3), -1, -1, -1)
                count = _piece(
                    out, count, np.int64(1) << pos[card], 0, 1, card_value[card], 1, swap_base + m * RUN_MAX + i, -1, 0,
                    entry, 1, ops, seat, index,
                )  # fmt: skip
    return count, nslots


@njit(cache=True)
def _set_code(state: np.ndarray) -> int:
    return state[0] + 3 * state[1] + 9 * state[2] + 27 * state[3]


@njit(cache=True)
def _seen_code(units: int, used: int, net: int) -> int:
    return (units * 16 + used) * 64 + net + 32  # used: 4 suit bits; net jokers: -32..31


@njit(cache=True)
def _exchange(state, joker_suit, cards_mask, release_rule, after):
    """The set ``state`` with the joker declaring ``joker_suit`` exchanged for the naturals of
    ``cards_mask`` (into ``after``): the jokers released, or -1 if the rules refuse it
    (melds.exchanged)."""
    after[:] = state
    if release_rule == DECLARED:
        if cards_mask != 1 << joker_suit:
            return -1
        after[joker_suit] = 1
        return 1
    missing = 0
    for s in range(4):
        if state[s] != 1:
            missing |= 1 << s
    if release_rule == ALL_MISSING:
        if cards_mask != missing:
            return -1
        released = 0
        for s in range(4):
            released += state[s] == 2
            after[s] = 1 if state[s] == 2 or cards_mask >> s & 1 else state[s]
        return released
    # either_missing: one natural of a missing suit takes the joker's place
    if cards_mask == 0 or cards_mask & (cards_mask - 1) or not cards_mask & missing:
        return -1
    s = 0
    while not cards_mask >> s & 1:
        s += 1
    if s != joker_suit and state[s] != 0:  # its suit is declared by another joker: a duplicate
        return -1
    after[joker_suit] = 0
    after[s] = 1
    return 1


@njit(cache=True)
def _set_pieces(out, count, nslots, m, meld, held, pos, hand_jokers, swaps, release_rule, card_value, joker_value):
    """A table set's pieces and joker slot (solver_pieces.set_pieces), breadth first."""
    js_slot, js_run, js_most, js_entries, js_ops = out[4]
    seat, index, size = meld[SEAT], meld[INDEX], meld[SIZE]
    rank = ((meld[UNITS] & FACE) >> 2) + 1
    start = np.zeros(4, np.int64)
    for i in range(size):
        start[meld[UNITS + i] & 3] = 2 if meld[UNITS + i] >= TABLE_JOKER else 1
    holds_rank = False
    for s in range(4):
        holds_rank |= held[card_of(rank, s)] > 0
    if holds_rank:  # every piece lays a natural of the set's rank
        count = _set_outcomes(
            out, count, m, seat, index, rank, start, held, pos, hand_jokers, swaps, release_rule, card_value,
            joker_value,
        )  # fmt: skip
    if size < SET_MAX:
        s = 0
        while start[s] != 0:
            s += 1
        unit = TABLE_JOKER + card_of(rank, s)
        j = nslots
        js_slot[j], js_run[j], js_most[j] = 3 * m + 2, -1, 1
        _put(js_entries[j, 0], JOKERS_FIRST, LAY_TAG, seat, index, SET_END, 1, unit)
        _put(js_ops[j, 0], OP_LAY, unit, NO_END, -1, -1, -1, -1)
        nslots += 1
    return count, nslots


@njit(cache=True)
def _set_outcomes(
    out, count, m, seat, index, rank, start, held, pos, hand_jokers, swaps, release_rule, card_value, joker_value
):
    """The pieces of a table set (``start``: each suit's unit, 0 none, 1 natural, 2 joker) that
    the hand's naturals of its ``rank`` make, in the order found."""
    cap = MAX_SET_STATES
    states = np.zeros((cap, 4), np.int64)
    used = np.zeros(cap, np.int64)  # suit mask of the naturals laid
    jin = np.zeros(cap, np.int64)
    jout = np.zeros(cap, np.int64)
    path = np.full((cap, MAX_OPS, 4), -1, np.int64)
    depth = np.zeros(cap, np.int64)
    codes = np.zeros(cap, np.int64)  # each state's set, naturals laid and net jokers, to meet each once
    states[0] = start
    codes[0] = _seen_code(_set_code(start), 0, 0)
    total, head = 1, 0
    after = np.zeros(4, np.int64)
    entry = np.full(ENTRY_WIDTH, -1, np.int64)
    while head < total:
        level_end = total
        while head < level_end:
            st = states[head]
            units = 0
            for s in range(4):
                units += st[s] != 0
            spare = 0  # the suits of this rank the hand holds beyond those laid
            for s in range(4):
                if held[card_of(rank, s)] - (used[head] >> s & 1) > 0:
                    spare |= 1 << s
            for step in range(3):  # exchanges, then naturals laid off, then a joker laid off
                if (step == 0 and not swaps) or (step > 0 and units >= SET_MAX):
                    continue
                if step == 2 and hand_jokers + jout[head] - jin[head] <= 0:
                    continue
                for joker_suit in range(4 if step == 0 else 1):
                    if step == 0 and st[joker_suit] != 2:
                        continue
                    tries = np.zeros(6, np.int64)  # suit masks of the naturals to try
                    ntries = 0
                    if step < 2:
                        for s in range(4):
                            if spare >> s & 1:
                                tries[ntries] = 1 << s
                                ntries += 1
                    if step == 2 or (step == 0 and ntries != 1):  # every natural together (none: a joker)
                        tries[ntries] = spare if step == 0 else 0
                        ntries += 1
                    for t in range(ntries):
                        mask = tries[t]
                        new_jin, new_jout = jin[head], jout[head]
                        if step == 0:
                            released = _exchange(st, joker_suit, mask, release_rule, after)
                            if released < 0:
                                continue
                            new_jout += released
                            op_kind, op_unit, op_cards = OP_SWAP, card_of(rank, joker_suit), mask
                        elif step == 1:
                            s = 0
                            while not mask >> s & 1:
                                s += 1
                            if st[s] != 0:
                                continue
                            after[:] = st
                            after[s] = 1
                            op_kind, op_unit, op_cards = OP_LAY, card_of(rank, s), 0
                        else:
                            s = 0
                            while st[s] != 0:
                                s += 1
                            after[:] = st
                            after[s] = 2
                            new_jin += 1
                            op_kind, op_unit, op_cards = OP_LAY, TABLE_JOKER + card_of(rank, s), 0
                        new_used = used[head] | mask
                        code = _seen_code(_set_code(after), new_used, new_jout - new_jin)
                        met = False
                        for k in range(total):
                            if codes[k] == code:
                                met = True
                                break
                        if met:
                            continue
                        if depth[head] >= MAX_OPS or total >= cap:
                            raise SetOverflow("a table set's outcomes overflow the compiled search's buffers")
                        codes[total] = code
                        states[total] = after
                        used[total], jin[total], jout[total] = new_used, new_jin, new_jout
                        path[total] = path[head]
                        path[total, depth[head], 0], path[total, depth[head], 1] = op_kind, op_unit
                        path[total, depth[head], 2], path[total, depth[head], 3] = NO_END, op_cards
                        depth[total] = depth[head] + 1
                        total += 1
            head += 1
    for k in range(1, total):  # the outcomes that lay a natural, in the order found
        if used[k] == 0:
            continue
        need, value, cards, low_card = np.int64(0), jin[k] * joker_value, 0, NUM_CARDS
        entry[:] = -1
        _put(entry, -1, SET_TAG, seat, index, jin[k], jout[k], -1)
        for s in range(4):
            if used[k] >> s & 1:
                card = card_of(rank, s)
                need |= np.int64(1) << pos[card]
                value += card_value[card]
                entry[6 + cards] = card
                cards += 1
                low_card = min(low_card, card)
        entry[0] = low_card
        count = _piece(
            out, count, need, jin[k], jout[k], value, cards + jin[k], 3 * m + 2, -1, 0, entry, depth[k], path[k],
            seat, index,
        )  # fmt: skip
    return count


@njit(cache=True)
def table_pieces(
    melds, held, pos, hand_jokers, jokers, swaps, ace_low, ace_high, release_rule, card_value, joker_value
):
    """Every table meld's pieces and joker slots, in the solver's order: (piece fields, entries,
    operations, seat and index, joker slots (slot, run, most, entries, operations)), their
    counts, and the slot count (of ``M`` melds, meld ``m``'s run ends are slots ``3m`` and
    ``3m + 1``, a set ``3m + 2``, an exchange of a run's ``i``-th unit ``3M + RUN_MAX * m + i``)."""
    count_melds = melds.shape[0]
    nslots_all = 2 * count_melds
    capacity = PIECES_CAPACITY
    while True:
        out = _buffers(capacity, nslots_all)
        count, nslots = 0, 0
        for m in range(count_melds):
            if melds[m, KIND] == RUN_KIND:
                count, nslots = _run_pieces(
                    out, count, nslots, m, melds[m], held, pos, jokers, swaps, ace_low, ace_high, card_value,
                    joker_value, 3 * count_melds,
                )  # fmt: skip
            else:
                count, nslots = _set_pieces(
                    out, count, nslots, m, melds[m], held, pos, hand_jokers, swaps, release_rule, card_value,
                    joker_value,
                )  # fmt: skip
        if count <= capacity:
            return out, count, nslots, (3 + RUN_MAX) * count_melds
        capacity = count
