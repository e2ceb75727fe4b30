"""Kaluki's compiled turns: draws, takes, discards, the offers and the masks, over arrays
(:class:`KalukiArrays`), for the vector env (:mod:`carousel_env.games.kaluki.vector`).

:mod:`carousel_env.games.kaluki.engine` is the reference. A hand is its count of each card (the
joker at 52); the table is the compiled search's meld rows (:mod:`carousel_env.games.kaluki.kernel_table`),
seat by seat. The offers come from the compiled search (:func:`carousel_env.games.kaluki.kernel_solver.lay_down`),
asked as :mod:`~carousel_env.games.kaluki.kernel_solver` asks it, and are made here
(:mod:`carousel_env.games.kaluki.kernel_plays`). What the kernel leaves:

* to the engine (``pending``): an offer that empties the hand, a discard that empties it or
  meets the pile's limit, a draw from an empty stock, the offers the env's Python listed; and
  the deals;
* to the env's Python decision (``python``): a decision whose offers the compiled search does
  not answer, or answers with a layout the solver checks against the engine's order of moves
  and the kernel does not make (:mod:`~carousel_env.games.kaluki.kernel_solver`'s risky
  layouts: exchanges under ``reuse_now``, exchanges by a player who opens now with a card taken
  from the pile in hand, a hand emptied that holds it), and a take of the pile's top into a
  hand of nothing but its copies.

``tests/games/kaluki/test_kaluki_vector.py`` (and the shared vector test) step seeded games
through the vector env and the AEC env and require the same observations, masks and rewards
at every step.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from carousel_env.core import compiled
from carousel_env.core.cards import JOKER, NUM_CARDS
from carousel_env.envkit.vector import DEALT, SKIP
from carousel_env.games.kaluki import kernel_leaves as kl
from carousel_env.games.kaluki import kernel_players as kp
from carousel_env.games.kaluki import kernel_table as kt
from carousel_env.games.kaluki.env import KalukiAction
from carousel_env.games.kaluki.kernel_plays import MAX_NEW, MAX_PLAY_OPS, OP_WIDTH, make_offer, record_offer, take_top
from carousel_env.games.kaluki.kernel_solver import MAX_KINDS, NODE_BUDGET, SET_RELEASES, lay_down, may_lay
from carousel_env.games.kaluki.rules import (
    CARD_KINDS,
    MAX_JOKERS,
    PILE_TAKE_LIMIT,
    DiscardTake,
    KalukiRules,
    RetrievedJoker,
)
from carousel_env.games.kaluki.state import Phase

compiled.name_entry_points(__name__, {"step_games": ("Kaluki's vector turns", 90)})

PHASES = tuple(Phase)
DRAW, PLAY, HAND_OVER, GAME_OVER = (PHASES.index(p) for p in Phase)
TAKES = tuple(DiscardTake)
TAKE_OPENING, TAKE_MELD = TAKES.index(DiscardTake.OPENING), TAKES.index(DiscardTake.MELD)
DRAW_STOCK, TAKE_DISCARD = int(KalukiAction.DRAW_STOCK), int(KalukiAction.TAKE_DISCARD)
FIRST_DISCARD, FIRST_OFFER = int(KalukiAction.FIRST_DISCARD), int(KalukiAction.FIRST_OFFER)
NO_MOVE = -3  # ``pending``: nothing for the engine to make
NO_CARD = -1
MAX_TABLE = 40  # melds on the table: a two-deck pack with its jokers makes at most 36
DECK_MAX = 2 * NUM_CARDS + MAX_JOKERS
LEFT_TO_PYTHON = -1  # a decision the env's Python makes (the module docstring)


class KalukiArrays(NamedTuple):
    """``N`` games of Kaluki, one row each: what :class:`~carousel_env.games.kaluki.state.KalukiState`
    holds but the records of finished hands (hands and known cards as counts of each card, the
    table as meld rows, the stock and the pile in order), each row's decision (mask and offers)
    and what it leaves to the engine (``pending``) or to the env's Python (``python``)."""

    hands: np.ndarray  # (N, P, 53) copies of each card
    hand_n: np.ndarray  # (N, P)
    known: np.ndarray  # (N, P, 53) KalukiState.known, as counts
    table: np.ndarray  # (N, MAX_TABLE, kt.MELD_WIDTH) the melds, seat by seat, in the order laid
    table_n: np.ndarray  # (N,)
    seat_melds: np.ndarray  # (N, P) each seat's melds on the table
    stock: np.ndarray  # (N, DECK_MAX) cards, the top last
    stock_n: np.ndarray  # (N,)
    discards: np.ndarray  # (N, DECK_MAX) cards, the top last
    discards_n: np.ndarray  # (N,)
    opened: np.ndarray  # (N, P) bool
    in_play: np.ndarray  # (N, P) bool
    totals: np.ndarray  # (N, P)
    dealer: np.ndarray  # (N,)
    current: np.ndarray  # (N,)
    phase: np.ndarray  # (N,) index in PHASES
    restocks_used: np.ndarray  # (N,)
    pile_takes: np.ndarray  # (N,)
    taken: np.ndarray  # (N,) a card or NO_CARD
    laid_now: np.ndarray  # (N,) bool
    laid: np.ndarray  # (N, P) bool
    pending: np.ndarray  # (N,) an action for the engine, or NO_MOVE
    python: np.ndarray  # (N,) bool: the row's decision is the env's Python's to make
    python_offers: np.ndarray  # (N,) bool: the offers are the ones the env's Python listed (the engine makes them)
    auto: np.ndarray  # (N,) actions taken alone in the last step
    mask: np.ndarray  # (N, 55 + K) int8
    offers_n: np.ndarray  # (N,)
    offer_laid: np.ndarray  # (N, K, 53) the hand's cards each offer puts on the table
    offer_left: np.ndarray  # (N, K) the hand value it leaves
    offer_open: np.ndarray  # (N, K) its opening value
    offer_jokers: np.ndarray  # (N, K) jokers it lays
    offer_out: np.ndarray  # (N, K) bool: it empties the hand
    offer_melds: np.ndarray  # (N, K, MAX_NEW, kt.MELD_WIDTH) its new melds, as table rows, in the order laid
    offer_melds_n: np.ndarray  # (N, K)
    offer_open_n: np.ndarray  # (N, K) how many of them the opening lays (the first ones; none once opened)
    offer_ops: np.ndarray  # (N, K, MAX_PLAY_OPS, OP_WIDTH) its lay-offs and exchanges, in the engine's order
    offer_ops_n: np.ndarray  # (N, K)
    offer_swap_ops: np.ndarray  # (N, K) how many of them come before its new melds (the pieces that exchange)

    @classmethod
    def empty(cls, n: int, players: int, num_actions: int, k: int) -> KalukiArrays:
        z = np.zeros
        return cls(
            z((n, players, CARD_KINDS), np.int64),
            z((n, players), np.int64),
            z((n, players, CARD_KINDS), np.int64),
            z((n, MAX_TABLE, kt.MELD_WIDTH), np.int64),
            z(n, np.int64),
            z((n, players), np.int64),
            z((n, DECK_MAX), np.int64),
            z(n, np.int64),
            z((n, DECK_MAX), np.int64),
            z(n, np.int64),
            z((n, players), np.bool_),
            z((n, players), np.bool_),
            z((n, players), np.int64),
            z(n, np.int64),
            z(n, np.int64),
            np.full(n, GAME_OVER, np.int64),
            z(n, np.int64),
            z(n, np.int64),
            np.full(n, NO_CARD, np.int64),
            z(n, np.bool_),
            z((n, players), np.bool_),
            np.full(n, NO_MOVE, np.int64),
            z(n, np.bool_),
            z(n, np.bool_),
            z(n, np.int64),
            z((n, num_actions), np.int8),
            z(n, np.int64),
            z((n, k, CARD_KINDS), np.int64),
            z((n, k), np.int64),
            z((n, k), np.int64),
            z((n, k), np.int64),
            z((n, k), np.bool_),
            z((n, k, MAX_NEW, kt.MELD_WIDTH), np.int64),
            z((n, k), np.int64),
            z((n, k), np.int64),
            z((n, k, MAX_PLAY_OPS, OP_WIDTH), np.int64),
            z((n, k), np.int64),
            z((n, k), np.int64),
        )


