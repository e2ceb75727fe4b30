"""Carioca's compiled turns: draws, discards and lay-offs, the masks, the exact distance to
the contract and the observations, over arrays (:class:`CariocaArrays`), for the vector env
(:mod:`carousel_env.games.carioca.vector`).

:mod:`carousel_env.games.carioca.engine` is the reference. This module repeats the moves
made many times a round; a move the engine makes instead is left in ``pending``: going down
(a few times a round), and a discard that ends the round (going out, or the pile draw
limit) or meets an empty stock (the reshuffle draws from Python's generator). Where a
player may go down, ``can_go_down`` says so and the engine's solver lists the
arrangements. The distance to the contract is :mod:`carousel_env.games.carioca.distance`'s.
``tests/games/carioca/test_carioca_vector.py`` steps seeded games through the vector env and the
AEC env and requires the same observations, masks and rewards at every step.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from carousel_env.core import compiled
from carousel_env.core.cards import JOKER
from carousel_env.envkit.vector import DEALT, SKIP
from carousel_env.games.carioca import distance as distance_module
from carousel_env.games.carioca.distance import (
    CONTRACT_ESCALERAS,
    CONTRACT_TRIOS,
    TRIO,
    card_at,
    card_rank,
    distance,
)
from carousel_env.games.carioca.engine import Phase
from carousel_env.games.carioca.env import CariocaAction
from carousel_env.games.carioca.observation import (
    MAX_HAND,
    MELD_FEATURES,
    MELD_SIZE,
    MELDS_PER_SEAT,
    SCORE_SCALE,
    STAGES,
    VALUE_SCALE,
    layout,
)
from carousel_env.games.carioca.observation import (
    SCALARS as SCALAR_NAMES,
)
from carousel_env.games.carioca.rules import (
    CARD_KINDS,
    DECK_SIZE,
    ESCALERA_SIZE,
    HIGH_ACE,
    LOW_ACE,
    NUM_JOKERS,
    PILE_DRAW_LIMIT,
    POINTS,
    TRIO_SIZE,
)

compiled.name_entry_points(
    __name__,
    {"step_games": ("Carioca's vector turns", 20), "encode_rows": ("Carioca's vector observations", 10)},
)
compiled.drop_stale_cache(distance_module.SOURCES[0].parent / "__pycache__", distance_module.SOURCES)

PHASES = tuple(Phase)
DRAW, PLAY, ROUND_OVER, GAME_OVER = (PHASES.index(p) for p in Phase)
DRAW_STOCK, TAKE_DISCARD = int(CariocaAction.DRAW_STOCK), int(CariocaAction.TAKE_DISCARD)
FIRST_DISCARD, FIRST_LAY_OFF = int(CariocaAction.FIRST_DISCARD), int(CariocaAction.FIRST_LAY_OFF)
FIRST_GO_DOWN = int(CariocaAction.FIRST_GO_DOWN)
NO_MOVE = -3  # ``pending``: nothing for the engine to make
CARD_POINTS = np.array(POINTS, np.int64)


class CariocaArrays(NamedTuple):
    """``N`` games of Carioca, one row each (what :class:`~carousel_env.games.carioca.engine.CariocaState`
    holds, hands and card lists as counts over the 53 card kinds), and each row's decision.
    A meld slot ``(seat, m)`` holds its kind, a trio's rank or an escalera's suit (``key``),
    an escalera's cells ``low..high``, its jokers' cells as bits (``joker_cells``) and the
    cards it is made of (``meld_cards``)."""

    hands: np.ndarray  # (N, P, 53)
    stock: np.ndarray  # (N, 108) the top is stock[stock_len - 1]
    stock_len: np.ndarray  # (N,)
    pile: np.ndarray  # (N, 108) bottom first
    pile_len: np.ndarray  # (N,)
    melds: np.ndarray  # (N, P) melds laid
    kind: np.ndarray  # (N, P, 3)
    key: np.ndarray  # (N, P, 3)
    low: np.ndarray  # (N, P, 3)
    high: np.ndarray  # (N, P, 3)
    length: np.ndarray  # (N, P, 3)
    jokers: np.ndarray  # (N, P, 3)
    joker_cells: np.ndarray  # (N, P, 3)
    meld_cards: np.ndarray  # (N, P, 3, 53)
    down: np.ndarray  # (N, P)
    went_down: np.ndarray  # (N,) the player to act went down this turn
    reshuffled: np.ndarray  # (N,)
    phase: np.ndarray  # (N,) PHASES codes
    current: np.ndarray  # (N,)
    dealer: np.ndarray  # (N,)
    round: np.ndarray  # (N,) 0..5
    scores: np.ndarray  # (N, P)
    taken: np.ndarray  # (N, P, 53)
    thrown: np.ndarray  # (N, P, 53)
    mask: np.ndarray  # (N, A) int8: the acting seat's mask (go-down slots: set in Python)
    can_go_down: np.ndarray  # (N,) 0/1
    distance: np.ndarray  # (N,) the acting seat's distance to the contract
    pending: np.ndarray  # (N,) a move for the engine, or NO_MOVE
    auto: np.ndarray  # (N,) moves the kernel took alone in this call

    @classmethod
    def empty(cls, n: int, players: int, num_actions: int) -> CariocaArrays:
        def ints(*shape: int) -> np.ndarray:
            return np.zeros(shape, np.int64)

        s = MELDS_PER_SEAT
        return cls(
            hands=ints(n, players, CARD_KINDS), stock=ints(n, DECK_SIZE), stock_len=ints(n), pile=ints(n, DECK_SIZE),
            pile_len=ints(n), melds=ints(n, players), kind=ints(n, players, s), key=ints(n, players, s),
            low=ints(n, players, s), high=ints(n, players, s), length=ints(n, players, s), jokers=ints(n, players, s),
            joker_cells=ints(n, players, s), meld_cards=ints(n, players, s, CARD_KINDS), down=ints(n, players),
            went_down=ints(n), reshuffled=ints(n), phase=np.full(n, GAME_OVER, np.int64), current=ints(n),
            dealer=ints(n), round=ints(n), scores=ints(n, players), taken=ints(n, players, CARD_KINDS),
            thrown=ints(n, players, CARD_KINDS), mask=np.zeros((n, num_actions), np.int8), can_go_down=ints(n),
            distance=ints(n), pending=np.full(n, NO_MOVE, np.int64), auto=ints(n),
        )  # fmt: skip


# ---------------------------------------------------------------- lay-offs


@njit(cache=True)
def _lays_off(a, g, seat, m, end, card):
    """Whether ``card`` goes on meld ``m`` of ``seat`` at ``end`` (as melds.laid_off)."""
    kind = a.kind[g, seat, m]
    if kind == TRIO:
        return end == 0 and (card == JOKER or card_rank(card) - 1 == a.key[g, seat, m])
    suit = a.key[g, seat, m]
    if end == 0:
        outer, edge = a.low[g, seat, m] - 1, a.low[g, seat, m]
        if outer < LOW_ACE:
            return False
    else:
        outer, edge = a.high[g, seat, m] + 1, a.high[g, seat, m]
        if outer > HIGH_ACE:
            return False
    if card == JOKER or card == card_at(suit, outer):
        return True
    return (a.joker_cells[g, seat, m] >> edge) & 1 == 1 and card == card_at(suit, edge)


@njit(cache=True)
def _lay_off(a, g, seat, m, end, card):
    """Lay ``card`` on meld ``m`` of ``seat`` at ``end`` (legal: checked by the mask)."""
    a.meld_cards[g, seat, m, card] += 1
    a.length[g, seat, m] += 1
    if card == JOKER:
        a.jokers[g, seat, m] += 1
    if a.kind[g, seat, m] == TRIO:
        return
    suit = a.key[g, seat, m]
    if end == 0:
        edge = a.low[g, seat, m]
        outer = edge - 1
        a.low[g, seat, m] = outer
    else:
        edge = a.high[g, seat, m]
        outer = edge + 1
        a.high[g, seat, m] = outer
    if card == JOKER:
        a.joker_cells[g, seat, m] |= 1 << outer
    elif card != card_at(suit, outer):  # tucked in beside the end joker: the joker moves out
        a.joker_cells[g, seat, m] ^= (1 << edge) | (1 << outer)


# ---------------------------------------------------------------- moves and decisions


@njit(cache=True, inline="always")
def _hand_size(a, g, seat):
    total = 0
    for c in range(CARD_KINDS):
        total += a.hands[g, seat, c]
    return total


@njit(cache=True)
def _pile_draws(a, g):
    """The cards taken from the pile this round, by every player (as ``CariocaState.pile_draws``)."""
    total = 0
    for seat in range(a.taken.shape[1]):
        for c in range(CARD_KINDS):
            total += a.taken[g, seat, c]
    return total


@njit(cache=True)
def _for_engine(a, g, action):
    """Whether the engine makes ``action``: going down, a discard of the last card or at the
    pile draw limit (the round ends) or with the stock empty (the reshuffle, or the round's
    end)."""
    if action >= FIRST_GO_DOWN:
        return True
    if FIRST_DISCARD <= action < FIRST_LAY_OFF:
        return _hand_size(a, g, a.current[g]) == 1 or a.stock_len[g] == 0 or _pile_draws(a, g) >= PILE_DRAW_LIMIT
    return False


@njit(cache=True)
def _apply(a, g, action, players):
    """Make a move the kernel makes (as ``engine.apply``)."""
    seat = a.current[g]
    if action == DRAW_STOCK:
        a.stock_len[g] -= 1
        a.hands[g, seat, a.stock[g, a.stock_len[g]]] += 1
        a.phase[g] = PLAY
    elif action == TAKE_DISCARD:
        a.pile_len[g] -= 1
        card = a.pile[g, a.pile_len[g]]
        a.hands[g, seat, card] += 1
        a.taken[g, seat, card] += 1
        a.phase[g] = PLAY
    elif action < FIRST_LAY_OFF:
        card = action - FIRST_DISCARD
        a.hands[g, seat, card] -= 1
        a.pile[g, a.pile_len[g]] = card
        a.pile_len[g] += 1
        a.thrown[g, seat, card] += 1
        a.went_down[g] = 0
        a.current[g] = (seat + 1) % players
        a.phase[g] = DRAW
    else:
        target, card = divmod(action - FIRST_LAY_OFF, CARD_KINDS)
        slot, end = divmod(target, 2)
        relative, m = divmod(slot, MELDS_PER_SEAT)
        _lay_off(a, g, (seat + relative) % players, m, end, card)
        a.hands[g, seat, card] -= 1


@njit(cache=True)
def _decide(a, g, players):
    """Fill row ``g``'s mask (all but the go-down slots), ``can_go_down`` and ``distance``;
    returns the number of legal actions, counting the go-down slots as one."""
    for i in range(a.mask.shape[1]):
        a.mask[g, i] = 0
    a.can_go_down[g] = 0
    seat = a.current[g]
    hand = a.hands[g, seat]
    r = a.round[g]
    a.distance[g] = distance(hand, CONTRACT_TRIOS[r], CONTRACT_ESCALERAS[r])
    if a.phase[g] == DRAW:
        a.mask[g, DRAW_STOCK] = 1
        a.mask[g, TAKE_DISCARD] = 1
        return 2
    if a.phase[g] != PLAY:
        return 0
    count = 0
    for c in range(CARD_KINDS):
        if hand[c] > 0:
            a.mask[g, FIRST_DISCARD + c] = 1
            count += 1
    if a.went_down[g]:
        return count
    size = _hand_size(a, g, seat)
    if not a.down[g, seat]:
        cells = CONTRACT_TRIOS[r] * TRIO_SIZE + CONTRACT_ESCALERAS[r] * ESCALERA_SIZE
        if a.distance[g] == 0 and size > cells:
            a.can_go_down[g] = 1
            count += 1
        return count
    if size < 2:
        return count
    for other in range(players):
        relative = (other - seat) % players
        for m in range(a.melds[g, other]):
            for end in range(2):
                base = FIRST_LAY_OFF + ((relative * MELDS_PER_SEAT + m) * 2 + end) * CARD_KINDS
                for c in range(CARD_KINDS):
                    if hand[c] > 0 and _lays_off(a, g, other, m, end, c):
                        a.mask[g, base + c] = 1
                        count += 1
    return count


@njit(cache=True)
def step_games(a, actions, players):
    """For every row but the ``SKIP`` ones: make ``actions[g]`` (none when ``DEALT``), then
    take every decision with one legal action, until a real decision. A move the engine makes
    is left in ``pending[g]`` instead (``auto[g]`` counts it when the kernel chose it).
    Every kernel keeps this loop over its own functions: numba caches no compiled function
    that takes others as arguments or closes over them (numba issue 2065)."""
    for g in range(actions.shape[0]):
        action = actions[g]
        if action == SKIP:
            continue
        a.auto[g] = 0
        a.pending[g] = NO_MOVE
        if action != DEALT:
            if _for_engine(a, g, action):
                a.pending[g] = action
                continue
            _apply(a, g, action, players)
        while True:
            legal = _decide(a, g, players)
            if legal != 1:
                break
            only = 0
            while not a.mask[g, only]:
                only += 1
            a.auto[g] += 1
            if _for_engine(a, g, only):
                a.pending[g] = only
                break
            _apply(a, g, only, players)


# ---------------------------------------------------------------- observations


_LAYOUT = layout(1)  # the offsets do not depend on the number of slots
_AT = {name: start for name, (start, _) in _LAYOUT.offsets.items()}
HAND, TOP, PILE, TABLE = _AT["hand"], _AT["top"], _AT["pile"], _AT["table"]
TAKEN, THROWN = _AT["taken_0"], _AT["thrown_0"]  # relative seat k at + k * 53
ROUND_AT, STAGE_AT, SEATS, SCALARS, MELDS = _AT["round"], _AT["stage"], _AT["seats"], _AT["scalars"], _AT["melds"]
NEEDED, TOP_HELPS, TOP_FITS = _AT["needed"], SCALAR_NAMES.index("top_helps"), SCALAR_NAMES.index("top_fits")
GLOBAL_SIZE, SLOT_SIZE = _LAYOUT.global_size, _LAYOUT.slot_size
_SLOT = {name: start for name, (start, _) in _LAYOUT.slot_offsets.items()}
S_VALID, S_JOKERS, S_KEPT, S_LAID = _SLOT["valid"], _SLOT["jokers"], _SLOT["kept_value"], _SLOT["laid"]
STAGE_DRAW, STAGE_PLAY, STAGE_WENT_DOWN = (STAGES.index(s) for s in ("draw", "play", "went_down"))
RANK_AT = len(MELD_FEATURES)  # a trio's rank one-hot, then an escalera's suit one-hot
assert _AT["thrown_0"] - _AT["taken_0"] == len(range(5)) * CARD_KINDS


@njit(cache=True, inline="always")
def _count(v, at, card, n):
    """``n`` copies of ``card`` into the card channel at ``at`` (as observation._cards)."""
    step = np.float32(1.0 / NUM_JOKERS) if card == JOKER else np.float32(0.5)
    for _ in range(n):
        v[at + card] += step


@njit(cache=True)
def encode_rows(out, a, players, slots):
    """Row ``g``'s acting seat's observation into ``out[g]`` (as ``observation.encode`` of a
    round under way); ``slots``: (count, jokers, kept value, laid cards) per row and go-down
    slot, from the engine's solver."""
    counts, slot_jokers, slot_kept, slot_laid = slots
    for g in range(out.shape[0]):
        v = out[g]
        v[:] = 0.0
        phase = a.phase[g]
        if phase in (ROUND_OVER, GAME_OVER):
            continue  # a finished row's view comes from the engine (the vector env's final observations)
        seat = a.current[g]
        value = 0
        for c in range(CARD_KINDS):
            _count(v, HAND, c, a.hands[g, seat, c])
            value += CARD_POINTS[c] * a.hands[g, seat, c]
        if a.pile_len[g] > 0:
            v[TOP + a.pile[g, a.pile_len[g] - 1]] = 1.0
        for i in range(a.pile_len[g] - 1):
            _count(v, PILE, a.pile[g, i], 1)
        for other in range(players):
            k = (other - seat) % players
            for c in range(CARD_KINDS):
                _count(v, TAKEN + k * CARD_KINDS, c, a.taken[g, other, c])
                _count(v, THROWN + k * CARD_KINDS, c, a.thrown[g, other, c])
            for m in range(a.melds[g, other]):
                for c in range(CARD_KINDS):
                    _count(v, TABLE, c, a.meld_cards[g, other, m, c])
                base = MELDS + (k * MELDS_PER_SEAT + m) * MELD_SIZE
                trio = a.kind[g, other, m] == TRIO
                v[base] = 1.0
                v[base + 1] = 1.0 if trio else 0.0
                v[base + 2] = 0.0 if trio else 1.0
                v[base + 3] = 0.0 if trio else a.low[g, other, m] / HIGH_ACE
                v[base + 4] = 0.0 if trio else a.high[g, other, m] / HIGH_ACE
                v[base + 5] = a.length[g, other, m] / HIGH_ACE
                cells = a.joker_cells[g, other, m]
                v[base + 6] = 1.0 if not trio and (cells >> a.low[g, other, m]) & 1 else 0.0
                v[base + 7] = 1.0 if not trio and (cells >> a.high[g, other, m]) & 1 else 0.0
                v[base + 8] = a.jokers[g, other, m] / NUM_JOKERS
                if trio:
                    v[base + RANK_AT + a.key[g, other, m]] = 1.0
                else:
                    v[base + RANK_AT + 13 + a.key[g, other, m]] = 1.0
            size = 0
            for c in range(CARD_KINDS):
                size += a.hands[g, other, c]
            at = SEATS + k * 6
            v[at] = 1.0
            v[at + 1] = 1.0 if other == seat else 0.0
            v[at + 2] = 1.0 if a.dealer[g] == other else 0.0
            v[at + 3] = 1.0 if a.down[g, other] else 0.0
            v[at + 4] = size / MAX_HAND
            v[at + 5] = min(a.scores[g, other] / SCORE_SCALE, 1.0)
        r = a.round[g]
        v[ROUND_AT + r] = 1.0
        if phase == DRAW:
            v[STAGE_AT + STAGE_DRAW] = 1.0
        elif a.went_down[g]:
            v[STAGE_AT + STAGE_WENT_DOWN] = 1.0
        else:
            v[STAGE_AT + STAGE_PLAY] = 1.0
        cells = CONTRACT_TRIOS[r] * TRIO_SIZE + CONTRACT_ESCALERAS[r] * ESCALERA_SIZE
        lays = 0
        for i in range(FIRST_LAY_OFF, FIRST_GO_DOWN):
            if a.mask[g, i]:
                lays = 1
                break
        v[SCALARS] = a.stock_len[g] / DECK_SIZE
        v[SCALARS + 1] = 1.0 if a.reshuffled[g] else 0.0
        v[SCALARS + 2] = min(a.distance[g] / cells, 1.0)
        v[SCALARS + 3] = 1.0 if counts[g] > 0 else 0.0
        v[SCALARS + 4] = lays
        v[SCALARS + 5] = min(value / VALUE_SCALE, 1.0)
        if a.down[g, seat] and phase == DRAW and a.pile_len[g] > 0:  # the top laid off at once (observation.encode)
            top = a.pile[g, a.pile_len[g] - 1]
            for other in range(players):
                for m in range(a.melds[g, other]):
                    for end in range(2):
                        if _lays_off(a, g, other, m, end, top):
                            v[SCALARS + TOP_FITS] = 1.0
        if not a.down[g, seat]:  # what a draw or a discard does to the distance (observation.encode)
            hand = a.hands[g, seat].copy()
            trios, escaleras = CONTRACT_TRIOS[r], CONTRACT_ESCALERAS[r]
            if phase == DRAW and a.pile_len[g] > 0:
                top = a.pile[g, a.pile_len[g] - 1]
                hand[top] += 1
                v[SCALARS + TOP_HELPS] = 1.0 if distance(hand, trios, escaleras) < a.distance[g] else 0.0
            elif phase == PLAY:
                for c in range(CARD_KINDS):
                    if hand[c] > 0:
                        hand[c] -= 1
                        v[NEEDED + c] = 1.0 if distance(hand, trios, escaleras) > a.distance[g] else 0.0
                        hand[c] += 1
        for s in range(counts[g]):
            base = GLOBAL_SIZE + s * SLOT_SIZE
            v[base + S_VALID] = 1.0
            v[base + S_JOKERS] = slot_jokers[g, s] / 3.0
            v[base + S_KEPT] = min(slot_kept[g, s] / VALUE_SCALE, 1.0)
            for c in range(CARD_KINDS):
                _count(v, base + S_LAID, c, slot_laid[g, s, c])
        for i in range(v.shape[0]):
            v[i] = min(v[i], np.float32(1.0))
