"""Notation (docs/RULES.md "Notation") and point values."""

import re
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from carousel_env.core.cards import (
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
    meld_str,
    parse_card,
    parse_hand,
    parse_meld,
    parse_table,
    parse_unit,
    rank_of,
    suit_of,
    table_str,
    unit_str,
)
from carousel_env.core.errors import NotationError


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
    assert parse_unit("Jk=tD") == joker_as(make_card(10, 1))
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
    assert table_str(parse_table("ac 2c 3c | jk=kd kh ks")) == "AC 2C 3C | JK=KD KH KS"


def test_hand_is_sorted_and_round_trips():
    hand = parse_hand("JK 10H 3C 10H")
    assert hand == tuple(sorted(hand))
    assert parse_hand(hand_str(hand)) == hand
    assert hand_str(hand) == "3C 10H 10H JK"
    assert parse_hand("") == ()


def test_meld_keeps_its_order():
    assert meld_str(parse_meld("7s jk=7d 7h")) == "7S JK=7D 7H"


@pytest.mark.parametrize(
    ("text", "bad"),
    [
        ("3C 1H", "1H"),
        ("3C 10X", "10X"),
        ("QQ", "QQ"),
        ("11H", "11H"),
        ("JK=7H", "JK=7H"),
        ("H", "H"),
        ("Aſ", "Aſ"),  # "ſ".upper() is "S": only ASCII letters change case
        ("1OH", "1OH"),
        # spacing: single spaces between cards and nowhere else
        ("3C  4C", "3C  4C"),
        (" 3C 4C", " 3C"),
        ("3C 4C ", "4C "),
        ("   ", "   "),
        ("3C\t4C", "3C\t4C"),
        ("3C 4C\n", "4C\n"),
        ("3C\u00a04C", "3C\u00a04C"),
        # a hand has no melds
        ("3C 4C | 5C", "|"),
        ("3C|4C", "3C|4C"),
    ],
)
def test_malformed_hand_names_the_token(text, bad):
    with pytest.raises(NotationError) as err:
        parse_hand(text)
    assert err.value.token == bad
    assert repr(bad) in str(err.value)


@pytest.mark.parametrize(
    ("text", "bad", "why"),
    [
        ("3C 4C JK", "JK", "needs a declared card"),
        ("JK=1H 2H 3H", "JK=1H", "malformed card"),
        ("JK=JK 2H 3H", "JK=JK", "malformed card"),
        ("3C 4C ZZ", "ZZ", "malformed card"),
        # melds are separated by " | " exactly
        ("3C 4C 5C|7H 7S 7D", "5C|7H", "separated by ' | '"),
        ("3C 4C 5C |7H 7S 7D", "|7H", "separated by ' | '"),
        ("3C 4C 5C| 7H 7S 7D", "5C|", "separated by ' | '"),
        ("3C 4C 5C  | 7H 7S 7D", "5C  |", "more than one space"),
        ("3C 4C 5C |  7H 7S 7D", "|  7H", "more than one space"),
        ("3C 4C 5C\t|\t7H 7S 7D", "5C\t|\t7H", "only single spaces"),
        ("3C 4C 5C\n", "5C\n", "only single spaces"),
        (" 3C 4C 5C", " 3C", "before the first card"),
        ("3C 4C 5C ", "5C ", "after the last card"),
        (" ", " ", "empty table is the empty string"),
        # an empty meld is named by its position
        ("3C 4C 5C | | 7H 7S 7D", "meld 2", "meld 2 of 3 is empty"),
        ("| 3C 4C 5C", "meld 1", "meld 1 of 2 is empty"),
        ("3C 4C 5C |", "meld 2", "meld 2 of 2 is empty"),
        ("|", "meld 1", "meld 1 of 2 is empty"),
    ],
)
def test_malformed_table_names_the_token(text, bad, why):
    with pytest.raises(NotationError) as err:
        parse_table(text)
    assert err.value.token == bad
    assert why in str(err.value)
    if not bad.startswith("meld "):
        assert repr(bad) in str(err.value)