class Params(NamedTuple):
    """A vector env's rules as the kernel reads them."""

    opening: int
    discard_take: int  # index in TAKES
    open_before_lay_off: bool
    lay_off_after_own_meld: bool
    reuse_now: bool  # retrieved_joker: reuse_now
    go_out_by_discard: bool
    search_rules: tuple  # (ace_low_runs, ace_high_runs, set_joker_release): lay_down's ``rules``
    card_values: np.ndarray  # (53,) each card's hand value
    joker_value: int
    k: int


def params_of(rules: KalukiRules, k: int) -> Params:
    from carousel_env.games.kaluki.kernel_solver import card_values

    search_rules = (rules.ace_low_runs, rules.ace_high_runs, SET_RELEASES.index(rules.set_joker_release))
    return Params(
        rules.opening,
        TAKES.index(rules.discard_take),
        rules.open_before_lay_off,
        rules.lay_off_after_own_meld,
        rules.retrieved_joker is RetrievedJoker.REUSE_NOW,
        rules.go_out_by_discard,
        search_rules,
        card_values(rules),
        rules.joker_value,
        k,
    )


# ---------------------------------------------------------------- moves


@njit(cache=True)
def next_seat(seat: int, in_play) -> int:
    """The next seat to the left still in the game (deal.next_seat)."""
    n = in_play.shape[0]
    for step in range(1, n + 1):
        if in_play[(seat + step) % n]:
            return (seat + step) % n
    return -1


