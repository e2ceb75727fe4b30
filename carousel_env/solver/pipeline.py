"""The whole solve of one position as one compiled call, packed into one int64 array.

Crossing from Python into numba costs microseconds per argument and per returned array,
and the solver runs at almost every decision of every game, so ``solve_packed`` does
everything (layout, sweeps, slot choice, trace, rebuild, canonical order, hand after) and
returns a single array that ``carousel_env.solver.solve`` cuts into suggestions:

``[best points, best cards, suggestions]`` (best cards ``-1``: no legal play), then per
suggestion ``[slot, cards, hand jokers, points, hand-after points, n, *added cards,
n, *hand after, n, *meld lengths, *table units]``, the melds in ``canonical_table`` order.

When the unpruned sweep passes ``quick`` states, ``_witnessed`` tries to settle every slot
with one witness table each (see ``witness``) before the sweeps go on, in rounds that grow
``_GROWTH`` times (see ``solve_packed``).

Slots (``SLOT_NAMES``; a slot that does not exist or repeats an earlier entry is skipped):
``max_points``, ``max_cards``, ``keep_jokers``, ``knock`` (only when the rules have a knock
limit), then ``size_n`` for n = (max cards - 1) down to max(1, max cards - k). An *entry* is
a pair (cards played, hand jokers among them); two entries are always two different
multisets of played cards, and each entry is rebuilt into exactly one play.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from carousel_env.solver import core, witness
from carousel_env.solver.build import _MAX_MELDS, _MAX_UNITS, assemble
from carousel_env.solver.prepare import _face_at, layout

SLOT_NAMES = ("max_points", "max_cards", "keep_jokers", "knock")  # slot 4 is "size_<cards>"
_SIZE_SLOT = 4
# Each round of sweep then witnesses allows this many times the states of the last (a
# sweep that passes its budget is thrown away and the next starts over).
_GROWTH = 8


@njit(cache=True)
def _no_targets():
    """The ``tgt`` of a pass with no points targets. Made per call, not a module constant:
    numba freezes a global array as a read-only constant, whose type would compile the
    sweeps a second time (once per signature, each about half a minute)."""
    return np.zeros(1, dtype=np.int64)


@njit(cache=True)
def _card_points(card):
    return 25 if card == 52 else min((card >> 2) + 1, 10)


@njit(cache=True)
def _offer(picks, count, taken, slot, cards, jokers):
    if cards < 0 or taken[cards, jokers] or count >= picks.shape[0]:
        return count
    taken[cards, jokers] = True
    picks[count, 0], picks[count, 1], picks[count, 2] = slot, cards, jokers
    return count + 1


@njit(cache=True)
def choose(best, k, hand_total, knock_limit):
    """Rows ``(slot, cards, jokers)``, at most ``k``, from ``best[cards, jokers]`` = best points
    (``-1``: no such entry). Ties cannot occur: each key below ends in the entry itself.

    0. ``max_points``: most points; ties: more cards, then fewer jokers.
    1. ``max_cards``: most cards; ties: more points, then fewer jokers.
    2. ``keep_jokers``: most points using no hand joker; ties: more cards.
    3. ``knock`` (``knock_limit >= 0``): the fewest cards whose play leaves a hand worth at
       most ``knock_limit``; ties: more points, then fewer jokers.
    4. ``size_n`` for n = (max cards - 1) down to max(1, max cards - k): most points with
       exactly n cards; ties: fewer jokers.
    """
    picks = np.empty((max(k, 0), 3), dtype=np.int64)
    taken = np.zeros(best.shape, dtype=np.bool_)
    ncards, njokers = best.shape
    top_p = (-1, -1, -1, -1, -1)  # key..., cards, jokers
    top_c = (-1, -1, -1, -1, -1)
    plain = (-1, -1, -1, -1)
    knock = (1 << 30, 0, 0, -1, -1)
    most = -1
    for c in range(ncards):
        for j in range(njokers):
            v = best[c, j]
            if v < 0:
                continue
            most = max(most, c)
            if (v, c, -j) > top_p[:3]:
                top_p = (v, c, -j, c, j)
            if (c, v, -j) > top_c[:3]:
                top_c = (c, v, -j, c, j)
            if j == 0 and (v, c) > plain[:2]:
                plain = (v, c, c, j)
            if knock_limit >= 0 and hand_total - v <= knock_limit and (c, -v, j) < knock[:3]:
                knock = (c, -v, j, c, j)
    count = 0
    if most < 0 or k <= 0:
        return picks[:0]
    count = _offer(picks, count, taken, 0, top_p[3], top_p[4])
    count = _offer(picks, count, taken, 1, top_c[3], top_c[4])
    count = _offer(picks, count, taken, 2, plain[2], plain[3])
    count = _offer(picks, count, taken, 3, knock[3], knock[4])
    for n in range(most - 1, max(0, most - k - 1), -1):
        if count >= k:
            break
        pick = -1
        for j in range(njokers):
            if best[n, j] >= 0 and (pick < 0 or best[n, j] > best[n, pick]):
                pick = j
        if pick >= 0:
            count = _offer(picks, count, taken, _SIZE_SLOT, n, pick)
    return picks[:count]


@njit(cache=True)
def _targeted(lay_t, lay_k, lay_h, realu, near, setok, defer, lastace, rafter, rp, hj, best_cards, best_points, n, p):
    """The pruned DAG and its vector pass, exact for every entry a slot may pick (at least
    ``n`` cards or ``p`` points).

    With no hand joker, rounds with a points target per cards count (``core._build``):
    first the most any number of cards could score (the dearest live hand cards, at most
    ``best_points``); a count whose best falls short of its target is retried with a lower
    target (a step that doubles, never below the best found, which is achievable)."""
    no_targets, no_budget = _no_targets(), np.int64(core.NO_BUDGET)  # see _no_targets
    if hj:
        states, edges, bounds, fut, first, pairs = core.explore(
            lay_t, lay_k, lay_h, realu, near, setok, defer, lastace, rafter, rp, hj, n, p, no_targets, no_budget
        )
        best, where, entries = core.vector(states, first, pairs, edges, bounds, fut, hj, n, p, no_targets)
        return pairs, edges, bounds, best, where, entries
    pts = np.empty(lay_h.sum(), dtype=np.int64)
    m = 0
    for i in range(lay_h.shape[0]):
        for s in range(4):
            for _ in range(lay_h[i, s]):
                pts[m] = rp[i]
                m += 1
    pts = np.sort(pts)[::-1]
    tgt = np.zeros(m + 1, dtype=np.int64)
    for c in range(1, m + 1):
        tgt[c] = min(best_points, tgt[c - 1] + pts[c - 1])
    step = np.full(m + 1, 5, dtype=np.int64)
    while True:
        states, edges, bounds, fut, first, pairs = core.explore(
            lay_t, lay_k, lay_h, realu, near, setok, defer, lastace, rafter, rp, hj, n, p, tgt, no_budget
        )
        best, where, entries = core.vector(states, first, pairs, edges, bounds, fut, hj, n, p, tgt)
        done = True
        for c in range(n, best_cards + 1):
            found = best[c].max() if c < best.shape[0] else -1
            if found < tgt[c]:
                done = False
                tgt[c] = max(found, tgt[c] - step[c])
                step[c] *= 2
        if done:
            return pairs, edges, bounds, best, where, entries


@njit(cache=True)
def _meld_before(units, a0, an, b0, bn):
    """``canonical_table``'s order: sets first, then by suit, faces, units."""
    a_run = (units[a0] & 63) >> 2 != (units[a0 + 1] & 63) >> 2
    b_run = (units[b0] & 63) >> 2 != (units[b0 + 1] & 63) >> 2
    if a_run != b_run:
        return b_run
    if units[a0] & 3 != units[b0] & 3:
        return units[a0] & 3 < units[b0] & 3
    for j in range(min(an, bn)):
        if units[a0 + j] & 63 != units[b0 + j] & 63:
            return units[a0 + j] & 63 < units[b0 + j] & 63
    if an != bn:
        return an < bn
    for j in range(an):
        if units[a0 + j] != units[b0 + j]:
            return units[a0 + j] < units[b0 + j]
    return False


