"""Kaluki's melds (RULES.md, "Kaluki": "Melds", worked examples 1, 2, 3 and 5; "Rummy"
example 2): sets, runs, opening values, lay-offs and joker exchanges under each option."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from carousel_env.core.cards import JOKER, face, is_table_joker, joker_as, make_deck, parse_card, parse_meld
from carousel_env.games.kaluki import melds as km
from carousel_env.games.kaluki.legal import candidate_melds
from carousel_env.games.kaluki.melds import End, MeldError, MeldKind
from carousel_env.games.kaluki.rules import PRESETS, KalukiRules

BOOK, UK40, RUMMY = PRESETS["book"], PRESETS["uk40"], PRESETS["rummy"]


def meld(text: str, rules: KalukiRules = BOOK) -> km.Meld:
    return km.meld_from_units(parse_meld(text), rules)


def value(text: str, rules: KalukiRules = BOOK) -> int:
    return km.meld_value(meld(text, rules), rules)


# ---------------------------------------------------------------- worked examples


def test_example_1_opening_values():
    assert value("QH KH AH") == 31 and value("7S 7D 7C") == 21
    assert value("QH KH AH") + value("7S 7D 7C") == 52 >= BOOK.opening
    assert value("JS QS KS") == 30 and value("5H 5D 5C") == 15
    assert value("JS QS KS") + value("5H 5D 5C") == 45
    assert BOOK.opening > 45 and KalukiRules(opening=40).opening <= 45


def test_example_2_a_joker_counts_its_card_and_a_low_ace_one():
    assert value("9D JK=10D JD") == 29
    assert value("AS 2S 3S") == 6
    assert value("JK=AS 2S 3S") == 6
    assert value("AS AD AH") == 33
    assert km.meld_value(meld("QH KH AH"), KalukiRules(ace_value=15)) == 35


@pytest.mark.parametrize("text", ["6H 6S 6D", "6H 6S 6D 6C", "6H JK=6S JK=6D", "AS 2S 3S", "QS KS AS"])
def test_example_3_legal_melds(text):
    assert meld(text).units


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("6H 6H 6S", "no duplicate"),
        ("JK=6H JK=6S JK=6D", "at least one natural"),
        ("KS AS 2S", "never wraps"),
        ("6H 6S 6D 6C 6H", "3 or 4 cards"),
        ("6H JK=6H 6S", "no duplicate"),
        ("6H 7H", "3 to 13"),
        ("6H 7S 8H", "neither a set"),
        ("5H 6H 8H", "consecutive"),
    ],
)
def test_example_3_illegal_melds_name_the_rule(text, rule):
    with pytest.raises(MeldError, match=rule):
        meld(text)


def test_example_3_no_fifth_six():
    four = meld("6H 6S 6D 6C")
    with pytest.raises(MeldError, match="no fifth"):
        km.laid_off(four, parse_card("6H"), BOOK)


def test_example_3_under_uk40_the_ace_is_not_low():
    with pytest.raises(MeldError, match="ace_low_runs"):
        meld("AS 2S 3S", UK40)
    assert meld("QS KS AS", UK40).low == 12


def test_rummy_example_2_the_ace_is_low_only():
    with pytest.raises(MeldError, match="ace_high_runs"):
        meld("QH KH AH", RUMMY)
    assert meld("AH 2H 3H", RUMMY).low == 1


def test_example_5_run_exchange_frees_the_joker():
    run = meld("8C 9C JK=10C JC")
    freed, released = km.exchanged(run, parse_card("10C"), [parse_card("10C")], BOOK)
    assert freed == meld("8C 9C 10C JC") and released == 1
    with pytest.raises(MeldError, match="the card it declares, 10C"):
        km.exchanged(run, parse_card("10C"), [parse_card("10D")], KalukiRules(set_joker_release="either_missing"))


def test_example_5_set_exchange_under_each_release_rule():
    three = meld("10D 10S JK=10H")
    ten = {t: parse_card(t) for t in ("10H", "10C", "10D")}
    freed, released = km.exchanged(three, ten["10H"], [ten["10H"]], BOOK)
    assert freed == meld("10D 10S 10H") and released == 1
    with pytest.raises(MeldError, match="declares, 10H"):
        km.exchanged(three, ten["10H"], [ten["10C"]], BOOK)
    either = KalukiRules(set_joker_release="either_missing")
    assert km.exchanged(three, ten["10H"], [ten["10C"]], either)[0] == meld("10D 10S 10C")
    assert km.exchanged(three, ten["10H"], [ten["10H"]], either)[0] == meld("10D 10S 10H")
    with pytest.raises(MeldError, match="either_missing"):
        km.exchanged(three, ten["10H"], [ten["10D"]], either)
    with pytest.raises(MeldError, match="all_missing"):
        km.exchanged(three, ten["10H"], [ten["10H"]], UK40)
    freed, released = km.exchanged(three, ten["10H"], [ten["10H"], ten["10C"]], UK40)
    assert sorted(freed.units) == sorted(parse_meld("10D 10S 10H 10C")) and released == 1


def test_all_missing_releases_every_joker_of_the_set():
    two = meld("10D JK=10S JK=10H")
    cards = [parse_card(t) for t in ("10S", "10H", "10C")]
    freed, released = km.exchanged(two, parse_card("10S"), cards, UK40)
    assert freed.jokers == 0 and len(freed.units) == 4 and released == 2


def test_either_missing_cannot_clash_with_another_jokers_suit():
    two = meld("10D JK=10S JK=10H")
    with pytest.raises(MeldError, match="different suit"):
        km.exchanged(two, parse_card("10H"), [parse_card("10S")], KalukiRules(set_joker_release="either_missing"))


def test_an_exchange_names_a_joker_that_is_there():
    with pytest.raises(MeldError, match="no joker declaring 9C"):
        km.exchanged(meld("8C 9C JK=10C"), parse_card("9C"), [parse_card("9C")], BOOK)


# ---------------------------------------------------------------- runs and lay-offs


def test_runs_read_in_any_order_and_long_runs():
    assert meld("3S AS 2S").units == parse_meld("AS 2S 3S")
    full = "AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS"
    assert meld(full).low == 1 and meld(full).high == 13
    assert meld("2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS").high == 14
    with pytest.raises(MeldError):
        km.laid_off(meld(full), parse_card("AS"), BOOK)


def test_lay_off_extends_a_run_at_either_end():
    run = meld("5H 6H 7H")
    assert km.laid_off(run, parse_card("4H"), BOOK).units == parse_meld("4H 5H 6H 7H")
    assert km.laid_off(run, parse_card("8H"), BOOK).units == parse_meld("5H 6H 7H 8H")
    assert km.laid_off(run, joker_as(parse_card("8H")), BOOK).units == parse_meld("5H 6H 7H JK=8H")
    for bad in ("9H", "5D", "6H"):
        with pytest.raises(MeldError, match="does not extend"):
            km.laid_off(run, parse_card(bad), BOOK)
    with pytest.raises(MeldError, match="does not extend"):
        km.laid_off(run, joker_as(parse_card("9H")), BOOK)


def test_an_ace_goes_where_the_rules_let_it():
    assert km.laid_off(meld("2D 3D 4D"), parse_card("AD"), BOOK).low == 1
    assert km.laid_off(meld("JD QD KD"), parse_card("AD"), BOOK).high == 14
    with pytest.raises(MeldError, match="ace_low_runs"):
        km.laid_off(meld("2D 3D 4D", UK40), parse_card("AD"), UK40)
    twelve = meld("2D 3D 4D 5D 6D 7D 8D 9D 10D JD QD KD")
    assert km.laid_off(twelve, parse_card("AD"), BOOK).low == 1
    assert km.laid_off(twelve, parse_card("AD"), BOOK, End.HIGH).high == 14


def test_lay_off_completes_a_set_to_four():
    three = meld("9C 9D 9H")
    assert len(km.laid_off(three, parse_card("9S"), BOOK).units) == 4
    assert km.laid_off(three, joker_as(parse_card("9S")), BOOK).jokers == 1
    with pytest.raises(MeldError, match="different suit"):
        km.laid_off(three, parse_card("9D"), BOOK)
    with pytest.raises(MeldError, match="one rank"):
        km.laid_off(three, parse_card("8S"), BOOK)


@pytest.mark.parametrize(
    ("card", "hand", "preset", "makes"),
    [
        ("7H", "7C 7S 2D", "book", True),  # a set with two other suits
        ("7H", "7H 7C 2D", "book", False),  # its own copy is no other suit
        ("7H", "5H 6H", "book", True),  # a run below it
        ("7H", "6H 8H", "book", True),  # around it
        ("7H", "8H 9H", "book", True),  # above it
        ("7H", "5H 8H 9C", "book", False),  # a gap, and a partner only
        ("AS", "2S 3S", "book", True),  # a low ace
        ("AS", "QS KS", "book", True),  # a high ace
        ("AS", "QS KS", "rummy", False),  # plain Rummy's ace is low only
        ("AS", "2S 3S", "uk40", False),  # uk40's ace is high only
        ("JK", "7C 7S", "book", False),  # a joker is no natural
    ],
)
def test_a_card_makes_a_meld_with_two_naturals_of_the_hand(card, hand, preset, makes):
    naturals = [c for c in (parse_card(t) for t in hand.split()) if c != JOKER]
    assert km.makes_meld(parse_card(card), naturals, PRESETS[preset]) is makes


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(range(52)), max_size=14), st.sampled_from(range(52)), st.sampled_from(list(PRESETS)))
def test_a_card_makes_a_meld_where_a_natural_candidate_meld_holds_it(hand, card, preset):
    rules = PRESETS[preset]
    holds = any(card in m.units for m in candidate_melds(sorted([*hand, card]), rules, max_jokers=0))
    assert km.makes_meld(card, hand, rules) is holds


# ---------------------------------------------------------------- properties

PACK = make_deck(2, 4)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(PACK), min_size=3, max_size=16), st.sampled_from(list(PRESETS)))
def test_every_candidate_meld_is_valid_and_made_of_the_hand(hand, preset):
    rules = PRESETS[preset]
    for m in candidate_melds(hand, rules):
        again = km.meld_from_units(m.units, rules)
        assert again.kind is m.kind and sorted(again.units) == sorted(m.units)
        assert not any(m.cards().count(c) > hand.count(c) for c in m.cards())
        assert 3 <= len(m.units) <= (4 if m.kind is MeldKind.SET else 13)
        assert any(not is_table_joker(u) for u in m.units)
        assert km.meld_value(m, rules) >= 3


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(PACK), min_size=3, max_size=12), st.sampled_from(PACK), st.sampled_from(list(PRESETS)))
def test_a_lay_off_keeps_a_valid_meld_one_longer(hand, card, preset):
    rules = PRESETS[preset]
    for m in candidate_melds(hand, rules)[:20]:
        units = [joker_as(c) for c in range(52)] if card == JOKER else [card]
        for unit in units:
            try:
                grown = km.laid_off(m, unit, rules)
            except MeldError:
                continue
            assert len(grown.units) == len(m.units) + 1
            assert km.meld_from_units(grown.units, rules).kind is m.kind
            assert sorted(face(u) for u in grown.units if u != unit) == sorted(face(u) for u in m.units)
