"""Conquian's compiled turns: forcing, passes, turn-ups, takes, discards, the masks and the
observations, over arrays (:class:`ConquianArrays`), for the vector env
(:mod:`carousel_env.games.conquian.vector`).

:mod:`carousel_env.games.conquian.engine` is the reference. A card is a bit of an int64
(its place among the 40, ``rules.index_of``); a player's melds are masks; the ways to meld a
card are :mod:`carousel_env.games.conquian.kernel_melds`'s. The moves that end a hand (a take
that melds 11, a turn-up from an empty stock) are left in ``pending`` for the engine, which
scores the hand; so is the deal.
``tests/games/conquian/test_conquian_vector.py`` (and the shared vector test) step seeded games
through both envs and require the same observations, masks and rewards at every step.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from carousel_env.core import compiled
from carousel_env.envkit.vector import DEALT, SKIP
from carousel_env.games.conquian.decision import ConquianAction
from carousel_env.games.conquian.kernel_melds import (
    CAPACITY,
    MAX_MELDS,
    MODES,
    POSITIONS,
    all_melds,
    arrangements,
    growing,
    popcount,
)
from carousel_env.games.conquian.melds import NEAR
from carousel_env.games.conquian.observation import PARTNERS_MAX, POOL_SCALE, STOCK_SCALE
from carousel_env.games.conquian.observation import PHASES as OBSERVED_PHASES
from carousel_env.games.conquian.rules import HAND_SIZE, NUM_CARDS, WINNING_MELDED
from carousel_env.games.conquian.state import Phase

compiled.name_entry_points(
    __name__,
    {"step_games": ("Conquian's vector turns", 15), "encode_rows": ("Conquian's vector observations", 5)},
)
PHASES = tuple(Phase)
FACED, TURNED, FORCE, FORCED, DISCARD, HAND_OVER, GAME_OVER = (PHASES.index(p) for p in Phase)
OBSERVED = np.array([PHASES.index(p) for p in OBSERVED_PHASES], np.int64)
PASS, FORCE_ACTION = int(ConquianAction.PASS), int(ConquianAction.FORCE)
FIRST_DISCARD, FIRST_OFFER = int(ConquianAction.FIRST_DISCARD), int(ConquianAction.FIRST_OFFER)
NO_MOVE = -3  # ``pending``: nothing for the engine to make
NO_CARD = -1
STOCK_SIZE = NUM_CARDS - 2 * HAND_SIZE


class ConquianArrays(NamedTuple):
    """``N`` games of Conquian, one row each: what :class:`~carousel_env.games.conquian.state.ConquianState`
    holds (hands and melds as masks of the 40 cards, the stock and the dead pile in order),
    each row's decision (mask and offers) and what it leaves to the engine (``pending``)."""

    hands: np.ndarray  # (N, 2) int64 masks
    melds: np.ndarray  # (N, 2, MAX_MELDS) int64 masks, in the engine's order
    num_melds: np.ndarray  # (N, 2)
    stock: np.ndarray  # (N, STOCK_SIZE) card places, the top last
    stock_n: np.ndarray  # (N,)
    dead: np.ndarray  # (N, NUM_CARDS) card places, in order
    dead_n: np.ndarray  # (N,)
    declined: np.ndarray  # (N, 2, NUM_CARDS) card places each seat passed, in order
    declined_n: np.ndarray  # (N, 2)
    faced: np.ndarray  # (N,) a card place or NO_CARD
    faced_by: np.ndarray  # (N,)
    upcard: np.ndarray  # (N,) bool
    left_card: np.ndarray  # (N,) bool
    phase: np.ndarray  # (N,) index in PHASES
    current: np.ndarray  # (N,)
    dealer: np.ndarray  # (N,)
    totals: np.ndarray  # (N, 2)
    pool: np.ndarray  # (N,)
    pending: np.ndarray  # (N,) an action for the engine, or NO_MOVE
    auto: np.ndarray  # (N,) actions taken alone in the last step
    mask: np.ndarray  # (N, 42 + K) int8
    offers_n: np.ndarray  # (N,)
    offer_melds: np.ndarray  # (N, K, MAX_MELDS) masks
    offer_num: np.ndarray  # (N, K) melds in the offer
    offer_take: np.ndarray  # (N, K) bool
    offer_laid: np.ndarray  # (N, K) masks of the hand's cards laid

    @classmethod
    def empty(cls, n: int, num_actions: int, k: int) -> ConquianArrays:
        z = np.zeros
        return cls(
            z((n, 2), np.int64),
            z((n, 2, MAX_MELDS), np.int64),
            z((n, 2), np.int64),
            z((n, STOCK_SIZE), np.int64),
            z(n, np.int64),
            z((n, NUM_CARDS), np.int64),
            z(n, np.int64),
            z((n, 2, NUM_CARDS), np.int64),
            z((n, 2), np.int64),
            np.full(n, NO_CARD, np.int64),
            z(n, np.int64),
            z(n, np.bool_),
            z(n, np.bool_),
            np.full(n, GAME_OVER, np.int64),
            z(n, np.int64),
            z(n, np.int64),
            z((n, 2), np.int64),
            z(n, np.int64),
            np.full(n, NO_MOVE, np.int64),
            z(n, np.int64),
            z((n, num_actions), np.int8),
            z(n, np.int64),
            z((n, k, MAX_MELDS), np.int64),
            z((n, k), np.int64),
            z((n, k), np.bool_),
            z((n, k), np.int64),
        )


