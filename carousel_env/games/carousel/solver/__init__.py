"""The exact play solver: the best legal plays of a position.

``solve(table, hand, rules, k)`` returns the exact maximum points shed (a hand joker
counts 25) and the exact maximum number of cards over every play that
:func:`carousel_env.games.carousel.engine.manipulation.check_play` accepts, plus up to ``k`` distinct suggested
plays; ``has_play`` only answers whether any legal play exists. Both first refuse a
position no game could reach (``carousel_env.games.carousel.engine.positions``: a broken meld, too many
copies of a card, a joker the deck does not have) with ``ImpossiblePosition``; the
environment, whose positions the engine built, skips that with ``check_position=False``.

How (see the modules, all compiled with numba):

* ``prepare`` reduces the position to per-card counts laid out per cell (run position,
  suit): a ``Layout``, whose ``Cells`` every sweep and search walks;
* ``states`` keys a state (open-run counts per suit, jokers placed, units sent to sets)
  in one int64 and lists its transitions from one cell to the next;
* ``sweep`` walks the cells with them, keeping every reachable state, for the exact optima
  and, per slot of its DAG, the best future values; ``lanes`` carries the aces set aside
  for a run Q-K-A beside the key while it does;
* ``entries`` computes the best points per (cards, hand jokers) entry a slot may pick, and
  traces each picked entry's choices back to the first cell;
* ``build`` rebuilds a table from those choices; ``answer`` picks the slots and packs the
  suggestions into one array;
* ``witness``: on crowded tables, where the sweeps grow large, one legal table for each
  best play's upper bound proves it (``witness.search`` finds them, with no hand joker
  also the best play of a size by branch and bound; ``witness.settle`` settles every
  entry the slots need);
* ``pipeline`` runs all of it but the witnesses in one compiled call (``solve_packed``);
  ``witness.witnessed`` is the witnesses' own compiled call, made only on crowded tables, so
  that a first solve compiles only the first (see ``carousel_env.core.compiled`` for what a cold start says);
* ``milp``: when the sweeps give up (past ``FULL_SWEEP_STATES`` states, or a pass that
  would keep more than ``MEMORY_CAP_BYTES`` of arrays), one integer program per slot,
  solved by HiGHS (scipy) to a proven optimum within the solve's time budget.

Bounded time: no solve runs much past ``time_budget`` (default ``TIME_BUDGET_S``). The
sweeps and witnesses before the programs are bounded by their state budgets; the programs
get the time left (each at least ``milp.MIN_PROGRAM_SECONDS``). A program that runs out
of time gives the best play it found and the slots after it are left out: the answer is
then not exact (``SolveResult.exact`` False, ``solve_counts().inexact`` counts it). On the
positions the shipped agents reach, none is (benchmarks/RESULTS.md).

Nothing is cached between calls (``core.compiled`` only keeps numba's compiled code in step with
these sources); ``solve_counts`` counts, per process, the solves the programs answered and
those not proven exact.

Suggestion slots (distinct multisets of played cards; a slot that does not exist or
repeats an earlier play is skipped, so the list is compact):

0. ``max_points``: most points; ties: more cards, then fewer hand jokers.
1. ``max_cards``: most cards; ties: more points, then fewer hand jokers.
2. ``keep_jokers``: most points using no hand joker; ties: more cards.
3. ``knock``: when ``rules.knock_limit`` is not None, the fewest cards whose play leaves a
   hand worth <= the limit; ties: more points, then fewer hand jokers.
4. ``size_n`` for n = (max cards - 1) down to max(1, max cards - k): most points with
   exactly n cards; ties: fewer hand jokers.

Among plays with the same cards count, jokers count and points, the one returned is fixed
by the DP's deterministic order (same input, same play); a solve answered by the integer
programs may return another play of the same entry, its runs cut into pieces of 3 to 5.

Joker declarations on the new table: a table joker keeps its declaration unless a real copy
of it is on the new table (then the solver may release it: it releases as many as the rule
allows, which is never worse); a joker placed in a run declares the
card it fills; a joker placed in a set declares the missing suit whose real card has the
fewest copies on the new table (ties C, D, H, S), so that it stays easy to release. The
new table is in ``carousel_env.games.carousel.engine.melds.canonical_table`` order.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from carousel_env.core import compiled
from carousel_env.core.cards import JOKER, Hand, Table, face, hand_str, joker_as, make_card, rank_of, suit_of
from carousel_env.games.carousel.engine import positions
from carousel_env.games.carousel.engine.manipulation import Play
from carousel_env.games.carousel.engine.melds import is_valid_meld
from carousel_env.games.carousel.engine.rules import Rules, carousel
from carousel_env.games.carousel.solver import answer, milp, pipeline, witness

__all__ = [
    "TIME_BUDGET_S",
    "SolveCounts",
    "SolveResult",
    "Suggestion",
    "compile_ahead",
    "has_play",
    "solve",
    "solve_counts",
]

# The sources of the solver's compiled code: this package, and the card constants it embeds.
SOURCES = (*sorted(Path(__file__).resolve().parent.rglob("*.py")), compiled.PACKAGE / "core" / "cards.py")
# Its entry points, and how long each first compile may take on a 2-core CPU when it is the
# first thing compiled (benchmarks/bench_cold_start.py). ``witnessed`` is compiled only when a
# sweep first grows large (a crowded table), ``pack_suggestion`` only when the integer
# programs first answer a position the sweeps gave up on.
compiled.name_entry_points(
    pipeline.__name__, {"solve_packed": ("the solver", 20), "has_play_packed": ("the solver's play check", 10)}
)
compiled.name_entry_points(
    witness.witnessed.__module__, {"witnessed": ("the solver's witness search (for crowded tables)", 15)}
)
compiled.name_entry_points(
    answer.__name__, {"pack_suggestion": ("the solver's answer packing (for the heaviest positions)", 3)}
)
compiled.drop_stale_cache(Path(__file__).resolve().parent / "__pycache__", SOURCES)  # before any first call


@dataclass(frozen=True, repr=False)
class Suggestion:
    """A play the solver offers, with what it scores (printed in card notation)."""

    play: Play
    points: int
    cards: int
    jokers_used: int
    hand_after: Hand
    hand_after_points: int
    reason: str

    def __repr__(self) -> str:
        return (
            f"Suggestion(play={self.play!r}, points={self.points}, cards={self.cards}, "
            f"jokers_used={self.jokers_used}, hand_after={hand_str(self.hand_after)!r}, "
            f"hand_after_points={self.hand_after_points}, reason={self.reason!r})"
        )


@dataclass(frozen=True)
class SolveResult:
    best_points: int | None
    best_cards: int | None
    suggestions: tuple[Suggestion, ...]
    exact: bool = True  # False: the time budget ran out (see the module docstring)


@dataclass(frozen=True)
class SolveCounts:
    """Solves of this process: those the integer programs answered (``milp``) and those
    whose answer is not proven exact (the time budget ran out)."""

    programs: int = 0
    inexact: int = 0


_counts = SolveCounts()


def solve_counts() -> SolveCounts:
    """This process's :class:`SolveCounts` so far (the env and training report differences)."""
    return _counts


