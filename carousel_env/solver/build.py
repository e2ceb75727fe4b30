"""Rebuild a concrete new table from the DP's choices, position by position.

Runs are lists of units kept per suit while sweeping; sets are dealt at each position.
Every unit of one face is interchangeable for validity, so the rebuild only decides
presentation, deterministically:

* a hand joker or released table joker put into a run declares the card it fills;
* one put into a set declares the missing suit whose real card has the fewest copies on
  the new table (ties: clubs, diamonds, hearts, spades), so that a real copy is most
  likely still in play to release it later;
* a kept table joker keeps its declaration;
* when several long runs of a suit could be extended, the oldest is extended first;
* the table is returned in ``canonical_table`` order (each meld in reading order).
"""

from __future__ import annotations

from carousel_env.cards import JOKER, NUM_CARDS, Table, joker_as
from carousel_env.melds import canonical_table
from carousel_env.rules import Rules
from carousel_env.solver.dp import Choice, Layout, face_at
from carousel_env.solver.prepare import Position, Variant


def build(
    lay: Layout, var: Variant, pos: Position, choices: list[Choice], t: int, rules: Rules
) -> tuple[tuple[int, ...], Table]:
    """``(added hand cards, new table)`` for one traced optimum."""
    both_aces = 1 in lay.positions and 14 in lay.positions
    added: list[int] = []
    final_real = list(pos.table_real)
    for p, (picked, _wset) in zip(lay.positions, choices):
        if p == 14 and both_aces:
            continue
        for s, opt in enumerate(picked):
            dn = opt[2]
            f = face_at(p, s)
            final_real[f] += dn
            added.extend([f] * dn)
    added.extend([JOKER] * (t - var.wild_mandatory))

    melds: list[tuple[int, ...]] = []
    runs: list[list[list[int]]] = [[], [], [], []]
    aside: list[list[int]] = [[], [], [], []]  # aces kept for the high end
    for p, (picked, wset) in zip(lay.positions, choices):
        set_units: list[tuple[int, int]] = []  # (suit, unit)
        for s, opt in enumerate(picked):
            _new, x, dn, w, k3, b, d = opt
            f = face_at(p, s)
            if p == 14 and both_aces:
                units = aside[s]
                aside[s] = []
            else:
                # hand cards first, so the sets (taken from the front) hold real cards
                units = [f] * dn + [f] * pos.table_real[f] + [joker_as(f)] * var.kept[f]
                if d:
                    aside[s] = units[len(units) - d :]
                    units = units[: len(units) - d]
            for u in units[:x]:
                set_units.append((s, u))
            run_units = units[x:] + [joker_as(f)] * w
            short = [r for r in runs[s] if len(r) < 3]
            long_ = [r for r in runs[s] if len(r) >= 3]
            extended = short + long_[:k3]
            for r in long_[k3:]:
                melds.append(tuple(r))
            assert len(run_units) == len(extended) + b, (p, s, opt)
            for r, u in zip(extended, run_units):
                r.append(u)
            runs[s] = extended + [[u] for u in run_units[len(extended) :]]
        if set_units or wset:
            melds.extend(_deal_sets(set_units, wset, p, final_real))
    for s in range(4):
        for r in runs[s]:
            assert len(r) >= 3, r
            melds.append(tuple(r))
    # The sweep may grow one run from the low ace to the high ace (14 units, a wrap);
    # the same units always split into A..J and Q-K-A, so only the rebuild needs to care.
    melds = [piece for m in melds for piece in ((m[:-3], m[-3:]) if len(m) > 13 else (m,))]
    return tuple(sorted(added)), canonical_table(tuple(melds), rules)


def _deal_sets(units: list[tuple[int, int]], wild: int, position: int, final_real: list[int]) -> list[tuple[int, ...]]:
    units = sorted(units)
    total = len(units) + wild
    top = max((sum(1 for s, _ in units if s == suit) for suit in range(4)), default=0)
    k = next(k for k in range(max(top, 1), total // 3 + 1) if 3 * k <= total <= 4 * k)
    groups: list[list[tuple[int, int]]] = [[] for _ in range(k)]
    for i, su in enumerate(units):
        groups[i % k].append(su)
    order = sorted(range(k), key=lambda g: len(groups[g]))
    for g in order:  # first bring every set to 3
        while len(groups[g]) < 3 and wild:
            groups[g].append(_wild_unit(groups[g], position, final_real))
            wild -= 1
    for g in order:
        while len(groups[g]) < 4 and wild:
            groups[g].append(_wild_unit(groups[g], position, final_real))
            wild -= 1
    assert wild == 0
    return [tuple(u for _, u in grp) for grp in groups]


def _wild_unit(group: list[tuple[int, int]], position: int, final_real: list[int]) -> tuple[int, int]:
    present = {s for s, _ in group}
    missing = [s for s in range(4) if s not in present]
    suit = min(missing, key=lambda s: (final_real[face_at(position, s)], s))
    f = face_at(position, suit)
    assert 0 <= f < NUM_CARDS
    return (suit, joker_as(f))
