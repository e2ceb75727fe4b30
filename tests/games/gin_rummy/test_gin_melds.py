"""Gin Rummy's meld arithmetic: exact deadwood, knock arrangements and lay-offs, checked
against brute force (tests/support/gin_brute.py) on random and dense hands."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from carousel_env.core.cards import make_card, parse_hand
from carousel_env.games.gin_rummy import melds as gm
from tests.support import gin_brute

ALL = list(range(52))
# Ranks A-6 in every suit: 24 cards, so 10 or 11 of them are thick with sets and runs.
DENSE = [make_card(r, s) for r in range(1, 7) for s in range(4)]


def hands(pool, size):
    return st.lists(st.sampled_from(pool), min_size=size, max_size=size, unique=True)


@settings(max_examples=150, deadline=None)
@given(hand=st.one_of(hands(ALL, 10), hands(DENSE, 10)))
def test_deadwood_of_ten_cards_is_the_brute_force_minimum(hand):
    assert gm.deadwood(gm.mask_of(hand)) == gin_brute.min_deadwood(hand)


@settings(max_examples=60, deadline=None)
@given(hand=st.one_of(hands(ALL, 11), hands(DENSE, 11)))
def test_deadwood_after_discard_tries_every_discard(hand):
    assert gm.deadwood_after_discard(gm.mask_of(hand)) == gin_brute.min_deadwood_after_discard(hand)


@settings(max_examples=150, deadline=None)
@given(hand=st.one_of(hands(ALL, 11), hands(DENSE, 11), hands(DENSE, 16)))
def test_meldable_cards_are_those_of_the_base_melds_within_the_hand(hand):
    mask = gm.mask_of(hand)
    within = 0
    for meld in gm.BASE_MELDS:
        if meld.mask & mask == meld.mask:
            within |= meld.mask
    assert gm.meldable(mask) == within


def test_cards_and_values_of_a_mask_read_every_chunk():
    hand = parse_hand("AC 4S 5C 10D KS QH")  # cards at both ends and across the chunk borders
    mask = gm.mask_of(hand)
    assert gm.cards_of(mask) == tuple(sorted(hand))
    assert gm.value_of(mask) == 1 + 4 + 5 + 10 + 10 + 10
    assert gm.cards_of(0) == () and gm.value_of(0) == 0


def test_openspiel_shortcut_example_is_a_knock_at_ten():
    # OpenSpiel's shortcut says 11 here (RULES.md, example 2): the exact answer is 10.
    hand = gm.mask_of(parse_hand("4S 5S 6S 3C 4C 6C 4D 5D 6D AH 2H"))
    assert gm.deadwood_after_discard(hand) == 10
    (only,) = gm.knock_arrangements(hand, 10)
    assert only.discard == parse_hand("6C")[0]
    assert sorted(str(m) for m in only.melds) == ["4D 5D 6D", "4S 5S 6S"]


def test_book_example_one_knocks_with_five():
    hand = gm.mask_of(parse_hand("AS 2S 3S 7H 7D 7C 9C 10C JC KD 5D"))
    assert gm.deadwood_after_discard(hand) == 5
    best = min(gm.knock_arrangements(hand, 10), key=lambda a: a.deadwood)
    assert best.discard == parse_hand("KD")[0] and best.deadwood == 5


@settings(max_examples=80, deadline=None)
@given(hand=st.one_of(hands(ALL, 11), hands(DENSE, 11)), limit=st.integers(0, 10))
def test_every_knock_arrangement_is_legal_closed_and_distinct(hand, limit):
    mask = gm.mask_of(hand)
    found = gm.knock_arrangements(mask, limit)
    assert len({(a.discard, a.melds) for a in found}) == len(found)
    assert bool(found) == (gin_brute.min_deadwood_after_discard(hand) <= limit)
    for a in found:
        ten = set(hand) - {a.discard}
        melded = [c for m in a.melds for c in m.cards]
        assert len(melded) == len(set(melded)) and set(melded) <= ten
        assert all(gin_brute.is_meld(m.cards) for m in a.melds)
        left = ten - set(melded)
        assert a.deadwood == sum(gin_brute.value(c) for c in left) <= limit
        assert gin_brute.min_deadwood(left) == sum(gin_brute.value(c) for c in left)  # no meld left over
        for c in left:  # and no card left over extends a meld
            assert not any(gin_brute.is_meld([*m.cards, c]) for m in a.melds)


def test_best_layoffs_match_brute_force_on_random_knocks():
    rng = random.Random(7)
    checked = 0
    while checked < 120:
        pool = DENSE + rng.sample([c for c in ALL if c not in DENSE], 8) if rng.random() < 0.7 else ALL
        cards = rng.sample(pool, 21)
        knocker, opponent = cards[:11], cards[11:]
        found = gm.knock_arrangements(gm.mask_of(knocker), 10)
        if not found:
            continue
        a = rng.choice(found)
        gin = a.deadwood == 0
        answer = gm.best_layoffs(a.melds, gm.mask_of(opponent), gin)
        expected = gin_brute.min_deadwood_after_layoffs([m.cards for m in a.melds], opponent, gin)
        assert answer.deadwood == expected, (knocker, opponent, a)
        laid = [c for c, _ in answer.laid_off]
        assert len(set(laid)) == len(laid) and set(laid) <= set(opponent)
        assert gin_brute.can_lay_off([m.cards for m in a.melds], laid)
        rest = set(opponent) - set(laid)
        own = [c for m in answer.melds for c in m.cards]
        assert set(own) <= rest and all(gin_brute.is_meld(m.cards) for m in answer.melds)
        assert answer.deadwood == sum(gin_brute.value(c) for c in rest - set(own))
        checked += 1


def test_layoffs_extend_a_run_through_a_card_laid_off_before():
    knocker = (gm.Meld(tuple(parse_hand("5S 6S 7S"))),)
    answer = gm.best_layoffs(knocker, gm.mask_of(parse_hand("8S 9S KD KC 2H 3D 4C JH QC 10D")), gin=False)
    assert tuple(c for c, _ in answer.laid_off) == parse_hand("8S 9S")


def test_no_layoffs_on_gin():
    knocker = (gm.Meld(tuple(parse_hand("5S 6S 7S"))),)
    answer = gm.best_layoffs(knocker, gm.mask_of(parse_hand("8S KD KC 2H 3D 4C JH QC 10D 9H")), gin=True)
    assert answer.laid_off == ()


def test_opponent_breaks_own_run_to_lay_off_and_make_a_set():
    # Keeping 8H 9H 10H leaves 10C 10D (20); laying off 8H 9H frees 10H for a set: 0.
    knocker = (gm.Meld(tuple(parse_hand("5H 6H 7H"))),)
    hand = gm.mask_of(parse_hand("8H 9H 10H 10C 10D KD KS KC 2C 2S"))
    answer = gm.best_layoffs(knocker, hand, gin=False)
    assert tuple(c for c, _ in answer.laid_off) == parse_hand("8H 9H")
    assert sorted(str(m) for m in answer.melds) == ["10C 10D 10H", "KC KD KS"]
    assert answer.deadwood == 4


@pytest.mark.parametrize("text", ["AS 2S 3S 4S 5S 6S 7S", "7C 8C 9C 10C JC QC KC"])
def test_long_runs_merge_into_one_meld(text):
    mask = gm.mask_of(parse_hand(text))
    assert [str(m) for m in gm.best_melds(mask)] == [" ".join(text.split())]
