"""Gin Rummy's compiled turns: the moves within a hand, the masks and the observations, over
arrays (:class:`GinArrays`), for the vector env (:mod:`carousel_env.games.gin_rummy.vector`).

:mod:`carousel_env.games.gin_rummy.engine` is the reference. This module repeats only the
moves that do not end a hand: taking the upcard, drawing, passing on the first upcard and
discarding, with the masks and the exact deadwood that decides whether a knock is legal.
A move that ends the hand (a knock, a pass at the wall, a discard that kills the hand, an
upcard draw at the limit) is left in ``pending`` for the engine to make, in Python,
once per hand; so are the knock suggestions, listed by the engine where a knock is legal.
``tests/games/gin_rummy/test_gin_vector.py`` steps seeded games through both envs and requires the
same observations, masks and rewards at every step.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import numpy as np
from numba import njit

from carousel_env.core import compiled
from carousel_env.core.cards import NUM_CARDS, POINTS
from carousel_env.envkit.vector import DEALT, SKIP
from carousel_env.games.gin_rummy import melds as gm
from carousel_env.games.gin_rummy.engine import DEAD_STOCK, Phase
from carousel_env.games.gin_rummy.env import GinAction
from carousel_env.games.gin_rummy.observation import PHASES, SCORE_SCALE, STOCK_AT_DEAL, layout
from carousel_env.games.gin_rummy.observation import SCALARS as SCALAR_NAMES
from carousel_env.games.gin_rummy.rules import MAX_KNOCK_LIMIT, OPENSPIEL_RETURNED_UPCARDS, OPENSPIEL_UPCARD_DRAWS

_HERE = Path(__file__).resolve().parent
# The compiled code embeds the constants of these modules: its cache depends on them.
SOURCES = (
    *(_HERE / name for name in ("kernel.py", "melds.py", "engine.py", "env.py", "observation.py", "rules.py")),
    compiled.PACKAGE / "core" / "cards.py",
)
compiled.name_entry_points(
    __name__,
    {"step_games": ("Gin Rummy's vector turns", 15), "encode_rows": ("Gin Rummy's vector observations", 5)},
)
compiled.drop_stale_cache(_HERE / "__pycache__", SOURCES)

FIRST_UPCARD, DRAW, DISCARD, WALL, HAND_OVER, GAME_OVER = (PHASES.index(p) for p in Phase)
DRAW_STOCK, TAKE_UPCARD, PASS = int(GinAction.DRAW_STOCK), int(GinAction.TAKE_UPCARD), int(GinAction.PASS)
FIRST_DISCARD, FIRST_KNOCK = int(GinAction.FIRST_DISCARD), int(GinAction.FIRST_KNOCK)
NO_MOVE = -3  # ``pending``: nothing for the engine to make
# Entries of the ``rule`` array: knock limit, the taken upcard may be discarded, the wall
# (else the dead hand), OpenSpiel's upcard limits, the upcard draw that ends the hand.
KNOCK_LIMIT_RULE, DISCARD_TAKEN_RULE, WALL_RULE, UPCARD_LIMITS_RULE, UPCARD_DRAW_LIMIT_RULE = range(5)

# The base melds by their lowest card (as melds._BY_LOWEST): masks and values, -1 padded.
_MAX_BY_LOWEST = max(len(row) for row in gm._BY_LOWEST)
MELD_MASKS = np.full((NUM_CARDS, _MAX_BY_LOWEST), -1, np.int64)
MELD_VALUES = np.zeros((NUM_CARDS, _MAX_BY_LOWEST), np.int64)
for _card, _row in enumerate(gm._BY_LOWEST):
    for _j, _i in enumerate(_row):
        MELD_MASKS[_card, _j] = gm._BASE_MASKS[_i]
        MELD_VALUES[_card, _j] = gm._BASE_VALUES[_i]
CARD_VALUES = np.array(POINTS[:NUM_CARDS], np.int64)
_STACK = 256  # pending branches of the deadwood search (a hand of 11 needs far fewer)


class GinArrays(NamedTuple):
    """``N`` games of Gin Rummy, one row each (what :class:`~carousel_env.games.gin_rummy.engine.GinState`
    holds, with hands and card sets as 52-bit masks), and each row's decision."""

    hands: np.ndarray  # (N, 2) int64 masks
    deck: np.ndarray  # (N, 52) int64: the hand's deck order; the stock is deck[stock_top:]
    stock_top: np.ndarray  # (N,)
    pile: np.ndarray  # (N, 52) the discard pile, bottom first
    pile_len: np.ndarray  # (N,)
    phase: np.ndarray  # (N,) PHASES codes
    current: np.ndarray  # (N,)
    dealer: np.ndarray  # (N,)
    passed: np.ndarray  # (N, 2) 0/1: passes on the first upcard
    taken: np.ndarray  # (N,) the upcard taken this turn, or -1
    known: np.ndarray  # (N, 2) masks: taken from the pile and still held
    declined: np.ndarray  # (N, 2) masks
    discarded: np.ndarray  # (N, 2) masks
    upcard_draws: np.ndarray  # (N,)
    returned: np.ndarray  # (N,) discards in a row returning the upcard just taken
    scores: np.ndarray  # (N, 2)
    hands_won: np.ndarray  # (N, 2)
    mask: np.ndarray  # (N, 55 + K) int8: the acting seat's mask (knock slots: set in Python)
    can_knock: np.ndarray  # (N,) 0/1: a knock is legal at the decision
    pending: np.ndarray  # (N,) a hand-ending move for the engine, or NO_MOVE
    auto: np.ndarray  # (N,) moves the kernel took alone in this call

    @classmethod
    def empty(cls, n: int, num_actions: int) -> GinArrays:
        def ints(*shape: int) -> np.ndarray:
            return np.zeros(shape, np.int64)

        return cls(
            hands=ints(n, 2), deck=ints(n, NUM_CARDS), stock_top=ints(n), pile=ints(n, NUM_CARDS), pile_len=ints(n),
            phase=np.full(n, GAME_OVER, np.int64), current=ints(n), dealer=ints(n), passed=ints(n, 2),
            taken=np.full(n, -1, np.int64), known=ints(n, 2), declined=ints(n, 2), discarded=ints(n, 2),
            upcard_draws=ints(n), returned=ints(n), scores=ints(n, 2), hands_won=ints(n, 2),
            mask=np.zeros((n, num_actions), np.int8), can_knock=ints(n), pending=np.full(n, NO_MOVE, np.int64),
            auto=ints(n),
        )  # fmt: skip


