"""Carioca's melds, lay-offs and solver, from RULES.md's worked examples and against brute
force (tests/games/carioca/carioca_reference.py) on random and crafted hands."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from carousel_env.core.cards import JOKER, face, is_table_joker, make_card, make_deck, parse_hand, parse_meld
from carousel_env.games.carioca import melds as cm
from carousel_env.games.carioca import solver
from carousel_env.games.carioca.melds import End, MeldError, MeldKind
from carousel_env.games.carioca.rules import CONTRACTS, HIGH_ACE, LOW_ACE, Contract, card_at, hand_points
from tests.games.carioca.carioca_reference import brute_arrangements, brute_distance

ROUND_2 = CONTRACTS[1]


def meld(text: str) -> cm.Meld:
    return cm.meld_from_units(parse_meld(text))


def keys(arrangements) -> set:
    return {tuple(sorted((m.kind.value, m.low, m.units) for m in a)) for a in arrangements}


# ---------------------------------------------------------------- melds


def test_trios_may_repeat_suits_and_escaleras_take_the_ace_high_or_low():
    assert meld("9S 9H 9H").kind is MeldKind.TRIO
    assert meld("JC QC KC AC").low == 11 and meld("JC QC KC AC").high == HIGH_ACE
    assert meld("AH 2H 3H 4H").low == LOW_ACE
    full = meld("AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS")
    assert (full.low, full.high) == (LOW_ACE, HIGH_ACE)


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("KS AS 2S 3S", "neither a trio nor an escalera"),  # the ace is not both high and low
        ("9S 9H", "at least 3"),
        ("4D 5D 7D", "neither"),
        ("4D 5D 6H 7D", "neither"),
        ("JK=7H JK=7S JK=7D", "real card"),
    ],
)
def test_what_is_no_meld(text, rule):
    with pytest.raises(MeldError, match=rule):
        meld(text)


def test_a_trio_or_an_escalera_needs_a_real_card():
    with pytest.raises(MeldError, match="real card"):
        cm.trio(parse_meld("JK=7H JK=7S JK=7C"))
    with pytest.raises(MeldError, match="real card"):
        cm.escalera(parse_meld("JK=4D JK=5D JK=6D JK=7D"), 4)


def test_worked_example_1_the_round_2_contract_with_one_joker_a_meld():
    good = [cm.escalera(parse_meld("JK=3D 4D 5D 6D"), 3), meld("7H 7S JK=7C")]
    cm.check_contract(good, ROUND_2)
    declared_high = [cm.escalera(parse_meld("4D 5D 6D JK=7D"), 4), meld("7H 7S JK=7C")]
    cm.check_contract(declared_high, ROUND_2)
    with pytest.raises(MeldError, match="at most 1 joker"):
        cm.check_contract([cm.escalera(parse_meld("JK=3D JK=4D 5D 6D"), 3), meld("7H 7S 7C")], ROUND_2)
    # From a hand: both declarations of the escalera's joker are offered, the joker spared first.
    options = solver.arrangements(parse_hand("JK JK 4D 5D 6D 7H 7S 7C 2C 9S KH QH"), ROUND_2)
    escaleras = {str(m) for a in options for m in a if m.kind is MeldKind.ESCALERA}
    assert escaleras >= {"JK=3D 4D 5D 6D", "4D 5D 6D JK=7D"}
    assert sum(m.jokers for m in options[0]) == 1  # the trio 7H 7S 7C needs none


def test_going_down_lays_exactly_the_contract():
    with pytest.raises(MeldError, match="exactly 3"):
        cm.check_contract([meld("7H 7S 7C 7D"), meld("4D 5D 6D 7D")], ROUND_2)
    with pytest.raises(MeldError, match="exactly the contract"):
        cm.check_contract([meld("7H 7S 7C"), meld("8H 8S 8C")], ROUND_2)
    with pytest.raises(MeldError, match="different ranks"):
        cm.check_contract([meld("7H 7S 7C"), meld("7H 7S 7D")], CONTRACTS[0])


def test_worked_example_2_jokers_at_the_ends():
    low = meld("JK=3D 4D 5D 6D")
    assert str(cm.laid_off(low, make_card(3, 1), End.LOW)) == "JK=2D 3D 4D 5D 6D"  # tucked: pushed out
    assert str(cm.laid_off(low, make_card(2, 1), End.LOW)) == "2D JK=3D 4D 5D 6D"  # beyond it
    assert str(cm.laid_off(low, make_card(7, 1), End.HIGH)) == "JK=3D 4D 5D 6D 7D"
    high = meld("9S 10S JS JK=QS")
    assert str(cm.laid_off(high, make_card(8, 3), End.LOW)) == "8S 9S 10S JS JK=QS"
    assert str(cm.laid_off(high, make_card(12, 3), End.HIGH)) == "9S 10S JS QS JK=KS"
    assert str(cm.laid_off(high, make_card(13, 3), End.HIGH)) == "9S 10S JS JK=QS KS"
    # 7S with the joker moved to 8S: a joker never moves to the other end.
    assert all(cm.laid_off(high, make_card(7, 3), end) is None for end in End)


def test_a_joker_inside_never_changes_and_one_at_the_ace_stays():
    inside = meld("3D JK=4D 5D 6D")
    assert all(cm.laid_off(inside, make_card(4, 1), end) is None for end in End)
    at_ace = meld("JK=AD 2D 3D 4D")
    assert cm.laid_off(at_ace, make_card(1, 1), End.LOW) is None  # nowhere to push it
    assert str(cm.laid_off(meld("JS QS KS JK=AS"), make_card(10, 3), End.LOW)) == "10S JS QS KS JK=AS"
    assert cm.laid_off(meld("JS QS KS JK=AS"), make_card(1, 3), End.HIGH) is None


def test_lay_offs_on_trios_and_with_jokers():
    sevens = meld("7H 7S 7C")
    assert str(cm.laid_off(sevens, make_card(7, 2), End.LOW)) == "7H 7S 7C 7H"
    assert str(cm.laid_off(sevens, JOKER, End.LOW)) == "7H 7S 7C JK=7C"
    assert cm.laid_off(sevens, JOKER, End.HIGH) is None  # a trio has one place
    assert cm.laid_off(sevens, make_card(8, 2), End.LOW) is None
    run = meld("4D 5D 6D 7D")
    assert str(cm.laid_off(run, JOKER, End.LOW)) == "JK=3D 4D 5D 6D 7D"
    assert str(cm.laid_off(run, JOKER, End.HIGH)) == "4D 5D 6D 7D JK=8D"
    assert cm.laid_off(meld("AH 2H 3H 4H"), JOKER, End.LOW) is None


def test_an_escalera_grows_to_the_full_run_and_no_further():
    m = meld("AS 2S 3S 4S")
    for position in range(5, HIGH_ACE + 1):
        m = cm.laid_off(m, card_at(3, position), End.HIGH)
    assert (m.low, m.high) == (LOW_ACE, HIGH_ACE)
    assert all(cm.laid_off(m, c, e) is None for c in (JOKER, make_card(1, 3)) for e in End)


@st.composite
def escalera_on_table(draw):
    suit = draw(st.integers(0, 3))
    low = draw(st.integers(LOW_ACE, HIGH_ACE - 3))
    length = draw(st.integers(4, HIGH_ACE - low + 1))
    jokers = draw(st.sets(st.integers(0, length - 1), max_size=length - 1))
    units = tuple(cm.joker_as(card_at(suit, low + i)) if i in jokers else card_at(suit, low + i) for i in range(length))
    return cm.escalera(units, low)


@settings(max_examples=300, deadline=None)
@given(escalera_on_table(), st.sampled_from([*range(52), JOKER]), st.sampled_from(list(End)))
def test_a_lay_off_keeps_a_valid_escalera_and_moves_jokers_only_outward_at_their_end(meld_, card, end):
    grown = cm.laid_off(meld_, card, end)
    if grown is None:
        return
    assert cm.escalera(grown.units, grown.low) == grown  # still valid
    assert sorted(grown.cards()) == sorted((*meld_.cards(), card))
    assert grown.low in (meld_.low, meld_.low - 1) and grown.high in (meld_.high, meld_.high + 1)
    old = {meld_.low + i: u for i, u in enumerate(meld_.units)}
    new = {grown.low + i: u for i, u in enumerate(grown.units)}
    moved = [cell for cell, u in old.items() if new[cell] != u]
    # At most one unit changed: the end joker, replaced by the tucked card and pushed one out.
    assert len(moved) <= 1
    for cell in moved:
        assert is_table_joker(old[cell]) and cell in (meld_.low, meld_.high) and not is_table_joker(new[cell])
        outer = cell - 1 if cell == meld_.low else cell + 1
        assert is_table_joker(new[outer]) and face(new[cell]) == face(old[cell])


# ---------------------------------------------------------------- solver


def rich_hand(rng: random.Random, size: int) -> tuple:
    """A hand from a narrow pool (two suits, six ranks, duplicates, jokers): many melds."""
    suits = rng.sample(range(4), 2)
    low = rng.choice([1, 2, 8, 9])
    pool = [make_card(r, s) for r in range(low, min(low + 6, 14)) for s in suits] * 2 + [JOKER] * 4
    return tuple(sorted(rng.sample(pool, size)))


@pytest.mark.parametrize("seed", range(4))
def test_arrangements_match_brute_force_on_crafted_hands(seed):
    rng = random.Random(seed)
    for _ in range(10):
        hand = rich_hand(rng, 12)
        for contract in CONTRACTS:
            found = solver.arrangements(hand, contract)
            assert len(keys(found)) == len(found)  # distinct
            assert keys(found) == brute_arrangements(hand, contract), (hand, contract)


def test_arrangements_match_brute_force_on_random_hands():
    rng = random.Random(7)
    deck = make_deck(2, 4)
    for _ in range(15):
        hand = tuple(sorted(rng.sample(deck, 12)))
        for contract in CONTRACTS:
            assert keys(solver.arrangements(hand, contract)) == brute_arrangements(hand, contract)


def test_arrangements_are_ordered_jokers_spared_then_least_value_kept():
    hand = parse_hand("JK 7H 7S 7C 7D 8H 8S 8C KH KS 2C 3C")
    options = solver.arrangements(hand, CONTRACTS[0])
    key = [(sum(m.jokers for m in a), hand_points(hand) - sum(hand_points(m.cards()) for m in a)) for a in options]
    assert key == sorted(key)
    assert {m.rank for m in options[0]} == {7, 8}  # the kings need the joker: it is spared
    assert solver.arrangements(hand, CONTRACTS[0], limit=2) == options[:2]


def test_a_card_is_kept_to_discard():
    hand = parse_hand("4D 5D 6D 7D 9H 10H JH QH 8S 8C 8H")  # round 6 held with 11 cards
    assert solver.arrangements(hand, CONTRACTS[5]) == []
    assert len(solver.arrangements(hand, CONTRACTS[5], keep_one=False)) == 1
    assert solver.distance(hand, CONTRACTS[5]) == 0
    assert solver.arrangements((*hand, 0), CONTRACTS[5])


@pytest.mark.parametrize("seed", range(3))
def test_distance_matches_adding_cards_until_the_contract_is_held(seed):
    rng = random.Random(100 + seed)
    for _ in range(8):
        hand = rich_hand(rng, 11)
        for contract in CONTRACTS:
            found = solver.reference_distance(hand, contract)
            assert solver.distance(hand, contract) == found  # the compiled one
            if found <= 2:
                assert brute_distance(hand, contract, most=2) == found, (hand, contract)
            else:
                assert brute_distance(hand, contract, most=1) is None


def test_distance_on_concrete_hands():
    assert solver.distance(parse_hand("JK 4D 5D 6D 7H 7S 2C 9C KH QH 3S"), ROUND_2) == 1  # one joker, two melds
    assert solver.distance(parse_hand("JK JK 4D 5D 6D 7H 7S 2C 9C KH QH"), ROUND_2) == 0
    # Two escaleras of one suit need eight cards in sequence (or a second copy where they meet).
    assert solver.distance(parse_hand("2H 3H 4H 5H 6H 7H 8H 9H 9D KC KD"), CONTRACTS[2]) == 0
    assert solver.distance(parse_hand("2H 3H 4H 5H 6H 7H 8H 9C 9D KC KD"), CONTRACTS[2]) == 1
    assert solver.distance(parse_hand("2H 3H 4H 5H 5H 6H 7H 8H 9D KC KD"), CONTRACTS[2]) == 0
    assert solver.distance((), Contract(trios=1, escaleras=2)) == 11


def test_legal_layoffs_list_every_card_meld_and_end():
    table = ((meld("7H 7S 7C"),), (meld("JK=3D 4D 5D 6D"),))
    found = solver.legal_layoffs(parse_hand("7D 3D JK 9C"), table)
    assert [(c, s, m, e) for c, s, m, e in found] == [
        (make_card(7, 1), 0, 0, End.LOW),
        (JOKER, 0, 0, End.LOW),
        (make_card(3, 1), 1, 0, End.LOW),
        (make_card(7, 1), 1, 0, End.HIGH),
        (JOKER, 1, 0, End.LOW),
        (JOKER, 1, 0, End.HIGH),
    ]
    assert solver.legal_layoffs(parse_hand("7D"), table) == []  # the last card is kept to discard
