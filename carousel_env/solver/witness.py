"""Witnesses: one legal table for a fixed set of played cards, found depth first (compiled).

The exact sweeps of ``core`` keep every reachable state of every layer. On a crowded
two-deck table that is hundreds of thousands of states (and up to 108 lanes of aces per
state), seconds per solve, although in most such positions every live hand card can be
played and each best play of a given size is simply the dearest cards of that size. Those
plays meet the obvious upper bounds, so one legal table for each proves it optimal: a
depth-first search for a *witness*, over the same transitions as the sweep, usually walks
straight down the layers. ``pipeline`` asks for witnesses only after the sweep has grown
past a small budget, and falls back to the exact sweeps when any witness is missing.

The played cards are made mandatory by laying the position out again with them as table
cards (``prepare.layout``), so a witness is a path from the first layer to the last whose
final state has placed every hand joker of the set (``d == hand jokers``). The aces set
aside for the high ace stay in the key (no lanes: a search visits few states per layer).
A state found not to finish is remembered, so no state is searched twice and the search
is exact: it fails only when no such table exists, or when it has spent its ``budget`` of
expanded states.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from carousel_env.solver.core import (
    _D_BIAS,
    _D_SHIFT,
    _HASH,
    _cell_options,
    _close_options,
    _homeless,
    _layer_inputs,
)

_ROOM = 64  # options kept per layer of the search; a state with more gives the search up
NO_WITNESS = -1  # ``codes[0]`` of a search that found none
OVER_BUDGET = -2  # ``codes[0]`` of a search that spent its budget


@njit(cache=True)
def _seen(table, keys, layers, key, layer, mask):
    """Slot of ``(layer, key)`` in the open-addressing ``table`` of failed states, or its free slot."""
    h = ((np.uint64(key) ^ (np.uint64(layer) << np.uint64(58))) * _HASH) >> np.uint64(32)
    slot = np.int64(h) & mask
    while True:
        idx = table[slot]
        if idx < 0 or (keys[idx] == key and layers[idx] == layer):
            return slot
        slot = (slot + 1) & mask


@njit(cache=True)
def witness(lay_t, lay_k, lay_h, realu, near, setok, defer, lastace, rafter, hj, budget):
    """``(codes, expanded)``: the edge codes, layer by layer, of one complete table that
    places every unit (``lay_h`` all zero: the played cards are table cards here) and
    exactly ``hj`` hand jokers, or ``codes[0]`` :data:`NO_WITNESS` when none exists,
    :data:`OVER_BUDGET` when more than ``budget`` states were expanded first."""
    npos = lay_t.shape[0]
    nlayers = 5 * npos + 1
    codes = np.zeros(nlayers - 1, dtype=np.int64)
    homeless = _homeless(lay_t, realu, setok, defer)
    table = np.full(256, -1, dtype=np.int64)  # grows with the failed states (most searches fail few)
    fail_keys = np.empty(budget + 1, dtype=np.int64)
    fail_layers = np.empty(budget + 1, dtype=np.int64)
    nfail = 0
    mask = table.shape[0] - 1
    out = np.empty((4096, 3), dtype=np.int64)
    opts = np.empty((nlayers, _ROOM, 2), dtype=np.int64)  # per layer: (next key, code)
    count = np.zeros(nlayers, dtype=np.int64)
    nxt = np.zeros(nlayers, dtype=np.int64)
    path = np.zeros(nlayers, dtype=np.int64)  # the key at each layer of the current path
    path[0] = np.int64(_D_BIAS) << _D_SHIFT
    expanded = 0
    layer = 0
    fresh = True  # whether ``layer``'s options are still to be listed
    while True:
        if layer == nlayers - 1:
            d = ((path[layer] >> _D_SHIFT) & 15) - _D_BIAS
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
            key = path[layer]
            i, s = layer // 5, layer % 5
            ahead, cell = _layer_inputs(
                layer, lay_t, lay_k, lay_h, realu, near, setok, defer, lastace, rafter, homeless
            )
            if s < 4:
                n = _cell_options(key, s, cell, hj, out)
            else:
                n = _close_options(key, setok[i], rafter[i, 3], hj, ahead, out)
            if n > _ROOM:
                codes[0] = OVER_BUDGET
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