def _count(exact: bool) -> None:
    global _counts
    _counts = SolveCounts(_counts.programs + 1, _counts.inexact + (not exact))


def _suggestion(play, points, cards, jokers_used, hand_after, hand_after_points, reason) -> Suggestion:
    """``Suggestion(...)`` without the frozen dataclass's ``__init__``, which sets each field
    through ``object.__setattr__``: half the cost, for up to ``k`` suggestions per solve."""
    suggestion = object.__new__(Suggestion)
    suggestion.__dict__.update(
        play=play,
        points=points,
        cards=cards,
        jokers_used=jokers_used,
        hand_after=hand_after,
        hand_after_points=hand_after_points,
        reason=reason,
    )
    return suggestion


_NONE = SolveResult(None, None, ())
# States of the unpruned sweep before ``solve`` hands the position to the integer programs
# (``milp``). The budget bounds the sweep's time and memory; past it (hoarded hands of 25 to
# 46 cards on crowded tables) the programs are far faster than the sweeps' pruned passes
# and branch and bound were (the figures: benchmarks/RESULTS.md, 2026-11-25).
FULL_SWEEP_STATES = 500_000
# States of the unpruned sweep before ``solve`` first tries witnesses (``witness``): one
# legal table for each best play that meets its upper bound, found depth first (with no
# hand joker, a branch and bound search for the sizes whose dearest cards have none),
# which settles most crowded positions in far less time than the sweeps; at most
# ``WITNESS_BUDGET`` expanded states in all (0: the sweeps alone). Then sweep and
# witnesses take turns, each round allowed ``WITNESS_GROWTH`` times the last's states and
# expanded states (``witness_rounds``), while a round's witnesses are allowed at most
# ``WITNESS_MOST``: a light position never pays for a long search, nor a heavy one that
# witnesses settle for a long sweep. A position that neither settles early pays for the
# rounds (about 10,000 states and 18,000 expanded states) before its full sweep.
WITNESS_AFTER_STATES = 1_000
WITNESS_BUDGET = 2_000
WITNESS_MOST = 16_000
WITNESS_GROWTH = 8  # a sweep that passes its states is thrown away and the next starts over
# States of a solve's first sweep before it hands over to the witness rounds.
FIRST_SWEEP_LEVEL = min(WITNESS_AFTER_STATES, FULL_SWEEP_STATES) if WITNESS_BUDGET > 0 else FULL_SWEEP_STATES
# The memory one solve's sweeps may take: every pass checks, before it grows or makes an
# array, that its arrays stay within it (``sweep.STATE_BYTES`` and the rest per row); a pass
# that would pass it gives up, and the integer programs answer (a few MiB).
MEMORY_CAP_BYTES = 512 << 20
# The time one solve may take, in seconds, before it answers with the best it has found
# (see the module docstring): the env's ``solve_time_budget`` setting by default.
TIME_BUDGET_S = 1.0


