"""The vector env's compiled ways to meld a card (``kernel_melds.arrangements``) against the
solver's, in the same order, on random and dense positions of every rearrangement rule."""

from __future__ import annotations

import random

import numpy as np
import pytest

from carousel_env.core.cards import parse_card, parse_hand
from carousel_env.games.conquian import kernel_melds as km
from carousel_env.games.conquian.melds import melds_of
from carousel_env.games.conquian.rules import CARDS, ConquianRules, index_of
from carousel_env.games.conquian.solver import arrangements
from tests.games.conquian.solver_reference import random_forcing, random_position

POSITIONS = 150  # a mode


def mask(cards) -> int:
    return sum(1 << index_of(c) for c in cards)


def compiled(rules: ConquianRules, melds, hand, taken, forced: bool) -> list[tuple]:
    """The kernel's ways as the solver's (melds, laid), in the kernel's order."""
    masks, first = km.all_melds(rules.run_limit)
    old = np.zeros(km.MAX_MELDS, np.int64)
    for i, meld in enumerate(melds):
        old[i] = mask(meld)
    out = np.zeros((km.CAPACITY, km.MAX_MELDS), np.int64)
    out_n = np.zeros(km.CAPACITY, np.int64)
    out_laid = np.zeros(km.CAPACITY, np.int64)
    t = index_of(taken) if taken is not None else -1
    mode = km.MODES.index(rules.rearrange)
    found = km.arrangements(
        old, len(melds), mask(hand), t, forced, mode, rules.run_limit, masks, first, out, out_n, out_laid
    )
    cards = lambda m: tuple(CARDS[i] for i in range(40) if int(m) >> i & 1)  # noqa: E731
    return [(tuple(cards(out[r, j]) for j in range(out_n[r])), cards(out_laid[r])) for r in range(found)]


def solved(rules, melds, hand, taken, forced) -> list[tuple]:
    return [(a.melds, a.laid) for a in arrangements(rules, melds, hand, taken, forced=forced)]


@pytest.mark.reference
@pytest.mark.parametrize("mode", ["free", "borrow", "none"])
@pytest.mark.parametrize("max_run", [8, None])
def test_the_kernel_lists_the_solvers_ways_in_its_order(mode, max_run):
    rules = ConquianRules(rearrange=mode, max_run=max_run)
    rng = random.Random(f"kernel/{mode}/{max_run}")
    for _ in range(POSITIONS):
        melds, hand, taken = random_position(rng, rules)
        assert compiled(rules, melds, hand, taken, False) == solved(rules, melds, hand, taken, False)
        assert compiled(rules, melds, hand, None, False) == solved(rules, melds, hand, None, False)
        melds, hand, taken = random_forcing(rng, rules)
        assert compiled(rules, melds, (), taken, True) == solved(rules, melds, (), taken, True)
        assert compiled(rules, melds, hand, taken, True) == solved(rules, melds, hand, taken, True)


def test_a_concrete_rearrangement():
    rules = ConquianRules()
    melds = melds_of([parse_hand("3H 4H 5H 6H 7H JH")])
    ways = compiled(rules, melds, parse_hand("5D 5C"), parse_card("2H"), False)
    assert ways[0] == (
        melds_of([parse_hand("2H 3H 4H"), parse_hand("5C 5D 5H"), parse_hand("6H 7H JH")]),
        parse_hand("5C 5D"),
    )
    assert len(ways) == 4


def test_meld_masks_are_the_melds_of_the_pack():
    masks, first = km.all_melds(8)
    assert len(masks) == 50 + 4 * (8 + 7 + 6 + 5 + 4 + 3) and first[-1] == len(masks)
    for c in range(40):
        assert all(int(m) & -int(m) == 1 << c for m in masks[first[c] : first[c + 1]])