# ---------------------------------------------------------------- exact deadwood


# Per 13-bit chunk of a mask: its lowest card (-1 for none) and its cards' value.
_CHUNK, _CHUNK_BITS = gm._CHUNK, gm._CHUNK_MASK
LOWEST_IN_CHUNK = np.array([(c & -c).bit_length() - 1 for c in range(1 << _CHUNK)], np.int64)
CHUNK_VALUES = np.array(gm._CHUNK_VALUES, np.int64)
RANK_BITS = np.int64(gm._RANK_BITS)


@njit(cache=True)
def _lowest(mask):
    """The lowest card of a nonempty ``mask``."""
    for start in range(0, NUM_CARDS, _CHUNK):
        chunk = (mask >> start) & _CHUNK_BITS
        if chunk:
            return start + LOWEST_IN_CHUNK[chunk]
    return -1


@njit(cache=True)
def _value(mask):
    total = 0
    for i in range(NUM_CARDS // _CHUNK):
        total += CHUNK_VALUES[i, (mask >> (i * _CHUNK)) & _CHUNK_BITS]
    return total


@njit(cache=True)
def _meldable(mask):
    """The cards of ``mask`` in some base meld within it (as ``melds.meldable``)."""
    starts = mask & (mask >> 4) & (mask >> 8)
    runs = starts | (starts << 4) | (starts << 8)
    a, b = mask & RANK_BITS, (mask >> 1) & RANK_BITS
    c, d = (mask >> 2) & RANK_BITS, (mask >> 3) & RANK_BITS
    trios = (a & b & (c | d)) | (c & d & (a | b))
    return runs | ((trios * 15) & mask)


@njit(cache=True)
def _melded_core(mask):
    """The largest value of disjoint melds within ``mask`` (as ``melds.melded_value``): a
    search over the lowest card left, deadwood or the lowest card of a base meld."""
    masks = np.empty(_STACK, np.int64)
    values = np.empty(_STACK, np.int64)
    masks[0], values[0] = mask, 0
    top, best = 1, 0
    while top:
        top -= 1
        left, value = masks[top], values[top]
        if left == 0:
            best = max(best, value)
            continue
        card = _lowest(left)
        masks[top], values[top] = left & (left - 1), value
        top += 1
        for j in range(MELD_MASKS.shape[1]):
            meld = MELD_MASKS[card, j]
            if meld < 0:
                break
            if meld & left == meld:
                masks[top], values[top] = left ^ meld, value + MELD_VALUES[card, j]
                top += 1
    return best


@njit(cache=True)
def melded_value(mask):
    """The search of :func:`_melded_core` on the meldable cards alone (the others are
    deadwood in every arrangement)."""
    core = _meldable(mask)
    return _melded_core(core) if core else 0


@njit(cache=True)
def deadwood(mask):
    return _value(mask) - melded_value(mask)


@njit(cache=True)
def _discard_basis(mask):
    """What every discard from ``mask`` shares: its value, its meldable cards, and what they
    meld (for :func:`_discard_deadwood`)."""
    core = _meldable(mask)
    return _value(mask), core, _melded_core(core) if core else 0


@njit(cache=True)
def _discard_deadwood(mask, total, core, kept, card):
    """The least deadwood of ``mask`` (of value ``total``, meldable cards ``core`` holding
    ``kept`` melded) less ``card``: a card outside every meld leaves the melds as they were."""
    bit = np.int64(1) << card
    melded = melded_value(mask ^ bit) if core & bit else kept
    return total - CARD_VALUES[card] - melded


@njit(cache=True)
def deadwood_after_discard(mask, keep):
    """The least deadwood of ``mask`` less one discard that is not in ``keep``."""
    total, core, kept = _discard_basis(mask)
    best = 1 << 30
    options = mask & ~keep
    while options:
        card = _lowest(options)
        options &= options - 1
        best = min(best, _discard_deadwood(mask, total, core, kept, card))
    return best


# ---------------------------------------------------------------- moves and decisions


@njit(cache=True, inline="always")
def _upcard(a, g):
    return a.pile[g, a.pile_len[g] - 1] if a.pile_len[g] > 0 else -1


@njit(cache=True, inline="always")
def _kept(a, g, rule):
    if a.taken[g] < 0 or rule[DISCARD_TAKEN_RULE]:
        return np.int64(0)
    return np.int64(1) << a.taken[g]


@njit(cache=True)
def _ends_hand(a, g, action, rule):
    """Whether ``action`` ends the hand (then the engine makes it)."""
    if action >= FIRST_KNOCK:
        return True
    phase = a.phase[g]
    if action == PASS:
        return phase == WALL
    if action == TAKE_UPCARD:
        return phase == DRAW and a.upcard_draws[g] + 1 >= rule[UPCARD_DRAW_LIMIT_RULE]
    if action >= FIRST_DISCARD:
        card = action - FIRST_DISCARD
        returned = a.returned[g] + 1 if card == a.taken[g] else 0
        if rule[UPCARD_LIMITS_RULE] != 0 and returned >= OPENSPIEL_RETURNED_UPCARDS:
            return True
        return NUM_CARDS - a.stock_top[g] <= DEAD_STOCK and rule[WALL_RULE] == 0
    return False


@njit(cache=True)
def _apply(a, g, action):
    """Make a move that does not end the hand (as ``engine.apply``)."""
    seat = a.current[g]
    phase = a.phase[g]
    one = np.int64(1)
    if action == TAKE_UPCARD:
        card = _upcard(a, g)
        a.hands[g, seat] |= one << card
        a.pile_len[g] -= 1
        a.taken[g] = card
        a.known[g, seat] |= one << card
        if phase == DRAW:
            a.upcard_draws[g] += 1
        a.phase[g] = DISCARD
    elif action == DRAW_STOCK:
        card = a.deck[g, a.stock_top[g]]
        if phase == DRAW:
            a.declined[g, seat] |= one << _upcard(a, g)
        a.hands[g, seat] |= one << card
        a.stock_top[g] += 1
        a.taken[g] = -1
        a.phase[g] = DISCARD
    elif action == PASS:  # on the first upcard
        a.passed[g, seat] = 1
        a.declined[g, seat] |= one << _upcard(a, g)
        a.current[g] = 1 - seat
    else:
        card = action - FIRST_DISCARD
        a.returned[g] = a.returned[g] + 1 if card == a.taken[g] else 0
        a.hands[g, seat] ^= one << card
        a.pile[g, a.pile_len[g]] = card
        a.pile_len[g] += 1
        a.known[g, seat] &= ~(one << card)
        a.discarded[g, seat] |= one << card
        a.taken[g] = -1
        a.current[g] = 1 - seat
        a.phase[g] = WALL if NUM_CARDS - a.stock_top[g] <= DEAD_STOCK else DRAW


@njit(cache=True)
def _decide(a, g, rule):
    """Fill row ``g``'s mask (all but the knock slots) and ``can_knock``; returns the number
    of legal actions, counting the knock slots as one."""
    for i in range(a.mask.shape[1]):
        a.mask[g, i] = 0
    a.can_knock[g] = 0
    phase = a.phase[g]
    seat = a.current[g]
    hand = a.hands[g, seat]
    if phase == FIRST_UPCARD:
        if a.passed[g, 0] and a.passed[g, 1]:
            a.mask[g, DRAW_STOCK] = 1
            return 1
        a.mask[g, TAKE_UPCARD] = 1
        a.mask[g, PASS] = 1
        return 2
    if phase == DRAW:
        a.mask[g, TAKE_UPCARD] = 1
        a.mask[g, DRAW_STOCK] = 1
        return 2
    if phase == DISCARD:
        kept = _kept(a, g, rule)
        options = hand & ~kept
        count = 0
        while options:
            card = _lowest(options)
            options &= options - 1
            a.mask[g, FIRST_DISCARD + card] = 1
            count += 1
        if deadwood_after_discard(hand, kept) <= rule[KNOCK_LIMIT_RULE]:
            a.can_knock[g] = 1
            count += 1
        return count
    if phase == WALL:
        a.mask[g, PASS] = 1
        if deadwood_after_discard(hand | (np.int64(1) << _upcard(a, g)), np.int64(0)) <= rule[KNOCK_LIMIT_RULE]:
            a.can_knock[g] = 1
            return 2
        return 1
    return 0


@njit(cache=True)
def step_games(a, actions, rule):
    """For every row but the ``SKIP`` ones: make ``actions[g]`` (none when ``DEALT``), then
    take every decision with one legal action, until a real decision. A move that ends the
    hand is left in ``pending[g]`` instead (``auto[g]`` counts it when the kernel chose it).
    Every kernel keeps this loop over its own functions: numba caches no compiled function
    that takes others as arguments or closes over them (numba issue 2065)."""
    for g in range(actions.shape[0]):
        action = actions[g]
        if action == SKIP:
            continue
        a.auto[g] = 0
        a.pending[g] = NO_MOVE
        if action != DEALT:
            if _ends_hand(a, g, action, rule):
                a.pending[g] = action
                continue
            _apply(a, g, action)
        while True:
            legal = _decide(a, g, rule)
            if legal != 1:
                break
            only = 0
            while not a.mask[g, only]:
                only += 1
            a.auto[g] += 1
            if _ends_hand(a, g, only, rule):
                a.pending[g] = only
                break
            _apply(a, g, only)


# ---------------------------------------------------------------- observations


_LAYOUT = layout(1)  # the offsets do not depend on the number of slots
_AT = {name: start for name, (start, _) in _LAYOUT.offsets.items()}
HAND, UPCARD, PILE, TAKEN = _AT["hand"], _AT["upcard"], _AT["pile"], _AT["taken"]
OWN_DECLINED, OWN_DISCARDED = _AT["own_declined"], _AT["own_discarded"]
OPP_KNOWN, OPP_DECLINED, OPP_DISCARDED = _AT["opp_known"], _AT["opp_declined"], _AT["opp_discarded"]
PHASE_AT, SCALARS, AFTER_DISCARD = _AT["phase"], _AT["scalars"], _AT["after_discard"]
GLOBAL_SIZE, SLOT_SIZE = _LAYOUT.global_size, _LAYOUT.slot_size
_SLOT = {name: start for name, (start, _) in _LAYOUT.slot_offsets.items()}
S_VALID, S_DEADWOOD, S_GIN, S_SPOTS = _SLOT["valid"], _SLOT["deadwood"], _SLOT["gin"], _SLOT["layoff_spots"]
S_DISCARD, S_SETS, S_RUNS = _SLOT["discard"], _SLOT["set_cards"], _SLOT["run_cards"]


@njit(cache=True, inline="always")
def _cards(v, start, mask):
    while mask:
        card = _lowest(mask)
        mask &= mask - 1
        v[start + card] = 1.0


AFTER_UPCARD = SCALAR_NAMES.index("after_upcard")


@njit(cache=True, inline="always")
def _after(deadwood_left):
    return 1.0 - min(deadwood_left / SCORE_SCALE, 1.0)  # as observation.after_deadwood


@njit(cache=True)
def encode_rows(out, a, slots, rule):
    """Row ``g``'s acting seat's observation into ``out[g]`` (as ``observation.encode`` of a
    hand under way); ``slots``: (count, deadwood, spots, discard, set mask, run mask) per
    row and knock slot, from the engine."""
    counts, slot_deadwood, slot_spots, slot_discard, slot_sets, slot_runs = slots
    for g in range(out.shape[0]):
        v = out[g]
        v[:] = 0.0
        phase = a.phase[g]
        if phase in (HAND_OVER, GAME_OVER):
            continue  # a finished row's view comes from the engine (the vector env's final observations)
        seat = a.current[g]
        opp = 1 - seat
        _cards(v, HAND, a.hands[g, seat])
        if a.pile_len[g] > 0:
            v[UPCARD + a.pile[g, a.pile_len[g] - 1]] = 1.0
        for i in range(a.pile_len[g] - 1):
            v[PILE + a.pile[g, i]] = 1.0
        if a.taken[g] >= 0:
            v[TAKEN + a.taken[g]] = 1.0
        _cards(v, OWN_DECLINED, a.declined[g, seat])
        _cards(v, OWN_DISCARDED, a.discarded[g, seat])
        _cards(v, OPP_KNOWN, a.known[g, opp])
        _cards(v, OPP_DECLINED, a.declined[g, opp])
        _cards(v, OPP_DISCARDED, a.discarded[g, opp])
        v[PHASE_AT + phase] = 1.0
        hand = a.hands[g, seat]
        if phase == DISCARD:
            own = 1 << 30
            total, core, kept = _discard_basis(hand)
            left = hand
            while left:
                card = _lowest(left)
                left &= left - 1
                after = _discard_deadwood(hand, total, core, kept, card)
                v[AFTER_DISCARD + card] = _after(after)
                own = min(own, after)
        else:
            own = deadwood(hand)
            if a.pile_len[g] > 0 and phase in (FIRST_UPCARD, DRAW):
                upcard = np.int64(1) << a.pile[g, a.pile_len[g] - 1]
                v[SCALARS + AFTER_UPCARD] = _after(deadwood_after_discard(hand | upcard, upcard))
        v[SCALARS] = 1.0
        v[SCALARS + 1] = 1.0 if a.dealer[g] == seat else 0.0
        v[SCALARS + 2] = (NUM_CARDS - a.stock_top[g]) / STOCK_AT_DEAL
        v[SCALARS + 3] = min(a.scores[g, seat] / SCORE_SCALE, 1.0)
        v[SCALARS + 4] = min(a.scores[g, opp] / SCORE_SCALE, 1.0)
        v[SCALARS + 5] = min(a.hands_won[g, seat] / 10.0, 1.0)
        v[SCALARS + 6] = min(a.hands_won[g, opp] / 10.0, 1.0)
        v[SCALARS + 7] = min(own / SCORE_SCALE, 1.0)
        v[SCALARS + 8] = 1.0 if counts[g] > 0 else 0.0
        v[SCALARS + 9] = rule[KNOCK_LIMIT_RULE] / MAX_KNOCK_LIMIT
        v[SCALARS + 10] = min(a.upcard_draws[g] / OPENSPIEL_UPCARD_DRAWS, 1.0)
        v[SCALARS + 11] = 1.0 if a.passed[g, opp] else 0.0
        for k in range(counts[g]):
            base = GLOBAL_SIZE + k * SLOT_SIZE
            v[base + S_VALID] = 1.0
            v[base + S_DEADWOOD] = slot_deadwood[g, k] / MAX_KNOCK_LIMIT
            v[base + S_GIN] = 1.0 if slot_deadwood[g, k] == 0 else 0.0
            v[base + S_SPOTS] = min(slot_spots[g, k] / 20.0, 1.0)
            v[base + S_DISCARD + slot_discard[g, k]] = 1.0
            _cards(v, base + S_SETS, slot_sets[g, k])
            _cards(v, base + S_RUNS, slot_runs[g, k])