class Params(NamedTuple):
    """A vector env's rules as the kernel reads them, and its melds by their lowest card."""

    mode: int
    run_limit: int
    hand_melds_on_turn_up: bool
    target: int
    meld_masks: np.ndarray  # every meld of the 40 cards, grouped by lowest card
    first_meld: np.ndarray  # (41,) where each lowest card's melds start in meld_masks


def params_of(rules) -> Params:
    masks, first = all_melds(rules.run_limit)
    return Params(
        MODES.index(rules.rearrange), rules.run_limit, rules.hand_melds_on_turn_up, rules.target, masks, first
    )


# ---------------------------------------------------------------- a decision


@njit(cache=True)
def _offer_rows(a, g, count, take, buf, buf_n, buf_laid, k):
    """Append ``count`` ways (sorted) from the buffers to row ``g``'s offers, up to ``k``."""
    for i in range(count):
        o = a.offers_n[g]
        if o >= k:
            return
        for m in range(MAX_MELDS):
            a.offer_melds[g, o, m] = buf[i, m]
        a.offer_num[g, o] = buf_n[i]
        a.offer_take[g, o] = take
        a.offer_laid[g, o] = buf_laid[i]
        a.offers_n[g] = o + 1


@njit(cache=True)
def decide(a, g, mode, run_limit, melds_on_turn_up, meld_masks, first_meld, buf, buf_n, buf_laid):
    """Row ``g``'s mask and offers (``decision.decision``); returns the number of legal actions."""
    k = a.offer_melds.shape[1]
    a.mask[g, :] = 0
    a.offers_n[g] = 0
    phase, s = a.phase[g], a.current[g]
    if phase == FORCE:
        a.mask[g, PASS] = 1
        a.mask[g, FORCE_ACTION] = 1
    elif phase == DISCARD:
        for c in range(NUM_CARDS):
            if (a.hands[g, s] >> c) & 1:
                a.mask[g, FIRST_DISCARD + c] = 1
    elif phase in (FACED, TURNED, FORCED):
        if phase != FORCED:
            a.mask[g, PASS] = 1
        old, old_n, hand = a.melds[g, s], a.num_melds[g, s], a.hands[g, s]
        found = arrangements(
            old, old_n, hand, a.faced[g], phase == FORCED, mode, run_limit, meld_masks, first_meld, buf, buf_n, buf_laid
        )
        _offer_rows(a, g, found, True, buf, buf_n, buf_laid, k)
        if phase == TURNED and melds_on_turn_up and found < k:
            found = arrangements(
                old, old_n, hand, -1, False, mode, run_limit, meld_masks, first_meld, buf, buf_n, buf_laid
            )
            _offer_rows(a, g, found, False, buf, buf_n, buf_laid, k)
        for o in range(a.offers_n[g]):
            a.mask[g, FIRST_OFFER + o] = 1
    legal = 0
    for i in range(a.mask.shape[1]):
        legal += a.mask[g, i]
    return legal


