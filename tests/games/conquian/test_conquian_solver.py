"""Conquian's melding solver (``carousel_env.games.conquian.solver``) against a brute force
(``tests/games/conquian/solver_reference.py``: every subset of the hand with every partition of
the cards, filtered by ``legal.arrangement_problem``) on random and dense positions of each
``rearrange`` mode, taking a card, melding from the hand alone and forced; the shape of its
answers; and RULES.md's worked examples."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from carousel_env.core.cards import card_str, hand_str, parse_card, parse_hand, rank_of, suit_of
from carousel_env.games.conquian.melds import Melds, melds_of, melds_str
from carousel_env.games.conquian.rules import CARDS, HAND_SIZE, RANKS, ConquianRules, card_at
from carousel_env.games.conquian.solver import arrangements, can_force
from tests.games.conquian.solver_reference import (
    KINDS,
    random_forcing,
    random_position,
    reference_arrangements,
    reference_arrangements_literal,
)

MODES = ("free", "borrow", "none")
RULESETS = [pytest.param(ConquianRules(rearrange=m), id=m) for m in MODES] + [
    pytest.param(ConquianRules(rearrange=m, max_run=None), id=f"{m}-no-max-run") for m in MODES
]
FREE, BORROW, NONE = (ConquianRules(rearrange=m) for m in MODES)


def H(text: str) -> tuple[int, ...]:
    return parse_hand(text)


def M(text: str) -> Melds:
    """Melds written ``"6S 7S JS | JH JD JC"`` ("" for none)."""
    return melds_of(parse_hand(m) for m in text.split(" | ")) if text else ()


def solved(rules: ConquianRules, melds: Melds, hand, taken, forced: bool = False) -> set[Melds]:
    return {a.melds for a in arrangements(rules, melds, hand, taken, forced=forced)}


def shown(rules: ConquianRules, melds: Melds, hand, taken, forced: bool = False) -> list[str]:
    return [melds_str(a.melds) for a in arrangements(rules, melds, hand, taken, forced=forced)]


def described(rules: ConquianRules, melds: Melds, hand, taken, forced: bool) -> str:
    return (
        f"rearrange {rules.rearrange.value}, max_run {rules.max_run}: table [{melds_str(melds)}] "
        f"hand [{hand_str(hand)}] taken {card_str(taken) if taken is not None else None} forced {forced}"
    )


def assert_agree(rules: ConquianRules, melds: Melds, hand, taken, forced: bool = False) -> None:
    want = reference_arrangements(rules, melds, hand, taken, forced)
    got = solved(rules, melds, hand, taken, forced)
    if got != want:
        extra = sorted(melds_str(m) for m in got - want)
        missing = sorted(melds_str(m) for m in want - got)
        raise AssertionError(f"{described(rules, melds, hand, taken, forced)}: solver adds {extra}, misses {missing}")


def positions(seed: int, count: int, rules: ConquianRules):
    rng = random.Random(seed)
    return [random_position(rng, rules, KINDS[i % len(KINDS)]) for i in range(count)]


# ---------------------------------------------------------------- the reference itself


def test_reference_joint_walk_equals_subsets_partitioned_one_by_one():
    """The reference's single walk (a hand card left out or placed) is every subset with every
    partition: the literal loop over subsets agrees on small hands."""
    rng = random.Random(11)
    checked = 0
    while checked < 24:
        rules = ConquianRules(rearrange=MODES[checked % 3])
        melds, hand, taken = random_position(rng, rules, KINDS[checked % len(KINDS)])
        if len(hand) > 6:
            continue
        for t, forced in ((taken, False), (None, False), (taken, True)):
            got = reference_arrangements(rules, melds, hand, t, forced)
            assert got == reference_arrangements_literal(rules, melds, hand, t, forced)
        checked += 1


def test_reference_finds_the_partitions_by_hand():
    # 5S 6S 7S JS with JH JD: the run whole, or 5S 6S 7S and the jacks.
    assert reference_arrangements(FREE, M("6S 7S JS"), H("JH JD"), parse_card("5S")) == {
        M("5S 6S 7S JS"),
        M("5S 6S 7S | JD JH JS"),
    }
    assert reference_arrangements(NONE, M("6S 7S JS"), H("JH JD"), parse_card("5S")) == {M("5S 6S 7S JS")}


# ---------------------------------------------------------------- against the reference


@pytest.mark.reference
@pytest.mark.parametrize("rules", RULESETS)
def test_solver_equals_reference_taking_and_from_the_hand(rules):
    count = 500 if rules.max_run is not None else 250
    seed = MODES.index(rules.rearrange.value) + (rules.max_run is None) * 10
    for melds, hand, taken in positions(seed, count, rules):
        assert_agree(rules, melds, hand, taken)
        assert_agree(rules, melds, hand, None)


@pytest.mark.reference
@pytest.mark.parametrize("rules", RULESETS)
def test_solver_equals_reference_forced(rules):
    """``can_force`` is "the reference lays the card with the table alone"; where it holds, the
    forced arrangements (the hand's cards laid after) agree."""
    rng = random.Random(7 + MODES.index(rules.rearrange.value) + (rules.max_run is None) * 10)
    forcible = 0
    for i in range(1000):
        melds, hand, card = random_forcing(rng, rules, KINDS[i % len(KINDS)])
        want = bool(reference_arrangements(rules, melds, (), card, True))
        assert can_force(rules, melds, card) is want, described(rules, melds, (), card, True)
        if want:
            forcible += 1
            assert_agree(rules, melds, hand, card, forced=True)
        if forcible >= 150:
            break
    assert forcible >= 150


@pytest.mark.reference
@settings(max_examples=40, deadline=None)
@given(st.data())
def test_modes_nest_and_agree_with_the_reference(data):
    """On positions hypothesis draws (melds and hand from two suits and every set): each mode
    equals the reference, and what ``none`` allows ``borrow`` allows, and ``free`` beyond it."""
    suits = data.draw(st.lists(st.integers(0, 3), min_size=1, max_size=2, unique=True), label="suits")
    pool = sorted({c for c in CARDS if suit_of(c) in suits} | {c for c in CARDS if rank_of(c) in RANKS[2:6]})
    runs = [
        tuple(card_at(s, p) for p in range(low, low + n)) for s in suits for n in (3, 4, 5) for low in range(11 - n)
    ]
    sets = [tuple(c for c in CARDS if rank_of(c) == r and suit_of(c) != skip) for r in RANKS[2:6] for skip in (-1, 0)]
    chosen = data.draw(st.lists(st.sampled_from(runs + sets), max_size=3), label="melds")
    melds, used = [], set()
    for meld in chosen:
        if not used & set(meld) and len(used) + len(meld) <= HAND_SIZE:
            melds.append(meld)
            used |= set(meld)
    rest = [c for c in pool if c not in used]
    hand = data.draw(
        st.lists(st.sampled_from(rest), min_size=HAND_SIZE - len(used), max_size=HAND_SIZE - len(used), unique=True),
        label="hand",
    )
    taken = data.draw(st.sampled_from([c for c in rest if c not in hand]), label="taken")
    melds = melds_of(melds)
    for t in (taken, None):
        found = []
        for mode in MODES:
            rules = ConquianRules(rearrange=mode)
            assert_agree(rules, melds, hand, t)
            found.append(solved(rules, melds, hand, t))
        free, borrow, none = found
        assert none <= borrow <= free


# ---------------------------------------------------------------- the answers' shape


@pytest.mark.parametrize("mode", MODES)
def test_laid_is_the_hand_in_the_melds_most_laid_first_each_once(mode):
    rules = ConquianRules(rearrange=mode)
    for melds, hand, taken in positions(3 + MODES.index(mode), 150, rules):
        for t, forced in ((taken, False), (None, False), (taken, can_force(rules, melds, taken))):
            found = arrangements(rules, melds, hand, t, forced=forced)
            keys = [a.melds for a in found]
            assert len(set(keys)) == len(keys)
            assert [len(a.laid) for a in found] == sorted((len(a.laid) for a in found), reverse=True)
            table = {c for m in melds for c in m}
            for a in found:
                assert a.melds == melds_of(a.melds)
                placed = [c for m in a.melds for c in m]
                assert a.laid == tuple(sorted(c for c in placed if c in hand))
                assert set(placed) == table | set(a.laid) | ({t} if t is not None else set())
                assert t is not None or a.laid


# ---------------------------------------------------------------- RULES.md's worked examples


def test_example_1_seven_and_jack_are_consecutive_and_runs_stop_at_eight():
    assert M("5H 6H 7H JH") in solved(FREE, M("5H 6H 7H"), H("2C 3D"), parse_card("JH"))
    # QS KS AS is no meld: the ace is low only.
    assert arrangements(FREE, (), H("QS KS 2D 3C 4H"), parse_card("AS")) == []
    assert M("AS 2S 3S") in solved(FREE, (), H("2S 3S KD"), parse_card("AS"))
    eight, queen, nine = M("AH 2H 3H 4H 5H 6H 7H JH"), parse_card("QH"), M("AH 2H 3H 4H 5H 6H 7H JH QH")
    for mode in ("borrow", "none"):
        assert arrangements(ConquianRules(rearrange=mode), eight, H("KC KD"), queen) == []
        assert not can_force(ConquianRules(rearrange=mode), eight, queen)
    # Under free the queen is taken only by splitting the run.
    found = solved(FREE, eight, H("KC KD"), queen)
    assert M("AH 2H 3H | 4H 5H 6H 7H JH QH") in found and nine not in found
    assert all(len(m) <= 8 for melds in found for m in melds)
    for mode in MODES:
        assert nine in solved(ConquianRules(rearrange=mode, max_run=None), eight, H("KC KD"), queen)
        assert can_force(ConquianRules(rearrange=mode, max_run=None), eight, queen)


def test_example_2_taking():
    rules = FREE
    hand = H("2H 2S KC")
    found = arrangements(rules, M("4C 5C 6C"), hand, parse_card("7C"))
    assert M("4C 5C 6C 7C") in {a.melds for a in found}
    assert M("2D 2H 2S | 4C 5C 6C") in solved(rules, M("4C 5C 6C"), hand, parse_card("2D"))
    for mode in MODES:
        assert arrangements(ConquianRules(rearrange=mode), M("4C 5C 6C"), H("2H 2S 5D"), parse_card("KD")) == []


def test_example_3_rearranging_free_and_borrow():
    table, hand, faced = M("6S 7S JS"), H("JH JD"), parse_card("5S")
    assert shown(FREE, table, hand, faced) == ["5S 6S 7S | JD JH JS", "5S 6S 7S JS"]
    # A run of 3 lends nothing and keeps its cards under borrow and none.
    assert shown(BORROW, table, hand, faced) == ["5S 6S 7S JS"]
    assert shown(NONE, table, hand, faced) == ["5S 6S 7S JS"]

    table, hand, faced = M("3H 4H 5H 6H 7H JH"), H("5D 5C"), parse_card("2H")
    middle = M("2H 3H 4H | 5C 5D 5H | 6H 7H JH")
    assert middle in solved(FREE, table, hand, faced)
    assert middle not in solved(BORROW, table, hand, faced)
    assert middle not in solved(NONE, table, hand, faced)
    assert solved(BORROW, table, hand, faced) == {M("2H 3H 4H 5H 6H 7H JH")}


def test_example_3_borrow_takes_an_end_of_a_run_of_four_or_a_card_of_a_set_of_four():
    rules = BORROW
    # 7H from the end of 4H 5H 6H 7H, with the taken 7S and the hand's 7D.
    assert M("4H 5H 6H | 7D 7H 7S") in solved(rules, M("4H 5H 6H 7H"), H("7D KC"), parse_card("7S"))
    # 4H is in the middle of AH .. 7H: free moves it, borrow does not.
    run, four, hand = M("AH 2H 3H 4H 5H 6H 7H"), parse_card("4S"), H("4D KC")
    assert solved(FREE, run, hand, four) == {M("4D 4H 4S | 5H 6H 7H | AH 2H 3H")}
    assert arrangements(rules, run, hand, four) == []
    # QD from the set of four queens, into QD KD with the taken JD.
    assert M("JD QD KD | QC QH QS") in solved(rules, M("QC QD QH QS"), H("KD 2C"), parse_card("JD"))
    # A card lent from a set of three is not.
    assert arrangements(rules, M("QC QD QH"), H("KD 2C"), parse_card("JD")) == []


def test_example_4_forcing():
    table = M("2D 3D 4D")
    for mode in MODES:
        rules = ConquianRules(rearrange=mode)
        assert can_force(rules, table, parse_card("5D"))
        assert shown(rules, table, (), parse_card("5D"), forced=True) == ["2D 3D 4D 5D"]
        assert M("2D 3D 4D 5D") in solved(rules, table, H("KS QC 6H"), parse_card("5D"), forced=True)
        # 7H 7S 7C only: the 5D fits the hand's 4D 6D, not the table.
        sevens, five = M("7H 7S 7C"), parse_card("5D")
        assert not can_force(rules, sevens, five)
        assert reference_arrangements(rules, sevens, (), five, True) == set()
        assert M("4D 5D 6D | 7C 7H 7S") in solved(rules, sevens, H("4D 6D"), five)


def test_example_5_going_out_with_the_eleventh_card():
    table, hand = M("AC 2C 3C 4C 5C | KH KD KS"), H("QH QD")
    for rules in (FREE, BORROW, NONE):
        found = arrangements(rules, table, hand, parse_card("QS"))
        assert found[0].melds == M("AC 2C 3C 4C 5C | KD KH KS | QD QH QS") and found[0].laid == hand
        assert sum(len(m) for m in found[0].melds) == 11
        six = arrangements(rules, table, hand, parse_card("6C"))
        assert M("AC 2C 3C 4C 5C 6C | KD KH KS") in {a.melds for a in six}
        assert all(a.laid == () and sum(len(m) for m in a.melds) == 9 for a in six)
        if rules.rearrange.value != "free":  # free may also cut the run in two
            assert len(six) == 1


def test_example_6_a_forced_card_on_an_empty_hand_makes_eleven():
    table = M("AC 2C 3C 4C 5C 6C 7C | KH KD KS")
    for rules in (FREE, BORROW, NONE):
        assert can_force(rules, table, parse_card("JC"))
        found = arrangements(rules, table, (), parse_card("JC"), forced=True)
        assert found and all(sum(len(m) for m in a.melds) == 11 for a in found)


def test_melding_from_the_hand_alone_must_lay_a_card():
    assert shown(NONE, (), H("2H 3H 4H"), None) == ["2H 3H 4H"]
    assert arrangements(FREE, M("2H 3H 4H"), (), None) == []
    assert shown(NONE, M("2H 3H 4H"), H("5H KS"), None) == ["2H 3H 4H 5H"]
