"""The witness searches: one legal table for a fixed set of played cards, depth first (compiled).

The played cards are made mandatory by laying the position out again with them as table
cards (``prepare.layout``), so a witness is a path from the first layer to the last, over
the sweep's own transitions (``states``), whose final state has placed every hand joker of
the set (``d == hand jokers``). The aces set aside for the high ace stay in the key (no
lanes: a search visits few states per layer). A state found not to finish is remembered,
so no state is searched twice and the search is exact: :func:`witness` fails only when no
such table exists (:data:`NO_WITNESS`), when it has spent its ``budget`` of expanded states
(:data:`OVER_BUDGET`), or when a state has more options than it keeps (:data:`TOO_WIDE`).

When the dearest cards of a size have no table (a card that fits only at the cost of
others), :func:`best_of_size` finds the best play of exactly that many cards (the
witnesses ask with no hand joker; ``bounded`` asks for every entry): the same depth-first
walk with the hand cards optional, most hand cards first, then only plays better than the
best found (bounded by :func:`size_bounds`, the dearest cards still ahead), and what it
proves about a state kept (``known``) for the searches of the other sizes. The caller asks
for the points in windows from the top down (``floor`` and ``cap``): a best play that
misses the bound mostly misses it by a point or two, and a search that only wants plays
close to the bound prunes almost everything else.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from carousel_env.games.carousel.solver.prepare import MOST_CARD_POINTS
from carousel_env.games.carousel.solver.states import (
    D_BIAS,
    D_SHIFT,
    HASH,
    cell_options,
    close_options,
    homeless_units,
    layer_inputs,
)

ROOM = 64  # options kept per layer of a witness search; a state with more gives the search up
KNOWN_ROW_BYTES = 4 * 8  # a row of ``known`` (``new_known``)
NO_WITNESS = -1  # ``codes[0]`` of a search that found none
OVER_BUDGET = -2  # ``codes[0]`` of a search that spent its budget
TOO_WIDE = -3  # ``codes[0]`` of a search that met a state with more than ``ROOM`` options


@njit(cache=True)
def _seen(table, keys, layers, key, layer, mask):
    """Slot of ``(layer, key)`` in the open-addressing ``table`` of failed states, or its free slot."""
    h = ((np.uint64(key) ^ (np.uint64(layer) << np.uint64(58))) * HASH) >> np.uint64(32)
    slot = np.int64(h) & mask
    while True:
        idx = table[slot]
        if idx < 0 or (keys[idx] == key and layers[idx] == layer):
            return slot
        slot = (slot + 1) & mask


@njit(cache=True, inline="always")
def _state_options(layer, key, hj, lay_t, lay_k, lay_h, realu, near, setok, defer, lastace, rafter, homeless, out):
    """The transitions of ``key`` at ``layer`` into ``out`` (rows as ``states.cell_options``'s);
    returns their count."""
    i, s = layer // 5, layer % 5
    ahead, cell = layer_inputs(layer, lay_t, lay_k, lay_h, realu, near, setok, defer, lastace, rafter, homeless)
    if s < 4:
        return cell_options(key, s, cell, hj, out)
    return close_options(key, setok[i], rafter[i, 3], hj, ahead, out)


@njit(cache=True)
def witness(cells, hj, budget):
    """``(codes, expanded)``: the edge codes, layer by layer, of one complete table that
    places every unit (``lay_h`` all zero: the played cards are table cards here) and
    exactly ``hj`` hand jokers, or ``codes[0]`` :data:`NO_WITNESS` when none exists,
    :data:`OVER_BUDGET` when more than ``budget`` states were expanded first, :data:`TOO_WIDE`
    when a state had more than ``ROOM`` options (then no budget finds one)."""
    lay_t, lay_k, lay_h, realu, near, setok, defer, lastace, rafter, _ = cells  # no points: a witness plays them all
    npos = lay_t.shape[0]
    nlayers = 5 * npos + 1
    codes = np.zeros(nlayers - 1, dtype=np.int64)
    homeless = homeless_units(lay_t, realu, setok, defer)
    table = np.full(256, -1, dtype=np.int64)  # grows with the failed states (most searches fail few)
    fail_keys = np.empty(budget + 1, dtype=np.int64)
    fail_layers = np.empty(budget + 1, dtype=np.int64)
    nfail = 0
    mask = table.shape[0] - 1
    out = np.empty((4096, 3), dtype=np.int64)
    opts = np.empty((nlayers, ROOM, 2), dtype=np.int64)  # per layer: (next key, code)
    count = np.zeros(nlayers, dtype=np.int64)
    nxt = np.zeros(nlayers, dtype=np.int64)
    path = np.zeros(nlayers, dtype=np.int64)  # the key at each layer of the current path
    path[0] = np.int64(D_BIAS) << D_SHIFT
    expanded = 0
    layer = np.int64(0)
    fresh = True  # whether ``layer``'s options are still to be listed
    while True:
        if layer == nlayers - 1:
            d = ((path[layer] >> D_SHIFT) & 15) - D_BIAS
            if d == hj:
                return codes, expanded
            fresh = False  # a final state with too few hand jokers: back up
            layer -= 1
            continue
        if fresh:
            if expanded >= budget:
                codes[0] = OVER_BUDGET
                return codes, expanded
            expanded += 1
            n = _state_options(
                layer, path[layer], hj, lay_t, lay_k, lay_h, realu, near, setok, defer, lastace, rafter, homeless, out
            )
            if n > ROOM:
                codes[0] = TOO_WIDE
                return codes, expanded
            kept = 0
            for j in range(n):  # skip successors already known not to finish
                if table[_seen(table, fail_keys, fail_layers, out[j, 0], layer + 1, mask)] < 0:
                    opts[layer, kept, 0] = out[j, 0]
                    opts[layer, kept, 1] = out[j, 2]
                    kept += 1
            count[layer] = kept
            nxt[layer] = 0
        if nxt[layer] < count[layer]:
            j = nxt[layer]
            nxt[layer] += 1
            codes[layer] = opts[layer, j, 1]
            path[layer + 1] = opts[layer, j, 0]
            layer += 1
            fresh = True
            continue
        # every option of this state failed: remember it, back up
        if layer == 0:
            codes[0] = NO_WITNESS
            return codes, expanded
        slot = _seen(table, fail_keys, fail_layers, path[layer], layer, mask)
        if table[slot] < 0:
            fail_keys[nfail] = path[layer]
            fail_layers[nfail] = layer
            table[slot] = nfail
            nfail += 1
            if 2 * nfail > table.shape[0]:  # keep the load under one half
                table = np.full(2 * table.shape[0], -1, dtype=np.int64)
                mask = table.shape[0] - 1
                for f in range(nfail):
                    table[_seen(table, fail_keys, fail_layers, fail_keys[f], fail_layers[f], mask)] = f
        layer -= 1
        fresh = False


@njit(cache=True)
def size_bounds(lay_h, rp, most):
    """``bound[layer, r]``: the most points ``r`` hand cards of the cells from ``layer`` on
    can score (their ``r`` dearest), or a large negative number when they hold fewer."""
    npos = lay_h.shape[0]
    nlayers = 5 * npos + 1
    bound = np.full((nlayers, most + 1), -(1 << 40), dtype=np.int64)
    held = np.zeros(MOST_CARD_POINTS + 1, dtype=np.int64)  # the hand cards of the cells seen so far, per points
    bound[nlayers - 1, 0] = 0
    for layer in range(nlayers - 2, -1, -1):
        i, s = layer // 5, layer % 5
        if s < 4:  # (the high ace's row is empty: layout)
            held[rp[i]] += lay_h[i, s]
        bound[layer, 0] = 0
        r = 0  # counting, not sorting: a sort per layer cost more than the searches it bounds
        for points in range(MOST_CARD_POINTS, 0, -1):
            for _ in range(held[points]):
                bound[layer, r + 1] = bound[layer, r] + points
                r += 1
    return bound


@njit(cache=True, inline="always")
def _known_slot(known, key, layer, tag):
    """``(row, held)``: the row of ``known`` holding ``(key, layer, tag)`` (``held``), else
    the row to write it into: of the two rows its hash names, a free one, else the first
    (the older proof goes)."""
    h = np.uint64(key) ^ (np.uint64(layer) << np.uint64(57)) ^ (np.uint64(tag) << np.uint64(47))
    first = np.int64((h * HASH) >> np.uint64(32)) & (known.shape[0] - 2)
    for row in (first, first + 1):
        if known[row, 1] == layer and known[row, 0] == key and known[row, 2] == tag:
            return row, True
    return (first + 1 if known[first, 1] >= 0 and known[first + 1, 1] < 0 else first), False


@njit(cache=True)
def best_of_size(cells, n, jokers, bound, known, budget, floor, cap, width):
    """``(points, codes, expanded)``: the most points of the real cards of a play of
    exactly ``n`` real hand cards and ``jokers`` hand jokers, and the edge codes of one
    table that does (the hand cards optional, as in the sweep's layout), by branch and
    bound depth first; ``points`` :data:`NO_WITNESS` when no such play scores more than
    ``floor`` (``-1``: no such play at all), :data:`OVER_BUDGET` or :data:`TOO_WIDE` (a
    state with more than ``width`` options) as for :func:`witness`.

    Only plays worth more than ``floor`` are searched, so a high floor prunes almost every
    branch. ``cap``: an upper bound the caller has proved (no play scores more); the search
    stops at the first play that reaches it, with no proof left to do.

    ``bound``: :func:`size_bounds`. ``known``: what earlier searches of the same position
    proved (:func:`new_known`, shared by them and written in place): per state, number of
    real hand cards still to play and hand jokers of the play, the fewest further points
    that no completion reaches. A search finds a play, then only looks for better ones; a
    state whose options are exhausted can reach no completion worth the points then
    needed, which holds for every later search too, whatever ``n``. ``known`` has a fixed
    number of rows: a proof that finds both of its rows taken replaces one, which costs
    time (the state may be searched again), never exactness."""
    lay_t, lay_k, lay_h, realu, near, setok, defer, lastace, rafter, rp = cells
    npos = lay_t.shape[0]
    nlayers = 5 * npos + 1
    codes = np.zeros(nlayers - 1, dtype=np.int64)
    best_codes = np.zeros(nlayers - 1, dtype=np.int64)
    homeless = homeless_units(lay_t, realu, setok, defer)
    out = np.empty((4096, 3), dtype=np.int64)
    opts = np.empty((nlayers, width, 3), dtype=np.int64)  # per layer: (next key, hand cards, code)
    options = np.zeros(nlayers, dtype=np.int64)
    nxt = np.zeros(nlayers, dtype=np.int64)
    path = np.zeros(nlayers, dtype=np.int64)  # the key at each layer of the current path
    cards = np.zeros(nlayers, dtype=np.int64)  # hand cards played before each layer
    points = np.zeros(nlayers, dtype=np.int64)
    path[0] = np.int64(D_BIAS) << D_SHIFT
    found = floor
    expanded = 0
    layer = np.int64(0)
    fresh = True
    while True:
        if layer == nlayers - 1:
            if path[layer] >> D_SHIFT & 15 == D_BIAS + jokers and cards[layer] == n and points[layer] > found:
                found = points[layer]
                for j in range(nlayers - 1):  # no slice assignment: see sweep
                    best_codes[j] = codes[j]
                if found >= cap:
                    return found, best_codes, expanded
            layer -= 1
            fresh = False
            continue
        rest = n - cards[layer]
        tag = rest + (jokers << 8)  # ``known``'s key: the search's state beside the layer's
        if fresh:
            need = found + 1 - points[layer]  # further points a better play needs
            pruned = rest < 0 or bound[layer, rest] < need
            if not pruned:
                row, held = _known_slot(known, path[layer], layer, tag)
                pruned = held and known[row, 3] <= need
            if pruned:
                if layer == 0:
                    break
                layer -= 1
                fresh = False
                continue
            if expanded >= budget:
                return OVER_BUDGET, best_codes, expanded
            expanded += 1
            key = path[layer]
            m = _state_options(
                layer, key, jokers, lay_t, lay_k, lay_h, realu, near, setok, defer, lastace, rafter, homeless, out
            )
            if m > width:
                return TOO_WIDE, best_codes, expanded
            for j in range(m):  # the most hand cards first: the first plays found score well
                opts[layer, j, 0] = out[m - 1 - j, 0]
                opts[layer, j, 1] = out[m - 1 - j, 1]
                opts[layer, j, 2] = out[m - 1 - j, 2]
            options[layer] = m
            nxt[layer] = 0
        if nxt[layer] < options[layer]:
            j = nxt[layer]
            nxt[layer] += 1
            codes[layer] = opts[layer, j, 2]
            path[layer + 1] = opts[layer, j, 0]
            cards[layer + 1] = cards[layer] + opts[layer, j, 1]
            points[layer + 1] = points[layer] + opts[layer, j, 1] * rp[layer // 5]
            layer += 1
            fresh = True
            continue
        # Exhausted. Every option was searched (or pruned) for at most the points needed
        # now (``found`` only grows), so no completion from here reaches them.
        need = found + 1 - points[layer]
        row, held = _known_slot(known, path[layer], layer, tag)
        if held:
            known[row, 3] = min(known[row, 3], need)
        else:
            known[row, 0], known[row, 1], known[row, 2], known[row, 3] = path[layer], layer, tag, need
        if layer == 0:
            break
        layer -= 1
        fresh = False
    return (found if found > floor else NO_WITNESS), best_codes, expanded


@njit(cache=True, inline="always")
def best_in_windows(cells, n, jokers, bound, known, budget, floor, cap, width):
    """:func:`best_of_size` for plays worth more than ``floor``, asked in windows of points
    from ``cap`` (an upper bound) down: ``cap`` itself, the two points below, then
    everything down to ``floor``. A window's search prunes every branch that cannot beat
    its own floor and stops at its cap (proved by the window above), so the first windows
    are cheap, and a best play that misses the bound mostly misses it by a point or two.
    Returns ``(points, codes, expanded)`` as :func:`best_of_size` does, ``expanded`` over
    every window (``budget`` is theirs together)."""
    spent = 0
    points, codes = np.int64(NO_WITNESS), np.zeros(1, dtype=np.int64)
    for step in (1, 2, cap + 1):
        low = max(cap - step, floor)
        points, codes, more = best_of_size(cells, n, jokers, bound, known, budget - spent, low, cap, width)
        spent += more
        if points != NO_WITNESS or low <= floor:
            break
        cap = low
    return points, codes, spent


@njit(cache=True)
def new_known(states):
    """An empty ``known`` for :func:`best_of_size`: rows ``(key, layer, tag, need)`` (layer
    ``-1``: free), twice ``states`` rounded up to a power of two (at least 16), so that a
    search of up to ``states`` expanded states mostly keeps every proof;
    ``KNOWN_ROW_BYTES`` each."""
    rows = 16
    while rows < 2 * states:
        rows *= 2
    return np.full((rows, 4), -1, dtype=np.int64)