@njit(cache=True)
def _move(a, g: int, action: int, release: int) -> bool:
    """Make ``action`` in row ``g``; False where it is left to the engine (``pending``).
    ``release``: the rules' set_joker_release, as kernel_table numbers it."""
    s = a.current[g]
    if action >= FIRST_OFFER:
        if not a.python_offers[g] and make_offer(a, g, action - FIRST_OFFER, a.phase[g] == DRAW, release):
            return True
        a.pending[g] = action  # it empties the hand, or it is one of the offers the env's Python listed
        return False
    if action == DRAW_STOCK:
        if a.stock_n[g] == 0:  # a restock, or the end of the hand
            a.pending[g] = action
            return False
        a.stock_n[g] -= 1
        card = a.stock[g, a.stock_n[g]]
        a.hands[g, s, card] += 1
        a.hand_n[g, s] += 1
        a.phase[g] = PLAY
        return True  # a card from the stock comes unseen: the known cards stay
    if action == TAKE_DISCARD:  # offered only where the top may be kept (the mask)
        a.known[g, s, take_top(a, g, s)] += 1  # seen going in
        return True
    if a.hand_n[g, s] == 1 or a.pile_takes[g] >= PILE_TAKE_LIMIT:
        a.pending[g] = action  # a discard that ends the hand
        return False
    card = action - FIRST_DISCARD
    a.hands[g, s, card] -= 1
    a.hand_n[g, s] -= 1
    if a.known[g, s, card] > 0:  # a copy of a card seen going in is seen leaving
        a.known[g, s, card] -= 1
    a.discards[g, a.discards_n[g]] = card
    a.discards_n[g] += 1
    a.laid[g, s] = a.laid[g, s] or a.laid_now[g]
    a.laid_now[g] = False
    a.taken[g] = NO_CARD
    a.current[g] = next_seat(s, a.in_play[g])
    a.phase[g] = DRAW
    return True


# ---------------------------------------------------------------- offers


@njit(cache=True)
def _hand_kinds(held):
    """The hand's natural kinds in card order, each card's place among them (-1: none) and counts."""
    n = 0
    for c in range(NUM_CARDS):
        n += held[c] > 0
    kinds = np.empty(n, np.int64)
    counts = np.empty(n, np.int64)
    pos = np.full(NUM_CARDS, -1, np.int64)
    q = 0
    for c in range(NUM_CARDS):
        if held[c] > 0:
            kinds[q], counts[q], pos[c] = c, held[c], q
            q += 1
    return kinds, pos, counts


@njit(cache=True)
def _position(pos, card: int) -> int:
    """A card's position for the search: -1 none, -2 the joker (kernel_solver's ``_Hand.position``)."""
    if card == NO_CARD:
        return -1
    return -2 if card == JOKER else pos[card]


@njit(cache=True)
def _problem(held, cards: int, pos, taken: int, limit: int, card_values, joker_value: int):
    """The search's problem for a hand (kernel_solver's ``_Hand.problem``)."""
    pb = np.zeros(kl.PROBLEM_SIZE, np.int64)
    value = 0
    for c in range(CARD_KINDS):
        value += held[c] * card_values[c]
    pb[kl.HAND_VALUE] = value
    pb[kl.HAND_JOKERS] = held[JOKER]
    pb[kl.HAND_CARDS] = cards
    pb[kl.HAND_NATURALS] = cards - held[JOKER]
    pb[kl.LIMIT] = limit
    pb[kl.WAYS] = limit
    pb[kl.JOKER_VALUE] = joker_value
    pb[kl.TAKEN] = _position(pos, taken)
    pb[kl.TAKEN_COPIES] = held[taken] if pb[kl.TAKEN] >= 0 else 0
    return pb


