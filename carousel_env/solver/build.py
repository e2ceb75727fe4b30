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
from carousel_env.solver.prepare import Layout, Position, face_at


def decode(code: int) -> tuple[int, int, int, int, int, int, int]:
    """A cell's choice ``(dn, aside, w, k3, b, x, r)`` from ``core``'s packed code: hand cards
    played, aces set aside for the high end, wildcards into runs, long runs extended, runs
    started, units to sets, table jokers released."""
    return (
        code & 31,
        (code >> 5) & 7,
        (code >> 8) & 7,
        (code >> 11) & 7,
        (code >> 14) & 7,
        (code >> 17) & 7,
        code >> 20,
    )


def build(lay: Layout, pos: Position, codes: list[int], jokers: int, rules: Rules) -> tuple[tuple[int, ...], Table]:
    """``(added hand cards, new table)`` for one traced optimum (``codes``: one per DP layer,
    four cells then the set close per position; ``jokers``: hand jokers played)."""
    cells = [[decode(codes[5 * i + s]) for s in range(4)] for i in range(len(lay.positions))]
    added: list[int] = []
    final_real = list(pos.table_real)
    for p, picked in zip(lay.positions, cells):
        if p == 14 and lay.both_aces:
            continue
        for s, opt in enumerate(picked):
            f = face_at(p, s)
            final_real[f] += opt[0]
            added.extend([f] * opt[0])
    added.extend([JOKER] * jokers)

    melds: list[tuple[int, ...]] = []
    runs: list[list[list[int]]] = [[], [], [], []]
    aside: list[list[int]] = [[], [], [], []]  # aces kept for the high end
    for i, (p, picked) in enumerate(zip(lay.positions, cells)):
        wset = codes[5 * i + 4]
        set_units: list[tuple[int, int]] = []  # (suit, unit)
        for s, (dn, d, w, k3, b, x, r) in enumerate(picked):
            f = face_at(p, s)
            if p == 14 and lay.both_aces:
                units = aside[s]
                aside[s] = []
            else:
                # hand cards first, so the sets (taken from the front) hold real cards
                units = [f] * dn + [f] * pos.table_real[f] + [joker_as(f)] * (pos.table_jokers[f] - r)
                if d:
                    aside[s] = units[len(units) - d :]
                    units = units[: len(units) - d]
            for u in units[:x]:
                set_units.append((s, u))
            run_units = units[x:] + [joker_as(f)] * w
            short = [run for run in runs[s] if len(run) < 3]
            long_ = [run for run in runs[s] if len(run) >= 3]
            extended = short + long_[:k3]
            for run in long_[k3:]:
                melds.append(tuple(run))
            assert len(run_units) == len(extended) + b, (p, s)
            for run, u in zip(extended, run_units):
                run.append(u)
            runs[s] = extended + [[u] for u in run_units[len(extended) :]]
        if set_units or wset:
            melds.extend(_deal_sets(set_units, wset, p, final_real))
    for s in range(4):
        for run in runs[s]:
            assert len(run) >= 3, run
            melds.append(tuple(run))
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
