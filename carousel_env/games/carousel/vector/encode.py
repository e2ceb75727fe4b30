"""The vector env's observations, compiled: :func:`carousel_env.games.carousel.envs.observation.encode`
over the arrays of every game at once, value for value (``tests/games/carousel/test_vector_env.py``
compares the two at every step of seeded games). The channel offsets are the layout's own.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from carousel_env.core.cards import NUM_CARDS, TABLE_JOKER
from carousel_env.games.carousel.envs.observation import MAX_PLAYERS, POINTS_SCALE, SCORE_SCALE, SIZE_SCALE, layout
from carousel_env.games.carousel.solver.answer import (
    COUNT,
    REC_AFTER_POINTS,
    REC_CARDS,
    REC_JOKERS,
    REC_LISTS,
    REC_POINTS,
    REC_SLOT,
    SLOT_NAMES,
)
from carousel_env.games.carousel.solver.prepare import CARD_POINTS
from carousel_env.games.carousel.vector.kernel import CURRENT, DEALER, FINAL_LEFT, HAS_LAST, ROUND_INDEX
from carousel_env.games.carousel.vector.kernel import DRAWS as DRAWS_COLUMN

_LAYOUT = layout(1)  # global offsets and slot offsets do not depend on the number of slots
_G = {name: part.start for name, part in _LAYOUT.global_fields.items()}
_S = {name: part.start for name, part in _LAYOUT.slot_fields.items()}
HAND, TCARDS, TJOKERS, UNSEEN = _G["hand"], _G["table_cards"], _G["table_jokers"], _G["unseen"]
SELF, OPPONENTS, DEALER_AT, TO_PLAY, STOCK = _G["self"], _G["opponents"], _G["dealer"], _G["to_play"], _G["stock"]
DRAWS, PHASE, FINAL, ROUND, MELDS, SOLVER = (
    _G[n] for n in ("draws", "phase", "final_turns", "round", "table_melds", "solver")
)
GLOBAL_SIZE, SLOT_FEATURES = _LAYOUT.global_size, _LAYOUT.slot_features
VALID, CARDS, NUM, POINTS, AFTER_POINTS, AFTER_SIZE, JOKERS, GOES_OUT, KNOCK_AFTER, REASON, MELDS_AFTER, CHANGES = (
    _S[n]
    for n in (
        "valid",
        "cards",
        "num_cards",
        "points",
        "hand_after_points",
        "hand_after_size",
        "jokers_used",
        "goes_out",
        "can_knock_after",
        "reason",
        "melds_after",
        "changes_melds",
    )
)
SIZE_REASON = len(SLOT_NAMES)  # the named slots are reasons 0-3; every ``size_n`` slot is reason 4


@njit(cache=True)
def _old_melds_kept(a, at, g):
    """Whether every meld on game ``g``'s table, each copy of a repeated one included, is
    a meld of the table packed at ``at`` (each new meld matched once)."""
    new_melds = a.packed[g, at]
    lengths = at + 1
    first = at + 1 + new_melds
    matched = np.zeros(new_melds, dtype=np.bool_)
    start = 0
    for m in range(a.n_melds[g]):
        size = a.meld_len[g, m]
        found = False
        unit_at = first
        for j in range(new_melds):
            other = a.packed[g, lengths + j]
            if other == size and not matched[j]:
                same = True
                for i in range(size):
                    if a.packed[g, unit_at + i] != a.units[g, start + i]:
                        same = False
                        break
                if same:
                    matched[j] = True
                    found = True
                    break
            unit_at += other
        if not found:
            return False
        start += size
    return True


@njit(cache=True)
def _encode_slot(a, v, base, at, g, knock_limit):
    slot, cards, jokers, points, after_points = (
        a.packed[g, at + REC_SLOT],
        a.packed[g, at + REC_CARDS],
        a.packed[g, at + REC_JOKERS],
        a.packed[g, at + REC_POINTS],
        a.packed[g, at + REC_AFTER_POINTS],
    )
    at += REC_LISTS
    v[base + VALID] = 1.0
    for i in range(a.packed[g, at]):
        v[base + CARDS + a.packed[g, at + 1 + i]] += 1.0
    at += 1 + a.packed[g, at]
    after_size = a.packed[g, at]
    at += 1 + after_size
    v[base + NUM] = cards / SIZE_SCALE
    v[base + POINTS] = points / POINTS_SCALE
    v[base + AFTER_POINTS] = after_points / POINTS_SCALE
    v[base + AFTER_SIZE] = after_size / SIZE_SCALE
    v[base + JOKERS] = jokers / 2.0
    v[base + GOES_OUT] = 1.0 if after_size == 0 else 0.0
    v[base + KNOCK_AFTER] = 1.0 if knock_limit >= 0 and after_points <= knock_limit else 0.0
    v[base + REASON + min(slot, SIZE_REASON)] = 1.0
    v[base + MELDS_AFTER] = a.packed[g, at] / SIZE_SCALE
    v[base + CHANGES] = 0.0 if _old_melds_kept(a, at, g) else 1.0


@njit(cache=True)
def encode_rows(a, out, games, observers, acting, deck, knock_limit):
    """``out[i]`` = the observation of seat ``observers[i]`` in game ``games[i]``, with the
    suggestions when ``acting[i]``. ``a.board[g]``: dealer, round index, has a last round;
    ``deck``: copies per card (52: jokers), then the deck size."""
    players = a.hand_len.shape[1]
    for i in range(games.shape[0]):
        g, o = games[i], observers[i]
        v = out[i]
        v[:] = 0.0
        for j in range(a.hand_len[g, o]):
            c = a.hands[g, o, j]
            v[HAND + c] += 1.0
            v[UNSEEN + c] += 1.0
        for j in range(a.n_units[g]):
            u = a.units[g, j]
            if u < NUM_CARDS:
                v[TCARDS + u] += 1.0
                v[UNSEEN + u] += 1.0
            else:  # a joker: in table_jokers at its declaration, among the unseen as a joker
                v[TJOKERS + u - TABLE_JOKER] += 1.0
                v[UNSEEN + NUM_CARDS] += 1.0
        for c in range(NUM_CARDS + 1):
            v[UNSEEN + c] = deck[c] - v[UNSEEN + c]
        value = 0
        for j in range(a.hand_len[g, o]):
            value += CARD_POINTS[a.hands[g, o, j]]
        has_last = a.board[g, HAS_LAST] != 0
        v[SELF] = a.hand_len[g, o] / SIZE_SCALE
        v[SELF + 1] = value / POINTS_SCALE
        v[SELF + 2] = 1.0 if knock_limit >= 0 and value <= knock_limit else 0.0
        v[SELF + 3] = a.scores[g, o] / SCORE_SCALE
        v[SELF + 4] = a.rounds_won[g, o] / 10.0
        if has_last:
            v[SELF + 5] = a.last_points[g, o] / POINTS_SCALE
        at = OPPONENTS
        for rel in range(1, players):
            p = (o + rel) % players
            v[at] = 1.0
            v[at + 1] = a.hand_len[g, p] / SIZE_SCALE
            v[at + 2] = a.scores[g, p] / SCORE_SCALE
            v[at + 3] = a.rounds_won[g, p] / 10.0
            if has_last:
                v[at + 4] = a.last_points[g, p] / POINTS_SCALE
            at += 5
        v[DEALER_AT + (a.board[g, DEALER] - o + players) % players] = 1.0
        v[TO_PLAY + (a.turn[g, CURRENT] - o + players) % players] = 1.0
        v[STOCK] = a.stock_len[g] / deck[53]
        v[DRAWS + min(a.turn[g, DRAWS_COLUMN], 3)] = 1.0
        v[PHASE + a.phase[g]] = 1.0
        if a.turn[g, FINAL_LEFT] >= 0:
            v[FINAL] = 1.0
            v[FINAL + 1] = a.turn[g, FINAL_LEFT] / MAX_PLAYERS
        v[ROUND] = a.board[g, ROUND_INDEX] / 10.0
        v[MELDS] = a.n_melds[g] / SIZE_SCALE
        count = a.packed[g, COUNT]
        if acting[i] and count > 0:
            slots = (out.shape[1] - GLOBAL_SIZE) // SLOT_FEATURES
            best_points, best_cards = 0, 0
            for s in range(count):
                best_points = max(best_points, a.packed[g, a.slot_at[g, s] + REC_POINTS])
                best_cards = max(best_cards, a.packed[g, a.slot_at[g, s] + REC_CARDS])
            v[SOLVER] = count / slots
            v[SOLVER + 1] = best_points / POINTS_SCALE
            v[SOLVER + 2] = best_cards / SIZE_SCALE
            v[SOLVER + 3] = 1.0
            for s in range(count):
                _encode_slot(a, v, GLOBAL_SIZE + s * SLOT_FEATURES, a.slot_at[g, s], g, knock_limit)
    return out