@njit(cache=True)
def _ask(a, g: int, hand, cards: int, pb, meld_jokers: int, rows, swaps: bool, p_rules, card_values, risky: bool):
    """Ask the compiled search (kernel_solver's ``_solve``) about ``hand`` (its copies of each
    card, then :func:`_hand_kinds`) and record its layouts as the row's offers; the number of
    offers, or LEFT_TO_PYTHON where it does not answer or answers with a layout the solver
    checks with the engine (``risky``: such layouts may be found)."""
    held, kinds, pos, counts = hand
    if not may_lay(held, kinds, pb, p_rules, card_values, rows, meld_jokers):
        return 0
    try:
        readings, best, st, order, table_ops = lay_down(
            counts, kinds, pos, pb, meld_jokers, p_rules, card_values, (rows, held, swaps), NODE_BUDGET
        )
    except Exception:  # kernel_table.SetOverflow (numba catches no narrower class): the solver answers
        return LEFT_TO_PYTHON
    if st[kl.STOP]:
        return LEFT_TO_PYTHON
    found = st[kl.FOUND]
    if risky:
        for i in range(found):
            if best[kl.BEST_RISKY][i]:
                return LEFT_TO_PYTHON
    for i in range(found):
        if not record_offer(a, g, i, readings, best, order, table_ops, cards, pb):
            return LEFT_TO_PYTHON
    a.offers_n[g] = found
    return found


@njit(cache=True)
def _take_offers(a, g: int, s: int, p) -> int:
    """The arrangements that lay the pile's top with the hand (env.take_arrangements)."""
    opening, go_out_by_discard, p_rules, card_values, joker_value, k = p
    held = a.hands[g, s].copy()
    top = a.discards[g, a.discards_n[g] - 1]
    held[top] += 1
    cards = a.hand_n[g, s] + 1
    kinds, pos, counts = _hand_kinds(held)
    if kinds.shape[0] > MAX_KINDS or cards > kl.MAX_ENTRIES:
        return LEFT_TO_PYTHON
    pb = _problem(held, cards, pos, top, k, card_values, joker_value)
    pb[kl.KEEP] = 1 if go_out_by_discard else 0
    pb[kl.MUST_OPEN] = 1
    pb[kl.THRESHOLD] = 0 if a.opened[g, s] else opening
    pb[kl.WITH_MELDS] = 1
    pb[kl.MUST_USE] = _position(pos, top)
    rows = np.zeros((0, kt.MELD_WIDTH), np.int64)
    return _ask(a, g, (held, kinds, pos, counts), cards, pb, held[JOKER], rows, False, p_rules, card_values, False)


@njit(cache=True)
def _may_lay_off(a, g: int, s: int, seat: int, open_before_lay_off: bool, after_own_meld: bool) -> bool:
    """engine.may_lay_off, in the play phase."""
    if a.opened[g, s]:
        return True
    if open_before_lay_off:
        return False
    return not after_own_meld or seat == s


