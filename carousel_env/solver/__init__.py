"""The exact play solver: the best legal plays of a position.

``solve(table, hand, rules, k)`` returns the exact maximum points shed (a hand joker
counts 25) and the exact maximum number of cards over every play that
:func:`carousel_env.manipulation.check_play` accepts, plus up to ``k`` distinct suggested
plays; ``has_play`` only answers whether any legal play exists.

How (see the modules): ``prepare`` reduces the position to per-card counts laid out per
cell (run position, suit); ``core`` (compiled with numba) sweeps the cells with open-run
counts per suit as the state: first for the three exact optima, then for the best points
per (cards, hand jokers) entry a slot may pick, with back-pointers; ``build`` rebuilds a
table from the traced choices; ``select`` picks the slots. Nothing is cached between calls.

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
of it is on the new table (then the solver may release it: it releases as many as the rule
allows, which is never worse); a joker placed in a run declares the
card it fills; a joker placed in a set declares the missing suit whose real card has the
fewest copies on the new table (ties C, D, H, S), so that it stays easy to release. The
new table is in ``carousel_env.melds.canonical_table`` order.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from carousel_env.cards import JOKER, Hand, Table, face, hand_points, joker_as, make_card, rank_of, suit_of
from carousel_env.manipulation import Play, remaining_hand
from carousel_env.melds import is_valid_meld
from carousel_env.rules import Rules
from carousel_env.solver import core
from carousel_env.solver.build import build
from carousel_env.solver.prepare import layout, live_hand, position_of
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


def _prepare(table: Table, hand: Hand, rules: Rules):
    """``(position, layout)`` or ``None`` when no hand card can be in any meld."""
    if not hand:
        return None
    pos = position_of(table, hand)
    live = live_hand(pos, rules.ace_low, rules.ace_high)
    if not any(live) and not pos.hand_jokers:
        return None
    return pos, layout(pos, live, rules.ace_low, rules.ace_high)


def solve(table: Table, hand: Hand, rules: Rules, k: int = 8) -> SolveResult:
    """Exact best points and cards, and up to ``k`` suggestions (see the module docstring)."""
    found = _prepare(table, hand, rules)
    if found is None:
        return _NONE
    pos, lay = found
    best_points, best_cards, plain_points = core.optima(*lay.arrays, pos.hand_jokers, 0).tolist()
    if best_cards <= 0:
        return _NONE
    # The entries any slot may pick: at least need_n cards, or at least need_p points.
    hand_total = hand_points(hand)
    need_n = max(1, best_cards - k)
    need_p = plain_points if plain_points > 0 else best_points
    if rules.knock_limit is not None:
        need_p = min(need_p, hand_total - rules.knock_limit)
    edges, bounds, table_best, where, back, offsets = _explore(lay, pos, best_cards, best_points, need_n, need_p)
    best = {(int(c), int(j)): int(table_best[c, j]) for c, j in zip(*(table_best >= 0).nonzero())}
    suggestions = []
    for reason, entry in choose(best, k, hand_total, rules.knock_limit):
        state, n = where[entry]
        codes = core.trace(edges, back, offsets, len(bounds) - 2, state, n).tolist()
        added, new_table = build(lay, pos, codes, entry[1], rules)
        play = Play(added, new_table)
        after = remaining_hand(hand, play)
        suggestions.append(Suggestion(play, best[entry], entry[0], entry[1], after, hand_points(after), reason))
    return SolveResult(best_points, best_cards, tuple(suggestions))


def _explore(lay, pos, best_cards: int, best_points: int, need_n: int, need_p: int):
    """``core.explore`` then ``core.vector``, exact for every entry a slot may pick.

    With no hand joker, rounds with a points target per cards count (``core._build``):
    first the most any ``n`` cards could score (the ``n`` dearest live hand cards, at most
    ``best_points``); a count whose best falls short of its target is retried with a lower
    target (a step that doubles, never below the best found, which is achievable)."""
    if pos.hand_jokers:
        tgt = np.zeros(1, dtype=np.int64)
    else:
        lay_h, rp = lay.arrays[2], lay.arrays[9]
        pts = sorted((int(rp[i]) for i, s in zip(*lay_h.nonzero()) for _ in range(int(lay_h[i, s]))), reverse=True)
        tgt = np.array([min(best_points, sum(pts[:n])) for n in range(len(pts) + 1)], dtype=np.int64)
        step = np.full(len(pts) + 1, 5, dtype=np.int64)
    while True:
        states, edges, bounds, fut = core.explore(*lay.arrays, pos.hand_jokers, need_n, need_p, tgt)
        table_best, where, back, offsets = core.vector(states, edges, bounds, fut, pos.hand_jokers, need_n, need_p, tgt)
        if len(tgt) == 1:
            break
        done = True
        for n in range(need_n, best_cards + 1):
            found = int(table_best[n].max()) if n < table_best.shape[0] else -1
            if found < tgt[n]:
                done = False
                tgt[n] = max(found, tgt[n] - step[n])
                step[n] *= 2
        if done:
            break
    return edges, bounds, table_best, where, back, offsets


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


def has_play(table: Table, hand: Hand, rules: Rules) -> bool:
    """Whether any legal play exists (same answer as ``solve(...).best_cards is not None``).

    A hand card or joker that fits a table meld as it stands answers at once; otherwise the
    optima pass decides."""
    if hand and _lays_off(table, hand, rules):
        return True
    found = _prepare(table, hand, rules)
    if found is None:
        return False
    pos, lay = found
    return bool(core.optima(*lay.arrays, pos.hand_jokers, 1)[1] > 0)
