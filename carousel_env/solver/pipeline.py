"""The whole solve of one position as one compiled call, packed into one int64 array.

Crossing from Python into numba costs microseconds per argument and per returned array,
and the solver runs at almost every decision of every game, so :func:`solve_packed` does
everything (layout, sweeps, slot choice, trace, rebuild, canonical order, hand after) and
returns the single array of ``answer`` that ``carousel_env.solver.solve`` cuts into
suggestions.

One unpruned sweep (``sweep.explore``) is exact for everything and cheapest on most
positions. When it passes ``level`` states, :func:`solve_packed` returns an empty array and
``solve`` tries witnesses (``witness.witnessed``, their own compiled entry point) before
larger sweeps, in rounds. Past the state budget, the pruned passes take over:
``sweep.optima``, then a DAG pruned to the entries a slot may pick (:func:`_targeted`).

Compile time (a first solve with an empty cache compiles this module's entry points):
numba compiles every jitted function called here as its own library and links each
callee's code into every caller's, where LLVM optimizes and emits it again, so a deep
chain of calls compiles its leaves once per level. Thin functions with one or two call
sites are therefore inlined by numba (``inline="always"``: ``_targeted``, ``sweep.explore``,
``sweep.optima``, ``answer.start``), the witnesses are a separate entry point, and no
argument is passed as a literal (``np.int64(0)``, not ``0``: a literal compiles the callee
once more for its own signature). ``benchmarks/bench_cold_start.py --attribute`` lists
the compile time per function.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from carousel_env.solver.answer import choose, pack_suggestion, start
from carousel_env.solver.build import assemble
from carousel_env.solver.entries import incoming, no_entries, trace, vector
from carousel_env.solver.prepare import MOST_CARD_POINTS, layout
from carousel_env.solver.sweep import ENTRY_BYTES, NO_BUDGET, explore, footprint, optima

OVER_MEMORY = -2  # the single entry :func:`solve_packed` returns when a pass reached the memory cap


@njit(cache=True)
def _no_targets():
    """The ``tgt`` of a pass with no points targets. Made per call, not a module constant:
    numba freezes a global array as a read-only constant, whose type would compile the
    sweeps a second time (once per signature)."""
    return np.zeros(1, dtype=np.int64)


@njit(cache=True, inline="always")
def _targeted(cells, hj, best_cards, best_points, n, p, max_bytes):
    """The pruned DAG and its vector pass, exact for every entry a slot may pick (at least
    ``n`` cards or ``p`` points); ``best`` with no row when a round reached ``max_bytes``.

    With no hand joker, rounds with a points target per cards count (``sweep.explore``):
    first the most any number of cards could score (the dearest live hand cards, at most
    ``best_points``); a count whose best falls short of its target is retried with a lower
    target (a step that doubles, never below the best found, which is achievable). With a
    hand joker, one round with no targets."""
    no_budget = np.int64(NO_BUDGET)
    tgt = _no_targets()  # see _no_targets
    if not hj:
        lay_h, rp = cells.lay_h, cells.rp
        held = np.zeros(MOST_CARD_POINTS + 1, dtype=np.int64)  # live hand cards per points (no sort: see sweep)
        m = 0
        for i in range(lay_h.shape[0]):
            for s in range(4):
                held[rp[i]] += lay_h[i, s]
                m += lay_h[i, s]
        tgt = np.zeros(m + 1, dtype=np.int64)
        c = 0
        for points in range(MOST_CARD_POINTS, -1, -1):  # the dearest first
            for _ in range(held[points]):
                c += 1
                tgt[c] = min(best_points, tgt[c - 1] + points)
    step = np.full(tgt.shape[0], 5, dtype=np.int64)
    while True:
        # explore is inlined (see sweep): one call site here, one in solve_packed
        states, edges, bounds, fut, first, pairs = explore(cells, hj, n, p, tgt, no_budget, max_bytes)
        if bounds.shape[0] == 1:
            best, where, entries = no_entries(hj)
            return pairs, edges, bounds, best, where, entries
        room = (max_bytes - footprint(states, edges, first, pairs.shape[0])) // ENTRY_BYTES
        best, where, entries = vector(states, first, pairs, edges, bounds, fut, hj, n, p, tgt, room)
        if best.shape[0] == 0:
            return pairs, edges, bounds, best, where, entries
        done = True
        if not hj:
            for c in range(n, best_cards + 1):
                found = -1
                if c < best.shape[0]:
                    for j in range(best.shape[1]):
                        found = max(found, best[c, j])
                if found < tgt[c]:
                    done = False
                    tgt[c] = max(found, tgt[c] - step[c])
                    step[c] *= 2
        if done:
            return pairs, edges, bounds, best, where, entries


@njit(cache=True)
def solve_packed(units, hand_cards, ace_low, ace_high, k, knock_limit, budget, level, max_bytes):
    """The packed answer (see ``answer``) for one position, or an empty array when the
    unpruned sweep passed ``level`` states and ``level < budget``: the caller tries
    witnesses (``witness.witnessed``) before a larger sweep; or the single entry
    :data:`OVER_MEMORY` when a pass would have kept more than ``max_bytes`` of arrays: the
    caller answers with ``bounded.solve_bounded``. ``units``: the table's units, flat;
    ``knock_limit``: ``-1`` for none; ``budget``: states of the unpruned sweep before the
    pruned passes take over."""
    out, lay, hand, hand_total = start(units, hand_cards, ace_low, ace_high, k)
    hj, cells = lay.hand_jokers, lay.cells
    if hj < 0 or hand_cards.shape[0] == 0:
        return out[:3]
    no_targets = _no_targets()
    zero = np.int64(0)
    states, edges, bounds, fut, first, pairs = explore(cells, hj, zero, zero, no_targets, level, max_bytes)
    if bounds.shape[0] == 1 and level < budget:
        return out[:0]
    pruned = bounds.shape[0] == 1
    if pruned:
        # the given-up sweep's arrays go before the pruned passes make theirs
        states, edges = np.empty((0, 6), dtype=np.int64), np.empty((0, 2), dtype=np.int64)
        optimum = optima(cells, hj, np.int64(0), max_bytes)
        if optimum[1] < 0:
            out[0] = OVER_MEMORY
            return out[:1]
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
        pairs, edges, bounds, best, where, entries = _targeted(
            cells, hj, best_cards, best_points, need_n, need_p, max_bytes
        )
    else:
        room = (max_bytes - footprint(states, edges, first, pairs.shape[0])) // ENTRY_BYTES
        best, where, entries = vector(states, first, pairs, edges, bounds, fut, hj, need_n, need_p, no_targets, room)
    if best.shape[0] == 0:  # a pass reached the memory cap
        out[0] = OVER_MEMORY
        return out[:1]
    picks = choose(best, k, hand_total, knock_limit)
    out[2] = picks.shape[0]
    into_start, into = incoming(pairs, entries)
    at = np.int64(3)
    both = ace_low and ace_high
    for row in range(picks.shape[0]):
        slot, cards, jokers = picks[row, 0], picks[row, 1], picks[row, 2]
        end_slot, end_cards = where[cards, jokers, 0], where[cards, jokers, 1]
        codes = trace(pairs, edges, entries, into_start, into, bounds.shape[0] - 2, end_slot, end_cards)
        flat, lengths, added = assemble(lay.positions, both, lay.table_real, lay.table_jokers, codes)
        at = pack_suggestion(out, at, slot, cards, jokers, best[cards, jokers], hand, added, flat, lengths)
    return out[:at]


@njit(cache=True)
def has_play_packed(units, hand_cards, ace_low, ace_high, max_bytes):
    """``1`` when a legal play exists, else ``0``: the optima pass, stopped at its first
    play; :data:`OVER_MEMORY` when it reached ``max_bytes`` (the caller asks
    ``bounded.solve_bounded``)."""
    lay = layout(units, hand_cards, ace_low, ace_high)
    if lay.hand_jokers < 0:
        return 0
    found = optima(lay.cells, lay.hand_jokers, np.int64(1), max_bytes)
    if found[1] < 0:
        return OVER_MEMORY
    return 1 if found[1] > 0 else 0
