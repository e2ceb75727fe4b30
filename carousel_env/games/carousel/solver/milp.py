"""The heaviest positions as integer programs (HiGHS, through scipy): exact, in bounded time.

The sweeps (``sweep``) keep every reachable state of a position, and a hoarded hand of 40
cards on a crowded two-deck table has too many: past the sweeps' state budget or their
memory cap, ``carousel_env.games.carousel.solver.solve`` answers here instead, with one integer program per
suggestion slot, each solved to a proven optimum by HiGHS.

The model. A new table is a bag of *pieces*, each a valid meld on its own: a set (3 or 4
suits of one rank) or a run of 3, 4 or 5 of one suit (the ace low or high as the rules
allow). Every valid meld splits into pieces (a run of 6 or more into a run of 3 and the
rest), so a new table is legal exactly when its cards are a sum of pieces. Variables:
copies of each piece, the hand's real cards played per face, the hand jokers played, and
the jokers declaring each face on the new table. Rows: per face, the pieces' units are the
table's real cards, those played and the jokers declaring it; every table joker stays and
every joker played is placed; a table joker changes its declaration only where a real copy
of its card is on the new table (RULES.md "Jokers on the table"); the cards played lie in
a range; the points played reach a floor.

The slots (``answer.choose``, same order and ties): each slot's key is one integer
objective, its parts weighted so that a lower part never outweighs a higher one (for
``max_points``: points, then cards, then fewer hand jokers). The best play of the key is
the best of its entry (cards, hand jokers), so the slots pick what ``choose`` picks from
the sweeps' table of entries; a slot whose entry an earlier one took is skipped, as there.

Trust, but check: every answer is rounded, checked row by row in integers and meld by meld
(``melds.is_valid_meld_cached``), and taken as optimal only when HiGHS's dual bound leaves
no better integer value. A claim of infeasibility is asked again with presolve off (some
HiGHS releases' presolve has been wrong). Each program gets the time left of the solve's
budget; one that ends without a proof gives the best play it found, and the answer says it
is not exact (``answer.PackedAnswer``).
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.optimize import Bounds, LinearConstraint, milp

from carousel_env.core import compiled
from carousel_env.core.cards import JOKER, JOKER_POINTS, NUM_CARDS, POINTS, TABLE_JOKER, make_card
from carousel_env.games.carousel.engine.melds import is_valid_meld_cached
from carousel_env.games.carousel.solver.answer import (
    BEST_CARDS,
    BEST_POINTS,
    COUNT,
    HEADER_SIZE,
    SIZE_SLOT,
    PackedAnswer,
    pack_suggestion,
    packed_size,
)

FACES = NUM_CARDS
# Rows of the model, in order: one per face, the jokers, one declaration row per face, the
# cards played, the points played.
_JOKER_ROW = FACES
_DECLARED_ROWS = slice(FACES + 1, 2 * FACES + 1)
_CARDS_ROW = 2 * FACES + 1
_POINTS_ROW = 2 * FACES + 2
_ROWS = 2 * FACES + 3
# HiGHS's least useful time for one program: a budget spent by the sweeps still lets it
# find a play (what programs take: benchmarks/RESULTS.md, 2026-11-25).
MIN_PROGRAM_SECONDS = 0.05
_INTEGRAL = 1e-6  # how far from an integer a variable may come back


@dataclass(frozen=True)
class _Model:
    """The constant part of the programs for one ace setting."""

    pieces: tuple[tuple[int, ...], ...]  # faces of each piece, in reading order
    matrix: sp.csr_matrix  # (_ROWS, variables)
    piece_faces: np.ndarray  # the pieces' faces, concatenated
    piece_starts: np.ndarray  # where each piece starts in piece_faces
    uses: np.ndarray  # (FACES, pieces) int64: units of each face in each piece

    @property
    def variables(self) -> int:
        return len(self.pieces) + 2 * FACES + 1

    @property
    def played(self) -> slice:  # the hand's real cards played, per face
        return slice(len(self.pieces), len(self.pieces) + FACES)

    @property
    def jokers_played(self) -> int:
        return len(self.pieces) + FACES

    @property
    def declared(self) -> slice:  # jokers declaring each face on the new table
        return slice(len(self.pieces) + FACES + 1, self.variables)


def _pieces(ace_low: bool, ace_high: bool) -> tuple[tuple[int, ...], ...]:
    pieces = []
    for rank in range(1, 14):
        suits = [make_card(rank, s) for s in range(4)]
        pieces.append(tuple(suits))
        pieces.extend(tuple(c for c in suits if c != left_out) for left_out in suits)
    lowest, highest = (1 if ace_low else 2), (14 if ace_high else 13)  # 14: the ace above the king
    for suit in range(4):
        for length in (3, 4, 5):
            for first in range(lowest, highest - length + 2):
                pieces.append(tuple(make_card(1 if p == 14 else p, suit) for p in range(first, first + length)))
    return tuple(pieces)


@functools.cache
def _model(ace_low: bool, ace_high: bool) -> _Model:
    pieces = _pieces(ace_low, ace_high)
    n = len(pieces)
    uses = np.zeros((FACES, n), dtype=np.int64)
    for j, piece in enumerate(pieces):
        uses[list(piece), j] = 1
    played, jokers, declared = n, n + FACES, n + FACES + 1
    entries = [  # (row, column, value)
        *((f, j, 1.0) for j, piece in enumerate(pieces) for f in piece),  # face rows: pieces ...
        *((f, played + f, -1.0) for f in range(FACES)),  # ... less the cards played
        *((f, declared + f, -1.0) for f in range(FACES)),  # ... less the jokers declaring it
        *((_JOKER_ROW, declared + f, 1.0) for f in range(FACES)),
        (_JOKER_ROW, jokers, -1.0),
        *((FACES + 1 + f, played + f, 1.0) for f in range(FACES)),
        *((FACES + 1 + f, declared + f, 1.0) for f in range(FACES)),
        *((_CARDS_ROW, played + f, 1.0) for f in range(FACES)),
        (_CARDS_ROW, jokers, 1.0),
        *((_POINTS_ROW, played + f, float(POINTS[f])) for f in range(FACES)),
        (_POINTS_ROW, jokers, float(JOKER_POINTS)),
    ]
    rows, cols, vals = zip(*entries)
    matrix = sp.csr_matrix((vals, (rows, cols)), shape=(_ROWS, n + 2 * FACES + 1))
    flat = np.array([f for piece in pieces for f in piece], dtype=np.int64)
    starts = np.cumsum([0] + [len(p) for p in pieces[:-1]]).astype(np.int64)
    return _Model(pieces, matrix, flat, starts, uses)


@dataclass(frozen=True)
class _Position:
    table_real: np.ndarray  # real copies of each face on the table
    table_jokers: np.ndarray  # table jokers declaring each face
    hand_real: np.ndarray  # hand copies of each face
    hand_jokers: int
    hand_points: int

    @property
    def cards(self) -> int:
        return int(self.hand_real.sum()) + self.hand_jokers


def _position(units: np.ndarray, hand_cards: np.ndarray) -> _Position:
    units = np.asarray(units, dtype=np.int64)
    hand = np.asarray(hand_cards, dtype=np.int64)
    jokers = units >= TABLE_JOKER
    real_hand = hand[hand != JOKER]
    return _Position(
        np.bincount(units[~jokers], minlength=FACES),
        np.bincount(units[jokers] - TABLE_JOKER, minlength=FACES),
        np.bincount(real_hand, minlength=FACES),
        int((hand == JOKER).sum()),
        sum(POINTS[c] for c in hand.tolist()),
    )


@dataclass(frozen=True)
class Program:
    """One slot's integer program: its objective's weights on the points, cards and hand
    jokers played (maximised), and its limits."""

    points: int
    cards: int
    jokers: int
    fewest_cards: int = 1
    most_cards: int | None = None  # None: the whole hand
    least_points: int = 0
    hand_jokers: bool = True  # False: no hand joker may be played


@dataclass(frozen=True)
class Found:
    """A verified play of a program: its entry, its points, and the new table."""

    cards: int
    jokers: int
    points: int
    played: np.ndarray  # real cards played, per face
    melds: tuple[tuple[int, ...], ...]  # the new table's units, meld by meld
    proven: bool  # no play has a better value


def _weights(program: Program, model: _Model) -> np.ndarray:
    cost = np.zeros(model.variables)
    points = np.array(POINTS[:FACES], dtype=np.float64)
    cost[model.played] = -(program.points * points + program.cards)
    cost[model.jokers_played] = -(program.points * JOKER_POINTS + program.cards + program.jokers)
    return cost


def _bounds(program: Program, model: _Model, pos: _Position):
    total_jokers = int(pos.table_jokers.sum()) + pos.hand_jokers
    supply = pos.table_real + pos.hand_real + total_jokers
    upper = np.empty(model.variables)
    upper[: len(model.pieces)] = np.minimum.reduceat(supply[model.piece_faces], model.piece_starts)
    upper[model.played] = pos.hand_real
    upper[model.jokers_played] = pos.hand_jokers if program.hand_jokers else 0
    upper[model.declared] = total_jokers
    low, high = np.empty(_ROWS), np.full(_ROWS, np.inf)
    low[:FACES] = high[:FACES] = pos.table_real
    low[_JOKER_ROW] = high[_JOKER_ROW] = int(pos.table_jokers.sum())
    low[_DECLARED_ROWS] = pos.table_jokers - pos.table_real
    low[_CARDS_ROW] = program.fewest_cards
    high[_CARDS_ROW] = pos.cards if program.most_cards is None else program.most_cards
    low[_POINTS_ROW] = program.least_points
    return Bounds(np.zeros(model.variables), upper), LinearConstraint(model.matrix, low, high)


def _check(raw: np.ndarray | None, model: _Model, pos: _Position, program: Program, ace_low: bool, ace_high: bool):
    """The play of HiGHS's point, checked exactly in integers; None if any row or meld fails."""
    if raw is None or not np.all(np.isfinite(raw)):
        return None
    rounded = np.rint(raw)
    if np.max(np.abs(raw - rounded), initial=0.0) > _INTEGRAL:
        return None
    v = rounded.astype(np.int64)
    copies, played, jokers, declared = (
        v[: len(model.pieces)],
        v[model.played],
        int(v[model.jokers_played]),
        v[model.declared],
    )
    cards = int(played.sum()) + jokers
    points = int(np.dot(played, POINTS[:FACES])) + JOKER_POINTS * jokers
    limit = pos.cards if program.most_cards is None else program.most_cards
    if (
        (copies < 0).any()
        or (played < 0).any()
        or (played > pos.hand_real).any()
        or not 0 <= jokers <= (pos.hand_jokers if program.hand_jokers else 0)
        or (declared < 0).any()
        or not np.array_equal(model.uses @ copies, pos.table_real + played + declared)
        or int(declared.sum()) != int(pos.table_jokers.sum()) + jokers
        or (pos.table_jokers - declared > pos.table_real + played).any()
        or not program.fewest_cards <= cards <= limit
        or points < program.least_points
    ):
        return None
    melds = _melds(model, pos, copies, played, declared, ace_low, ace_high)
    if melds is None:
        return None
    return cards, jokers, points, played, melds


