"""Settling a solve with witnesses: every entry a slot needs, each proved by one table (compiled).

:func:`witnessed` takes the upper bound of each entry the slots need (the dearest live
hand units of its size) and looks for a witness that meets it (``search.witness``). With
no hand joker, a size whose dearest cards have none is searched in full
(``search.best_of_size``, :func:`_plain_sizes`), and a size just below one whose play
reaches its bound is first tried as that play less one cheapest card (:func:`drop_card`),
with no search. It answers as ``pipeline.solve_packed`` does, or says that it could not
(out of budget, or no witness can settle the position): the caller then runs the sweeps.

Tables found are kept in rows of ``tables = (units, meld lengths, sizes)``
(:func:`keep_table`), the cards each plays in the same row of ``played`` (count per card,
52: hand jokers).

:func:`witnessed` is a compiled entry point of its own; :func:`_plain_sizes` and
:func:`_settle_size` are inlined into it, and no slice is assigned an array or a tuple
(see ``pipeline`` and ``sweep`` on compile time).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from carousel_env.core.cards import JOKER_POINTS
from carousel_env.games.carousel.solver.answer import (
    BEST_CARDS,
    BEST_POINTS,
    COUNT,
    HEADER_SIZE,
    choose,
    pack_suggestion,
    start,
)
from carousel_env.games.carousel.solver.build import MAX_MELDS, MAX_UNITS, assemble
from carousel_env.games.carousel.solver.prepare import CARD_POINTS, MOST_CARD_POINTS, face_at, layout
from carousel_env.games.carousel.solver.witness.search import (
    OVER_BUDGET,
    ROOM,
    TOO_WIDE,
    best_in_windows,
    new_known,
    size_bounds,
    witness,
)


@njit(cache=True)
def keep_table(tables, row, flat, lengths):
    """Store one table (flat units, meld lengths) in row ``row`` of ``tables`` = ``(units,
    lengths, sizes)``."""
    units, melds, sizes = tables
    for j in range(flat.shape[0]):  # loops, not slice assignments: see sweep
        units[row, j] = flat[j]
    for j in range(lengths.shape[0]):
        melds[row, j] = lengths[j]
    sizes[row, 0], sizes[row, 1] = flat.shape[0], lengths.shape[0]


@njit(cache=True)
def _witness_prefix(units, order, n, jokers, live, lay, ace_low, ace_high, budget, tables, played, row):
    """Search a witness for the first ``n`` units of ``order`` (``-1``: every live real card,
    ``live``), with ``jokers`` hand jokers among them; fills ``played[row]`` (count per card,
    52: jokers) and, when one is found, keeps its table in row ``row`` of ``tables``.
    Returns ``(status, expanded)``: ``status`` 1 found, else the failure code of
    :func:`witness`."""
    counts = played[row]
    counts[:] = 0
    if n < 0:
        for f in range(52):
            counts[f] = live[f]
    else:
        for c in order[:n]:
            counts[c] += 1
    counts[52] = jokers
    played_real = 0
    for f in range(52):  # a loop, not numpy's sum: see sweep
        played_real += counts[f]
    table_units = np.empty(units.shape[0] + played_real, dtype=np.int64)
    for j in range(units.shape[0]):
        table_units[j] = units[j]
    at = units.shape[0]
    for f in range(52):
        for _ in range(counts[f]):
            table_units[at] = f
            at += 1
    sub = layout(table_units, np.full(jokers, 52, dtype=np.int64), ace_low, ace_high)
    codes, expanded = witness(sub.cells, jokers, budget)
    if codes[0] < 0:
        return codes[0], expanded
    # the played cards are table cards in ``sub``: rebuilt as such on the position's table
    positions, real, table_jokers = lay.positions, lay.table_real, lay.table_jokers
    flat, lengths, _ = assemble(positions, ace_low and ace_high, real + counts[:52], table_jokers, codes)
    keep_table(tables, row, flat, lengths)
    return 1, expanded


@njit(cache=True)
def drop_card(tables, played, src, dst, table_jokers, points):
    """Row ``dst`` := the table of row ``src`` less one copy of a real hand card worth
    ``points`` it plays (``played[src]``, per card), where every meld stays valid without it: an end
    of a run of 4 or more, a run of 7 or more split into two of 3 or more, a card of a set
    of 4. Returns the card taken out, or -1 when none can be. Never a card some table joker
    declares (taking out a real copy could undo that joker's release), nor one of the rank
    of a joker on the new table (a joker in a set declares by the copies of its rank: see
    :mod:`carousel_env.games.carousel.solver.build`), so every declaration still follows the rebuild's
    rule. The callers drop the points of the last of the dearest cards of the next size
    from a play that reaches ``top``: such a play holds a card of each of their points (the
    i-th dearest of any ``n`` cards is at most the i-th dearest of all), and what is left
    reaches ``top`` of its size."""
    units, melds, sizes = tables
    nunits, nmelds = sizes[src, 0], sizes[src, 1]
    for f in range(52):
        if not played[src, f] or CARD_POINTS[f] != points or table_jokers[f]:
            continue
        clear = True
        for j in range(nunits):
            u = units[src, j]
            if u >= 64 and (u & 63) >> 2 == f >> 2:
                clear = False
        if not clear:
            continue
        start = 0
        for m in range(nmelds):
            length = melds[src, m]
            is_set = (units[src, start] & 63) >> 2 == (units[src, start + 1] & 63) >> 2
            for j in range(length):
                if units[src, start + j] != f:
                    continue
                before, after = j, length - 1 - j
                if is_set:
                    fits = length == 4
                else:
                    fits = length >= 4 and (before == 0 or before >= 3) and (after == 0 or after >= 3)
                if not fits:
                    continue
                # every piece keeps a real card: the rebuild never makes a meld of jokers alone
                real_before = real_after = False
                for q in range(j):
                    real_before |= units[src, start + q] < 64
                for q in range(j + 1, length):
                    real_after |= units[src, start + q] < 64
                if (before and not real_before) or (after and not real_after):
                    continue
                at = start + j
                for q in range(nunits - 1):  # loops, not slice assignments: see sweep
                    units[dst, q] = units[src, q + (q >= at)]
                for q in range(m):
                    melds[dst, q] = melds[src, q]
                pieces = 0
                if is_set:
                    melds[dst, m] = length - 1
                    pieces = 1
                else:
                    for piece in (before, after):
                        if piece:
                            melds[dst, m + pieces] = piece
                            pieces += 1
                for q in range(m + 1, nmelds):
                    melds[dst, q - 1 + pieces] = melds[src, q]
                sizes[dst, 0], sizes[dst, 1] = nunits - 1, nmelds - 1 + pieces
                for q in range(53):
                    played[dst, q] = played[src, q]
                played[dst, f] -= 1
                return f
            start += length
    return -1


@njit(cache=True, inline="always")
def _settle_size(n, units, lay, order, top, live, ace_low, ace_high, budget, known, bound, tables, played, row):
    """With no hand joker: ``(status, points, expanded)`` of the best play of exactly
    ``n`` cards (points ``-1``: none), its table in row ``row`` of ``tables`` and the cards
    it plays in ``played[row]``. The dearest ``n`` first (a witness); when they have none,
    ``search.best_in_windows`` searches every other choice of ``n``, from the top down in
    windows of points. ``status``: 1
    settled, 0 out of ``budget``, -1 no search can settle it (a state too wide)."""
    no_jokers = np.int64(0)  # not a literal: one compiled _witness_prefix (and witness) for both callers
    status, spent = _witness_prefix(
        units, order, n, no_jokers, live, lay, ace_low, ace_high, budget, tables, played, row
    )
    if status == 1:
        return 1, top[n], spent
    if status == OVER_BUDGET:
        return 0, -1, spent
    if status == TOO_WIDE:
        return -1, -1, spent
    if n == order.shape[0]:  # the dearest n are every live card: no other choice
        return 1, -1, spent
    # from the top down (top[n] itself: the dearest cards with ties swapped, only they reach it)
    any_play = np.int64(-1)
    points, found, more = best_in_windows(lay.cells, n, no_jokers, bound, known, budget - spent, any_play, top[n], ROOM)
    spent += more
    if points == OVER_BUDGET:
        return 0, -1, spent
    if points == TOO_WIDE:
        return -1, -1, spent
    if points >= 0:  # the codes are on this layout: the cards played are read off them
        flat, lengths, added = assemble(lay.positions, ace_low and ace_high, lay.table_real, lay.table_jokers, found)
        keep_table(tables, row, flat, lengths)
        for f in range(52):
            played[row, f] = added[f]
        played[row, 52] = 0
    return 1, max(points, -1), spent


@njit(cache=True, inline="always")
def _plain_sizes(units, lay, order, top, live, hand_total, ace_low, ace_high, k, knock_limit, budget, tables, played):
    """With no hand joker: ``(status, value)``, ``value[n]`` the points of the best play of
    exactly ``n`` cards for every ``n`` some slot of ``choose`` can pick (``-1``: none;
    ``-2``: not needed), its table in row ``n`` of ``tables`` and ``played``. ``status`` as
    for :func:`_settle_size`. Settled in the order the slots need them: the most cards (from
    all live cards down to the first size that has a play), the sizes below it, smaller
    sizes while their upper bound ``top`` beats the best points so far (ties go to more
    cards), and the knock's smallest size. A size just below one whose play reaches its
    bound ``top`` is first tried as that play less one cheapest card (:func:`drop_card`),
    which reaches ``top`` too: no search."""
    m = order.shape[0]
    value = np.full(m + 1, -2, dtype=np.int64)  # -2: not settled
    bound = size_bounds(lay.cells.lay_h, lay.cells.rp, m)
    known = new_known(budget)
    todo = np.empty(m, dtype=np.int64)
    table_jokers = lay.table_jokers
    most = -1
    phase = 0
    while phase < 4:
        # the sizes this phase needs, in the order it tries them
        count = 0
        if phase == 0:
            for n in range(m, 0, -1):
                todo[count] = n
                count += 1
        elif phase == 1:
            for n in range(most - 1, max(0, most - k - 1), -1):
                todo[count] = n
                count += 1
        elif phase == 2:
            for n in range(max(0, most - k - 1), 0, -1):
                todo[count] = n
                count += 1
        elif knock_limit >= 0:  # the knock wants the fewest cards
            for n in range(1, most + 1):
                if top[n] >= hand_total - knock_limit:
                    todo[count] = n
                    count += 1
        for t in range(count):
            n = todo[t]
            if phase == 2:
                settled_most = -2
                for q in range(m + 1):
                    settled_most = max(settled_most, value[q])
                if top[n] <= settled_most:
                    break
            # the next size's play less its last dearest card (see drop_card)
            settled = value[n] == -2 and n < m and value[n + 1] == top[n + 1]
            if settled and drop_card(tables, played, n + 1, n, table_jokers, CARD_POINTS[order[n]]) >= 0:
                value[n] = top[n]
            if value[n] == -2:
                status, points, spent = _settle_size(
                    n, units, lay, order, top, live, ace_low, ace_high, budget, known, bound, tables, played, n
                )
                budget -= spent
                if status < 1:
                    return status, value
                value[n] = points
            if phase == 0 and value[n] >= 0:
                most = n
                break
            if phase == 3 and value[n] >= hand_total - knock_limit:
                break
        if most < 0:  # no play at all
            break
        phase += 1
    return 1, value


@njit(cache=True)
def witnessed(units, hand_cards, ace_low, ace_high, k, knock_limit, budget):
    """The whole answer from witnesses, packed as ``pipeline.solve_packed`` packs it
    (``answer``), or a single status: ``0`` when some entry a slot needs was not settled
    within ``budget`` expanded states (a larger budget may settle it), ``-1`` when no
    budget will settle them (some entry has no witness, with hand jokers, or a search met
    a state too wide for it): the caller runs the sweeps. Its own compiled entry point,
    called only when a sweep grows large (see ``carousel_env.games.carousel.solver.solve``), so that a
    first solve does not compile it.

    The live hand units in order of points (hand jokers first, then real cards dearest
    first, ties by card): the best play of ``n`` cards scores at most the first ``n``, all
    the live units together are the most cards and points, and the live real cards the
    most points without a hand joker. A witness for each of these that a slot needs makes
    it exact, and ``choose`` picks from them exactly what it would pick from every entry:
    for each cards count the prefix is the only entry that can reach its points (a hand
    joker scores 25, a real card at most 10), and no count below the knock's prefix can
    leave a hand worth ``knock_limit`` or less. With no hand joker, a size whose prefix has
    no witness is searched in full (:func:`_plain_sizes`). A size's play may also be the
    next size's play less one cheapest real card (:func:`drop_card`): it scores the same
    as the prefix."""
    out, lay, hand, hand_total = start(units, hand_cards, ace_low, ace_high, k)
    hj, positions, table_jokers, lay_h = lay.hand_jokers, lay.positions, lay.table_jokers, lay.cells.lay_h
    live = np.zeros(52, dtype=np.int64)
    m = hj
    for i in range(positions.shape[0]):  # the high ace's row is empty (layout)
        for s in range(4):
            live[face_at(positions[i], s)] += lay_h[i, s]
            m += lay_h[i, s]
    order = np.empty(m, dtype=np.int64)
    order[:hj] = 52
    at = hj
    for pts in range(MOST_CARD_POINTS, 0, -1):
        for f in range(52):
            if CARD_POINTS[f] == pts:
                for _ in range(live[f]):
                    order[at] = f
                    at += 1
    top = np.zeros(m + 1, dtype=np.int64)
    for n in range(m):
        top[n + 1] = top[n] + CARD_POINTS[order[n]]
    rows = m + 2
    tables = (
        np.empty((rows, MAX_UNITS), dtype=np.int64),
        np.empty((rows, MAX_MELDS), dtype=np.int64),
        np.zeros((rows, 2), dtype=np.int64),
    )
    played = np.zeros((rows, 53), dtype=np.int64)
    best = np.full((m + 1, hj + 1), -1, dtype=np.int64)
    row_of = np.zeros((m + 1, hj + 1), dtype=np.int64)
    if hj == 0:
        status, value = _plain_sizes(
            units, lay, order, top, live, hand_total, ace_low, ace_high, k, knock_limit, budget, tables, played
        )
        if status < 1:
            out[BEST_POINTS] = status
            return out[:1]
        for n in range(1, m + 1):
            best[n, 0] = max(value[n], -1)
            row_of[n, 0] = n
    else:
        # the entries to witness, as (cards, hand jokers, prefix length or -1 for every live real card)
        wanted = np.empty((k + 3, 3), dtype=np.int64)
        # (element by element, not a tuple into a row: see keep_table)
        wanted[0, 0], wanted[0, 1], wanted[0, 2] = m, hj, m
        nwanted = 1
        if m > hj:  # a hand of jokers alone has no play without them
            wanted[nwanted, 0], wanted[nwanted, 1], wanted[nwanted, 2] = m - hj, 0, -1
            nwanted += 1
        if knock_limit >= 0:
            for c in range(1, m + 1):
                if top[c] >= hand_total - knock_limit:
                    if c < m - k:  # below the sizes' range (else already wanted)
                        wanted[nwanted, 0], wanted[nwanted, 1], wanted[nwanted, 2] = c, min(c, hj), c
                        nwanted += 1
                    break
        for n in range(m - 1, max(0, m - k - 1), -1):
            wanted[nwanted, 0], wanted[nwanted, 1], wanted[nwanted, 2] = n, min(n, hj), n
            nwanted += 1
        prefix_row = np.full(m + 1, -1, dtype=np.int64)
        for w in range(nwanted):
            cards, jokers, prefix = wanted[w]
            settled = False
            # the prefix one longer less its last card (see drop_card)
            if prefix >= hj and prefix < m and prefix_row[prefix + 1] >= 0:
                points = CARD_POINTS[order[prefix]]
                settled = drop_card(tables, played, prefix_row[prefix + 1], w, table_jokers, points) >= 0
            if not settled:
                status, spent = _witness_prefix(
                    units, order, prefix, jokers, live, lay, ace_low, ace_high, budget, tables, played, w
                )
                budget -= spent
                if status < 0:
                    out[BEST_POINTS] = 0 if status == OVER_BUDGET else -1
                    return out[:1]
            if prefix >= 0:
                prefix_row[prefix] = w
            best[cards, jokers] = top[cards] if prefix >= 0 else top[m] - JOKER_POINTS * hj
            row_of[cards, jokers] = w
    picks = choose(best, k, hand_total, knock_limit)
    if picks.shape[0] == 0:  # no play at all (only with no hand joker)
        return out[:HEADER_SIZE]
    if hj:
        out[BEST_POINTS], out[BEST_CARDS] = top[m], m
    else:
        out[BEST_POINTS], out[BEST_CARDS] = 0, 0
        for n in range(m + 1):
            if best[n, 0] >= 0:
                out[BEST_POINTS], out[BEST_CARDS] = max(out[BEST_POINTS], best[n, 0]), n
    out[COUNT] = picks.shape[0]
    at = np.int64(3)
    units_of, melds_of, sizes = tables
    for row in range(picks.shape[0]):
        slot, cards, jokers = picks[row, 0], picks[row, 1], picks[row, 2]
        w = row_of[cards, jokers]
        flat, lengths = units_of[w, : sizes[w, 0]], melds_of[w, : sizes[w, 1]]
        at = pack_suggestion(out, at, slot, cards, jokers, best[cards, jokers], hand, played[w], flat, lengths)
    return out[:at]