def _budget_clock() -> tuple[float, float]:
    """Now, and the seconds spent in first calls so far: what :func:`_spent` starts from."""
    return time.perf_counter(), compiled.first_call_seconds()


def _spent(clock: tuple[float, float]) -> float:
    """Seconds since ``clock`` that count against a time budget: a first call's compile (on
    a cold cache) does not."""
    start, first_calls = clock
    return time.perf_counter() - start - (compiled.first_call_seconds() - first_calls)


def answer_by_programs(
    units: np.ndarray, hand_cards: np.ndarray, ace_low: bool, ace_high: bool, k: int, limit: int, seconds: float
) -> answer.PackedAnswer:
    """The packed answer of a position the sweeps gave up on: ``milp.solve_by_programs``,
    counted in :func:`solve_counts`."""
    found = milp.solve_by_programs(units, hand_cards, ace_low, ace_high, k, limit, seconds)
    _count(found.exact)
    return found


def witness_rounds(
    units: np.ndarray, hand_cards: np.ndarray, ace_low: bool, ace_high: bool, k: int, limit: int, seconds: float
) -> answer.PackedAnswer:
    """The packed answer of a position whose first sweep passed ``WITNESS_AFTER_STATES``
    states: witnesses, then sweeps and witnesses in turns, each round allowed
    ``WITNESS_GROWTH`` times the last's states and expanded states, until the sweep
    finishes, witnesses settle the position, some entry proves to have no witness, or the
    rounds reach ``WITNESS_MOST``; then one sweep of up to ``FULL_SWEEP_STATES``, and past
    it the integer programs, with what is left of ``seconds``."""
    clock = _budget_clock()
    low, high, budget, tries = ace_low, ace_high, FULL_SWEEP_STATES, WITNESS_BUDGET
    level, cap = min(WITNESS_AFTER_STATES, budget), MEMORY_CAP_BYTES
    while True:
        settled = compiled.first_call(witness.witnessed, units, hand_cards, low, high, k, limit, tries)
        if settled.shape[0] > 1:
            return answer.PackedAnswer(settled, True)
        if settled[0] < 0 or level == 0 or tries * WITNESS_GROWTH > WITNESS_MOST:  # no further round
            level = budget
        else:
            level, tries = min(budget, level * WITNESS_GROWTH), tries * WITNESS_GROWTH
        packed = compiled.first_call(pipeline.solve_packed, units, hand_cards, low, high, k, limit, budget, level, cap)
        if packed.shape[0] == 1:  # the sweeps gave up
            left = seconds - _spent(clock)
            return answer_by_programs(units, hand_cards, low, high, k, limit, left)
        if packed.shape[0]:  # the sweep finished (or was the last): the answer
            return answer.PackedAnswer(packed, True)