def _melds(model, pos, copies, played, declared, ace_low, ace_high):
    """The new table: each piece filled with real units first, then declared jokers (a
    piece's faces are in reading order, and so is its meld)."""
    left = [
        [TABLE_JOKER + f] * int(declared[f]) + [f] * int(pos.table_real[f] + played[f]) for f in range(FACES)
    ]  # popped from the end: real cards first
    melds = []
    for j in np.flatnonzero(copies):
        for _ in range(int(copies[j])):
            meld = tuple(left[f].pop() for f in model.pieces[j])
            if not is_valid_meld_cached(meld, ace_low, ace_high):
                return None
            melds.append(meld)
    if any(left):
        return None
    return tuple(melds)


def _fewest_cards_worth(pos: _Position, points: int) -> int:
    """The fewest hand cards whose points reach ``points`` (the dearest first), at least 1."""
    dearest = sorted([JOKER_POINTS] * pos.hand_jokers + [POINTS[f] for f in np.repeat(np.arange(FACES), pos.hand_real)])
    total, count = 0, 0
    while dearest and total < points:
        total += dearest.pop()
        count += 1
    return max(count, 1)


def _value(program: Program, cards: int, jokers: int, points: int) -> int:
    return program.points * points + program.cards * cards + program.jokers * jokers