@pytest.mark.parametrize(
    ("text", "bad"),
    [("", "meld 1"), ("  ", "  "), ("3C 4C | 5C", "|"), ("3C|4C", "3C|4C"), ("3C JK", "JK"), ("3C  4C", "3C  4C")],
)
def test_malformed_meld_names_the_token(text, bad):
    with pytest.raises(NotationError) as err:
        parse_meld(text)
    assert err.value.token == bad


@pytest.mark.parametrize("parse", [parse_card, parse_unit, parse_hand, parse_meld, parse_table])
@pytest.mark.parametrize(("value", "kind"), [(None, "NoneType"), (10, "int"), (b"3C", "bytes"), (["3C"], "list")])
def test_non_text_is_a_notation_error_naming_the_type(parse, value, kind):
    with pytest.raises(NotationError) as err:
        parse(value)
    assert err.value.token == kind
    assert f"not {kind}" in str(err.value)


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


# ---------------------------------------------------------------- any text at all

# (parser, printer, whether the printer reorders the tokens)
PARSERS = {
    "card": (parse_card, card_str, False),
    "unit": (parse_unit, unit_str, False),
    "hand": (parse_hand, hand_str, True),
    "meld": (parse_meld, meld_str, False),
    "table": (parse_table, table_str, False),
}


def _canonical(text: str) -> str:
    """``text`` as the printer writes it, token for token: upper case, ``10`` for ``T``
    (a T in notation that parsed is always a rank)."""
    return re.sub("T", "10", text.upper())


def _parses_exactly_or_names_the_token(kind: str, text: str) -> None:
    """Either ``text`` is the canonical text up to case and ``T``, and parses to a value
    that prints and parses back to itself, or it raises NotationError naming a token."""
    parse, show, reorders = PARSERS[kind]
    try:
        value = parse(text)
    except NotationError as err:  # never any other exception
        # the token is part of the text (all of it for an empty card) or an empty meld's position
        assert err.token in text or re.fullmatch(r"meld \d+", err.token), err.token
        assert err.token or (text == "" and kind in ("card", "unit")), err
        return
    printed = show(value)
    assert parse(printed) == value and show(parse(printed)) == printed
    if reorders:
        assert Counter(printed.split(" ")) == Counter(_canonical(text).split(" "))
    else:
        assert printed == _canonical(text)


NOTATION_ALPHABET = "0123456789AJQKTCDHSacdhjkqst=| \t\n"
TOKENS = ["3C", "10H", "th", "AS", "JK", "jk", "JK=7H", "jk=td", "|", "1H", "JK=JK", "", "=", "X"]
SEPARATORS = [" ", " ", " ", " | ", "|", "  ", " |", "\t", ""]


@st.composite
def notation_like(draw) -> str:
    """Text built from tokens (mostly valid) and separators (mostly the right ones)."""
    tokens = draw(st.lists(st.sampled_from(TOKENS), max_size=8))
    text = tokens[0] if tokens else ""
    for token in tokens[1:]:
        text += draw(st.sampled_from(SEPARATORS)) + token
    return text


@pytest.mark.parametrize("kind", sorted(PARSERS))
@given(text=st.one_of(st.text(), st.text(alphabet=NOTATION_ALPHABET), notation_like()))
def test_any_text_parses_exactly_or_names_the_token(kind, text):
    _parses_exactly_or_names_the_token(kind, text)


@pytest.mark.parametrize("kind", sorted(PARSERS))
@given(value=st.one_of(st.none(), st.integers(), st.binary(), st.lists(st.text(max_size=3), max_size=2)))
def test_any_non_text_is_refused_by_type(kind, value):
    parse = PARSERS[kind][0]
    with pytest.raises(NotationError) as err:
        parse(value)
    assert err.value.token == type(value).__name__


def test_plural_counts_in_words():
    from carousel_env.core.text import plural

    assert [plural(1, "card"), plural(2, "card"), plural(0, "hand")] == ["1 card", "2 cards", "0 hands"]
    assert [plural(3, "match"), plural(1, "match"), plural(2, "box")] == ["3 matches", "1 match", "2 boxes"]