# A position the witnesses settle at once (A-2-3 of clubs on the table, the 4 in hand): the
# first call of the solver and of its witness search, which compiles them or loads them.
_WARM_UNITS, _WARM_HAND = (0, 4, 8), (12,)


def _warm_args() -> tuple:
    units, hand = np.array(_WARM_UNITS, np.int64), np.array(_WARM_HAND, np.int64)
    return units, hand, True, False, 1, -1, WITNESS_BUDGET  # as witness_rounds types them


def witness_search_compiled() -> bool | None:
    """Whether the witness search is compiled, in this process or in numba's cache (None:
    numba cannot be asked, see ``compiled.compiled_in_cache``)."""
    return compiled.compiled_in_cache(witness.witnessed, _warm_args())


def compile_witness_search() -> None:
    """Compile the witness search (or load it from numba's cache), which a process otherwise
    compiles at its first crowded table, saying so as every first compile does; and the
    integer programs' answer packing, which it compiles at its first hoarded hand."""
    compiled.first_call(witness.witnessed, *_warm_args())
    units, hand = _warm_args()[:2]
    milp.solve_by_programs(units, hand, True, False, 1, -1, TIME_BUDGET_S)  # not counted: no game asked


def _first_solve() -> None:
    solve((_WARM_UNITS,), _WARM_HAND, carousel(2))


def compile_ahead(compile_here: Callable[[], object] = _first_solve) -> None:
    """Compile (or load from numba's cache) what a process that solves positions compiles on
    its way: ``compile_here`` (by default a first solve: the solver's entry point), then the
    witness search, which it would otherwise compile at its first crowded table, in the
    middle of a game. On a cold cache with two CPUs a second process compiles the witness
    search meanwhile (``compiled.compile_in_child``): the wait is the longer of the two, not
    their sum. For a program before its first game (the CLI's ``play`` and ``demo``, a
    trainer); ``env()`` does not call it, as an env that starts processes would surprise."""
    helper = None
    if witness_search_compiled() is False:
        helper = compiled.compile_in_child(compile_witness_search)
    try:
        compile_here()
        if helper is not None:
            helper.wait()
    finally:
        if helper is not None and helper.poll() is None:  # compile_here failed or was interrupted
            helper.kill()
            helper.wait()
    compile_witness_search()  # loads the helper's code (compiles here if it could not)


def _position_arrays(table: Table, hand: Hand) -> tuple[np.ndarray, np.ndarray]:
    return np.array([u for meld in table for u in meld], dtype=np.int64), np.array(hand, dtype=np.int64)


def solve(
    table: Table,
    hand: Hand,
    rules: Rules,
    k: int = 8,
    *,
    check_position: bool = True,
    time_budget: float = TIME_BUDGET_S,
) -> SolveResult:
    """Exact best points and cards, and up to ``k`` suggestions (see the module docstring),
    within ``time_budget`` seconds (past it: the best found, ``exact`` False).

    A position no game of ``rules`` could reach raises
    :class:`~carousel_env.games.carousel.engine.errors.ImpossiblePosition`; ``check_position=False`` skips
    that check, for positions the engine built (the environment's decisions)."""
    clock = _budget_clock()
    _check_time_budget(time_budget)
    if check_position:
        positions.check_position(table, hand, rules)
    if not hand:
        return _NONE
    limit = -1 if rules.knock_limit is None else rules.knock_limit
    units, hand_cards = _position_arrays(table, hand)
    # One compiled call answers most positions; an empty answer means that the sweep passed
    # WITNESS_AFTER_STATES states: the witness rounds (their own compiled entry point) follow.
    packed = compiled.first_call(
        pipeline.solve_packed,
        units,
        hand_cards,
        rules.ace_low,
        rules.ace_high,
        k,
        limit,
        FULL_SWEEP_STATES,
        FIRST_SWEEP_LEVEL,
        MEMORY_CAP_BYTES,
    )
    exact = True
    if packed.shape[0] <= 1:  # the witness rounds, or (the sweeps gave up) the programs
        rest = witness_rounds if not packed.shape[0] else answer_by_programs
        left = time_budget - _spent(clock)
        found = rest(units, hand_cards, rules.ace_low, rules.ace_high, k, limit, left)
        packed, exact = found.packed, found.exact
    packed = tuple(packed.tolist())  # slices of a tuple are tuples: no second copy per meld
    best_points, best_cards, count = packed[answer.BEST_POINTS], packed[answer.BEST_CARDS], packed[answer.COUNT]
    if best_cards < 0:
        return _NONE if exact else SolveResult(None, None, (), exact=False)
    suggestions = []
    at = answer.HEADER_SIZE
    for _ in range(count):
        slot, cards, jokers, points, after_points = (
            packed[at + answer.REC_SLOT],
            packed[at + answer.REC_CARDS],
            packed[at + answer.REC_JOKERS],
            packed[at + answer.REC_POINTS],
            packed[at + answer.REC_AFTER_POINTS],
        )
        at += answer.REC_LISTS
        added = packed[at + 1 : at + 1 + packed[at]]
        at += 1 + len(added)
        after = packed[at + 1 : at + 1 + packed[at]]
        at += 1 + len(after)
        nmelds = packed[at]
        lengths = packed[at + 1 : at + 1 + nmelds]
        at += 1 + nmelds
        melds = []
        for n in lengths:
            melds.append(packed[at : at + n])
            at += n
        reason = answer.SLOT_NAMES[slot] if slot < len(answer.SLOT_NAMES) else f"size_{cards}"
        play = Play.of_normalised(added, tuple(melds))  # added in card order, jokers last
        suggestions.append(_suggestion(play, points, cards, jokers, after, after_points, reason))
    return SolveResult(best_points, best_cards, tuple(suggestions), exact)


