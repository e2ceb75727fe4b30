"""The exact solve in bounded memory: every entry by branch and bound, depth first (compiled).

The sweeps (``sweep``, ``entries``) keep every reachable state of the position, and on the
heaviest crowded tables that is gigabytes. When a pass would outgrow its cap
(``carousel_env.solver.MEMORY_CAP_BYTES``), ``solve`` answers with :func:`solve_bounded`
instead: for each entry (cards, hand jokers) a suggestion slot may pick, the best play by
``witness.best_of_size``'s branch and bound, over the same transitions with no width limit
and no budget. Its memory is the search's path (a few arrays of one row per layer) and the
proofs it keeps (``known``, a fixed number of rows): a proof it cannot keep costs time,
never exactness. It returns the array ``pipeline.solve_packed`` returns.

Which entries: from the most cards down, and for each count from the most hand jokers
down, only plays that some slot could still pick: one that matches the best points found
(``max_points``), beats the best found with no hand joker (``keep_jokers``), reaches the
knock, or, from the most cards down to the smallest a size slot names (``max_cards``,
``size_n``), matches the best of its count so far. Each search looks only above that floor,
and skips an entry whose upper bound (the dearest live cards of its size) is below it.
``answer.choose`` then picks exactly what it picks from the sweeps' entries: an entry left
out is one no slot could take.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from carousel_env.engine.cards import JOKER_POINTS
from carousel_env.solver.answer import choose, pack_suggestion, start
from carousel_env.solver.build import assemble
from carousel_env.solver.sweep import NO_BUDGET
from carousel_env.solver.witness.search import best_in_windows, new_known, size_bounds

_WIDTH = 4096  # every option of a state: ``states.cell_options`` lists at most this many


@njit(cache=True)
def solve_bounded(units, hand_cards, ace_low, ace_high, k, knock_limit, known_rows):
    """The packed answer (``answer``) of one position, exact, in the memory of the search's
    path and of ``known_rows`` rows of proofs (``witness.search.KNOWN_ROW_BYTES`` each)."""
    out, lay, hand, hand_total = start(units, hand_cards, ace_low, ace_high, k)
    hj, cells = lay.hand_jokers, lay.cells
    if hj < 0 or hand_cards.shape[0] == 0:
        return out[:3]
    lay_h = cells.lay_h
    real = 0
    for i in range(lay_h.shape[0]):
        for s in range(4):
            real += lay_h[i, s]
    nlayers = 5 * lay_h.shape[0]
    bound = size_bounds(lay_h, cells.rp, real)
    known = new_known(known_rows // 2)
    best = np.full((real + hj + 1, hj + 1), -1, dtype=np.int64)
    codes_of = np.zeros((real + hj + 1, hj + 1, nlayers), dtype=np.int64)
    most = -1  # the most cards of any play, once found
    best_points = best_plain = -1
    knock_points = hand_total - knock_limit if knock_limit >= 0 else 1 << 40
    for cards in range(real + hj, 0, -1):
        here = -1  # the best points of this count so far (with more hand jokers)
        for jokers in range(min(hj, cards), -1, -1):
            n = cards - jokers
            if n > real:
                continue
            # The fewest points a play of this entry needs for some slot to pick it
            # (``choose``): max_points and the knock at any count, keep_jokers with no
            # hand joker; max_cards and size_n take the best of their count (ties: fewer
            # jokers, so this entry needs only match the entries with more).
            need = min(best_points, knock_points)
            if jokers == 0:
                need = min(need, best_plain + 1)
            if most < 0 or cards >= most - k:
                need = min(need, here)
            if bound[0, n] + JOKER_POINTS * jokers < need:
                continue
            floor = max(need - 1 - JOKER_POINTS * jokers, -1)  # in the real cards' points
            # the best play of the entry worth more than floor with its real cards, if any
            jokers_of, no_budget = np.int64(jokers), np.int64(NO_BUDGET)
            points, codes, _ = best_in_windows(cells, n, jokers_of, bound, known, no_budget, floor, bound[0, n], _WIDTH)
            if points < 0:
                continue
            best[cards, jokers] = points + JOKER_POINTS * jokers
            for j in range(nlayers):  # a loop, not a slice assignment: see sweep
                codes_of[cards, jokers, j] = codes[j]
            here = max(here, best[cards, jokers])
            most = max(most, cards)
            best_points = max(best_points, best[cards, jokers])
            if jokers == 0:
                best_plain = max(best_plain, best[cards, jokers])
    picks = choose(best, k, hand_total, knock_limit)
    if picks.shape[0] == 0:
        return out[:3]
    out[0], out[1], out[2] = best_points, most, picks.shape[0]
    at = np.int64(3)
    both = ace_low and ace_high
    for row in range(picks.shape[0]):
        slot, cards, jokers = picks[row, 0], picks[row, 1], picks[row, 2]
        flat, lengths, added = assemble(lay.positions, both, lay.table_real, lay.table_jokers, codes_of[cards, jokers])
        at = pack_suggestion(out, at, slot, cards, jokers, best[cards, jokers], hand, added, flat, lengths)
    return out[:at]