@dataclass(frozen=True)
class Outcome:
    """A program's answer: its best play found (None: none), and whether that is proven:
    no better play, or no play at all."""

    found: Found | None
    proven: bool


def best_play(program: Program, pos: _Position, ace_low: bool, ace_high: bool, seconds: float) -> Outcome:
    """The play of ``program``'s best value in ``pos``, asked of HiGHS for at most ``seconds``
    (at least ``MIN_PROGRAM_SECONDS``) and checked (see the module docstring)."""
    model = _model(ace_low, ace_high)
    deadline = time.perf_counter() + seconds
    cost = _weights(program, model)
    bounds, rows = _bounds(program, model, pos)
    integrality = np.ones(model.variables)
    best = None
    for presolve in (True, False):
        left = max(deadline - time.perf_counter(), MIN_PROGRAM_SECONDS)
        options = {"presolve": presolve, "mip_rel_gap": 0.0, "time_limit": left}
        result = milp(cost, integrality=integrality, bounds=bounds, constraints=rows, options=options)
        if result.status == 2:  # infeasible: believed when presolve off says so too
            if not presolve:
                return Outcome(best, best is None)
            continue
        checked = _check(result.x, model, pos, program, ace_low, ace_high)
        if checked is not None:
            cards, jokers, points, played, melds = checked
            value = _value(program, cards, jokers, points)
            bound = getattr(result, "mip_dual_bound", None)
            proven = result.status == 0 and bound is not None and np.isfinite(bound) and bound > -value - 0.5
            if proven or best is None or _value(program, best.cards, best.jokers, best.points) < value:
                best = Found(cards, jokers, points, played, melds, proven)
            if proven:
                return Outcome(best, True)
        if time.perf_counter() >= deadline:
            break  # else: asked again without presolve (some releases' presolve is wrong)
    return Outcome(best, False)


