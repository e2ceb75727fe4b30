"""The vector env's compiled turns: the rules of a Carousel round a second time, over arrays.

:mod:`carousel_env.games.carousel.engine.game` is the reference; this module repeats what happens within
a round (draws, plays, knocks, turn ends, the stock running out, final turns) so that one
compiled call steps every game of a :class:`~carousel_env.games.carousel.vector.arrays.GameArrays` with
no Python per game. Deals and round ends stay with the engine (once per round, in
Python): this code stops a game at ``ROUND_OVER``. ``tests/games/carousel/test_vector_env.py`` plays
seeded games through both and requires the same observations, masks, rewards and scores
at every step.

Compile time: numba compiles each jitted function as its own library and links (and
optimizes again) every callee's code into each caller, so the solver's code would be
emitted once per level of calls between it and ``step_games``. The functions on that path
are inlined (``inline="always"``), all but ``_solve``, the one call of the solver (inlined
at its two call sites, the solver's code would be emitted twice into ``step_games``): the
solver is linked into ``_solve`` and ``step_games`` only.

Per game ``g`` a decision is: the kinds allowed (the engine's own rule,
``engine.game.allowed_kinds``, read as the table ``ALLOWED``: the kernel computes only its
inputs), the solver's packed answer in ``packed[g]`` (as ``carousel_env.games.carousel.solver.solve``,
witness rounds included), the action mask; a decision with one legal action is taken at
once (as the AEC env's ``_settle``) and counted in ``auto[g]``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from numba import njit, objmode

from carousel_env.core import compiled
from carousel_env.envkit.vector import DEALT, SKIP
from carousel_env.games.carousel.engine.game import MAX_TURNS_PER_ROUND, ActionKind, Phase, allowed_kinds
from carousel_env.games.carousel.engine.scoring import RoundEnd
from carousel_env.games.carousel.envs.aec import DRAW_AGAIN, END_TURN, FIRST_SUGGESTION, KNOCK
from carousel_env.games.carousel.solver import (
    FIRST_SWEEP_LEVEL,
    FULL_SWEEP_STATES,
    MEMORY_CAP_BYTES,
    answer_by_programs,
    witness_rounds,
)
from carousel_env.games.carousel.solver import SOURCES as SOLVER_SOURCES
from carousel_env.games.carousel.solver.answer import BEST_CARDS, COUNT, HEADER_SIZE, REC_LISTS
from carousel_env.games.carousel.solver.pipeline import solve_packed
from carousel_env.games.carousel.solver.prepare import CARD_POINTS

_HERE = Path(__file__).resolve().parent
_GAME = _HERE.parent
# The compiled turns embed the solver's code and the constants of the engine's turns and
# scoring and of the observation layout: their cache depends on all of them (the compiled
# modules only: editing env.py keeps the cache).
SOURCES = (
    *SOLVER_SOURCES,
    _HERE / "kernel.py",
    _HERE / "encode.py",
    _GAME / "engine" / "game.py",
    _GAME / "engine" / "scoring.py",
    _GAME / "envs" / "observation.py",
)
compiled.name_entry_points(__name__, {"step_games": ("the vector env's turns (the solver included)", 25)})
compiled.name_entry_points(f"{__package__}.encode", {"encode_rows": ("the vector env's observations", 3)})
compiled.drop_stale_cache(_HERE / "__pycache__", SOURCES)  # before numba loads this module's cache

PHASE_CODES = tuple(Phase)  # code i is PHASE_CODES[i] (the observation's phase order too)
DRAWN, PLAYED, FINAL_TURN, MUST_PLAY, ROUND_OVER, GAME_OVER = range(len(PHASE_CODES))
END_CODES = (None, *RoundEnd)  # code 0: the round goes on
NO_END = 0
KNOCKED, WENT_OUT, STOCK_OUT, TURN_CAP = (
    END_CODES.index(e) for e in (RoundEnd.KNOCK, RoundEnd.GOING_OUT, RoundEnd.STOCK_EXHAUSTED, RoundEnd.TURN_CAP)
)
# What ``step_games`` does with a row besides making its action.
# DEALT (the row was just dealt: take its forced decisions, solve its first decision) and
# SKIP (leave the row as it is): the shared driver's codes (envkit.vector).
# The engine's rule of which kinds of action are allowed (``engine.game.allowed_kinds``), as
# a table over its inputs: ALLOWED[phase, draws used up, stock left, hand worth a knock] is
# 1 per kind of KINDS. Rounds that are over allow nothing.
KINDS = (ActionKind.DRAW_AGAIN, ActionKind.KNOCK, ActionKind.END_TURN, ActionKind.PLAY)
DRAW_AGAIN_KIND, KNOCK_KIND, END_TURN_KIND, PLAY_KIND = range(len(KINDS))
ALLOWED = np.zeros((len(PHASE_CODES), 2, 2, 2, len(KINDS)), np.int64)
for _code, _phase in enumerate(PHASE_CODES):
    if _phase in (Phase.ROUND_OVER, Phase.GAME_OVER):
        continue
    for _drawn_out, _stock_left, _can_knock in np.ndindex(2, 2, 2):
        _kinds = allowed_kinds(_phase, bool(_drawn_out), bool(_stock_left), bool(_can_knock))
        ALLOWED[_code, _drawn_out, _stock_left, _can_knock] = [kind in _kinds for kind in KINDS]
# Columns of the ``turn`` and ``board`` arrays (``arrays.GameArrays``).
CURRENT, DRAWS, TURNS, FINAL_LEFT = range(4)  # FINAL_LEFT -1: the stock is not exhausted
DEALER, ROUND_INDEX, HAS_LAST = range(3)
# Entries of the ``rule`` array the env passes (:func:`rule_array`).
KNOCK_LIMIT_RULE, MAX_DRAWS_RULE, ACE_LOW_RULE, ACE_HIGH_RULE, MUST_PLAY_RULE, SOLVE_BUDGET_RULE = range(6)
NO_DRAW_LIMIT = 1 << 30


def rule_array(rules, solve_time_budget: float) -> np.ndarray:
    """The ``rule`` array of ``rules`` (``engine.rules.Rules``), each entry at its named index:
    the knock limit (-1: none), the draws a turn, ace low, ace high, must play, and the
    solver's time budget per solve in microseconds."""
    rule = np.zeros(SOLVE_BUDGET_RULE + 1, np.int64)
    rule[KNOCK_LIMIT_RULE] = -1 if rules.knock_limit is None else rules.knock_limit
    rule[MAX_DRAWS_RULE] = NO_DRAW_LIMIT if rules.max_draws is None else rules.max_draws
    rule[ACE_LOW_RULE], rule[ACE_HIGH_RULE], rule[MUST_PLAY_RULE] = rules.ace_low, rules.ace_high, rules.must_play
    rule[SOLVE_BUDGET_RULE] = round(solve_time_budget * 1e6)
    return rule


