"""The exact play solver: the best legal plays of a position.

``solve(table, hand, rules, k)`` returns the exact maximum points shed (a hand joker
counts 25) and the exact maximum number of cards over every play that
:func:`carousel_env.manipulation.check_play` accepts, plus up to ``k`` distinct suggested
plays; ``has_play`` only answers whether any legal play exists.

How (see the modules): ``prepare`` reduces the position to per-card counts and the
release choices of table jokers; ``dp`` sweeps run positions (low ace .. high ace) with
open-run counts per suit as the state, keeping the best points per number of cards and
jokers; ``build`` rebuilds a table from the back-pointers; ``select`` picks the slots.

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
by the DP's deterministic order (same input, same play).

Joker declarations on the new table: a table joker keeps its declaration unless a real copy
of it is on the new table and releasing it helps; a joker placed in a run declares the
card it fills; a joker placed in a set declares the missing suit whose real card has the
fewest copies on the new table (ties C, D, H, S), so that it stays easy to release. The
new table is in ``carousel_env.melds.canonical_table`` order.
"""

from __future__ import annotations

from dataclasses import dataclass

from carousel_env.cards import JOKER_POINTS, Hand, Table, hand_points
from carousel_env.manipulation import Play, remaining_hand
from carousel_env.rules import Rules
from carousel_env.solver import dp
from carousel_env.solver.build import build
from carousel_env.solver.prepare import live_hand, position_of, variants
from carousel_env.solver.select import choose

__all__ = ["SolveResult", "Suggestion", "has_play", "solve"]


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


_NONE = SolveResult(None, None, ())


def solve(table: Table, hand: Hand, rules: Rules, k: int = 8) -> SolveResult:
    """Exact best points and cards, and up to ``k`` suggestions (see the module docstring)."""
    if not hand:
        return _NONE
    pos = position_of(table, hand)
    live = live_hand(pos, rules.ace_low, rules.ace_high)
    if not any(live) and not pos.hand_jokers:
        return _NONE
    lays = [(var, dp.layout(var, live, rules.ace_low, rules.ace_high)) for var in variants(pos, live)]

    # Pass 1: the exact optima, cheaply (no cards dimension).
    best_points = best_cards = plain_points = None
    for var, lay in lays:
        for t, (pts, n) in dp.run_scalar(lay).items():
            j = t - var.wild_mandatory
            if n + j < 1:
                continue
            pts += JOKER_POINTS * j
            best_points = pts if best_points is None else max(best_points, pts)
            best_cards = n + j if best_cards is None else max(best_cards, n + j)
            if j == 0:
                plain_points = pts if plain_points is None else max(plain_points, pts)
    if best_points is None or best_cards is None:
        return _NONE

    # Pass 2: best points per (cards, jokers), exact for every entry a slot can pick.
    hand_total = hand_points(hand)
    need_n = max(1, best_cards - k)
    need_p = best_points if plain_points is None else plain_points
    if rules.knock_limit is not None:
        need_p = min(need_p, hand_total - rules.knock_limit)
    best: dict[tuple[int, int], int] = {}
    where: dict[tuple[int, int], tuple[int, int, int]] = {}
    runs = []
    for vi, (var, lay) in enumerate(lays):
        final, backs = dp.run(lay, need_n, need_p)
        runs.append(backs)
        for t, vals in final.items():
            j = t - var.wild_mandatory
            for n, pts in vals.items():
                entry = (n + j, j)
                total = pts + JOKER_POINTS * j
                if entry[0] < 1 or (entry[0] < need_n and total < need_p):
                    continue  # possibly inexact (pruned): no slot may use it
                old = best.get(entry)
                if old is None or total > old:
                    best[entry] = total
                    where[entry] = (vi, t, n)
    assert max(best.values()) == best_points and max(e[0] for e in best) == best_cards

    suggestions = []
    for reason, entry in choose(best, k, hand_total, rules.knock_limit):
        vi, t, n = where[entry]
        var, lay = lays[vi]
        added, new_table = build(lay, var, pos, dp.trace(lay, runs[vi], t, n), t, rules)
        play = Play(added, new_table)
        after = remaining_hand(hand, play)
        suggestions.append(Suggestion(play, best[entry], entry[0], entry[1], after, hand_points(after), reason))
    return SolveResult(best_points, best_cards, tuple(suggestions))


def has_play(table: Table, hand: Hand, rules: Rules) -> bool:
    """Whether any legal play exists (same answer as ``solve(...).best_cards is not None``)."""
    if not hand:
        return False
    pos = position_of(table, hand)
    live = live_hand(pos, rules.ace_low, rules.ace_high)
    if not any(live) and not pos.hand_jokers:
        return False
    for var in variants(pos, live):
        lay = dp.layout(var, live, rules.ace_low, rules.ace_high)
        for t, (_pts, n) in dp.run_scalar(lay).items():
            if n + t - var.wild_mandatory >= 1:
                return True
    return False