@njit(cache=True)
def _play_offers(a, g: int, s: int, q, p) -> int:
    """The best plays (kernel_solver.compiled_best_play, with solver.play_terms)."""
    open_before_lay_off, after_own_meld, reuse_rule = q
    opening, go_out_by_discard, p_rules, card_values, joker_value, k = p
    opened = a.opened[g, s]
    free = True
    for seat in range(a.opened.shape[1]):
        if a.seat_melds[g, seat] > 0 and not _may_lay_off(a, g, s, seat, open_before_lay_off, after_own_meld):
            free = False
    swaps = opened or not free  # exchanges come after the opening, which a play that opens lays first
    n = a.table_n[g]
    held = a.hands[g, s].copy()
    table_jokers = kt.winnable_jokers(a.table[g], n, held, p_rules[2]) if swaps else 0
    reuse_now = swaps and reuse_rule
    cards = a.hand_n[g, s]
    kinds, pos, counts = _hand_kinds(held)
    if kinds.shape[0] > MAX_KINDS or cards + table_jokers > kl.MAX_ENTRIES:
        return LEFT_TO_PYTHON
    taken = a.taken[g]
    pb = _problem(held, cards, pos, taken, k, card_values, joker_value)
    pb[kl.KEEP] = 1 if go_out_by_discard else 0
    pb[kl.MUST_OPEN] = not opened and not free
    pb[kl.THRESHOLD] = 0 if opened else opening
    pb[kl.WITH_MELDS] = not opened
    pb[kl.MUST_USE] = -1
    pb[kl.REUSE_NOW] = reuse_now
    # The solver checks a release by a player who opens now (solver.play_terms' risky_release);
    # the kernel makes it, its opening chosen as play_moves chooses it (kernel_plays), but where
    # a card taken from the pile is in hand: that order the kernel leaves to the solver's check.
    pb[kl.RISKY_RELEASE] = reuse_now or (not opened and taken != NO_CARD)
    pb[kl.RISKY_EMPTY] = taken != NO_CARD
    pb[kl.OPENS_NOW] = not opened
    rows = a.table[g, :n].copy()
    hand = (held, kinds, pos, counts)
    return _ask(a, g, hand, cards, pb, held[JOKER] + table_jokers, rows, swaps, p_rules, card_values, True)


@njit(cache=True)
def _decide(a, g: int, q, p) -> int:
    """Row ``g``'s mask and offers; the number of legal actions, or LEFT_TO_PYTHON."""
    discard_take = q[0]
    s = a.current[g]
    mask = a.mask[g]
    mask[:] = 0
    a.offers_n[g] = 0
    a.python_offers[g] = False
    if a.phase[g] == DRAW:
        mask[DRAW_STOCK] = 1
        if a.discards_n[g] == 0:
            return 1
        required = discard_take == TAKE_MELD or (discard_take == TAKE_OPENING and not a.opened[g, s])
        if not required:
            top = a.discards[g, a.discards_n[g] - 1]
            if a.hands[g, s, top] == a.hand_n[g, s]:  # the hand would hold only the top's copies
                return LEFT_TO_PYTHON
            mask[TAKE_DISCARD] = 1
            return 2
        found = _take_offers(a, g, s, p)
        if found == LEFT_TO_PYTHON:
            return LEFT_TO_PYTHON
        mask[FIRST_OFFER : FIRST_OFFER + found] = 1
        return 1 + found
    legal = 0
    for c in range(CARD_KINDS):
        if a.hands[g, s, c] > 0 and c != a.taken[g]:
            mask[FIRST_DISCARD + c] = 1
            legal += 1
    found = _play_offers(a, g, s, q[1:], p)
    if found == LEFT_TO_PYTHON:
        return LEFT_TO_PYTHON
    mask[FIRST_OFFER : FIRST_OFFER + found] = 1
    return legal + found


@njit(cache=True)
def _only_action(mask) -> int:
    for action in range(mask.shape[0]):
        if mask[action]:
            return action
    return -1


@njit(cache=True)
def step_games(a, actions, q, p, scripted: int) -> None:
    """Make each row's action (``DEALT``: none; ``SKIP``: the row stays), then take its
    decisions with a single legal action (and, where ``scripted`` names a player of
    :mod:`~carousel_env.games.kaluki.kernel_players`, every decision, as it plays) until a
    decision with several, a move left to the engine, or a decision left to the env's Python.
    ``q``: (discard_take, open_before_lay_off, lay_off_after_own_meld, reuse_now); ``p``:
    (opening, go_out_by_discard, search rules, card values, joker value, K). ``auto`` counts
    the decisions with a single legal action."""
    release = p[2][2]
    for g in range(actions.shape[0]):
        action = actions[g]
        if action == SKIP:
            continue
        a.auto[g] = 0
        a.python[g] = False
        if action != DEALT and not _move(a, g, action, release):
            continue
        while True:
            legal = _decide(a, g, q, p)
            if legal == LEFT_TO_PYTHON:
                a.mask[g, :] = 0
                a.offers_n[g] = 0
                a.python[g] = True
                break
            if legal == 1:
                a.auto[g] += 1
                action = _only_action(a.mask[g])
            elif scripted != kp.NO_PLAYER:
                after = next_seat(a.current[g], a.in_play[g])
                action = kp.scripted_action(a, g, a.phase[g] == DRAW, after, scripted, p)
            else:
                break
            if not _move(a, g, action, release):
                break
