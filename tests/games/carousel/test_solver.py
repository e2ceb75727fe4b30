"""The play solver: worked examples, known traps, suggestion rules, MILP agreement."""

from __future__ import annotations

import os
from dataclasses import FrozenInstanceError, fields

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from carousel_env.core.cards import JOKER, NUM_CARDS, hand_str, is_table_joker, parse_hand, parse_table, table_str
from carousel_env.games.carousel.engine.manipulation import Play, check_play
from carousel_env.games.carousel.engine.rules import carousel, manipulation_rummy
from carousel_env.games.carousel.solver import Suggestion, has_play, solve
from tests.support.milp_reference import milp_best
from tests.support.positions import synthetic_positions

ONE = carousel(2)  # one deck, one joker
TWO = carousel(3)  # two decks, two jokers
MR = manipulation_rummy(4)  # two decks, no jokers, aces high only


def _solve(table: str, hand: str, rules=ONE, k: int = 8):
    t, h = parse_table(table), parse_hand(hand)
    result = solve(t, h, rules, k)
    for s in result.suggestions:
        check_play(t, h, s.play, rules)
    assert has_play(t, h, rules) == (result.best_cards is not None)
    return result


def _best(table: str, hand: str, rules=ONE) -> tuple[int | None, int | None]:
    r = _solve(table, hand, rules)
    return r.best_points, r.best_cards


# ---------------------------------------------------------------- RULES.md worked examples


def test_example_1_set_from_run_ends():
    r = _solve("3C 4C 5C 6C | 3D 4D 5D 6D", "6H")
    assert (r.best_points, r.best_cards) == (6, 1)
    assert table_str(r.suggestions[0].play.table) == "6C 6D 6H | 3C 4C 5C | 3D 4D 5D"


def test_example_2_all_three_cards_by_rearranging():
    r = _solve("7C 8C 9C | 7D 8D 9D | 8H 9H 10H", "7S 9S JH")
    assert (r.best_points, r.best_cards) == (26, 3)
    assert hand_str(r.suggestions[0].play.added) == "7S 9S JH"
    # without the rearrangement only JH could go: that is the size-1 suggestion
    assert [hand_str(s.play.added) for s in r.suggestions] == ["7S 9S JH", "JH"]


def test_example_3_joker_not_redeclared_without_its_card():
    assert _best("8H 9H JK=10H", "6H") == (None, None)
    r = _solve("8H 9H JK=10H", "10H 5S 5D")
    assert (r.best_points, r.best_cards) == (20, 3)
    assert table_str(r.suggestions[0].play.table) == "JK=5C 5D 5S | 8H 9H 10H"


def test_example_4_real_card_releases_joker():
    r = _solve("8H 9H JK=10H", "7H 10H 10S")
    assert (r.best_points, r.best_cards) == (27, 3)
    assert table_str(r.suggestions[0].play.table) == "JK=10C 10H 10S | 7H 8H 9H"


# ---------------------------------------------------------------- traps


def test_card_needed_by_set_and_run_is_used_once():
    # 7C would complete both 7C 7D 7H and 5C 6C 7C; only one of them can have it
    assert _best("", "5C 6C 7C 7D 7H") == (21, 3)


def test_identical_cards_from_two_decks_in_two_melds():
    assert _best("5H 6H 7H | 5H 6H 7H", "8H 8H", TWO) == (16, 2)
    assert _best("5H 6H 7H", "8H 8H", TWO) == (8, 1)


def test_leftovers_greedy_grouping_gets_wrong():
    # a greedy 3C-6C run strands 6D 6H; the best is 3C 4C 5C + 6C 6D 6H
    assert _best("", "3C 4C 5C 6C 6D 6H") == (30, 6)
    # the long run must be split to take a set out of its middle
    assert _best("3C 4C 5C 6C 7C 8C 9C", "6D 6H") == (12, 2)