# ---------------------------------------------------------------- the moves


@njit(cache=True)
def _forcible(melds, count, card, mode, run_limit, meld_masks, first_meld):
    if count == 0:
        return False
    none = np.zeros((0, MAX_MELDS), np.int64)
    n = np.zeros(0, np.int64)
    return arrangements(melds, count, np.int64(0), card, True, mode, run_limit, meld_masks, first_meld, none, n, n) > 0


@njit(cache=True)
def _declines_end(a, g, seat):
    """Whether ``seat`` passing the faced card (not forced) ends the hand: a turn-up from an empty stock."""
    if a.upcard[g] and seat != a.dealer[g]:
        return False
    return a.stock_n[g] == 0


@njit(cache=True)
def ends_hand(a, g, action, mode, run_limit, meld_masks, first_meld):
    """Whether ``action`` at row ``g``'s decision ends the hand (left to the engine)."""
    phase, s = a.phase[g], a.current[g]
    if action >= FIRST_OFFER:
        o = action - FIRST_OFFER
        if a.offer_take[g, o]:
            return not (a.hands[g, s] & ~a.offer_laid[g, o])
        return False  # a turned card left (after laying from the hand) ends nothing
    if action == PASS:
        if phase == FORCE:
            return not a.left_card[g] and _declines_end(a, g, 1 - s)
        if phase == FACED:
            if _forcible(a.melds[g, s], a.num_melds[g, s], a.faced[g], mode, run_limit, meld_masks, first_meld):
                return False
            return _declines_end(a, g, s)
    return False


@njit(cache=True)
def _turn_up(a, g, seat):
    n = a.stock_n[g] - 1
    a.current[g] = seat
    a.phase[g] = TURNED
    a.faced[g] = a.stock[g, n]
    a.stock_n[g] = n
    a.faced_by[g] = seat
    a.upcard[g] = False
    a.left_card[g] = False


@njit(cache=True)
def _after_decline(a, g, seat):
    if a.upcard[g]:
        if seat != a.dealer[g]:
            a.current[g] = a.dealer[g]
            a.phase[g] = FACED
            return
        seat = 1 - a.dealer[g]
    a.dead[g, a.dead_n[g]] = a.faced[g]
    a.dead_n[g] += 1
    a.faced[g] = NO_CARD
    _turn_up(a, g, seat)


@njit(cache=True)
def _after_leave(a, g, seat):
    a.current[g] = 1 - seat
    a.phase[g] = FACED
    a.left_card[g] = False


@njit(cache=True)
def _lay(a, g, s, o):
    """Player ``s``'s melds become offer ``o``'s."""
    for m in range(MAX_MELDS):
        a.melds[g, s, m] = a.offer_melds[g, o, m]
    a.num_melds[g, s] = a.offer_num[g, o]
    a.hands[g, s] &= ~a.offer_laid[g, o]


