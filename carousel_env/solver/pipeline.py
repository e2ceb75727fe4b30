"""The whole solve of one position as one compiled call, packed into one int64 array.

Crossing from Python into numba costs microseconds per argument and per returned array,
and the solver runs at almost every decision of every game, so ``solve_packed`` does
everything (layout, sweeps, slot choice, trace, rebuild, canonical order, hand after) and
returns a single array that ``carousel_env.solver.solve`` cuts into suggestions:

``[best points, best cards, suggestions]`` (best cards ``-1``: no legal play), then per
suggestion ``[slot, cards, hand jokers, points, hand-after points, n, *added cards,
n, *hand after, n, *meld lengths, *table units]``, the melds in ``canonical_table`` order.

When the unpruned sweep passes ``quick`` states, ``_witnessed`` tries to settle every slot
with one witness table each (see ``witness``) before the sweeps go on.

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
from carousel_env.solver.build import assemble
from carousel_env.solver.prepare import _face_at, layout

SLOT_NAMES = ("max_points", "max_cards", "keep_jokers", "knock")  # slot 4 is "size_<cards>"
_SIZE_SLOT = 4


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
def _witnessed(out, units, hand, hand_total, lay, ace_low, ace_high, k, knock_limit, budget):
    """The whole answer from witnesses (see :mod:`carousel_env.solver.witness`), written to
    ``out`` like ``solve_packed``'s; returns its length, or 0 when some entry a slot needs
    has no witness within ``budget`` expanded states (the caller then runs the sweeps).

    The live hand units in order of points (hand jokers first, then real cards dearest
    first, ties by card): the best play of ``n`` cards scores at most the first ``n``, all
    the live units together are the most cards and points, and the live real cards the
    most points without a hand joker. A witness for each of these that a slot needs makes
    it exact, and ``choose`` picks from them exactly what it would pick from every entry:
    for each cards count the prefix is the only entry that can reach its points (a hand
    joker scores 25, a real card at most 10), and no count below the knock's prefix can
    leave a hand worth ``knock_limit`` or less."""
    hj, positions, real, table_jokers = lay[0], lay[1], lay[2], lay[3]
    lay_h, lastace = lay[6], lay[11]
    live = np.zeros(52, dtype=np.int64)
    for i in range(positions.shape[0]):
        if not lastace[i]:  # the high ace's row repeats the low ace's cards
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
    # the entries to witness, as (cards, hand jokers, prefix length or -1 for every live real card)
    wanted = np.empty((k + 3, 3), dtype=np.int64)
    wanted[0] = (m, hj, m)
    nwanted = 1
    if hj and m > hj:  # a hand of jokers alone has no play without them
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
    nlayers = 5 * positions.shape[0] + 1
    codes = np.empty((nwanted, nlayers - 1), dtype=np.int64)
    played = np.zeros((nwanted, 53), dtype=np.int64)
    best = np.full((m + 1, hj + 1), -1, dtype=np.int64)
    row_of = np.zeros((m + 1, hj + 1), dtype=np.int64)
    for w in range(nwanted):
        cards, jokers, prefix = wanted[w]
        if prefix < 0:
            for f in range(52):
                played[w, f] = live[f]
        else:
            for n in range(prefix):
                played[w, order[n]] += 1
        played[w, 52] = jokers
        table_units = np.empty(units.shape[0] + cards - jokers, dtype=np.int64)
        table_units[: units.shape[0]] = units
        at = units.shape[0]
        for f in range(52):
            for _ in range(played[w, f]):
                table_units[at] = f
                at += 1
        sub = layout(table_units, np.full(jokers, 52, dtype=np.int64), ace_low, ace_high)
        found, spent = witness.witness(*sub[4:13], jokers, budget)
        budget -= spent
        if found[0] < 0:
            return 0
        codes[w] = found
        best[cards, jokers] = top[cards] if prefix >= 0 else top[m] - 25 * hj
        row_of[cards, jokers] = w
    picks = choose(best, k, hand_total, knock_limit)
    out[0], out[1], out[2] = top[m], m, picks.shape[0]
    at = 3
    both = ace_low and ace_high
    for row in range(picks.shape[0]):
        slot, cards, jokers = picks[row, 0], picks[row, 1], picks[row, 2]
        w = row_of[cards, jokers]
        flat, lengths, _ = assemble(positions, both, real + played[w, :52], table_jokers, codes[w])
        at = _pack_suggestion(out, at, slot, cards, jokers, best[cards, jokers], hand, played[w], flat, lengths)
    return at


@njit(cache=True)
def solve_packed(units, hand_cards, ace_low, ace_high, k, knock_limit, budget, quick, witness_budget):
    """See the module docstring. ``units``: the table's units, flat; ``knock_limit``: ``-1``
    for none; ``budget``: states of the unpruned sweep before the pruned passes take over;
    ``quick``: states of the sweep before witnesses are tried (with at most
    ``witness_budget`` expanded states; 0: never)."""
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
    # _witnessed); else, past ``budget`` states the pruned passes (optima first, then a
    # targeted DAG) take over.
    no_targets = _no_targets()
    zero = np.int64(0)
    first_budget = min(quick, budget) if witness_budget > 0 else budget  # no witness: one sweep
    states, edges, bounds, fut, first, pairs = core.explore(*arrays, hj, zero, zero, no_targets, first_budget)
    if bounds.shape[0] == 1 and witness_budget > 0:
        at = _witnessed(out, units, hand, hand_total, lay, ace_low, ace_high, k, knock_limit, witness_budget)
        if at:
            return out[:at]
    if bounds.shape[0] == 1 and first_budget < budget:
        states, edges, bounds, fut, first, pairs = core.explore(*arrays, hj, zero, zero, no_targets, budget)
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