@njit(cache=True)
def _hand_value(a, g, p):
    total = 0
    for i in range(a.hand_len[g, p]):
        total += CARD_POINTS[a.hands[g, p, i]]
    return total


# ---------------------------------------------------------------- the solver


# The games whose solve, in the compiled call under way, was not proven exact within the
# time budget, once per such solve: ``_rest_of_solve`` appends, the env reads and clears.
inexact_games: list[int] = []


def _rest_of_solve(units, hand, ace_low, ace_high, k, knock_limit, gave_up, budget_us, g):
    """The solver's own witness rounds, or its integer programs when the sweep gave up,
    called back from the compiled turns for game ``g``: about one decision in 40 (a crowded
    table) needs them, and linking the witness search into this module's compiled code
    would add its compile time again (``core.compiled``)."""
    args = (units, hand, bool(ace_low), bool(ace_high), int(k), int(knock_limit), budget_us / 1e6)
    found = answer_by_programs(*args) if gave_up else witness_rounds(*args)
    if not found.exact:
        inexact_games.append(int(g))
    return found.packed


@njit(cache=True)
def _solve(units, hand, ace_low, ace_high, k, knock_limit, budget_us, g):
    """``carousel_env.games.carousel.solver.solve``'s packed answer for game ``g``: one sweep, then (rarely)
    the witness rounds or the integer programs, within ``budget_us`` microseconds."""
    level, cap = np.int64(FIRST_SWEEP_LEVEL), np.int64(MEMORY_CAP_BYTES)
    packed = solve_packed(units, hand, ace_low, ace_high, k, knock_limit, np.int64(FULL_SWEEP_STATES), level, cap)
    if packed.shape[0] > 1:
        return packed
    gave_up = packed.shape[0] == 1
    with objmode(packed="int64[:]"):
        packed = _rest_of_solve(units, hand, ace_low, ace_high, k, knock_limit, gave_up, budget_us, g)
    return packed