@njit(cache=True)
def _pack_play(out, at, flat, lengths):
    """Write meld lengths then units in canonical order; returns the next free index."""
    nmelds = lengths.shape[0]
    starts = np.zeros(nmelds, dtype=np.int64)
    for m in range(1, nmelds):
        starts[m] = starts[m - 1] + lengths[m - 1]
    order = np.arange(nmelds)
    for a in range(1, nmelds):  # insertion sort: a table has a few dozen melds at most
        b = a
        while b > 0 and _meld_before(
            flat, starts[order[b]], lengths[order[b]], starts[order[b - 1]], lengths[order[b - 1]]
        ):
            order[b], order[b - 1] = order[b - 1], order[b]
            b -= 1
    out[at] = nmelds
    at += 1
    for m in order:
        out[at] = lengths[m]
        at += 1
    for m in order:
        for j in range(lengths[m]):
            out[at] = flat[starts[m] + j]
            at += 1
    return at


@njit(cache=True)
def _pack_suggestion(out, at, slot, cards, jokers, points, hand, added, flat, lengths):
    """Write one suggestion at ``out[at:]`` (see the module docstring); returns the next free
    index. ``hand``: the hand's count per card (52: jokers); ``added``: real cards played per face."""
    out[at : at + 4] = (slot, cards, jokers, points)
    head = at
    out[at + 5] = cards
    at += 6
    after = hand.copy()
    after[52] -= jokers
    for f in range(52):
        for _ in range(added[f]):
            out[at] = f
            at += 1
        after[f] -= added[f]
    for _ in range(jokers):
        out[at] = 52
        at += 1
    out[at] = after.sum()
    at += 1
    after_points = 0
    for c in range(53):
        for _ in range(after[c]):
            out[at] = c
            at += 1
            after_points += _card_points(c)
    out[head + 4] = after_points
    return _pack_play(out, at, flat, lengths)