def _lays_off(table: Table, hand: Hand, rules: Rules) -> bool:
    """Whether one hand card (or a hand joker) can be added to one table meld as it stands.

    A cheap sufficient test (such a play is legal: every other meld and every declaration
    stays as it is); every candidate is confirmed by ``is_valid_meld``."""
    have = set(hand)
    joker = JOKER in have
    for meld in table:
        faces = [face(u) for u in meld]
        ranks = {rank_of(f) for f in faces}
        if len(ranks) == 1:
            if len(meld) != 3:
                continue
            rank = next(iter(ranks))
            present = {suit_of(f) for f in faces}
            candidates = [make_card(rank, s) for s in range(4) if s not in present]
        else:
            suit = suit_of(faces[0])
            candidates = [make_card(r, suit) for r in {r - 1 for r in ranks} | {r + 1 for r in ranks} if 1 <= r <= 13]
            candidates.append(make_card(1, suit))
        for c in candidates:
            if c in have and is_valid_meld((*meld, c), rules):
                return True
            if joker and is_valid_meld((*meld, joker_as(c)), rules):
                return True
    return False


def has_play(
    table: Table, hand: Hand, rules: Rules, *, check_position: bool = True, time_budget: float = TIME_BUDGET_S
) -> bool:
    """Whether any legal play exists (same answer as ``solve(...).best_cards is not None``).

    A hand card or joker that fits a table meld as it stands answers at once; otherwise the
    optima pass decides, or past the memory cap an integer program (within
    ``time_budget``: past it, False, counted as not exact in :func:`solve_counts`).
    Impossible positions raise as in :func:`solve`, unless ``check_position=False`` (the
    game's must-play hook, on positions the engine built)."""
    _check_time_budget(time_budget)
    if check_position:
        positions.check_position(table, hand, rules)
    if not hand:
        return False
    if _lays_off(table, hand, rules):
        return True
    units, hand_cards = _position_arrays(table, hand)
    low, high = rules.ace_low, rules.ace_high
    found = compiled.first_call(pipeline.has_play_packed, units, hand_cards, low, high, MEMORY_CAP_BYTES)
    if found == pipeline.GAVE_UP:
        outcome = milp.any_play(units, hand_cards, low, high, time_budget)
        _count(outcome.proven)
        return outcome.found is not None
    return bool(found)


def _check_time_budget(seconds: object) -> None:
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not seconds > 0:
        raise ValueError(f"time_budget must be a positive number of seconds, got {seconds!r}")


def can_play(table: Table, hand: Hand, rules: Rules) -> bool:
    """:func:`has_play` without the position check: the hook ``new_game(..., can_play=...)``
    takes for Manipulation Rummy's must-play rule, asked only on positions the engine built."""
    return has_play(table, hand, rules, check_position=False)