@njit(cache=True, inline="always")
def _solve_turn(a, g, p, k, rule):
    """The packed answer of seat ``p``'s hand on game ``g``'s table."""
    hand = a.hands[g, p, : a.hand_len[g, p]].copy()
    ace_low, ace_high = rule[ACE_LOW_RULE] != 0, rule[ACE_HIGH_RULE] != 0
    budget = rule[SOLVE_BUDGET_RULE]
    return _solve(a.units[g, : a.n_units[g]], hand, ace_low, ace_high, k, rule[KNOCK_LIMIT_RULE], budget, g)


# ---------------------------------------------------------------- turns


@njit(cache=True)
def _end_round(a, g, end, seat):
    a.phase[g] = ROUND_OVER
    a.round_end[g] = end
    a.who[g] = seat


@njit(cache=True)
def _draw(a, g, p):
    """The top stock card into seat ``p``'s hand, kept sorted."""
    a.stock_len[g] -= 1
    card = a.stock[g, a.stock_len[g]]
    i = a.hand_len[g, p]
    while i > 0 and a.hands[g, p, i - 1] > card:
        a.hands[g, p, i] = a.hands[g, p, i - 1]
        i -= 1
    a.hands[g, p, i] = card
    a.hand_len[g, p] += 1
    a.turn[g, DRAWS] += 1


@njit(cache=True, inline="always")
def _begin_turn(a, g, k, rule):
    """Begin the current player's turn; returns whether they pass at once (Manipulation
    Rummy: no play and the stock empty), which the caller handles as a turn's end."""
    a.turn[g, DRAWS] = 0
    a.turn[g, TURNS] += 1
    if a.turn[g, TURNS] > MAX_TURNS_PER_ROUND:
        _end_round(a, g, TURN_CAP, -1)
        return False
    final = a.turn[g, FINAL_LEFT] >= 0
    p = a.turn[g, CURRENT]
    if rule[MUST_PLAY_RULE] == 0:
        if final:
            a.phase[g] = FINAL_TURN
        else:
            _draw(a, g, p)
            a.phase[g] = DRAWN
        return False
    # Manipulation Rummy: draw one card at a time until a play exists; each is a forced action.
    while _solve_turn(a, g, p, k, rule)[1] < 0:
        if a.stock_len[g] == 0:
            a.phase[g] = FINAL_TURN if final else DRAWN
            return True
        a.auto[g] += 1
        _draw(a, g, p)
    a.phase[g] = MUST_PLAY
    return False


@njit(cache=True, inline="always")
def _end_turn(a, g, k, rule, players):
    """End the current turn and begin the next; a player who passes at once ends theirs
    too (a loop, where the engine recurses)."""
    while True:
        if a.turn[g, FINAL_LEFT] >= 0:
            if a.turn[g, FINAL_LEFT] == 1:  # the last final turn: the round ends (the count stays 1)
                _end_round(a, g, STOCK_OUT, -1)
                return
            a.turn[g, FINAL_LEFT] -= 1
        elif a.stock_len[g] == 0:
            a.turn[g, FINAL_LEFT] = players  # every player, the next one first, takes one more turn
        a.turn[g, CURRENT] = (a.turn[g, CURRENT] + 1) % players
        if not _begin_turn(a, g, k, rule):
            return