def test_ace_low_or_high_but_not_both():
    assert _best("", "QH KH AH 2H 3H") == (21, 3)  # Q K A beats A 2 3 on points
    assert _best("", "AH 2H 3H") == (6, 3)
    assert _best("2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH", "AH") == (1, 1)
    assert _best("", "KH AH 2H") == (None, None)  # no wrapping


def test_full_suit_with_both_aces_two_decks():
    r = _solve("", "AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS", TWO)
    assert r.best_cards == 14  # A..J and Q K A


def test_manipulation_rummy_aces_high_only():
    assert _best("", "AH 2H 3H", MR) == (None, None)
    assert _best("", "QH KH AH", MR) == (21, 3)
    assert _best("2C 3C 4C", "AC", MR) == (None, None)
    assert _best("AC AD AH", "AS", MR) == (1, 1)


def test_joker_released_by_a_table_card():
    # the real 7H sits in a set of four; moving it into the run frees the joker for the kings
    r = _solve("5H 6H JK=7H | 7C 7D 7H 7S", "KC KD")
    assert (r.best_points, r.best_cards) == (20, 2)


def test_table_joker_must_keep_its_declaration():
    assert _best("8H 9H JK=10H", "KC KD") == (None, None)
    assert _best("8H 9H JK=10H", "7H") == (7, 1)


def test_released_joker_stays_on_the_table():
    r = _solve("8H 9H JK=10H", "10H")
    assert (r.best_points, r.best_cards) == (10, 1)
    play = r.suggestions[0].play
    assert sum(is_table_joker(u) for m in play.table for u in m) == 1


def test_hand_joker_worth_25():
    r = _solve("5C 6C 7C", "JK")
    assert (r.best_points, r.best_cards) == (25, 1)
    assert r.suggestions[0].jokers_used == 1


def test_no_hand_no_play():
    assert solve(parse_table("5C 6C 7C"), (), ONE).best_points is None
    assert not has_play(parse_table("5C 6C 7C"), (), ONE)


# ---------------------------------------------------------------- suggestions


