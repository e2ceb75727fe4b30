"""Notation (RULES.md "Notation") and point values."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from carousel_env.engine.cards import (
    JOKER,
    NUM_CARDS,
    card_points,
    card_str,
    face,
    hand_points,
    hand_str,
    is_table_joker,
    joker_as,
    make_card,
    parse_card,
    parse_hand,
    parse_table,
    parse_unit,
    rank_of,
    suit_of,
    table_str,
)
from carousel_env.engine.errors import NotationError


def test_card_texts_round_trip():
    for card in range(NUM_CARDS):
        assert parse_card(card_str(card)) == card
    assert card_str(JOKER) == "JK"
    assert [card_str(make_card(r, 2)) for r in (1, 10, 11, 12, 13)] == ["AH", "10H", "JH", "QH", "KH"]


def test_parsing_is_case_insensitive_and_accepts_t_for_ten():
    assert parse_card("th") == parse_card("10H") == make_card(10, 2)
    assert parse_card("qs") == make_card(12, 3)
    assert parse_card("jk") == JOKER
    assert parse_unit("jk=7h") == joker_as(make_card(7, 2))
    assert card_str(parse_card("Tc")) == "10C"


def test_table_joker_carries_its_declared_card():
    unit = parse_unit("JK=7H")
    assert is_table_joker(unit)
    assert face(unit) == make_card(7, 2)
    assert rank_of(unit) == 7 and suit_of(unit) == 2


def test_table_round_trip_exact():
    text = "3C 4C 5C | 7H 7S JK=7D"
    assert table_str(parse_table(text)) == text
    assert parse_table("") == ()
    assert table_str(parse_table("ac 2c 3c|jk=kd kh ks")) == "AC 2C 3C | JK=KD KH KS"


def test_hand_is_sorted_and_round_trips():
    hand = parse_hand("JK 10H 3C 10H")
    assert hand == tuple(sorted(hand))
    assert parse_hand(hand_str(hand)) == hand
    assert hand_str(hand) == "3C 10H 10H JK"


@pytest.mark.parametrize(
    ("text", "bad"),
    [("3C 1H", "1H"), ("3C 10X", "10X"), ("QQ", "QQ"), ("11H", "11H"), ("JK=7H", "JK=7H"), ("H", "H")],
)
def test_malformed_hand_names_the_token(text, bad):
    with pytest.raises(NotationError) as err:
        parse_hand(text)
    assert err.value.token == bad
    assert repr(bad) in str(err.value)


@pytest.mark.parametrize(
    ("text", "bad"),
    [("3C 4C JK", "JK"), ("3C 4C | | 5C", ""), ("JK=1H 2H 3H", "JK=1H"), ("JK=JK 2H 3H", "JK=JK"), ("3C 4C ZZ", "ZZ")],
)
def test_malformed_table_names_the_token(text, bad):
    with pytest.raises(NotationError) as err:
        parse_table(text)
    assert err.value.token.strip() == bad


def test_point_values():
    assert card_points(JOKER) == 25
    assert card_points(parse_card("AS")) == 1
    assert [card_points(parse_card(t)) for t in ("JD", "QD", "KD", "10D", "2D", "7D")] == [10, 10, 10, 10, 2, 7]
    assert hand_points(parse_hand("AS 2C JK KH")) == 38


@given(st.lists(st.integers(0, NUM_CARDS), max_size=30))
def test_any_hand_round_trips(cards):
    hand = tuple(sorted(cards))
    assert parse_hand(hand_str(hand)) == hand


@given(st.lists(st.lists(st.integers(0, 103), min_size=1, max_size=6), max_size=8))
def test_any_table_round_trips(raw):
    table = tuple(tuple(u if u < NUM_CARDS else joker_as(u - NUM_CARDS) for u in meld) for meld in raw)
    assert parse_table(table_str(table)) == table
