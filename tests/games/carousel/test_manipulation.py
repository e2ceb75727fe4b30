"""The manipulation check: RULES.md's worked examples and each rule a play can break."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from carousel_env.core.cards import JOKER, parse_hand, parse_table
from carousel_env.games.carousel.engine.errors import IllegalPlay, PlayRule
from carousel_env.games.carousel.engine.manipulation import Play, check_play, is_legal_play, remaining_hand
from carousel_env.games.carousel.engine.rules import carousel

ONE_DECK = carousel(2)
TWO_DECKS = carousel(3)


def play(added: str, table: str) -> Play:
    return Play(parse_hand(added), parse_table(table))


def rule_broken(table: str, hand: str, p: Play, rules=ONE_DECK) -> PlayRule:
    with pytest.raises(IllegalPlay) as err:
        check_play(parse_table(table), parse_hand(hand), p, rules)
    return err.value.rule


def test_worked_example_1_take_a_six_from_each_run():
    table = parse_table("3C 4C 5C 6C | 3D 4D 5D 6D")
    check_play(table, parse_hand("6H"), play("6H", "3C 4C 5C | 3D 4D 5D | 6C 6D 6H"), ONE_DECK)


def test_worked_example_2_corrected_three_cards_by_rearranging():
    table = parse_table("7C 8C 9C | 7D 8D 9D | 8H 9H 10H")
    hand = parse_hand("7S 9S JH")
    p = play("7S 9S JH", "7C 7D 7S | 8C 8D 8H | 9C 9D 9S | 9H 10H JH")
    check_play(table, hand, p, ONE_DECK)
    assert remaining_hand(hand, p) == ()
    # Without rearranging, only the JH fits.
    check_play(table, hand, play("JH", "7C 8C 9C | 7D 8D 9D | 8H 9H 10H JH"), ONE_DECK)
    assert rule_broken(
        "7C 8C 9C | 7D 8D 9D | 8H 9H 10H", "7S 9S JH", play("7S", "7C 8C 9C 7S | 7D 8D 9D | 8H 9H 10H")
    ) is (PlayRule.INVALID_MELD)


def test_worked_example_3_joker_cannot_be_redeclared_without_release():
    # Adding 6H by re-declaring the joker as 7H is illegal.
    assert rule_broken("8H 9H JK=10H", "6H", play("6H", "6H JK=7H 8H 9H")) is PlayRule.JOKER_DECLARATION


def test_worked_example_3_real_card_releases_the_joker_into_a_new_meld():
    p = play("10H 5S 5D", "8H 9H 10H | 5S 5D JK=5C")
    check_play(parse_table("8H 9H JK=10H"), parse_hand("10H 5S 5D"), p, ONE_DECK)


def test_worked_example_3_released_joker_cannot_go_back_to_the_hand():
    p = play("10H", "8H 9H 10H")
    assert rule_broken("8H 9H JK=10H", "10H", p) is PlayRule.JOKER_TO_HAND


def test_worked_example_4_seven_ten_ten():
    p = play("7H 10H 10S", "7H 8H 9H | 10H 10S JK=10D")
    check_play(parse_table("8H 9H JK=10H"), parse_hand("7H 10H 10S"), p, ONE_DECK)


def test_joker_released_by_a_table_card():
    # The real 10H moves from the set into the run, taking the joker's place; the
    # released joker re-declares as 10S in the set. The only hand card is JH.
    table = "8H 9H JK=10H | 10H 10C 10D"
    check_play(parse_table(table), parse_hand("JH"), play("JH", "8H 9H 10H JH | 10C 10D JK=10S"), ONE_DECK)


def test_table_joker_must_keep_its_declaration_without_a_real_copy():
    table = "8H 9H JK=10H | 10C 10D 10S"
    # Moved with its declaration kept: legal.
    check_play(parse_table(table), parse_hand("7H"), play("7H", "7H 8H 9H | 10C 10D 10S JK=10H"), ONE_DECK)
    # Re-declared as JC with no real 10H anywhere on the final table: illegal.
    p = play("QC KC", "8H 9H JK=10H | 10C 10D 10S".replace("JK=10H", "10H") + " | JK=JC QC KC")
    assert rule_broken(table, "QC KC", p) is PlayRule.CARDS_ACCOUNTED
    p = play("7H QC KC", "7H 8H 9H | 10C 10D 10S | JK=JC QC KC")
    assert rule_broken(table, "7H QC KC", p) is PlayRule.JOKER_DECLARATION


def test_table_joker_keeps_its_declaration_when_moved():
    table = "7H 8H 9H JK=10H | 5C 6C 7C"
    check_play(parse_table(table), parse_hand("JH QH"), play("JH QH", "7H 8H 9H | JK=10H JH QH | 5C 6C 7C"), ONE_DECK)


def test_two_decks_three_units_of_one_card():
    table = parse_table("7H 8H 9H | 7H 7S 7C")
    p = play("JK 6H 5H", "7H 8H 9H | 7H 7S 7C | 5H 6H JK=7H")
    check_play(table, parse_hand("JK 6H 5H"), p, TWO_DECKS)


@pytest.mark.parametrize(
    ("table", "hand", "p", "rule"),
    [
        ("3C 4C 5C", "6C", play("", "3C 4C 5C"), PlayRule.NO_HAND_CARD),
        ("3C 4C 5C", "7C", play("6C", "3C 4C 5C 6C"), PlayRule.NOT_IN_HAND),
        ("3C 4C 5C | 9D 9S 9H", "6C", play("6C", "3C 4C 5C 6C"), PlayRule.TABLE_CARDS_CONSERVED),
        ("3C 4C 5C", "6C", play("6C", "3C 4C 5C 6C 7C"), PlayRule.CARDS_ACCOUNTED),
        ("3C 4C 5C", "6C 7C", play("6C 7C", "3C 4C 5C 6C"), PlayRule.CARDS_ACCOUNTED),
        ("3C 4C 5C", "6C JK", play("6C JK", "3C 4C 5C 6C"), PlayRule.CARDS_ACCOUNTED),
        ("3C 4C 5C", "6C", play("6C", "3C 4C 5C 6C JK=7C"), PlayRule.CARDS_ACCOUNTED),
        ("3C 4C 5C", "7C", play("7C", "3C 4C 5C 7C"), PlayRule.INVALID_MELD),
    ],
)
def test_each_rule_is_named(table, hand, p, rule):
    assert rule_broken(table, hand, p) is rule
    assert not is_legal_play(parse_table(table), parse_hand(hand), p, ONE_DECK)


def test_error_message_names_rule_and_cards():
    with pytest.raises(IllegalPlay, match=r"must come from the player's hand: 6C not in the hand 7C"):
        check_play(parse_table("3C 4C 5C"), parse_hand("7C"), play("6C", "3C 4C 5C 6C"), ONE_DECK)


def test_units_that_are_not_cards_are_rejected():
    # Play itself refuses them; check_play still judges plays built with of_normalised.
    table = parse_table("JC QC KC")
    fake_joker = 64 + 52  # would print as JK=JK
    for p in (Play.of_normalised((JOKER,), ((*table[0], fake_joker),)), Play.of_normalised((99,), table)):
        with pytest.raises(IllegalPlay) as err:
            check_play(table, parse_hand("JK"), p, ONE_DECK)
        assert err.value.rule is PlayRule.NOT_A_CARD


@pytest.mark.parametrize(
    ("added", "table", "named"),
    [
        ((3, "x"), (), "added holds 'x' (str)"),
        ((99,), (), "added holds 99 (int)"),
        ((-1,), (), "added holds -1 (int)"),
        ((True,), (), "added holds True (bool)"),
        ((2.0,), (), "added holds 2.0 (float)"),
        ((JOKER,), ((8, 12, 64 + 52),), "meld 1 of the table holds 116 (int)"),
        ((JOKER,), ((8, 12, 16), (JOKER,)), "meld 2 of the table holds 52 (int)"),
        ((8,), ((None, 12, 16),), "meld 1 of the table holds None (NoneType)"),
        (8, (), "added is 8 (int), not a sequence"),
        ("3C", (), "added is text '3C'"),
        ((8,), (8,), "meld 1 of the table is 8 (int), not a sequence"),
        ((8,), ("3C 4C 5C",), "meld 1 of the table is text '3C 4C 5C'"),
        ((8,), 7, "table is 7 (int), not a sequence"),
    ],
)
def test_play_names_a_unit_that_is_not_a_card(added, table, named):
    with pytest.raises(IllegalPlay) as err:
        Play(added, table)
    assert err.value.rule is PlayRule.NOT_A_CARD
    assert named in str(err.value)


def test_play_accepts_any_sequences_of_cards_and_normalises_them():
    p = Play([JOKER, 5, 3], [[64 + 7, 11, 15], iter([0, 4, 8])])
    assert p == Play((3, 5, JOKER), ((64 + 7, 11, 15), (0, 4, 8)))
    assert p.added == (3, 5, JOKER) and type(p.table[1]) is tuple
    assert Play((), ()) == Play([], [])


def _is_hand_card(card) -> bool:
    return type(card) is int and 0 <= card <= JOKER


def _is_table_unit(unit) -> bool:
    return type(unit) is int and (0 <= unit < 52 or 64 <= unit < 64 + 52)


@given(
    st.lists(st.one_of(st.integers(-5, 120), st.booleans(), st.none(), st.text(max_size=2), st.floats()), max_size=4),
    st.lists(st.lists(st.one_of(st.integers(-5, 120), st.booleans(), st.text(max_size=2)), max_size=4), max_size=3),
)
def test_play_either_builds_or_names_the_first_bad_unit(added, melds):
    bad = [c for c in added if not _is_hand_card(c)] + [u for m in melds for u in m if not _is_table_unit(u)]
    try:
        p = Play(tuple(added), tuple(tuple(m) for m in melds))
    except IllegalPlay as err:  # never a TypeError or any other exception
        assert bad and err.rule is PlayRule.NOT_A_CARD
        assert f"holds {bad[0]!r} ({type(bad[0]).__name__})" in str(err)
        return
    assert not bad
    assert p.added == tuple(sorted(added)) and p.table == tuple(tuple(m) for m in melds)
