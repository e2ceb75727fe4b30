"""Kaluki's lay-down answers from the compiled search: :func:`arrangements` and
:func:`best_play` give what :mod:`carousel_env.games.kaluki.solver`'s functions of those names
give (the same layouts and plays, in the same order), several times faster.

The new melds' readings and pieces (:mod:`carousel_env.games.kaluki.kernel_readings`), the
table's pieces (:mod:`carousel_env.games.kaluki.kernel_table`) and the search
(:mod:`carousel_env.games.kaluki.kernel_search`) are compiled; this module asks them and turns
their layouts into the solver's plays. A layout that the solver checks against the engine's
order of moves (an exchange in a play that opens, or under ``reuse_now``; a hand emptied that
holds the card taken from the pile) is checked here the same way, with the engine, and where
some fail the search is asked for more (up to ``MAX_ASK``). ``compiled_arrangements`` and
``compiled_best_play`` return None where the compiled search does not answer (a hand of more
than ``MAX_KINDS`` natural kinds, a search past its budget of steps, no ``limit``), and
:func:`arrangements` and :func:`best_play` ask the solver then.
``tests/games/kaluki/test_kaluki_kernel_solver.py`` holds both answers equal on random, dense,
table and played positions.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from numba import njit

from carousel_env.core import compiled
from carousel_env.core.cards import JOKER, NUM_CARDS, Card
from carousel_env.games.kaluki import kernel_leaves as kl
from carousel_env.games.kaluki import kernel_readings as kr
from carousel_env.games.kaluki import kernel_search as ks
from carousel_env.games.kaluki import kernel_table as kt
from carousel_env.games.kaluki import solver
from carousel_env.games.kaluki import solver_pieces as sp
from carousel_env.games.kaluki import solver_search as ss
from carousel_env.games.kaluki.melds import End, Meld, MeldKind
from carousel_env.games.kaluki.rules import HIGH_ACE, LOW_ACE, RUN_MAX, KalukiRules, SetJokerRelease
from carousel_env.games.kaluki.solver import Layout, Play, play_moves
from carousel_env.games.kaluki.state import NO_CARD, KalukiState, Phase

compiled.name_entry_points(
    __name__,
    {
        "lay_down": ("Kaluki's compiled lay-down search", 60),
        "may_lay": ("Kaluki's lay-down search's first check", 10),
        "search_each": ("Kaluki's compiled lay-down search, in a loop for timing", 60),
    },
)

NODE_BUDGET = 500_000  # search steps (about 0.4 s at most) before the solver is asked instead
SORT_STRIDE = 4096  # above any piece's value: pieces sort by lowest kind, then the most laid first
MAX_ASK = 256  # layouts asked of one search while the engine cannot make some (more: the solver answers)
MAX_KINDS = ks.MAX_KINDS
SET_RELEASES = tuple(SetJokerRelease)  # kernel_table's DECLARED, EITHER_MISSING, ALL_MISSING
NO_MELDS = np.zeros((0, kt.MELD_WIDTH), np.int64)
NO_LAYOUTS = (None, None, 0, None, None, 0)  # _solve's answer where :func:`may_lay` proves there is none


@njit(cache=True)
def lay_down(counts, kinds, pos, pb, meld_jokers, rules, card_value, table, node_budget):
    """The compiled answer: the new melds' readings (with up to ``meld_jokers`` jokers each), the
    ``table``'s pieces (its melds as rows, the hand's counts by card, whether exchanges are
    searched), the search's best layouts and totals, and each sorted piece's place before
    sorting (the table's after the new melds')."""
    ace_low, ace_high, release_rule = rules
    melds_rows, held, swaps = table
    out = kr.reading_buffers(kr.READINGS_CAPACITY)
    count = kr.readings(out, pos, meld_jokers, ace_low, ace_high, card_value)
    if count > kr.READINGS_CAPACITY:  # a hand with many jokers: write them again, all of them
        out = kr.reading_buffers(count)
        kr.readings(out, pos, meld_jokers, ace_low, ace_high, card_value)
    melds, readings, entries = kr.meld_pieces(out, count, card_value, pb[kl.JOKER_VALUE], kinds)
    found, extra, nslots, slot_count = kt.table_pieces(
        melds_rows, held, pos, pb[kl.HAND_JOKERS], meld_jokers, swaps, ace_low, ace_high, release_rule, card_value,
        pb[kl.JOKER_VALUE],
    )  # fmt: skip
    table_pieces, fixed_rows, ops, where, joker_slots = found
    groups = melds[kr.MELD_NEED].shape[0]
    total = groups + extra
    lowest = np.zeros(total, np.int64)
    lowest[:groups] = melds[kr.MELD_LOWEST]
    for i in range(extra):  # a table piece's lowest kind: its lowest bit
        need = table_pieces[kl.NEED][i]
        q = 0
        while not need >> q & 1:
            q += 1
        lowest[groups + i] = q
    none = np.full(groups, -1, np.int64)
    zero = np.zeros(groups, np.int64)
    merged = (
        np.concatenate((melds[kr.MELD_NEED], table_pieces[kl.NEED][:extra])),
        np.concatenate((melds[kr.MELD_JOKERS], table_pieces[kl.JOKERS_IN][:extra])),
        np.concatenate((zero, table_pieces[kl.JOKERS_OUT][:extra])),
        np.concatenate((melds[kr.MELD_VALUE], table_pieces[kl.VALUE][:extra])),
        np.concatenate((melds[kr.MELD_OPEN], table_pieces[kl.OPEN][:extra])),
        np.concatenate((melds[kr.MELD_CARDS], table_pieces[kl.CARDS][:extra])),
        np.concatenate((melds[kr.MELD_READING_START], table_pieces[kl.READING_START][:extra])),
        np.concatenate((melds[kr.MELD_READING_COUNT], table_pieces[kl.READING_COUNT][:extra])),
        np.concatenate((none, table_pieces[kl.SLOT][:extra])),
        np.concatenate((none, table_pieces[kl.RUN][:extra])),
        np.concatenate((zero, table_pieces[kl.ADDED][:extra])),
    )
    # By lowest kind, the most laid first, else in the solver's order (its ``_by_first``).
    order = np.argsort(lowest * SORT_STRIDE - merged[kl.VALUE], kind="mergesort")
    pieces = (
        merged[0][order], merged[1][order], merged[2][order], merged[3][order], merged[4][order],
        merged[5][order], merged[6][order], merged[7][order], merged[8][order], merged[9][order],
        merged[10][order],
    )  # fmt: skip
    fixed = np.full((total, kr.ENTRY_WIDTH), -1, np.int64)
    for k in range(total):
        if order[k] >= groups:
            fixed[k] = fixed_rows[order[k] - groups]
    start = np.zeros(kinds.shape[0] + 1, np.int64)
    for k in range(total):
        start[lowest[k] + 1] += 1
    for q in range(kinds.shape[0]):
        start[q + 1] += start[q]
    js_slot, js_run, js_most, js_entries, js_ops = joker_slots
    run_room = RUN_MAX - melds_rows[:, kt.SIZE]
    slots = (np.zeros(slot_count, np.bool_), np.zeros(run_room.shape[0], np.int64), run_room, js_slot[:nslots],
             js_run[:nslots], js_most[:nslots], js_entries[:nslots])  # fmt: skip
    best, st = ks.search(
        counts,
        pb,
        pieces,
        start,
        readings[kr.READING_VALUE],
        readings[kr.READING_JOKERS],
        entries,
        fixed,
        slots,
        node_budget,
    )
    return readings, best, st, order - groups, (ops, where, js_entries, js_ops)


@njit(cache=True)
def _in_some_meld(card: int, held, jokers: int, ace_low: bool, ace_high: bool) -> bool:
    """Whether natural ``card`` could be in a meld of the hand's cards (``held``: copies of each)
    with at most ``jokers`` jokers: a set needs two more suits of its rank, a run two more cells
    of its suit beside it, a joker standing in for either."""
    if jokers >= 2:
        return True
    suit = card % 4
    suits = 0
    for other in range(4):
        suits += other != suit and held[(card & ~3) + other] > 0
    if suits + jokers >= 2:
        return True
    low_cell = LOW_ACE if ace_low else LOW_ACE + 1
    high_cell = HIGH_ACE if ace_high else HIGH_ACE - 1
    rank = card // 4 + 1
    for cell in (LOW_ACE if rank == 1 else rank, HIGH_ACE if rank == 1 else rank):
        if cell < low_cell or cell > high_cell:
            continue
        near = np.zeros(5, np.bool_)  # cells cell-2 .. cell+2 held
        for d in (-2, -1, 1, 2):
            if low_cell <= cell + d <= high_cell:
                near[d + 2] = held[kr.cell_card(suit, cell + d)] > 0
        if jokers == 1 and (near[0] or near[1] or near[3] or near[4]):
            return True
        if (near[0] and near[1]) or (near[1] and near[3]) or (near[3] and near[4]):
            return True
    return False


@njit(cache=True)
def may_lay(held, kinds, pb, rules, card_value, rows, meld_jokers: int) -> bool:
    """False where no layout can answer ``pb``, proved without the search (the readings and the
    table's pieces cost more than the search in most questions, and many have no answer):

    * the card a play must lay (a take's: its melds hold the hand's own jokers) is in no meld of
      the hand (:func:`_in_some_meld`);
    * a player who must open cannot reach the opening, counting every natural that some meld of
      the hand could hold at its card's value and each of the hand's jokers as the highest card
      (an opening's jokers come from the hand);
    * a player who need not open has nothing to lay: no natural in a meld of the hand or fitting
      a meld on the table (``rows``), no joker the hand could win there (``meld_jokers``, the
      hand's and those, as :func:`lay_down` takes it: ``solver.winnable_jokers``), no joker in
      hand or no room for one on the table.

    ``rules``: (ace_low, ace_high, set joker release), as :func:`lay_down` takes them."""
    ace_low, ace_high, _ = rules
    jokers = pb[kl.HAND_JOKERS]
    must = pb[kl.MUST_USE]
    if must >= 0 and not _in_some_meld(kinds[must], held, jokers, ace_low, ace_high):
        return False
    if pb[kl.MUST_OPEN] and pb[kl.THRESHOLD] > 0:
        most = 0
        for card in range(NUM_CARDS):
            most = max(most, card_value[card])
        most *= jokers
        for card in kinds:
            if _in_some_meld(card, held, jokers, ace_low, ace_high):
                most += held[card] * card_value[card]
        return most >= pb[kl.THRESHOLD]
    if must >= 0:
        return True  # a take's meld: the card it lays is in one
    if meld_jokers > jokers:
        return True  # an exchange
    fits = np.zeros(JOKER + 1, np.bool_)
    if kt.table_fits(rows, rows.shape[0], ace_low, ace_high, fits) and jokers:
        return True  # a joker laid off
    for card in kinds:  # noqa: SIM110 (numba compiles loops, not generators)
        if fits[card] or _in_some_meld(card, held, jokers, ace_low, ace_high):
            return True
    return False


@njit(cache=True)
def search_each(questions) -> int:
    """:func:`lay_down` on each of ``questions`` (its arguments, a typed list of tuples) in one
    compiled loop, as a compiled kernel asks it: what the search's own work costs, for
    benchmarks (``benchmarks/bench_kaluki.py --speed``). Returns the layouts found in all."""
    found = 0
    for q in questions:
        found += lay_down(q[0], q[1], q[2], q[3], q[4], q[5], q[6], q[7], q[8])[2][kl.FOUND]
    return found


@lru_cache(maxsize=16)
def card_values(rules: KalukiRules) -> np.ndarray:
    """Each card's hand value under ``rules`` (the joker last), as the kernel reads it."""
    values = np.array([rules.card_value(c) for c in range(JOKER + 1)], np.int64)
    values.flags.writeable = False  # shared by every solve under these rules
    return values


class _Hand:
    """What the kernel reads of a hand: its natural kinds, their positions and counts."""

    def __init__(self, hand, rules: KalukiRules) -> None:
        self.h = sp.Hand(hand, rules)
        self.kinds = np.array(self.h.kinds, np.int64)
        self.pos = np.full(NUM_CARDS, -1, np.int64)
        self.pos[self.kinds] = np.arange(len(self.kinds))
        self.counts = np.array([self.h.held[c] for c in self.h.kinds], np.int64)
        self.held = np.zeros(JOKER + 1, np.int64)  # copies of each card
        for card, copies in self.h.held.items():
            self.held[card] = copies

    def problem(self, hand, rules: KalukiRules, taken: Card | None, limit: int) -> np.ndarray:
        pb = np.zeros(kl.PROBLEM_SIZE, np.int64)
        pb[kl.HAND_VALUE] = rules.hand_value(hand)
        pb[kl.HAND_JOKERS] = self.h.jokers
        pb[kl.HAND_CARDS] = len(hand)
        pb[kl.HAND_NATURALS] = len(hand) - self.h.jokers
        pb[kl.LIMIT] = pb[kl.WAYS] = limit
        pb[kl.JOKER_VALUE] = rules.joker_value
        pb[kl.TAKEN] = self.position(taken)
        pb[kl.TAKEN_COPIES] = self.h.held[taken] if pb[kl.TAKEN] >= 0 else 0
        return pb

    def position(self, card: Card | None) -> int:
        """A kind's position for the search: -1 none, -2 the joker (the solver's ``_position_of``)."""
        if card is None or card == NO_CARD:
            return -1
        return -2 if card == JOKER else int(self.pos[card])


def _meld(readings: tuple, r: int) -> Meld:
    kind, low, units, sizes = (
        readings[f] for f in (kr.READING_KIND, kr.READING_LOW, kr.READING_UNITS, kr.READING_SIZE)
    )
    laid = tuple(int(u) for u in units[r, : sizes[r]])
    if kind[r] == kr.RUN_ENTRY:
        return Meld(MeldKind.RUN, laid, int(low[r]))
    return Meld(MeldKind.SET, laid)


def _solve(hand: _Hand, pb, meld_jokers: int, rules: KalukiRules, table, node_budget: int):
    """The compiled answer (:func:`lay_down`): readings, best layouts, how many, the pieces'
    places and the table's operations; None where the search stopped."""
    search_rules = (rules.ace_low_runs, rules.ace_high_runs, SET_RELEASES.index(rules.set_joker_release))
    values = card_values(rules)
    if not compiled.first_call(may_lay, hand.held, hand.kinds, pb, search_rules, values, table[0], meld_jokers):
        return NO_LAYOUTS
    try:
        readings, best, st, order, table_ops = compiled.first_call(
            lay_down, hand.counts, hand.kinds, hand.pos, pb, meld_jokers,
            search_rules, values, table, node_budget,
        )  # fmt: skip
    except kt.SetOverflow:
        return None
    return None if st[kl.STOP] else (readings, best, int(st[kl.FOUND]), order, table_ops, int(st[kl.STEPS]))


def compiled_arrangements(
    hand,
    rules: KalukiRules,
    *,
    threshold: int,
    must_use: Card | None = None,
    keep: int = 0,
    limit: int | None = None,
    taken: Card | None = None,
    node_budget: int = NODE_BUDGET,
) -> list[Layout] | None:
    """:func:`carousel_env.games.kaluki.solver.arrangements`, compiled; None where the compiled
    search does not answer (the module docstring)."""
    solver.check_limit(limit)
    if limit == 0:
        return []
    h = _Hand(hand, rules)
    if limit is None or len(h.kinds) > MAX_KINDS or len(hand) > kl.MAX_ENTRIES:
        return None
    if must_use is not None and not h.h.held[must_use]:
        return []
    pb = h.problem(hand, rules, taken, limit)
    pb[kl.KEEP], pb[kl.MUST_OPEN], pb[kl.THRESHOLD], pb[kl.WITH_MELDS] = keep, 1, threshold, 1
    pb[kl.MUST_USE] = h.position(must_use)
    answer = _solve(h, pb, h.h.jokers, rules, (NO_MELDS, h.held, False), node_budget)
    if answer is None:
        return None
    readings, best, found = answer[:3]
    layouts = []
    for i in range(found):
        melds = tuple(_meld(readings, int(r)) for r in best[kl.BEST_READINGS][i] if r >= 0)
        left, opening, jokers = (int(best[f][i]) for f in (kl.BEST_LEFT, kl.BEST_OPEN, kl.BEST_JOKERS))
        layouts.append(Layout(melds, left, opening, jokers))
    return layouts


def table_rows(state: KalukiState) -> np.ndarray:
    """The melds on the table as the kernel's rows (kernel_table.MELD_COLUMNS), seat by seat."""
    rows = [
        (seat, index, kt.RUN_KIND if meld.kind is MeldKind.RUN else kt.SET_KIND, meld.low, len(meld.units), *meld.units)
        + (-1,) * (RUN_MAX - len(meld.units))
        for seat in range(state.num_players)
        for index, meld in enumerate(state.melds[seat])
    ]
    return np.array(rows, np.int64).reshape(len(rows), kt.MELD_WIDTH)


def _ops(rows: np.ndarray) -> tuple:
    """The solver's operations of a table piece from the kernel's rows (kernel_table.OP_COLUMNS)."""
    ops = []
    for kind, unit, end, cards in rows:
        if kind < 0:
            break
        if kind == kt.OP_SWAP:
            rank_base = int(unit) & ~3
            ops.append(("swap", int(unit), tuple(rank_base + s for s in range(4) if cards >> s & 1)))
        else:
            ops.append((int(unit), None if end < 0 else End(int(end))))
    return tuple(ops)


def compiled_best_play(
    state: KalukiState, limit: int | None = 8, *, node_budget: int = NODE_BUDGET
) -> list[Play] | None:
    """:func:`carousel_env.games.kaluki.solver.best_play`, compiled; None where the compiled
    search does not answer (the module docstring)."""
    solver.check_limit(limit)
    if state.phase is not Phase.PLAY or limit == 0:
        return []
    if limit is None:
        return None
    question = _play_question(state, limit)
    if question is None:
        return None
    h, pb, jokers, table = question
    rules = state.rules
    ask = limit
    while True:  # more layouts while some the engine cannot make leave fewer than ``limit``
        pb[kl.LIMIT] = ask
        answer = _solve(h, pb, jokers, rules, table, node_budget)
        if answer is None:
            return None
        readings, best, found, order, table_ops, steps = answer
        node_budget -= steps  # one budget for every search of the question
        plays = []
        for i in range(found):
            play = _play(state, readings, best, i, order, table_ops)
            if play is not None:
                plays.append(play)
            if len(plays) == limit:
                return plays
        if found < ask:  # every layout there is was seen
            return plays
        ask *= 2
        if ask > MAX_ASK:
            return None


def _play_question(state: KalukiState, limit: int):
    """What the compiled search is asked for the plays of the player to act: the hand, the
    problem, the jokers a new meld may hold and the table; None where it is not asked."""
    rules = state.rules
    hand = state.hands[state.current]
    h = _Hand(hand, rules)
    if len(h.kinds) > MAX_KINDS:
        return None
    terms = solver.play_terms(state)
    if len(hand) + terms.table_jokers > kl.MAX_ENTRIES:  # more entries than a layout holds
        return None
    opened = terms.opened
    pb = h.problem(hand, rules, state.taken, limit)
    pb[kl.KEEP] = 1 if rules.go_out_by_discard else 0
    pb[kl.MUST_OPEN] = not opened and not terms.free
    pb[kl.THRESHOLD] = 0 if opened else rules.opening
    pb[kl.WITH_MELDS] = not opened
    pb[kl.MUST_USE] = -1
    pb[kl.REUSE_NOW] = terms.reuse_now
    pb[kl.RISKY_RELEASE] = terms.risky_release
    pb[kl.RISKY_EMPTY] = state.taken != NO_CARD
    pb[kl.OPENS_NOW] = not opened
    return h, pb, h.h.jokers + terms.table_jokers, (table_rows(state), h.held, terms.swaps)


def play_at(state: KalukiState, limit: int, index: int) -> Play:
    """Play ``index`` of :func:`best_play`'s answer (``limit``), built alone where no layout up
    to it is checked against the engine's order of moves (then play ``index`` is the search's
    layout ``index``: the vector kernel's offers are such), else taken from the whole answer."""
    question = _play_question(state, limit) if state.phase is Phase.PLAY else None
    if question is not None:
        h, pb, jokers, table = question
        pb[kl.LIMIT] = limit
        answer = _solve(h, pb, jokers, state.rules, table, NODE_BUDGET)
        if answer is not None:
            readings, best, found, order, table_ops, _ = answer
            if index < found and not best[kl.BEST_RISKY][: index + 1].any():
                return _play(state, readings, best, index, order, table_ops)
    return best_play(state, limit)[index]


def _play(state: KalukiState, readings, best, i: int, order, table_ops) -> Play | None:
    """Layout ``i`` of the compiled answer as the solver's play; None where the engine's order
    of moves cannot make a risky one (the solver's ``check``)."""
    ops, where, js_entries, js_ops = table_ops
    pairs = []
    for k in best[kl.BEST_PIECES][i][: best[kl.BEST_PIECES_N][i]]:
        t = int(order[k])
        if t >= 0:  # a table piece: where it is and what it does, as the solver's moves read them
            slot = (int(where[t, 0]), int(where[t, 1]))
            pairs.append((ss.Piece(0, (), 0, 0, 0, 0, 0, slot, None, 0, ((None, _ops(ops[t])),)), None))
    melds = tuple(_meld(readings, int(r)) for r in best[kl.BEST_READINGS][i] if r >= 0)
    pairs += [(None, (None, m, None)) for m in melds]
    extra = []
    for x in best[kl.BEST_EXTRA][i][: best[kl.BEST_EXTRA_N][i]]:
        j, d = divmod(int(x), kl.PLACES)
        entry = (None, None, int(js_entries[j, d, 2]), int(js_entries[j, d, 3]))
        extra.append((entry, _ops(js_ops[j, d : d + 1])[0]))
    left, jokers, opening, released = (
        int(best[f][i]) for f in (kl.BEST_LEFT, kl.BEST_JOKERS, kl.BEST_OPEN, kl.BEST_RELEASED)
    )
    found_play = ss.Found((left, jokers), tuple(pairs), tuple(extra), opening, released)
    moves = play_moves(state, found_play, verify=bool(best[kl.BEST_RISKY][i]))
    return None if moves is None else Play(melds, moves, left, opening, jokers, released)


def compile_ahead() -> None:
    """Compile (or load from numba's cache) the search as the envs' first question would: for a
    trainer before it starts workers (the vector env's kernel holds its own copy of the search)."""
    compiled_arrangements((0, 4, 8), KalukiRules(), threshold=0, limit=1)


def arrangements(hand, rules: KalukiRules, *, time_budget_s: float = solver.TIME_BUDGET_S, **question) -> list[Layout]:
    """:func:`carousel_env.games.kaluki.solver.arrangements`' answer, from the compiled search
    where it answers, else from the solver (with ``time_budget_s``)."""
    found = compiled_arrangements(hand, rules, **question)
    if found is None:
        return solver.arrangements(hand, rules, time_budget_s=time_budget_s, **question)
    return found


def best_play(state: KalukiState, limit: int | None = 8, *, time_budget_s: float = solver.TIME_BUDGET_S) -> list[Play]:
    """:func:`carousel_env.games.kaluki.solver.best_play`'s answer, from the compiled search
    where it answers, else from the solver (with ``time_budget_s``)."""
    found = compiled_best_play(state, limit)
    return solver.best_play(state, limit, time_budget_s=time_budget_s) if found is None else found
