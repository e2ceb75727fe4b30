"""Sets and runs (RULES.md "Melds")."""

import pytest

from carousel_env.core.cards import parse_meld, parse_table, table_str
from carousel_env.games.carousel.engine.melds import MeldKind, canonical_table, is_valid_meld, meld_kind, sort_meld
from carousel_env.games.carousel.engine.rules import carousel, manipulation_rummy

CAROUSEL = carousel(3)
VARIANT = manipulation_rummy(4)


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("7H 7S 7D", MeldKind.SET),
        ("7H 7S 7D 7C", MeldKind.SET),
        ("7H 7S JK=7D", MeldKind.SET),
        ("3C 4C 5C", MeldKind.RUN),
        ("AC 2C 3C", MeldKind.RUN),
        ("QC KC AC", MeldKind.RUN),
        ("5C 3C 4C", MeldKind.RUN),
        ("8H 9H JK=10H", MeldKind.RUN),
        ("JK=8H 9H JK=10H", MeldKind.RUN),
        ("AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS", MeldKind.RUN),
        ("2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS", MeldKind.RUN),
    ],
)
def test_valid_melds(text, kind):
    assert meld_kind(parse_meld(text)) is kind


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("7H 7S", "too short"),
        ("7H 7S 7D 7C JK=7C", "a set has at most 4 cards"),
        ("7H 7H 7S", "no two of the same suit in a set (identical cards of two decks)"),
        ("7H 7S JK=7H", "a joker takes a suit not otherwise present in the set"),
        ("3C 4C 6C", "gap"),
        ("3C 4D 5C", "mixed suits"),
        ("KC AC 2C", "runs never wrap"),
        ("AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS", "ace both low and high: 14 cards"),
        ("8H 9H JK=9H", "repeated rank in a run"),
        ("JK=7H 8H 10H", "a joker fills exactly the card it declares"),
    ],
)
def test_invalid_melds(text, why):
    assert meld_kind(parse_meld(text)) is None, why


def test_variant_aces_are_high_only():
    assert is_valid_meld(parse_meld("QS KS AS"), VARIANT)
    assert not is_valid_meld(parse_meld("AS 2S 3S"), VARIANT)
    assert is_valid_meld(parse_meld("AS 2S 3S"), CAROUSEL)


def test_sort_meld_reading_order():
    assert table_str((sort_meld(parse_meld("AC KC QC"), CAROUSEL),)) == "QC KC AC"
    assert table_str((sort_meld(parse_meld("3C AC 2C"), CAROUSEL),)) == "AC 2C 3C"
    assert table_str((sort_meld(parse_meld("7S JK=7D 7H"), CAROUSEL),)) == "JK=7D 7H 7S"
    with pytest.raises(ValueError):
        sort_meld(parse_meld("7S 8D 9H"), CAROUSEL)


def test_canonical_table_ignores_order():
    a = parse_table("5C 3C 4C | 7S 7H 7D")
    b = parse_table("7D 7S 7H | 3C 4C 5C")
    assert canonical_table(a, CAROUSEL) == canonical_table(b, CAROUSEL)