@njit(cache=True)
def _keep_table(tables, row, flat, lengths):
    """Store one table (flat units, meld lengths) in row ``row`` of ``tables`` = ``(units,
    lengths, sizes)``."""
    units, melds, sizes = tables
    units[row, : flat.shape[0]] = flat
    melds[row, : lengths.shape[0]] = lengths
    sizes[row, 0], sizes[row, 1] = flat.shape[0], lengths.shape[0]


@njit(cache=True)
def _witness_prefix(units, order, n, jokers, live, lay, ace_low, ace_high, budget, tables, played, row):
    """Search a witness for the first ``n`` units of ``order`` (``-1``: every live real card,
    ``live``), with ``jokers`` hand jokers among them; fills ``played[row]`` (count per card,
    52: jokers) and, when one is found, keeps its table in row ``row`` of ``tables``.
    Returns ``(status, expanded)``: ``status`` 1 found, else the failure code of
    :func:`witness.witness`."""
    counts = played[row]
    counts[:] = 0
    if n < 0:
        counts[:52] = live
    else:
        for c in order[:n]:
            counts[c] += 1
    counts[52] = jokers
    table_units = np.empty(units.shape[0] + counts[:52].sum(), dtype=np.int64)
    table_units[: units.shape[0]] = units
    at = units.shape[0]
    for f in range(52):
        for _ in range(counts[f]):
            table_units[at] = f
            at += 1
    sub = layout(table_units, np.full(jokers, 52, dtype=np.int64), ace_low, ace_high)
    codes, expanded = witness.witness(*sub[4:13], jokers, budget)
    if codes[0] < 0:
        return codes[0], expanded
    # the played cards are table cards in ``sub``: rebuilt as such on the position's table
    positions, real, table_jokers = lay[1], lay[2], lay[3]
    flat, lengths, _ = assemble(positions, ace_low and ace_high, real + counts[:52], table_jokers, codes)
    _keep_table(tables, row, flat, lengths)
    return 1, expanded