def solve_by_programs(
    units: np.ndarray,
    hand_cards: np.ndarray,
    ace_low: bool,
    ace_high: bool,
    k: int,
    knock_limit: int,
    seconds: float,
) -> PackedAnswer:
    """``pipeline.solve_packed``'s answer by one integer program per slot, within ``seconds``
    (each program at least ``MIN_PROGRAM_SECONDS``)."""
    deadline = time.perf_counter() + seconds
    pos = _position(units, hand_cards)
    out = np.empty(packed_size(k), dtype=np.int64)
    out[BEST_POINTS], out[BEST_CARDS], out[COUNT] = 0, -1, 0
    if pos.cards == 0:
        return PackedAnswer(out[:HEADER_SIZE], True)
    # Weights that order a slot's key lexicographically (see the module docstring).
    joker_w, card_w = 1, pos.hand_jokers + 1
    point_w = card_w * (pos.cards + 1)
    exact = True
    picked: list[tuple[int, Found]] = []

    def ask(program: Program) -> Found | None:
        nonlocal exact
        left = deadline - time.perf_counter()
        if left <= 0:  # out of time: the slot is left out
            exact = False
            return None
        outcome = best_play(program, pos, ace_low, ace_high, left)
        exact = exact and outcome.proven
        return outcome.found

    def offer(slot: int, found: Found | None) -> None:
        if found is None or len(picked) >= k:
            return
        if any((f.cards, f.jokers) == (found.cards, found.jokers) for _, f in picked):
            return  # the entry an earlier slot took
        picked.append((slot, found))

    most_points = ask(Program(points=point_w, cards=card_w, jokers=-joker_w))
    if most_points is None:
        return PackedAnswer(out[:HEADER_SIZE], exact)
    offer(0, most_points)
    by_cards_w = card_w * (pos.hand_points + 1)  # cards first, then points
    if most_points.proven and most_points.cards == pos.cards:  # the whole hand: max_cards is max_points
        most_cards = most_points
    else:
        most_cards = ask(Program(points=card_w, cards=by_cards_w, jokers=-joker_w))
    offer(1, most_cards)
    if pos.hand_jokers and not (most_points.proven and most_points.jokers == 0):
        offer(2, ask(Program(points=pos.cards + 1, cards=1, jokers=0, hand_jokers=False)))
    else:  # max_points plays no hand joker: keep_jokers is max_points
        offer(2, most_points)
    least = pos.hand_points - knock_limit
    if knock_limit >= 0 and (most_points.points >= least or not most_points.proven):
        # at least the fewest cards whose points reach it; at most max_points' cards, which do
        fewest = _fewest_cards_worth(pos, least)
        most_needed = most_points.cards if most_points.points >= least else None
        knock = Program(card_w, -by_cards_w, -joker_w, fewest, most_needed, least_points=least)
        offer(3, ask(knock))
    most = most_cards.cards if most_cards is not None else most_points.cards
    for n in range(most - 1, max(0, most - k - 1), -1):
        if len(picked) >= k:
            break
        offer(SIZE_SLOT, ask(Program(points=card_w, cards=0, jokers=-joker_w, fewest_cards=n, most_cards=n)))
    out[BEST_POINTS], out[BEST_CARDS], out[COUNT] = most_points.points, most, len(picked)
    hand = np.bincount(np.asarray(hand_cards, dtype=np.int64), minlength=53)
    at = np.int64(3)
    for slot, found in picked:
        flat = np.array([u for meld in found.melds for u in meld], dtype=np.int64)
        lengths = np.array([len(meld) for meld in found.melds], dtype=np.int64)
        args = (out, at, np.int64(slot), np.int64(found.cards), np.int64(found.jokers), np.int64(found.points))
        at = compiled.first_call(pack_suggestion, *args, hand, found.played, flat, lengths)
    return PackedAnswer(out[:at], exact)


def any_play(units: np.ndarray, hand_cards: np.ndarray, ace_low: bool, ace_high: bool, seconds: float) -> Outcome:
    """Whether a legal play exists (``Outcome.found``), for ``has_play`` past the memory cap."""
    pos = _position(units, hand_cards)
    return best_play(Program(points=0, cards=0, jokers=0), pos, ace_low, ace_high, seconds)