@njit(cache=True)
def make(a, g, action, mode, run_limit, meld_masks, first_meld):
    """Row ``g`` makes ``action`` (one that does not end the hand)."""
    phase, s = a.phase[g], a.current[g]
    if phase == DISCARD:
        c = action - FIRST_DISCARD
        a.hands[g, s] &= ~(np.int64(1) << c)
        a.faced[g] = c
        a.faced_by[g] = s
        a.current[g] = 1 - s
        a.phase[g] = FACED
        return
    if phase == FORCE:
        if action == FORCE_ACTION:
            a.phase[g] = FORCED
            a.current[g] = 1 - s
        elif a.left_card[g]:
            _after_leave(a, g, 1 - s)
        else:
            a.current[g] = 1 - s
            _after_decline(a, g, 1 - s)
        return
    if action >= FIRST_OFFER:
        o = action - FIRST_OFFER
        _lay(a, g, s, o)
        if a.offer_take[g, o]:
            a.faced[g] = NO_CARD
            a.upcard[g] = False
            a.phase[g] = DISCARD
            return
    # a pass (a turned card left, maybe after laying from the hand)
    a.declined[g, s, a.declined_n[g, s]] = a.faced[g]
    a.declined_n[g, s] += 1
    if _forcible(a.melds[g, s], a.num_melds[g, s], a.faced[g], mode, run_limit, meld_masks, first_meld):
        a.left_card[g] = phase == TURNED
        a.current[g] = 1 - s
        a.phase[g] = FORCE
    elif phase == TURNED:
        _after_leave(a, g, s)
    else:
        _after_decline(a, g, s)


@njit(cache=True)
def step_games(a, actions, mode, run_limit, melds_on_turn_up, meld_masks, first_meld):
    """Each row with an action makes it (``DEALT``: a row the engine just wrote), then takes
    every decision with a single legal action, until a real decision or a move for the engine."""
    buf = np.zeros((CAPACITY, MAX_MELDS), np.int64)
    buf_n = np.zeros(CAPACITY, np.int64)
    buf_laid = np.zeros(CAPACITY, np.int64)
    for g in range(actions.shape[0]):
        action = actions[g]
        if action == SKIP:
            continue
        a.auto[g] = 0
        if action != DEALT:
            if ends_hand(a, g, action, mode, run_limit, meld_masks, first_meld):
                a.pending[g] = action
                continue
            make(a, g, action, mode, run_limit, meld_masks, first_meld)
        while True:
            legal = decide(a, g, mode, run_limit, melds_on_turn_up, meld_masks, first_meld, buf, buf_n, buf_laid)
            if legal != 1:
                break
            only = 0
            while not a.mask[g, only]:
                only += 1
            a.auto[g] += 1
            if ends_hand(a, g, only, mode, run_limit, meld_masks, first_meld):
                a.pending[g] = only
                break
            make(a, g, only, mode, run_limit, meld_masks, first_meld)


# ---------------------------------------------------------------- observations


@njit(cache=True)
def _bits(out, r, start, mask):
    for c in range(NUM_CARDS):
        if (mask >> c) & 1:
            out[r, start + c] = 1.0


@njit(cache=True)
def _table(melds, count):
    t = np.int64(0)
    for i in range(count):
        t |= melds[i]
    return t


@njit(cache=True)
def meld_partners(hand):
    """``melds.meld_partners`` of a hand mask: its cards' other suits of the rank, and the
    cards of their suit within two places."""
    out = np.int64(0)
    for c in range(NUM_CARDS):
        if not (hand >> c) & 1:
            continue
        place, suit = c // 4, c % 4
        for s in range(4):
            if s != suit:
                out |= np.int64(1) << (place * 4 + s)
        for step in (-NEAR, -1, 1, NEAR):
            if 0 <= place + step < POSITIONS:
                out |= np.int64(1) << ((place + step) * 4 + suit)
    return out