@njit(cache=True)
def _drop_card(tables, played, src, dst, table_jokers, points):
    """Row ``dst`` := the table of row ``src`` less one copy of a real hand card worth
    ``points`` it plays (``played[src]``, per card), where every meld stays valid without it: an end
    of a run of 4 or more, a run of 7 or more split into two of 3 or more, a card of a set
    of 4. Returns the card taken out, or -1 when none can be. Never a card some table joker
    declares (taking out a real copy could undo that joker's release), nor one of the rank
    of a joker on the new table (a joker in a set declares by the copies of its rank: see
    :mod:`carousel_env.solver.build`), so every declaration still follows the rebuild's
    rule. The callers drop the points of the last of the dearest cards of the next size
    from a play that reaches ``top``: such a play holds a card of each of their points (the
    i-th dearest of any ``n`` cards is at most the i-th dearest of all), and what is left
    reaches ``top`` of its size."""
    units, melds, sizes = tables
    nunits, nmelds = sizes[src, 0], sizes[src, 1]
    for f in range(52):
        if not played[src, f] or _card_points(f) != points or table_jokers[f]:
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
                units[dst, :at] = units[src, :at]
                units[dst, at : nunits - 1] = units[src, at + 1 : nunits]
                melds[dst, :m] = melds[src, :m]
                pieces = 0
                if is_set:
                    melds[dst, m] = length - 1
                    pieces = 1
                else:
                    for piece in (before, after):
                        if piece:
                            melds[dst, m + pieces] = piece
                            pieces += 1
                melds[dst, m + pieces : nmelds - 1 + pieces] = melds[src, m + 1 : nmelds]
                sizes[dst, 0], sizes[dst, 1] = nunits - 1, nmelds - 1 + pieces
                played[dst] = played[src]
                played[dst, f] -= 1
                return f
            start += length
    return -1


@njit(cache=True)
def _settle_size(n, units, lay, order, top, live, ace_low, ace_high, budget, known, bound, tables, played, row):
    """With no hand joker: ``(status, points, expanded, known)`` of the best play of exactly
    ``n`` cards (points ``-1``: none), its table in row ``row`` of ``tables`` and the cards
    it plays in ``played[row]``. The dearest ``n`` first (a witness); when they have none,
    :func:`witness.best_of_size` searches every other choice of ``n``, from the top down in
    windows of points. ``status``: 1
    settled, 0 out of ``budget``, -1 no search can settle it (a state too wide)."""
    status, spent = _witness_prefix(units, order, n, 0, live, lay, ace_low, ace_high, budget, tables, played, row)
    if status == 1:
        return 1, top[n], spent, known
    if status == witness.OVER_BUDGET:
        return 0, -1, spent, known
    if status == witness.TOO_WIDE:
        return -1, -1, spent, known
    if n == order.shape[0]:  # the dearest n are every live card: no other choice
        return 1, -1, spent, known
    # From the top down, in windows of points: top[n] itself (the dearest cards with ties
    # swapped: only they reach it), the two points below, then everything lower. A window's
    # search prunes every branch that cannot beat its floor, and stops at its cap (proved by
    # the window above), so the first windows are cheap, and a size's best play that misses
    # top[n] mostly misses it by a point or two.
    cap = top[n]
    for width in (1, 2, cap + 1):
        floor = max(cap - width, -1)
        points, found, more, known = witness.best_of_size(*lay[4:14], n, bound, known, budget - spent, floor, cap)
        spent += more
        if points != witness.NO_WITNESS or floor < 0:
            break
        cap = floor
    if points == witness.OVER_BUDGET:
        return 0, -1, spent, known
    if points == witness.TOO_WIDE:
        return -1, -1, spent, known
    if points >= 0:  # the codes are on this layout: the cards played are read off them
        flat, lengths, added = assemble(lay[1], ace_low and ace_high, lay[2], lay[3], found)
        _keep_table(tables, row, flat, lengths)
        played[row, :52] = added
        played[row, 52] = 0
    return 1, max(points, -1), spent, known


