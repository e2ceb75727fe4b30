"""Independent references for Kaluki's lay-down solver (tests and benchmarks only).

They share no code with ``carousel_env.games.kaluki.solver``: only the card encoding
(``carousel_env.core.cards``) and the rules (``KalukiRules``) are imported.

Brute force (:func:`brute_layouts`)
===================================
Every meld a small hand can form is listed from scratch (a set: one rank, 3 or 4 distinct
suits, its jokers declaring the lowest suits its naturals miss; a run: every window of 3 to 13
cells of a suit that the rules allow, each cell a held natural or a joker, at least one
natural), and every multiset of them the hand holds is collected by recursion.

The MILP (:func:`milp_optimum`)
===============================
Faces ``f`` are the 52 cards; ``h_f`` copies in hand, ``HJ`` jokers, ``N`` cards, ``H`` their
hand value. A *template* ``t`` is the faces of one meld shape: a set (3 or 4 distinct suits of
a rank) or a run (one suit, cells ``a..a+L-1``, ``3 <= L <= 13``, cell 1 the low ace only if
``ace_low_runs``, 14 the high ace only if ``ace_high_runs``). Runs get a template for every
length rather than only 3..5: a long run cut into short templates would need a natural in every
piece, while the rule asks for one in the whole meld (``5H 6H JK JK JK JK`` cuts into
``5H 6H JK | JK JK JK``), and the opening value of a joker depends on the cell it takes.
Templates with more faces missing from the hand than there are jokers are dropped.

Variables: ``x_t`` copies of template ``t``; ``n_tf`` (``0 <= n_tf <= x_t``) copies filled by a
natural ``f`` (the others are jokers). ``sum_f n_tf >= x_t`` gives every copy a natural: deal
the naturals of ``t`` round-robin over its copies (no face more than ``x_t`` times, at least
``x_t`` in all), and each copy gets at least one, no face twice. Naturals: ``sum_t n_tf <=
h_f``; jokers: ``sum_t (|t| x_t - sum_f n_tf) <= HJ + released``. The opening value
``sum_t ov_t x_t`` (a joker counts as its cell's card, the low ace 1) is linear because a
template fixes its cells.

Table melds (for plays): a run gets binaries ``e_{end,L}`` (extend that end by exactly ``L``
cells, at most one per end, total within 13) and per cell a binary natural ``g <= sum_{L>=d}
e_{end,L}``, the rest jokers; a 3-card set a binary per missing suit (natural) and one for a
joker, at most one in all. Exchanges (after the opening): a binary per table joker of a
run or, under ``set_joker_release: declared``, of a set (the declared card in, one joker out);
under ``all_missing`` one per set with jokers (every suit its naturals miss in, all its jokers
out, and no lay-off on it). ``reuse_now``: jokers in new melds ``>=`` jokers released (summed
over exchanges). ``either_missing`` exchanges are not modelled. A player who opens and exchanges in one play
opens first: a separate family of new melds, the opening, reaches the threshold with jokers
from the hand only.

Side rules: the play lays at least one card; a ``must_use`` natural ``m`` has ``sum_t n_tm >=
1`` (a joker: at least one joker in new melds); at most ``N - keep`` cards laid; the taken card
``c``, if not laid, may not be all that is left: with binaries ``w1`` (a copy of ``c`` laid) and
``w2`` (the hand emptied), ``laid others <= others - 1 + others (w1 + w2)``. Objective: least
``H`` minus what is laid plus ``joker_value`` per released joker. Solved by HiGHS through
``scipy.optimize.milp`` with ``mip_rel_gap=0``; the optimum is integral by construction.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import scipy.sparse as sp
from scipy.optimize import Bounds, LinearConstraint, milp

from carousel_env.core.cards import JOKER, TABLE_JOKER, make_card, rank_of, suit_of
from carousel_env.games.kaluki.rules import KalukiRules

RUN_LONGEST = 13


def _cell_card(suit: int, cell: int) -> int:
    return make_card(1 if cell == 14 else cell, suit)


def _cells(rules: KalukiRules) -> tuple[int, int]:
    return (1 if rules.ace_low_runs else 2), (14 if rules.ace_high_runs else 13)


def _value(rules: KalukiRules, card: int) -> int:
    if card == JOKER:
        return rules.joker_value
    rank = rank_of(card)
    return rules.ace_value if rank == 1 else min(rank, 10)


def templates(rules: KalukiRules) -> list[tuple[tuple[int, ...], int]]:
    """(faces, opening value) of every meld shape under ``rules``."""
    found = []
    for rank in range(1, 14):
        for size in (3, 4):
            for suits in _combos(range(4), size):
                faces = tuple(make_card(rank, s) for s in suits)
                found.append((faces, sum(_value(rules, f) for f in faces)))
    low, high = _cells(rules)
    for suit in range(4):
        for a in range(low, high - 1):
            for length in range(3, RUN_LONGEST + 1):
                if a + length - 1 > high:
                    break
                cells = range(a, a + length)
                faces = tuple(_cell_card(suit, c) for c in cells)
                found.append((faces, sum(1 if c == 1 else _value(rules, _cell_card(suit, c)) for c in cells)))
    return found


def _combos(items, size):
    items = list(items)
    if size == 0:
        yield ()
        return
    for i, item in enumerate(items):
        for rest in _combos(items[i + 1 :], size - 1):
            yield (item, *rest)


# ---------------------------------------------------------------- brute force


def all_melds(hand, rules: KalukiRules) -> list[tuple]:
    """Every meld ``hand`` can lay, as (kind, low, units) with jokers as ``TABLE_JOKER + card``."""
    held = Counter(hand)
    jokers = held[JOKER]
    found = []
    for faces, _ in templates(rules):
        if len({rank_of(f) for f in faces}) == 1:  # a set
            naturals = [f for f in faces if held[f]]
            for k in range(len(naturals) + 1):
                for chosen in _combos(naturals, k):
                    if not chosen or len(faces) - k > jokers:
                        continue
                    missing = sorted(s for s in range(4) if s not in {suit_of(c) for c in chosen})
                    fill = [TABLE_JOKER + make_card(rank_of(faces[0]), s) for s in missing[: len(faces) - k]]
                    # a set is its suits: only the shape whose suits are the naturals' plus the lowest missing
                    if sorted(suit_of(f) for f in faces) == sorted(
                        [suit_of(c) for c in chosen] + missing[: len(faces) - k]
                    ):
                        found.append(("set", 0, tuple(sorted([*chosen, *fill], key=lambda u: suit_of(u & 63)))))
            continue
        low = rank_of(faces[1]) - 1  # the run's first cell
        holes = [i for i, f in enumerate(faces) if not held[f]]
        if len(holes) > jokers:
            continue
        free = [i for i, f in enumerate(faces) if held[f]]
        for extra in range(0, jokers - len(holes) + 1):
            for also in _combos(free, extra):
                as_joker = set(holes) | set(also)
                if len(as_joker) == len(faces):
                    continue
                units = tuple(TABLE_JOKER + f if i in as_joker else f for i, f in enumerate(faces))
                found.append(("run", low, units))
    return sorted(set(found))


def brute_layouts(hand, rules: KalukiRules) -> set[tuple]:
    """Every layout (sorted tuple of melds as in :func:`all_melds`) of ``hand``, by exhaustion."""
    melds = all_melds(hand, rules)
    need = [Counter(u if u < TABLE_JOKER else JOKER for u in m[2]) for m in melds]
    found = set()

    def walk(start: int, left: Counter, chosen: list) -> None:
        if chosen:
            found.add(tuple(chosen))
        for i in range(start, len(melds)):
            if not need[i] - left:
                walk(i, left - need[i], [*chosen, melds[i]])

    walk(0, Counter(hand), [])
    return found


def layout_value(layout, rules: KalukiRules) -> int:
    """The opening value of a brute-force layout."""
    total = 0
    for kind, low, units in layout:
        for i, u in enumerate(units):
            total += 1 if kind == "run" and low + i == 1 else _value(rules, u & 63)
    return total


# ---------------------------------------------------------------- the MILP


class _Model:
    """Columns and rows of a small MILP, built one by one."""

    def __init__(self) -> None:
        self.low: list[float] = []
        self.high: list[float] = []
        self.cost: list[float] = []
        self.rows: list[tuple[dict, float, float]] = []

    def var(self, high: float, cost: float = 0.0) -> int:
        self.low.append(0)
        self.high.append(high)
        self.cost.append(cost)
        return len(self.cost) - 1

    def row(self, terms: dict, low: float = -np.inf, high: float = np.inf) -> None:
        self.rows.append((terms, low, high))

    def solve(self):
        n = len(self.cost)
        if n == 0:
            return None
        data, rr, cc, lo, hi = [], [], [], [], []
        for r, (terms, a, b) in enumerate(self.rows):
            for c, v in terms.items():
                rr.append(r)
                cc.append(c)
                data.append(v)
            lo.append(a)
            hi.append(b)
        cons = []
        if self.rows:
            matrix = sp.csr_matrix((data, (rr, cc)), shape=(len(self.rows), n))
            cons = [LinearConstraint(matrix, lo, hi)]
        res = milp(
            np.array(self.cost),
            constraints=cons,
            integrality=np.ones(n),
            bounds=Bounds(self.low, self.high),
            options={"mip_rel_gap": 0},
        )
        if res.status == 2 or res.x is None:
            return None
        assert res.status == 0, res.message
        return np.round(res.x).astype(int)


def _add(terms: dict, var: int, coef: float) -> None:
    terms[var] = terms.get(var, 0) + coef


def _add_melds(m: _Model, rules: KalukiRules, held: Counter, most_jokers: int, sums: dict) -> tuple[dict, dict, dict]:
    """Template copies for new melds: (copies, opening value, jokers placed) of this family; their
    naturals, jokers and value are added to ``sums`` too."""
    jv = rules.joker_value
    copies: dict = {}
    opening: dict = {}
    fill: dict = {}
    for faces, ov in templates(rules):
        if sum(1 for f in faces if not held[f]) > most_jokers:
            continue
        most = sum(held[f] for f in faces)
        if not most:
            continue
        x = m.var(most)
        _add(copies, x, 1)
        _add(opening, x, ov)
        _add(fill, x, len(faces))
        _add(sums["laid_value"], x, len(faces) * jv)
        one_natural = {x: -1}
        for f in faces:
            if not held[f]:
                continue
            nv = m.var(min(held[f], most))
            m.row({nv: 1, x: -1}, high=0)
            _add(one_natural, nv, 1)
            _add(sums["face_use"][f], nv, 1)
            _add(fill, nv, -1)
            _add(sums["laid_value"], nv, _value(rules, f) - jv)
        m.row(one_natural, low=0)
    for k, v in fill.items():
        _add(sums["joker_fill"], k, v)
        _add(sums["meld_jokers"], k, v)
    return copies, opening, fill


def milp_optimum(
    hand,
    rules: KalukiRules,
    *,
    threshold: int = 0,
    must_use: int | None = None,
    keep: int = 0,
    taken: int | None = None,
    table=(),
    must_open: bool = True,
    threshold_with_melds: bool = True,
    exchanges: bool = False,
) -> int | None:
    """The least hand value ``hand`` can keep (None: no play). ``table``: (kind, low, units) of
    the melds it may lay off on ("set"/"run", a run's first cell, units with jokers as
    ``TABLE_JOKER + card``); ``must_open``: a play needs new melds reaching ``threshold``;
    ``threshold_with_melds``: new melds, if any, reach it; ``exchanges``: joker exchanges allowed."""
    held = Counter(hand)
    jokers, n_cards = held[JOKER], len(hand)
    jv = rules.joker_value
    m = _Model()
    laid_value: dict = {}  # terms of the value laid (naturals and jokers, new melds and table)
    face_use: dict = {f: {} for f in range(52)}
    joker_fill: dict = {}  # jokers placed
    meld_jokers: dict = {}
    released: dict = {}
    swaps: list = []  # (exchange variable, jokers it releases)
    table_jokers = sum(1 for _, _, units in table for u in units if u >= TABLE_JOKER) if exchanges else 0
    low_cell, high_cell = _cells(rules)
    for kind, low, units in table:
        if kind == "run":
            suit = suit_of(units[0] & 63)
            high = low + len(units) - 1
            room = RUN_LONGEST - len(units)
            total_len: dict = {}
            for _, cells in ((-1, range(low - 1, low_cell - 1, -1)), (1, range(high + 1, high_cell + 1))):
                cells = list(cells)[:room]
                ends = [m.var(1) for _ in cells]
                m.row({e: 1 for e in ends}, high=1)
                for length, e in enumerate(ends, start=1):
                    _add(total_len, e, length)
                for d, cell in enumerate(cells):
                    filled = {e: 1 for e in ends[d:]}
                    card = _cell_card(suit, cell)
                    g = m.var(1 if held[card] else 0)
                    m.row({g: 1, **{e: -1 for e in ends[d:]}}, high=0)
                    _add(face_use[card], g, 1)
                    for e in filled:
                        _add(joker_fill, e, 1)
                        _add(laid_value, e, jv)
                    _add(joker_fill, g, -1)
                    _add(laid_value, g, _value(rules, card) - jv)
            if total_len:
                m.row(total_len, high=room)
            if exchanges:
                for u in units:
                    if u >= TABLE_JOKER and held[u & 63]:
                        q = m.var(1)
                        _add(face_use[u & 63], q, 1)
                        _add(laid_value, q, _value(rules, u & 63))
                        _add(released, q, 1)
                        swaps.append((q, 1))
            continue
        rank = rank_of(units[0] & 63)
        suits = {suit_of(u & 63) for u in units}
        adds = []
        if len(units) == 3:
            for s in range(4):
                if s not in suits and held[make_card(rank, s)]:
                    a = m.var(1)
                    adds.append(a)
                    _add(face_use[make_card(rank, s)], a, 1)
                    _add(laid_value, a, _value(rules, make_card(rank, s)))
            a = m.var(1)
            adds.append(a)
            _add(joker_fill, a, 1)
            _add(laid_value, a, jv)
        if not exchanges or not any(u >= TABLE_JOKER for u in units):
            if adds:
                m.row({a: 1 for a in adds}, high=1)
            continue
        release = rules.set_joker_release.value
        if release == "declared":
            if adds:
                m.row({a: 1 for a in adds}, high=1)
            for u in units:
                if u >= TABLE_JOKER and held[u & 63]:
                    q = m.var(1)
                    _add(face_use[u & 63], q, 1)
                    _add(laid_value, q, _value(rules, u & 63))
                    _add(released, q, 1)
                    swaps.append((q, 1))
        elif release == "all_missing":
            naturals = {suit_of(u) for u in units if u < TABLE_JOKER}
            wanted = [make_card(rank, s) for s in range(4) if s not in naturals]
            q = m.var(1 if all(held[c] for c in wanted) else 0)
            for c in wanted:
                _add(face_use[c], q, 1)
                _add(laid_value, q, _value(rules, c))
            _add(released, q, sum(1 for u in units if u >= TABLE_JOKER))
            swaps.append((q, sum(1 for u in units if u >= TABLE_JOKER)))
            m.row({q: 1, **{a: 1 for a in adds}}, high=1)
        else:
            raise NotImplementedError("either_missing exchanges are not modelled")
    sums = {"laid_value": laid_value, "face_use": face_use, "joker_fill": joker_fill, "meld_jokers": meld_jokers}
    copies, opening, _ = _add_melds(m, rules, held, jokers + table_jokers, sums)
    if must_open and swaps:
        # a player who opens and exchanges opens first: melds of the opening hold hand jokers only
        first, first_open, first_fill = _add_melds(m, rules, held, jokers, sums)
        m.row(first, low=1)
        m.row(first_open, low=threshold)
        m.row(first_fill, high=jokers)
        copies, opening = {**copies, **first}, {**opening, **first_open}
        must_open = False
    if rules.retrieved_joker.value == "reuse_now":
        # each exchange lays its released jokers in melds of its own (the engine's exchange move carries them)
        for q, count in swaps:
            own, _, fill = _add_melds(m, rules, held, jokers + table_jokers, sums)
            m.row({**fill, q: -count}, low=0)
            m.row({**own, q: -64}, high=0)
    for f in range(52):
        if face_use[f]:
            m.row(face_use[f], high=held[f])
    # jokers placed <= jokers in hand + released
    row = dict(joker_fill)
    for k, v in released.items():
        _add(row, k, -v)
    m.row(row, high=jokers)
    laid_cards: dict = dict(joker_fill)
    for f in range(52):
        for k, v in face_use[f].items():
            _add(laid_cards, k, v)
    m.row(laid_cards, low=1)
    kept = dict(laid_cards)  # cards laid less jokers released: what leaves the hand
    for k, v in released.items():
        _add(kept, k, -v)
    m.row(kept, high=n_cards - keep)
    if must_open:
        m.row(copies, low=1)
        m.row(opening, low=threshold)
    elif threshold_with_melds and threshold > 0:
        has = m.var(1)  # new melds laid
        m.row({**{k: 1 for k in copies}, has: -1000}, high=0)
        m.row({**opening, has: -threshold}, low=0)
    if must_use is not None:
        m.row(meld_jokers if must_use == JOKER else face_use[must_use], low=1)
    if taken is not None and must_use is None:
        _taken_rows(m, held, taken, face_use, joker_fill, released, laid_cards, n_cards)
    value = dict(laid_value)
    for k, v in released.items():
        _add(value, k, -v * jv)
    for k, v in value.items():
        m.cost[k] -= v
    x = m.solve()
    if x is None:
        return None
    total = sum(v * x[k] for k, v in value.items())
    return rules.hand_value(hand) - int(total)


def _taken_rows(m: _Model, held, taken, face_use, joker_fill, released, laid_cards, n_cards) -> None:
    """The taken card, if not laid, is not all that is left (unless nothing is left)."""
    big = n_cards + 8
    w1, w2 = m.var(1), m.var(1)  # a copy of the taken card laid; the hand emptied
    laid_taken = face_use[taken] if taken != JOKER else joker_fill
    m.row({**laid_taken, w1: -1}, low=0)
    gone = dict(laid_cards)
    for k, v in released.items():
        _add(gone, k, -v)
    m.row({**gone, w2: -n_cards}, low=0)
    # the others laid <= the others held - 1 (+ big when w1 or w2)
    others = n_cards - held[taken]
    row: dict = {}
    for k, v in laid_cards.items():
        _add(row, k, v)
    for k, v in laid_taken.items():
        _add(row, k, -v)
    if taken != JOKER:
        for k, v in released.items():
            _add(row, k, -v)  # released jokers are others too
    _add(row, w1, -big)
    _add(row, w2, -big)
    m.row(row, high=others - 1)