@njit(cache=True)
def encode_rows(obs, a, run_limit, target, at, slot_at, global_size, slot_size):
    """Each waiting row's acting seat's observation (``observation.encode``); ``at``: the
    global channels' starts (hand, own_melds, opponent_melds, faced, dead, own_passed,
    opponent_passed, unseen, extends_own, extends_opponent, partners, loose, live_partners,
    scalars),
    ``slot_at``: the slot channels' (valid, take, melded_after, wins, laid, extends_after)."""
    for g in range(obs.shape[0]):
        obs[g, :] = 0.0
        phase = a.phase[g]
        if phase in (HAND_OVER, GAME_OVER):
            continue
        s = a.current[g]
        o = 1 - s
        own = _table(a.melds[g, s], a.num_melds[g, s])
        other = _table(a.melds[g, o], a.num_melds[g, o])
        _bits(obs, g, at[0], a.hands[g, s])
        _bits(obs, g, at[1], own)
        _bits(obs, g, at[2], other)
        faced = np.int64(0)
        if a.faced[g] >= 0:
            faced = np.int64(1) << a.faced[g]
        _bits(obs, g, at[3], faced)
        dead = np.int64(0)
        for i in range(a.dead_n[g]):
            dead |= np.int64(1) << a.dead[g, i]
        _bits(obs, g, at[4], dead)
        for seat, start in ((s, at[5]), (o, at[6])):
            for i in range(a.declined_n[g, seat]):
                obs[g, start + a.declined[g, seat, i]] = 1.0
        seen = a.hands[g, s] | own | other | faced | dead
        unseen = ~seen & ((np.int64(1) << NUM_CARDS) - 1)
        _bits(obs, g, at[7], unseen)
        _bits(obs, g, at[8], growing(a.melds[g, s], a.num_melds[g, s], run_limit))
        _bits(obs, g, at[9], growing(a.melds[g, o], a.num_melds[g, o], run_limit))
        partners = meld_partners(a.hands[g, s])
        _bits(obs, g, at[10], partners)
        _bits(obs, g, at[11], a.hands[g, s] & ~partners)
        for c in range(NUM_CARDS):
            if (a.hands[g, s] >> c) & 1:
                obs[g, at[12] + c] = popcount(meld_partners(np.int64(1) << c) & unseen) / PARTNERS_MAX
        x = at[13]
        for i in range(OBSERVED.shape[0]):
            obs[g, x + i] = 1.0 if phase == OBSERVED[i] else 0.0
        x += OBSERVED.shape[0]
        obs[g, x] = a.stock_n[g] / STOCK_SCALE
        obs[g, x + 1] = popcount(own) / WINNING_MELDED
        obs[g, x + 2] = popcount(other) / WINNING_MELDED
        obs[g, x + 3] = popcount(a.hands[g, s]) / HAND_SIZE
        obs[g, x + 4] = popcount(a.hands[g, o]) / HAND_SIZE
        obs[g, x + 5] = 1.0 if a.upcard[g] else 0.0
        obs[g, x + 6] = 1.0 if a.dealer[g] == s else 0.0
        obs[g, x + 7] = 1.0 if faced and a.faced_by[g] == s else 0.0
        obs[g, x + 8] = 1.0 if faced and a.faced_by[g] == o else 0.0
        lead = (a.totals[g, s] - a.totals[g, o]) / (2.0 * target)
        obs[g, x + 9] = min(max(0.5 + lead, 0.0), 1.0)
        obs[g, x + 10] = min(a.pool[g] / POOL_SCALE, 1.0)
        for i in range(a.offers_n[g]):
            base = global_size + i * slot_size
            melded = 0
            for m in range(a.offer_num[g, i]):
                melded += popcount(a.offer_melds[g, i, m])
            obs[g, base + slot_at[0]] = 1.0
            obs[g, base + slot_at[1]] = 1.0 if a.offer_take[g, i] else 0.0
            obs[g, base + slot_at[2]] = min(melded / WINNING_MELDED, 1.0)
            obs[g, base + slot_at[3]] = 1.0 if melded == WINNING_MELDED else 0.0
            _bits(obs, g, base + slot_at[4], a.offer_laid[g, i])
            _bits(obs, g, base + slot_at[5], growing(a.offer_melds[g, i], a.offer_num[g, i], run_limit))