def test_slots_and_order():
    r = _solve("5C 6C 7C | 9D 9H 9S", "JK 4C 8C 9C KH KS 2D")
    reasons = [s.reason for s in r.suggestions]
    assert reasons[0] == "max_points" and r.suggestions[0].points == r.best_points
    assert "max_cards" not in reasons or r.suggestions[reasons.index("max_cards")].cards == r.best_cards
    keep = [s for s in r.suggestions if s.reason == "keep_jokers"]
    assert all(s.jokers_used == 0 for s in keep)
    added = [tuple(s.play.added) for s in r.suggestions]
    assert len(set(added)) == len(added)
    for s in r.suggestions:
        assert s.cards == len(s.play.added)
        assert s.jokers_used == s.play.added.count(JOKER)
        assert s.hand_after_points == sum(min(c // 4 + 1, 10) if c != JOKER else 25 for c in s.hand_after)


def test_suggestions_are_plain_frozen_dataclasses():
    # solve builds its suggestions without Suggestion.__init__ (see _suggestion): they must
    # still equal, hash and print like ones built normally, with every field, and stay frozen
    first = _solve("5C 6C 7C | 9D 9H 9S", "JK 4C 8C 9C KH").suggestions[0]
    rebuilt = Suggestion(**{f.name: getattr(first, f.name) for f in fields(Suggestion)})
    assert vars(first) == vars(rebuilt)
    assert first == rebuilt and hash(first) == hash(rebuilt) and repr(first) == repr(rebuilt)
    with pytest.raises(FrozenInstanceError):
        first.points = 0


def test_knock_slot():
    # hand worth 3 + 8 + 8 + 8 = 27; playing the three 8s leaves 3 (<= 5)
    r = _solve("", "3D 8C 8D 8H")
    knock = [s for s in r.suggestions if s.reason == "knock"]
    assert knock == [] or knock[0].hand_after_points <= 5
    assert r.suggestions[0].hand_after_points == 3
    assert _solve("", "3D 8C 8D 8H", MR).suggestions  # no knock slot in the variant


def test_k_limits_and_determinism():
    table, hand = "3C 4C 5C 6C | 9D 9H 9S | JH QH KH", "2C 7C 9C 10H 6D 6H 8C"
    a = _solve(table, hand, k=8)
    b = _solve(table, hand, k=8)
    assert a == b
    assert len(_solve(table, hand, k=2).suggestions) <= 2
    assert _solve(table, hand, k=2).suggestions == a.suggestions[:2]


# ---------------------------------------------------------------- agreement with the MILP reference


def _compare(rules, decks: int, jokers: int, n: int, seed: int) -> None:
    bad = []
    for i, (table, hand) in enumerate(synthetic_positions(n, seed, decks, jokers, rules)):
        result = solve(table, hand, rules)
        ref = (milp_best(table, hand, rules, "points"), milp_best(table, hand, rules, "cards"))
        if (result.best_points, result.best_cards) != ref:
            bad.append((i, table_str(table), hand_str(hand), ref, (result.best_points, result.best_cards)))
        for s in result.suggestions:
            check_play(table, hand, s.play, rules)
    assert not bad, bad[:5]


# The full agreement run (>= 2000 positions) is CAROUSEL_SOLVER_POSITIONS=1000 per set.
_N = int(os.environ.get("CAROUSEL_SOLVER_POSITIONS", "60"))


def test_milp_agreement_one_deck():
    _compare(ONE, 1, 1, _N, seed=101)


def test_milp_agreement_two_decks():
    _compare(TWO, 2, 2, _N // 2, seed=202)


def test_milp_agreement_manipulation_rummy():
    _compare(MR, 2, 0, _N // 4, seed=303)


# ---------------------------------------------------------------- properties


@st.composite
def small_positions(draw):
    """A valid random table of a few melds from one deck, and a hand from the rest."""
    seed = draw(st.integers(0, 10**6))
    table, _ = next(iter(synthetic_positions(1, seed, 1, 1, ONE)))
    used = {u for m in table for u in m if not is_table_joker(u)}
    rest = [c for c in range(NUM_CARDS) if c not in used]
    hand = draw(st.lists(st.sampled_from(rest), min_size=1, max_size=6, unique=True))
    return table, tuple(sorted(hand))


@settings(max_examples=40, deadline=None)
@given(small_positions())
def test_suggestions_legal_distinct_and_exact(position):
    table, hand = position
    result = solve(table, hand, ONE)
    assert (result.best_points, result.best_cards) == (
        milp_best(table, hand, ONE, "points"),
        milp_best(table, hand, ONE, "cards"),
    )
    seen = set()
    for s in result.suggestions:
        check_play(table, hand, s.play, ONE)
        # built without Play's normalisation: it must already be in normal form
        assert s.play == Play(s.play.added, s.play.table) and type(s.play.table[0]) is tuple
        assert s.play.added not in seen
        seen.add(s.play.added)
    assert result == solve(table, hand, ONE)


@pytest.mark.parametrize("k", [1, 3, 8])
def test_first_slot_is_best_points(k):
    r = _solve("7C 8C 9C | 7D 8D 9D | 8H 9H 10H", "7S 9S JH 2C", k=k)
    assert r.suggestions[0].reason == "max_points" and len(r.suggestions) <= k


def test_plays_and_suggestions_print_in_card_notation():
    result = solve(parse_table("3C 4C 5C | 7H 7S JK=7D"), parse_hand("6C 7C 9D"), carousel())
    best = result.suggestions[0]
    assert str(best.play) == "6C 7C -> JK=7D 7H 7S | 3C 4C 5C 6C 7C"
    assert repr(best.play) == "Play(added='6C 7C', table='JK=7D 7H 7S | 3C 4C 5C 6C 7C')"
    assert repr(best) == (
        "Suggestion(play=Play(added='6C 7C', table='JK=7D 7H 7S | 3C 4C 5C 6C 7C'), points=13, cards=2, "
        "jokers_used=0, hand_after='9D', hand_after_points=9, reason='max_points')"
    )
