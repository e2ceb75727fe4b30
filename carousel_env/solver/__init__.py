"""The exact play solver: the best legal plays of a position.

``solve(table, hand, rules, k)`` returns the exact maximum points shed (a hand joker
counts 25) and the exact maximum number of cards over every play that
:func:`carousel_env.engine.manipulation.check_play` accepts, plus up to ``k`` distinct suggested
plays; ``has_play`` only answers whether any legal play exists. Both first refuse a
position no game could reach (``carousel_env.engine.positions``: a broken meld, too many
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
  that a first solve compiles only the first (see ``_cache`` for what a cold start says);
* ``bounded``: when a pass would keep more than ``MEMORY_CAP_BYTES`` of arrays, it gives up
  and ``bounded.solve_bounded`` (a third compiled call) answers, exact, by branch and bound
  depth first, in the memory of its path and of a fixed number of proofs: no solve keeps
  more than ``MEMORY_CAP_BYTES`` of arrays, whatever the position.

Nothing is cached between calls (``_cache`` only keeps numba's compiled code in step with
these sources).

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
by the DP's deterministic order (same input, same play); a solve answered in bounded memory
may return another play of the same entry (its own order, as deterministic).

Joker declarations on the new table: a table joker keeps its declaration unless a real copy
of it is on the new table (then the solver may release it: it releases as many as the rule
allows, which is never worse); a joker placed in a run declares the
card it fills; a joker placed in a set declares the missing suit whose real card has the
fewest copies on the new table (ties C, D, H, S), so that it stays easy to release. The
new table is in ``carousel_env.engine.melds.canonical_table`` order.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from carousel_env.engine import positions
from carousel_env.engine.cards import JOKER, Hand, Table, face, joker_as, make_card, rank_of, suit_of
from carousel_env.engine.manipulation import Play
from carousel_env.engine.melds import is_valid_meld
from carousel_env.engine.rules import Rules, carousel
from carousel_env.solver import _cache, answer, bounded, pipeline, witness

__all__ = ["SolveResult", "Suggestion", "compile_ahead", "has_play", "solve"]

_cache.drop_stale_cache()  # before the first call loads anything from the cache


@dataclass(frozen=True)
class Suggestion:
    play: Play
    points: int
    cards: int
    jokers_used: int
    hand_after: Hand
    hand_after_points: int
    reason: str


@dataclass(frozen=True)
class SolveResult:
    best_points: int | None
    best_cards: int | None
    suggestions: tuple[Suggestion, ...]


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
# States of the unpruned sweep before ``solve`` switches to the pruned passes (which it
# also does past ``sweep.SLOTS_PER_STATE`` times as many slots that can finish, a slot being
# a state and a lane of aces set aside, see ``lanes``). The budget bounds the unpruned
# sweep's memory: up to about 135 MiB when it gives up, 248 MiB for the agents' heaviest
# finished one (450,000 states). Past it, the pruned passes cost far more time than the
# states they save: ``sweep.optima`` keeps the aces set aside in its keys (no lanes), six
# times the states, so the 4-player agent's worst hand took 1.15 s at a budget of 250,000
# and takes 0.26 s at this one, at the same peak memory (benchmarks/RESULTS.md). The
# pruned passes have no budget of their own: the heaviest synthetic positions that
# witnesses do not settle (hands of 15-30 cards on crowded two-deck tables) are the
# solver's slowest and largest solves.
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
# The memory one solve may take. Every pass of the sweeps checks, before it grows or makes an
# array, that its arrays stay within ``MEMORY_CAP_BYTES`` (``sweep.STATE_BYTES`` and the rest
# per row); a pass that would pass it gives up, and the solve is answered by
# ``bounded.solve_bounded`` instead: exact, depth first, in the memory of its path and of
# ``BOUNDED_KNOWN_ROWS`` proofs (``witness.search.KNOWN_ROW_BYTES`` each). Its time is not
# bounded: at 256 MiB one stress position went to it and took minutes (1.3 s on the sweeps);
# at 512 MiB every stress position that reaches the cap takes under 4 s, and the heaviest
# position of the shipped agents' games (275 MiB by this count) keeps its sweep
# (benchmarks/RESULTS.md).
MEMORY_CAP_BYTES = 512 << 20
BOUNDED_KNOWN_ROWS = (MEMORY_CAP_BYTES // 2) // witness.KNOWN_ROW_BYTES  # a power of two (new_known)


def witness_rounds(
    units: np.ndarray, hand_cards: np.ndarray, ace_low: bool, ace_high: bool, k: int, limit: int
) -> np.ndarray:
    """The packed answer (``answer``) of a position whose first sweep passed
    ``WITNESS_AFTER_STATES`` states: witnesses, then sweeps and witnesses in turns, each
    round allowed ``WITNESS_GROWTH`` times the last's states and expanded states, until the
    sweep finishes, witnesses settle the position, some entry proves to have no witness, or
    the rounds reach ``WITNESS_MOST``; then one sweep of up to ``FULL_SWEEP_STATES``."""
    low, high, budget, tries = ace_low, ace_high, FULL_SWEEP_STATES, WITNESS_BUDGET
    level, cap = min(WITNESS_AFTER_STATES, budget), MEMORY_CAP_BYTES
    while True:
        settled = _cache.first_call(witness.witnessed, units, hand_cards, low, high, k, limit, tries)
        if settled.shape[0] > 1:
            return settled
        if settled[0] < 0 or level == 0 or tries * WITNESS_GROWTH > WITNESS_MOST:  # no further round
            level = budget
        else:
            level, tries = min(budget, level * WITNESS_GROWTH), tries * WITNESS_GROWTH
        packed = _cache.first_call(pipeline.solve_packed, units, hand_cards, low, high, k, limit, budget, level, cap)
        if packed.shape[0] == 1:  # a pass reached the memory cap
            return solve_in_bounded_memory(units, hand_cards, low, high, k, limit)
        if packed.shape[0]:  # the sweep finished (or was the last): the answer
            return packed


# A position the witnesses settle at once (A-2-3 of clubs on the table, the 4 in hand): the
# first call of the solver and of its witness search, which compiles them or loads them.
_WARM_UNITS, _WARM_HAND = (0, 4, 8), (12,)


def _warm_args() -> tuple:
    units, hand = np.array(_WARM_UNITS, np.int64), np.array(_WARM_HAND, np.int64)
    return units, hand, True, False, 1, -1, WITNESS_BUDGET  # as witness_rounds types them


def witness_search_compiled() -> bool | None:
    """Whether the witness search is compiled, in this process or in numba's cache (None:
    numba cannot be asked, see ``_cache.compiled_in_cache``)."""
    return _cache.compiled_in_cache(witness.witnessed, _warm_args())


def compile_witness_search() -> None:
    """Compile the witness search (or load it from numba's cache), which a process otherwise
    compiles at its first crowded table, saying so as every first compile does."""
    _cache.first_call(witness.witnessed, *_warm_args())


def _first_solve() -> None:
    solve((_WARM_UNITS,), _WARM_HAND, carousel(2))


def compile_ahead(compile_here: Callable[[], object] = _first_solve) -> None:
    """Compile (or load from numba's cache) what a process that solves positions compiles on
    its way: ``compile_here`` (by default a first solve: the solver's entry point), then the
    witness search, which it would otherwise compile at its first crowded table, in the
    middle of a game. On a cold cache with two CPUs a second process compiles the witness
    search meanwhile (``_cache.compile_in_child``): the wait is the longer of the two, not
    their sum. For a program before its first game (the CLI's ``play`` and ``demo``, a
    trainer); ``env()`` does not call it, as an env that starts processes would surprise."""
    helper = None
    if witness_search_compiled() is False:
        helper = _cache.compile_in_child(compile_witness_search)
    try:
        compile_here()
        if helper is not None:
            helper.wait()
    finally:
        if helper is not None and helper.poll() is None:  # compile_here failed or was interrupted
            helper.kill()
            helper.wait()
    compile_witness_search()  # loads the helper's code (compiles here if it could not)


def solve_in_bounded_memory(
    units: np.ndarray, hand_cards: np.ndarray, ace_low: bool, ace_high: bool, k: int, limit: int
) -> np.ndarray:
    """The packed answer of a position whose sweeps would pass ``MEMORY_CAP_BYTES``:
    ``bounded.solve_bounded`` (its own compiled entry point, made only then)."""
    rows = np.int64(BOUNDED_KNOWN_ROWS)
    return _cache.first_call(bounded.solve_bounded, units, hand_cards, ace_low, ace_high, k, limit, rows)


def _position_arrays(table: Table, hand: Hand) -> tuple[np.ndarray, np.ndarray]:
    return np.array([u for meld in table for u in meld], dtype=np.int64), np.array(hand, dtype=np.int64)


def solve(table: Table, hand: Hand, rules: Rules, k: int = 8, *, check_position: bool = True) -> SolveResult:
    """Exact best points and cards, and up to ``k`` suggestions (see the module docstring).

    A position no game of ``rules`` could reach raises
    :class:`~carousel_env.engine.errors.ImpossiblePosition`; ``check_position=False`` skips
    that check, for positions the engine built (the environment's decisions)."""
    if check_position:
        positions.check_position(table, hand, rules)
    if not hand:
        return _NONE
    limit = -1 if rules.knock_limit is None else rules.knock_limit
    units, hand_cards = _position_arrays(table, hand)
    # One compiled call answers most positions; an empty answer means that the sweep passed
    # WITNESS_AFTER_STATES states: the witness rounds (their own compiled entry point) follow.
    packed = _cache.first_call(
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
    if packed.shape[0] == 1:  # a pass reached the memory cap
        packed = solve_in_bounded_memory(units, hand_cards, rules.ace_low, rules.ace_high, k, limit)
    elif not packed.shape[0]:
        packed = witness_rounds(units, hand_cards, rules.ace_low, rules.ace_high, k, limit)
    packed = tuple(packed.tolist())  # slices of a tuple are tuples: no second copy per meld
    best_points, best_cards, count = packed[:3]
    if best_cards < 0:
        return _NONE
    suggestions = []
    at = 3
    for _ in range(count):
        slot, cards, jokers, points, after_points = packed[at : at + 5]
        at += 5
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
    return SolveResult(best_points, best_cards, tuple(suggestions))


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


def has_play(table: Table, hand: Hand, rules: Rules, *, check_position: bool = True) -> bool:
    """Whether any legal play exists (same answer as ``solve(...).best_cards is not None``).

    A hand card or joker that fits a table meld as it stands answers at once; otherwise the
    optima pass decides. Impossible positions raise as in :func:`solve`, unless
    ``check_position=False`` (the game's must-play hook, on positions the engine built)."""
    if check_position:
        positions.check_position(table, hand, rules)
    if not hand:
        return False
    if _lays_off(table, hand, rules):
        return True
    units, hand_cards = _position_arrays(table, hand)
    low, high = rules.ace_low, rules.ace_high
    found = _cache.first_call(pipeline.has_play_packed, units, hand_cards, low, high, MEMORY_CAP_BYTES)
    if found == pipeline.OVER_MEMORY:
        no_knock = -1
        return solve_in_bounded_memory(units, hand_cards, low, high, 1, no_knock)[1] > 0
    return bool(found)


def can_play(table: Table, hand: Hand, rules: Rules) -> bool:
    """:func:`has_play` without the position check: the hook ``new_game(..., can_play=...)``
    takes for Manipulation Rummy's must-play rule, asked only on positions the engine built."""
    return has_play(table, hand, rules, check_position=False)
