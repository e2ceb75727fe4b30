"""An independent MILP reference for the play solver (tests and benchmarks only).

It answers "what is the best legal play?" for one position, with a model that shares no
code with ``carousel_env.games.carousel.solver``: only the card encoding (``cards``) and the rules
configuration (``rules``) are imported, and witnesses are judged by
``carousel_env.games.carousel.engine.manipulation.check_play``.

Formulation
===========

Faces ``f`` are the 52 real cards. Inputs: ``T_f`` real copies of ``f`` on the table,
``o_f`` table jokers declaring ``f``, ``TJ = sum o_f``; ``h_f`` hand copies of ``f``, ``HJ``
hand jokers.

A *template* is a set of faces that is a valid meld on its own:

* a set: 3 or 4 distinct suits of one rank (5 per rank, 65 in all);
* a run of length 3, 4 or 5 of one suit, at positions ``p .. p+L-1`` where position
  ``1`` is the low ace (only if ``rules.ace_low``), ``2..13`` the ranks and ``14`` the
  high ace (only if ``rules.ace_high``); ``p+L-1 <= 14`` so nothing wraps, and no
  template holds both aces since ``L <= 5 < 14``.

Every valid meld is a disjoint union of templates (a set is one template; a run of
length ``n >= 6`` splits into a run of 3 and a run of ``n - 3``, recursively, every piece
a run of the same suit on the same side of the ace), and every template is a valid meld,
so "the new table can be partitioned into valid melds" is exactly "the multiset of new
table faces is a non-negative integer combination of templates". No face appears twice in
one template (distinct suits in a set, distinct ranks in a run, and never both aces), so
one template copy uses one unit of each of its faces. A unit of face ``f`` is either a
real ``f`` or a joker declaring ``f``; which is which never affects meld validity.

Variables (all integer):

* ``x_j >= 0`` copies of template ``j`` (upper bound: the smallest supply of its faces,
  ``T_f + h_f + TJ + HJ``, a valid bound that keeps the box finite);
* ``y_f in [0, h_f]`` hand copies of ``f`` added; ``yJ in [0, HJ]`` hand jokers added;
* ``J_f in [0, TJ + HJ]`` jokers declaring ``f`` on the new table.

Constraints:

* face balance, for every ``f``: ``sum_j a_fj x_j - y_f - J_f = T_f`` (the new table holds
  exactly the old real cards plus the added real cards, plus the jokers declaring ``f``);
* joker balance: ``sum_f J_f - yJ = TJ`` (every old table joker stays, every added joker
  is placed);
* joker declarations (manipulation.py rule 4), for every ``f``: ``y_f + J_f >= o_f - T_f``,
  i.e. ``o_f - J_f <= T_f + y_f`` = real copies of ``f`` on the new table;
* a play adds a card: ``sum_f y_f + yJ >= 1``.

Objective (maximised): ``sum_f POINTS[f] y_f + 25 yJ`` ("points") or ``sum_f y_f + yJ``
("cards"). The constraint matrix depends only on ``(ace_low, ace_high)`` and is built
once (sparse CSR) and cached; a position changes only the bounds.

Guarding against HiGHS bugs
===========================

Some HiGHS releases have MIP presolve bugs that declare a feasible model infeasible, return
an "optimal" point that violates a row, or stop at a suboptimal point. ``scipy.optimize.milp``
(HiGHS) is therefore used as follows:

1. Solve with presolve on and ``mip_rel_gap=0``.
2. An "optimal" answer is accepted only if (a) every variable is within ``1e-6`` of an
   integer, and the rounded point satisfies every bound and constraint above in exact
   integer arithmetic, with the objective recomputed exactly in integers, and (b) the
   reported dual bound proves optimality for an integer objective (no integer value above
   the incumbent is below the bound).
3. If anything fails (verification, the bound, a status other than optimal/infeasible), and
   whenever the answer is "infeasible" (a claim we cannot check from a point), the model is
   solved again with ``presolve=False`` and the same checks. Agreement of two infeasible
   answers gives ``None``; otherwise the best *verified* point of the two solves is used
   (every verified point is a legal play, so the larger is the better lower bound). If no
   verified answer exists, :class:`MilpReferenceError` is raised rather than guessing.
4. ``cross_check=True`` always solves both ways and raises :class:`MilpReferenceError` if the
   two verified optima differ; the tests use it on synthetic positions, which catches the
   remaining failure mode (a feasible but suboptimal point reported with a matching wrong
   bound), independent of the fast solver.

:func:`milp_play` turns the solution into a concrete :class:`~carousel_env.games.carousel.engine.manipulation.Play`
(templates filled with real units first, then jokers, each meld in reading order), so
tests can confirm the optimum is achievable with ``check_play``.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
import scipy.sparse as sp
from scipy.optimize import Bounds, LinearConstraint, milp

from carousel_env.core.cards import JOKER, NUM_CARDS, POINTS, TABLE_JOKER, Hand, Table, face, joker_as, make_card
from carousel_env.games.carousel.engine.manipulation import Play
from carousel_env.games.carousel.engine.melds import sort_meld
from carousel_env.games.carousel.engine.rules import Rules

Objective = Literal["points", "cards"]

F = NUM_CARDS  # 52 faces
_INT_TOL = 1e-6


class MilpReferenceError(RuntimeError):
    """HiGHS gave no answer that survives verification, or the two presolve settings disagree."""


# ---------------------------------------------------------------- templates and the constant model


def _run_face(position: int, suit: int) -> int:
    return make_card(1 if position == 14 else position, suit)


@functools.cache
def templates(ace_low: bool, ace_high: bool) -> tuple[tuple[int, ...], ...]:
    """Every template (tuple of faces) for this ace setting: sets first, then runs."""
    result: list[tuple[int, ...]] = []
    for rank in range(1, 14):
        cards = [make_card(rank, s) for s in range(4)]
        result.extend(tuple(c for i, c in enumerate(cards) if i != skip) for skip in range(4))
        result.append(tuple(cards))
    low = 1 if ace_low else 2
    high = 14 if ace_high else 13
    for suit in range(4):
        for length in (3, 4, 5):
            for start in range(low, high - length + 2):
                result.append(tuple(_run_face(p, suit) for p in range(start, start + length)))
    for t in result:
        assert len(set(t)) == len(t), t  # a face never appears twice in one template
    return tuple(result)


@dataclass(frozen=True)
class _Model:
    templates: tuple[tuple[int, ...], ...]
    n_templates: int
    matrix: sp.csr_matrix  # rows: 52 face balance, 1 joker balance, 52 declarations, 1 "adds a card"
    a_dense: np.ndarray  # (52, n_templates) int64, for exact verification
    flat_faces: np.ndarray  # template faces concatenated
    starts: np.ndarray  # offsets of each template in flat_faces
    n_vars: int

    # variable layout
    @property
    def y0(self) -> int:
        return self.n_templates

    @property
    def yj(self) -> int:
        return self.n_templates + F

    @property
    def j0(self) -> int:
        return self.n_templates + F + 1


@functools.cache
def _model(ace_low: bool, ace_high: bool) -> _Model:
    temps = templates(ace_low, ace_high)
    nt = len(temps)
    y0, yj, j0 = nt, nt + F, nt + F + 1
    n = nt + 2 * F + 1
    rows: list[int] = []
    cols: list[int] = []
    vals: list[int] = []

    def put(r: int, c: int, v: int) -> None:
        rows.append(r)
        cols.append(c)
        vals.append(v)

    for j, t in enumerate(temps):
        for f in t:
            put(f, j, 1)
    for f in range(F):
        put(f, y0 + f, -1)  # face balance
        put(f, j0 + f, -1)
        put(F, j0 + f, 1)  # joker balance
        put(F + 1 + f, y0 + f, 1)  # declaration rule
        put(F + 1 + f, j0 + f, 1)
        put(2 * F + 1, y0 + f, 1)  # adds a card
    put(F, yj, -1)
    put(2 * F + 1, yj, 1)
    matrix = sp.csr_matrix((vals, (rows, cols)), shape=(2 * F + 2, n), dtype=float)
    a_dense = np.zeros((F, nt), dtype=np.int64)
    for j, t in enumerate(temps):
        a_dense[list(t), j] = 1
    flat = np.fromiter((f for t in temps for f in t), dtype=np.int64)
    starts = np.cumsum([0] + [len(t) for t in temps[:-1]]).astype(np.int64)
    return _Model(temps, nt, matrix, a_dense, flat, starts, n)


@functools.cache
def _cost(n_templates: int, objective: str) -> np.ndarray:
    """Hand-card weights (y then yJ) as a minimisation cost vector over all variables."""
    c = np.zeros(n_templates + 2 * F + 1)
    if objective == "points":
        c[n_templates : n_templates + F] = [-POINTS[f] for f in range(F)]
        c[n_templates + F] = -POINTS[JOKER]
    elif objective == "cards":
        c[n_templates : n_templates + F + 1] = -1.0
    else:
        raise ValueError(f"objective must be 'points' or 'cards', got {objective!r}")
    c.setflags(write=False)
    return c


# ---------------------------------------------------------------- one position


@dataclass(frozen=True)
class _Position:
    table_real: np.ndarray  # T_f
    table_jokers: np.ndarray  # o_f
    hand_real: np.ndarray  # h_f
    hand_jokers: int


def _position(table: Table, hand: Hand) -> _Position:
    real: list[int] = []
    jok: list[int] = []
    for meld in table:
        for u in meld:
            if TABLE_JOKER <= u < TABLE_JOKER + F:
                jok.append(face(u))
            elif 0 <= u < F:
                real.append(u)
            else:
                raise ValueError(f"not a table unit: {u!r}")
    hand_cards = [c for c in hand if c != JOKER]
    if any(not 0 <= c < F for c in hand_cards):
        raise ValueError(f"not a hand: {hand!r}")
    return _Position(
        np.bincount(np.asarray(real, dtype=np.int64), minlength=F),
        np.bincount(np.asarray(jok, dtype=np.int64), minlength=F),
        np.bincount(np.asarray(hand_cards, dtype=np.int64), minlength=F),
        len(hand) - len(hand_cards),
    )


@dataclass(frozen=True)
class _Solution:
    x: np.ndarray  # template copies
    y: np.ndarray  # hand real cards added, per face
    yj: int  # hand jokers added
    jf: np.ndarray  # jokers declaring each face on the new table
    value: int


def _bounds(model: _Model, pos: _Position) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    total_jokers = int(pos.table_jokers.sum()) + pos.hand_jokers
    supply = pos.table_real + pos.hand_real + total_jokers
    lb = np.zeros(model.n_vars)
    ub = np.empty(model.n_vars)
    ub[: model.n_templates] = np.minimum.reduceat(supply[model.flat_faces], model.starts)
    ub[model.y0 : model.y0 + F] = pos.hand_real
    ub[model.yj] = pos.hand_jokers
    ub[model.j0 :] = total_jokers
    row_lb = np.empty(2 * F + 2)
    row_ub = np.empty(2 * F + 2)
    row_lb[:F] = row_ub[:F] = pos.table_real
    row_lb[F] = row_ub[F] = int(pos.table_jokers.sum())
    row_lb[F + 1 : 2 * F + 1] = pos.table_jokers - pos.table_real
    row_ub[F + 1 : 2 * F + 2] = np.inf
    row_lb[2 * F + 1] = 1
    return lb, ub, row_lb, row_ub


def _verify(model: _Model, pos: _Position, objective: str, raw: np.ndarray | None) -> _Solution | None:
    """The rounded solution if it satisfies every bound and constraint exactly, else None."""
    if raw is None or not np.all(np.isfinite(raw)):
        return None
    v = np.rint(raw)
    if np.max(np.abs(raw - v), initial=0.0) > _INT_TOL:
        return None
    v = v.astype(np.int64)
    x = v[: model.n_templates]
    y = v[model.y0 : model.y0 + F]
    yj = int(v[model.yj])
    jf = v[model.j0 :]
    total_jokers = int(pos.table_jokers.sum()) + pos.hand_jokers
    face_units = model.a_dense @ x
    ok = (
        bool(np.all(x >= 0))
        and bool(np.all((y >= 0) & (y <= pos.hand_real)))
        and 0 <= yj <= pos.hand_jokers
        and bool(np.all((jf >= 0) & (jf <= total_jokers)))
        and bool(np.array_equal(face_units, pos.table_real + y + jf))
        and int(jf.sum()) == int(pos.table_jokers.sum()) + yj
        and bool(np.all(pos.table_jokers - jf <= pos.table_real + y))
        and int(y.sum()) + yj >= 1
    )
    if not ok:
        return None
    if objective == "points":
        value = sum(POINTS[f] * int(y[f]) for f in range(F)) + POINTS[JOKER] * yj
    else:
        value = int(y.sum()) + yj
    return _Solution(x, y, yj, jf, value)


@dataclass(frozen=True)
class _Attempt:
    infeasible: bool  # HiGHS said infeasible
    solution: _Solution | None  # verified point (None if none or it failed verification)
    proven: bool  # the verified point is optimal according to HiGHS's dual bound
    message: str


def _attempt(model: _Model, pos: _Position, objective: str, presolve: bool) -> _Attempt:
    lb, ub, row_lb, row_ub = _bounds(model, pos)
    res = milp(
        _cost(model.n_templates, objective),
        integrality=np.ones(model.n_vars),
        bounds=Bounds(lb, ub),
        constraints=LinearConstraint(model.matrix, row_lb, row_ub),
        options={"presolve": presolve, "mip_rel_gap": 0.0},
    )
    if res.status == 2:
        return _Attempt(True, None, False, res.message)
    if res.status != 0:
        return _Attempt(False, None, False, f"status {res.status}: {res.message}")
    sol = _verify(model, pos, objective, res.x)
    if sol is None:
        return _Attempt(False, None, False, "returned point failed exact verification")
    bound = getattr(res, "mip_dual_bound", None)
    # minimisation of -value; an integer value v + 1 would need -(v + 1) >= bound.
    proven = bound is not None and math.isfinite(bound) and -(sol.value + 1) < bound - _INT_TOL
    return _Attempt(False, sol, proven, res.message)


def _solve(table: Table, hand: Hand, rules: Rules, objective: str, cross_check: bool) -> _Solution | None:
    _cost(0, objective)  # validates the objective name
    model = _model(rules.ace_low, rules.ace_high)
    pos = _position(table, hand)
    if not hand:
        return None
    first = _attempt(model, pos, objective, presolve=True)
    if first.solution is not None and first.proven and not cross_check:
        return first.solution
    second = _attempt(model, pos, objective, presolve=False)
    verified = [a.solution for a in (first, second) if a.solution is not None]
    if cross_check:
        both_infeasible = first.infeasible and second.infeasible
        both_agree = (
            first.solution is not None
            and second.solution is not None
            and first.proven
            and second.proven
            and first.solution.value == second.solution.value
        )
        if not (both_infeasible or both_agree):
            raise MilpReferenceError(f"presolve on/off disagree: on: {_describe(first)}; off: {_describe(second)}")
    if first.infeasible and second.infeasible:
        return None
    if verified:
        return max(verified, key=lambda s: s.value)
    raise MilpReferenceError(f"no verified answer: presolve on: {_describe(first)}; presolve off: {_describe(second)}")


def _describe(a: _Attempt) -> str:
    if a.infeasible:
        return "infeasible"
    if a.solution is None:
        return a.message
    return f"value {a.solution.value} ({'proven' if a.proven else 'not proven'} optimal)"


# ---------------------------------------------------------------- public API


def milp_best(
    table: Table, hand: Hand, rules: Rules, objective: Objective = "points", *, cross_check: bool = False
) -> int | None:
    """The best value of a legal play (``None`` if no legal play exists).

    ``objective`` is ``"points"`` (sum of POINTS of the hand cards added, joker 25) or
    ``"cards"`` (number of hand cards added). ``cross_check`` also solves with presolve off
    and raises :class:`MilpReferenceError` if the two answers differ.
    """
    sol = _solve(table, hand, rules, objective, cross_check)
    return None if sol is None else sol.value


def milp_play(
    table: Table, hand: Hand, rules: Rules, objective: Objective = "points", *, cross_check: bool = False
) -> Play | None:
    """A play achieving :func:`milp_best` (``None`` if no legal play exists)."""
    sol = _solve(table, hand, rules, objective, cross_check)
    if sol is None:
        return None
    return _witness(sol, _model(rules.ace_low, rules.ace_high), _position(table, hand), rules)


def _witness(sol: _Solution, model: _Model, pos: _Position, rules: Rules) -> Play:
    units: list[list[int]] = []
    for f in range(F):
        # popped from the end: real copies are used first, jokers last
        units.append([joker_as(f)] * int(sol.jf[f]) + [f] * int(pos.table_real[f] + sol.y[f]))
    melds = []
    for j, copies in enumerate(sol.x):
        for _ in range(int(copies)):
            melds.append(sort_meld(tuple(units[f].pop() for f in model.templates[j]), rules))
    assert not any(units), "every new-table unit is placed in a template"
    added = tuple(f for f in range(F) for _ in range(int(sol.y[f]))) + (JOKER,) * sol.yj
    return Play(added=added, table=tuple(melds))
