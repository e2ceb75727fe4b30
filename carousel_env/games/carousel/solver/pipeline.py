"""The whole solve of one position as one compiled call, packed into one int64 array.

Crossing from Python into numba costs microseconds per argument and per returned array,
and the solver runs at almost every decision of every game, so :func:`solve_packed` does
everything (layout, sweeps, slot choice, trace, rebuild, canonical order, hand after) and
returns the single array of ``answer`` that ``carousel_env.games.carousel.solver.solve`` cuts into
suggestions.

One unpruned sweep (``sweep.explore``) is exact for everything and cheapest on most
positions. When it passes ``level`` states, :func:`solve_packed` returns an empty array and
``solve`` tries witnesses (``witness.witnessed``, their own compiled entry point) before
larger sweeps, in rounds. Past the state budget (or the memory cap) it returns
:data:`GAVE_UP`, and ``solve`` asks the integer programs (``milp``): on such positions
(hoarded hands of 25 to 46 cards on crowded tables) they answer far faster than the
sweeps' pruned passes and branch and bound did (benchmarks/RESULTS.md, 2026-11-25).

Compile time (a first solve with an empty cache compiles this module's entry points):
numba compiles every jitted function called here as its own library and links each
callee's code into every caller's, where LLVM optimizes and emits it again, so a deep
chain of calls compiles its leaves once per level. Thin functions with one or two call
sites are therefore inlined by numba (``inline="always"``: ``sweep.explore``, ``sweep.optima``,
``answer.start``), the witnesses are a separate entry point, and no
argument is passed as a literal (``np.int64(0)``, not ``0``: a literal compiles the callee
once more for its own signature). ``benchmarks/bench_cold_start.py --attribute`` lists
the compile time per function.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from carousel_env.games.carousel.solver.answer import (
    BEST_CARDS,
    BEST_POINTS,
    COUNT,
    HEADER_SIZE,
    choose,
    pack_suggestion,
    start,
)
from carousel_env.games.carousel.solver.build import assemble
from carousel_env.games.carousel.solver.entries import incoming, trace, vector
from carousel_env.games.carousel.solver.prepare import layout
from carousel_env.games.carousel.solver.sweep import ENTRY_BYTES, explore, footprint, optima

# The single entry :func:`solve_packed` returns when the sweeps give up (the unpruned sweep
# passed its state budget, or a pass would pass the memory cap): the caller asks the integer
# programs (``milp``), which :func:`has_play_packed` also returns past the cap.
GAVE_UP = -2


@njit(cache=True)
def solve_packed(units, hand_cards, ace_low, ace_high, k, knock_limit, budget, level, max_bytes):
    """The packed answer (see ``answer``) for one position, or an empty array when the
    unpruned sweep passed ``level`` states and ``level < budget``: the caller tries
    witnesses (``witness.witnessed``) before a larger sweep; or the single entry
    :data:`GAVE_UP` when the sweep passed ``budget`` states or a pass would have kept more
    than ``max_bytes`` of arrays: the caller asks the integer programs (``milp``).
    ``units``: the table's units, flat; ``knock_limit``: ``-1`` for none."""
    out, lay, hand, hand_total = start(units, hand_cards, ace_low, ace_high, k)
    hj, cells = lay.hand_jokers, lay.cells
    if hj < 0 or hand_cards.shape[0] == 0:
        return out[:HEADER_SIZE]
    zero = np.int64(0)
    states, edges, bounds, fut, first, pairs = explore(cells, hj, zero, zero, level, max_bytes)
    if bounds.shape[0] == 1 and level < budget:
        return out[:0]
    if bounds.shape[0] == 1:  # past the budget or the cap: the integer programs answer
        out[BEST_POINTS] = GAVE_UP
        return out[:1]
    best_points, best_cards, plain_points = max(0, fut[0, 0]), max(0, fut[0, 1]), max(0, fut[0, 2])
    if best_cards <= 0:
        return out[:HEADER_SIZE]
    out[BEST_POINTS], out[BEST_CARDS] = best_points, best_cards
    # The entries any slot may pick: at least need_n cards, or at least need_p points.
    need_n = max(1, best_cards - k)
    need_p = plain_points if plain_points > 0 else best_points
    if knock_limit >= 0:
        need_p = min(need_p, hand_total - knock_limit)
    room = (max_bytes - footprint(states, edges, first, pairs.shape[0])) // ENTRY_BYTES
    best, where, entries = vector(states, first, pairs, edges, bounds, fut, hj, need_n, need_p, room)
    if best.shape[0] == 0:  # the vector pass reached the memory cap
        out[BEST_POINTS] = GAVE_UP
        return out[:1]
    picks = choose(best, k, hand_total, knock_limit)
    out[COUNT] = picks.shape[0]
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
    play; :data:`GAVE_UP` when it reached ``max_bytes`` (the caller asks the
    integer programs, ``milp``)."""
    lay = layout(units, hand_cards, ace_low, ace_high)
    if lay.hand_jokers < 0:
        return 0
    found = optima(lay.cells, lay.hand_jokers, np.int64(1), max_bytes)
    if found[1] < 0:
        return GAVE_UP
    return 1 if found[1] > 0 else 0