@njit(cache=True)
def _play(a, at, g, p):
    """Make the suggestion packed at ``a.packed[g, at:]``: its hand after, its new table."""
    at += REC_LISTS
    at += 1 + a.packed[g, at]  # the cards added
    n = a.packed[g, at]
    for i in range(n):
        a.hands[g, p, i] = a.packed[g, at + 1 + i]
    a.hand_len[g, p] = n
    at += 1 + n
    melds = a.packed[g, at]
    total = 0
    for m in range(melds):
        a.meld_len[g, m] = a.packed[g, at + 1 + m]
        total += a.meld_len[g, m]
    at += 1 + melds
    for i in range(total):
        a.units[g, i] = a.packed[g, at + i]
    a.n_melds[g] = melds
    a.n_units[g] = total
    if a.phase[g] != FINAL_TURN:
        a.phase[g] = PLAYED
    if n == 0:
        _end_round(a, g, WENT_OUT, p)


@njit(cache=True, inline="always")
def _decide(a, g, k, rule):
    """Fill game ``g``'s decision (mask, packed answer, slot offsets); returns the number
    of legal actions. ``rule``: knock limit (-1: none), max draws, ace low, ace high, must
    play (Manipulation Rummy)."""
    for i in range(a.mask.shape[1]):
        a.mask[g, i] = 0
    a.packed[g, COUNT] = 0
    ph = a.phase[g]
    if ph in (ROUND_OVER, GAME_OVER):
        return 0
    p = a.turn[g, CURRENT]
    drawn_out = 1 if a.turn[g, DRAWS] >= rule[MAX_DRAWS_RULE] else 0
    stock_left = 1 if a.stock_len[g] > 0 else 0
    limit = rule[KNOCK_LIMIT_RULE]
    can_knock = 1 if limit >= 0 and _hand_value(a, g, p) <= limit else 0
    kinds = ALLOWED[ph, drawn_out, stock_left, can_knock]
    a.mask[g, DRAW_AGAIN] = kinds[DRAW_AGAIN_KIND]
    a.mask[g, KNOCK] = kinds[KNOCK_KIND]
    a.mask[g, END_TURN] = kinds[END_TURN_KIND]
    legal = a.mask[g, DRAW_AGAIN] + a.mask[g, KNOCK] + a.mask[g, END_TURN]
    play = kinds[PLAY_KIND] == 1
    if play:
        answer = _solve_turn(a, g, p, k, rule)
        count = 0 if answer[BEST_CARDS] < 0 else min(answer[COUNT], k)
        for i in range(answer.shape[0]):  # a loop: a slice assignment compiles far more code
            a.packed[g, i] = answer[i]
        a.packed[g, COUNT] = count
        at = HEADER_SIZE
        for s in range(count):
            a.slot_at[g, s] = at
            a.mask[g, FIRST_SUGGESTION + s] = 1
            at += REC_LISTS
            at += 1 + answer[at]
            at += 1 + answer[at]
            melds = answer[at]
            total = 0
            for m in range(melds):
                total += answer[at + 1 + m]
            at += 1 + melds + total
        legal += count
    return legal


@njit(cache=True, inline="always")
def _apply(a, g, action, k, rule, players):
    p = a.turn[g, CURRENT]
    if action == DRAW_AGAIN:
        _draw(a, g, p)
    elif action == END_TURN:
        _end_turn(a, g, k, rule, players)
    elif action == KNOCK:
        _end_round(a, g, KNOCKED, p)
    else:
        at = a.slot_at[g, action - FIRST_SUGGESTION]
        _play(a, at, g, p)


@njit(cache=True)
def step_games(a, actions, k, players, rule):
    """For every game ``g`` but the ``SKIP`` ones: make action ``actions[g]`` (none when
    ``DEALT``: the game was just dealt), then take every forced decision until a real one or
    the round's end. ``a.auto[g]`` counts the forced ones. Actions are legal: the caller
    checked them against the masks."""
    for g in range(actions.shape[0]):
        if actions[g] == SKIP:
            continue
        a.auto[g] = 0
        action = actions[g]
        while True:  # the action, then each forced one (one call site: _apply is inlined)
            if action != DEALT:
                _apply(a, g, action, k, rule, players)
            legal = _decide(a, g, k, rule)
            if legal != 1:
                break
            action = 0
            while a.mask[g, action] == 0:
                action += 1
            a.auto[g] += 1