@njit(cache=True)
def _plain_sizes(units, lay, order, top, live, hand_total, ace_low, ace_high, k, knock_limit, budget, tables, played):
    """With no hand joker: ``(status, value)``, ``value[n]`` the points of the best play of
    exactly ``n`` cards for every ``n`` some slot of ``choose`` can pick (``-1``: none;
    ``-2``: not needed), its table in row ``n`` of ``tables`` and ``played``. ``status`` as
    for :func:`_settle_size`. Settled in the order the slots need them: the most cards (from
    all live cards down to the first size that has a play), the sizes below it, smaller
    sizes while their upper bound ``top`` beats the best points so far (ties go to more
    cards), and the knock's smallest size. A size just below one whose play reaches its
    bound ``top`` is first tried as that play less one cheapest card (:func:`_drop_card`),
    which reaches ``top`` too: no search."""
    m = order.shape[0]
    value = np.full(m + 1, -2, dtype=np.int64)  # -2: not settled
    bound = witness.size_bounds(lay[6], lay[13], m)
    known = witness.new_known(budget)
    todo = np.empty(m, dtype=np.int64)
    table_jokers = lay[3]
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
            if phase == 2 and top[n] <= value.max():
                break
            # the next size's play less its last dearest card (see _drop_card)
            settled = value[n] == -2 and n < m and value[n + 1] == top[n + 1]
            if settled and _drop_card(tables, played, n + 1, n, table_jokers, _card_points(order[n])) >= 0:
                value[n] = top[n]
            if value[n] == -2:
                status, points, spent, known = _settle_size(
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
def _witnessed(out, units, hand, hand_total, lay, ace_low, ace_high, k, knock_limit, budget):
    """The whole answer from witnesses (see :mod:`carousel_env.solver.witness`), written to
    ``out`` like ``solve_packed``'s; returns its length, or 0 when some entry a slot needs
    was not settled within ``budget`` expanded states (a larger budget may settle it), or
    -1 when no budget will settle them (some entry has no witness, with hand jokers, or a
    search met a state too wide for it): the caller runs the sweeps.

    The live hand units in order of points (hand jokers first, then real cards dearest
    first, ties by card): the best play of ``n`` cards scores at most the first ``n``, all
    the live units together are the most cards and points, and the live real cards the
    most points without a hand joker. A witness for each of these that a slot needs makes
    it exact, and ``choose`` picks from them exactly what it would pick from every entry:
    for each cards count the prefix is the only entry that can reach its points (a hand
    joker scores 25, a real card at most 10), and no count below the knock's prefix can
    leave a hand worth ``knock_limit`` or less. With no hand joker, a size whose prefix has
    no witness is searched in full (:func:`_plain_sizes`). A size's play may also be the
    next size's play less one cheapest real card (:func:`_drop_card`): it scores the same
    as the prefix."""
    hj, positions, table_jokers, lay_h = lay[0], lay[1], lay[3], lay[6]
    live = np.zeros(52, dtype=np.int64)
    for i in range(positions.shape[0]):  # the high ace's row is empty (layout)
        for s in range(4):
            live[_face_at(positions[i], s)] += lay_h[i, s]
    m = hj + live.sum()
    order = np.empty(m, dtype=np.int64)
    order[:hj] = 52
    at = hj
    for pts in range(10, 0, -1):
        for f in range(52):
            if _card_points(f) == pts:
                for _ in range(live[f]):
                    order[at] = f
                    at += 1
    top = np.zeros(m + 1, dtype=np.int64)
    for n in range(m):
        top[n + 1] = top[n] + _card_points(order[n])
    rows = m + 2
    tables = (
        np.empty((rows, _MAX_UNITS), dtype=np.int64),
        np.empty((rows, _MAX_MELDS), dtype=np.int64),
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
            return status
        for n in range(1, m + 1):
            best[n, 0] = max(value[n], -1)
            row_of[n, 0] = n
    else:
        # the entries to witness, as (cards, hand jokers, prefix length or -1 for every live real card)
        wanted = np.empty((k + 3, 3), dtype=np.int64)
        wanted[0] = (m, hj, m)
        nwanted = 1
        if m > hj:  # a hand of jokers alone has no play without them
            wanted[nwanted] = (m - hj, 0, -1)
            nwanted += 1
        if knock_limit >= 0:
            for c in range(1, m + 1):
                if top[c] >= hand_total - knock_limit:
                    if c < m - k:  # below the sizes' range (else already wanted)
                        wanted[nwanted] = (c, min(c, hj), c)
                        nwanted += 1
                    break
        for n in range(m - 1, max(0, m - k - 1), -1):
            wanted[nwanted] = (n, min(n, hj), n)
            nwanted += 1
        prefix_row = np.full(m + 1, -1, dtype=np.int64)
        for w in range(nwanted):
            cards, jokers, prefix = wanted[w]
            settled = False
            # the prefix one longer less its last card (see _drop_card)
            if prefix >= hj and prefix < m and prefix_row[prefix + 1] >= 0:
                points = _card_points(order[prefix])
                settled = _drop_card(tables, played, prefix_row[prefix + 1], w, table_jokers, points) >= 0
            if not settled:
                status, spent = _witness_prefix(
                    units, order, prefix, jokers, live, lay, ace_low, ace_high, budget, tables, played, w
                )
                budget -= spent
                if status == witness.OVER_BUDGET:
                    return 0
                if status < 0:
                    return -1
            if prefix >= 0:
                prefix_row[prefix] = w
            best[cards, jokers] = top[cards] if prefix >= 0 else top[m] - 25 * hj
            row_of[cards, jokers] = w
    picks = choose(best, k, hand_total, knock_limit)
    if picks.shape[0] == 0:  # no play at all (only with no hand joker)
        return 3
    if hj:
        out[0], out[1] = top[m], m
    else:
        out[0], out[1] = best[:, 0].max(), 0
        for n in range(m + 1):
            if best[n, 0] >= 0:
                out[1] = n
    out[2] = picks.shape[0]
    at = 3
    units_of, melds_of, sizes = tables
    for row in range(picks.shape[0]):
        slot, cards, jokers = picks[row, 0], picks[row, 1], picks[row, 2]
        w = row_of[cards, jokers]
        flat, lengths = units_of[w, : sizes[w, 0]], melds_of[w, : sizes[w, 1]]
        at = _pack_suggestion(out, at, slot, cards, jokers, best[cards, jokers], hand, played[w], flat, lengths)
    return at


@njit(cache=True)
def solve_packed(units, hand_cards, ace_low, ace_high, k, knock_limit, budget, quick, witness_budget, witness_most):
    """See the module docstring. ``units``: the table's units, flat; ``knock_limit``: ``-1``
    for none; ``budget``: states of the unpruned sweep before the pruned passes take over;
    ``quick``: states of the first sweep, after which witnesses are tried with at most
    ``witness_budget`` expanded states (0: never); the rounds stop before one would allow
    more than ``witness_most``."""
    out = np.empty(3 + max(k, 0) * 400, dtype=np.int64)
    out[0], out[1], out[2] = 0, -1, 0
    lay = layout(units, hand_cards, ace_low, ace_high)
    hj, positions, real, table_jokers = lay[0], lay[1], lay[2], lay[3]
    arrays = lay[4:]  # the sweep's arrays, in the order core.explore takes them
    if hj < 0 or hand_cards.shape[0] == 0:
        return out[:3]
    hand_total = 0
    hand = np.zeros(53, dtype=np.int64)
    for c in hand_cards:
        hand_total += _card_points(c)
        hand[c] += 1
    # One unpruned sweep is exact for everything and cheapest on most positions. When it
    # grows past ``quick`` states, witnesses may settle every slot at once (see
    # _witnessed). Neither cost is known in advance, so they take turns, each round
    # allowing _GROWTH times the last's states and expanded states, until the sweep
    # finishes, witnesses settle the position, some entry proves to have no witness, or
    # the rounds reach ``witness_most``; then one sweep of up to ``budget`` states, past
    # which the pruned passes (optima first, then a targeted DAG) take over.
    no_targets = _no_targets()
    zero = np.int64(0)
    tries = witness_budget
    level = min(quick, budget) if tries > 0 else budget
    while True:
        states, edges, bounds, fut, first, pairs = core.explore(*arrays, hj, zero, zero, no_targets, level)
        if bounds.shape[0] > 1 or level >= budget:
            break
        at = _witnessed(out, units, hand, hand_total, lay, ace_low, ace_high, k, knock_limit, tries)
        if at > 0:
            return out[:at]
        if at < 0 or level == 0 or tries * _GROWTH > witness_most:  # no further round: the full sweep
            level = budget
        else:
            level, tries = min(budget, level * _GROWTH), tries * _GROWTH
    pruned = bounds.shape[0] == 1
    if pruned:
        optima = core.optima(*arrays, hj, np.int64(0))
        best_points, best_cards, plain_points = optima[0], optima[1], optima[2]
    else:
        best_points, best_cards, plain_points = max(0, fut[0, 0]), max(0, fut[0, 1]), max(0, fut[0, 2])
    if best_cards <= 0:
        return out[:3]
    out[0], out[1] = best_points, best_cards
    # The entries any slot may pick: at least need_n cards, or at least need_p points.
    need_n = max(1, best_cards - k)
    need_p = plain_points if plain_points > 0 else best_points
    if knock_limit >= 0:
        need_p = min(need_p, hand_total - knock_limit)
    if pruned:
        pairs, edges, bounds, best, where, entries = _targeted(*arrays, hj, best_cards, best_points, need_n, need_p)
    else:
        best, where, entries = core.vector(states, first, pairs, edges, bounds, fut, hj, need_n, need_p, no_targets)
    picks = choose(best, k, hand_total, knock_limit)
    out[2] = picks.shape[0]
    into_start, into = core.incoming(pairs, entries)
    at = 3
    both = ace_low and ace_high
    for row in range(picks.shape[0]):
        slot, cards, jokers = picks[row, 0], picks[row, 1], picks[row, 2]
        end_slot, end_cards = where[cards, jokers, 0], where[cards, jokers, 1]
        codes = core.trace(pairs, edges, entries, into_start, into, bounds.shape[0] - 2, end_slot, end_cards)
        flat, lengths, added = assemble(positions, both, real, table_jokers, codes)
        at = _pack_suggestion(out, at, slot, cards, jokers, best[cards, jokers], hand, added, flat, lengths)
    return out[:at]


@njit(cache=True)
def has_play_packed(units, hand_cards, ace_low, ace_high):
    """Whether any legal play exists: the optima pass, stopped at its first play."""
    lay = layout(units, hand_cards, ace_low, ace_high)
    if lay[0] < 0:
        return False
    found = core.optima(*lay[4:], lay[0], np.int64(1))
    return found[1] > 0
