"""The whole solve of one position as one compiled call, packed into one int64 array.

Crossing from Python into numba costs microseconds per argument and per returned array,
and the solver runs at almost every decision of every game, so :func:`solve_packed` does
everything (layout, sweeps or witnesses, slot choice, trace, rebuild, canonical order, hand
after) and returns the single array of ``answer`` that ``carousel_env.solver.solve`` cuts
into suggestions.

One unpruned sweep (``sweep.explore``) is exact for everything and cheapest on most
positions. When it passes ``quick`` states, ``witness.witnessed`` tries to settle every
slot with one witness table each before the sweeps go on, in rounds that grow
``_GROWTH`` times (see :func:`solve_packed`). Past the state budget, the pruned passes
take over: ``sweep.optima``, then a DAG pruned to the entries a slot may pick
(:func:`_targeted`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from carousel_env.solver.answer import choose, pack_suggestion
from carousel_env.solver.build import assemble
from carousel_env.solver.entries import incoming, trace, vector
from carousel_env.solver.prepare import CARD_POINTS, layout
from carousel_env.solver.sweep import NO_BUDGET, explore, optima
from carousel_env.solver.witness import witnessed

# Each round of sweep then witnesses allows this many times the states of the last (a
# sweep that passes its budget is thrown away and the next starts over).
_GROWTH = 8


@njit(cache=True)
def _no_targets():
    """The ``tgt`` of a pass with no points targets. Made per call, not a module constant:
    numba freezes a global array as a read-only constant, whose type would compile the
    sweeps a second time (once per signature)."""
    return np.zeros(1, dtype=np.int64)


@njit(cache=True)
def _targeted(cells, hj, best_cards, best_points, n, p):
    """The pruned DAG and its vector pass, exact for every entry a slot may pick (at least
    ``n`` cards or ``p`` points).

    With no hand joker, rounds with a points target per cards count (``sweep.explore``):
    first the most any number of cards could score (the dearest live hand cards, at most
    ``best_points``); a count whose best falls short of its target is retried with a lower
    target (a step that doubles, never below the best found, which is achievable)."""
    no_targets, no_budget = _no_targets(), np.int64(NO_BUDGET)  # see _no_targets
    if hj:
        states, edges, bounds, fut, first, pairs = explore(cells, hj, n, p, no_targets, no_budget)
        best, where, entries = vector(states, first, pairs, edges, bounds, fut, hj, n, p, no_targets)
        return pairs, edges, bounds, best, where, entries
    lay_h, rp = cells.lay_h, cells.rp
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
        states, edges, bounds, fut, first, pairs = explore(cells, hj, n, p, tgt, no_budget)
        best, where, entries = vector(states, first, pairs, edges, bounds, fut, hj, n, p, tgt)
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
def solve_packed(units, hand_cards, ace_low, ace_high, k, knock_limit, budget, quick, witness_budget, witness_most):
    """The packed answer (see ``answer``) for one position. ``units``: the table's units,
    flat; ``knock_limit``: ``-1`` for none; ``budget``: states of the unpruned sweep before
    the pruned passes take over;
    ``quick``: states of the first sweep, after which witnesses are tried with at most
    ``witness_budget`` expanded states (0: never); the rounds stop before one would allow
    more than ``witness_most``."""
    out = np.empty(3 + max(k, 0) * 400, dtype=np.int64)
    out[0], out[1], out[2] = 0, -1, 0
    lay = layout(units, hand_cards, ace_low, ace_high)
    hj, cells = lay.hand_jokers, lay.cells
    if hj < 0 or hand_cards.shape[0] == 0:
        return out[:3]
    hand_total = 0
    hand = np.zeros(53, dtype=np.int64)
    for c in hand_cards:
        hand_total += CARD_POINTS[c]
        hand[c] += 1
    # One unpruned sweep is exact for everything and cheapest on most positions. When it
    # grows past ``quick`` states, witnesses may settle every slot at once (see
    # witnessed). Neither cost is known in advance, so they take turns, each round
    # allowing _GROWTH times the last's states and expanded states, until the sweep
    # finishes, witnesses settle the position, some entry proves to have no witness, or
    # the rounds reach ``witness_most``; then one sweep of up to ``budget`` states, past
    # which the pruned passes (optima first, then a targeted DAG) take over.
    no_targets = _no_targets()
    zero = np.int64(0)
    tries = witness_budget
    level = min(quick, budget) if tries > 0 else budget
    while True:
        states, edges, bounds, fut, first, pairs = explore(cells, hj, zero, zero, no_targets, level)
        if bounds.shape[0] > 1 or level >= budget:
            break
        at = witnessed(out, units, hand, hand_total, lay, ace_low, ace_high, k, knock_limit, tries)
        if at > 0:
            return out[:at]
        if at < 0 or level == 0 or tries * _GROWTH > witness_most:  # no further round: the full sweep
            level = budget
        else:
            level, tries = min(budget, level * _GROWTH), tries * _GROWTH
    pruned = bounds.shape[0] == 1
    if pruned:
        optimum = optima(cells, hj, np.int64(0))
        best_points, best_cards, plain_points = optimum[0], optimum[1], optimum[2]
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
        pairs, edges, bounds, best, where, entries = _targeted(cells, hj, best_cards, best_points, need_n, need_p)
    else:
        best, where, entries = vector(states, first, pairs, edges, bounds, fut, hj, need_n, need_p, no_targets)
    picks = choose(best, k, hand_total, knock_limit)
    out[2] = picks.shape[0]
    into_start, into = incoming(pairs, entries)
    at = 3
    both = ace_low and ace_high
    for row in range(picks.shape[0]):
        slot, cards, jokers = picks[row, 0], picks[row, 1], picks[row, 2]
        end_slot, end_cards = where[cards, jokers, 0], where[cards, jokers, 1]
        codes = trace(pairs, edges, entries, into_start, into, bounds.shape[0] - 2, end_slot, end_cards)
        flat, lengths, added = assemble(lay.positions, both, lay.table_real, lay.table_jokers, codes)
        at = pack_suggestion(out, at, slot, cards, jokers, best[cards, jokers], hand, added, flat, lengths)
    return out[:at]


@njit(cache=True)
def has_play_packed(units, hand_cards, ace_low, ace_high):
    """Whether any legal play exists: the optima pass, stopped at its first play."""
    lay = layout(units, hand_cards, ace_low, ace_high)
    if lay.hand_jokers < 0:
        return False
    found = optima(lay.cells, lay.hand_jokers, np.int64(1))
    return found[1] > 0
