"""Kaluki's options and presets (RULES.md, "Kaluki": "Presets"; "Rummy"): what each preset
sets, the card values, the hand sizes, and errors that name the option and its values."""

from __future__ import annotations

import pytest

from carousel_env.core.cards import JOKER, parse_card, parse_hand
from carousel_env.games.kaluki.rules import (
    PRESETS,
    DiscardTake,
    GameLength,
    KalukiRules,
    KalukiRulesError,
    PenaltyEnd,
    RetrievedJoker,
    RummyBonus,
    Scoring,
    SetJokerRelease,
    TwoPlayerDeal,
)


def test_book_is_every_default():
    book = KalukiRules.from_options("book")
    assert book == KalukiRules()
    assert (book.decks, book.jokers, book.deck_size) == (2, 4, 108)
    assert (book.ace_value, book.joker_value, book.opening) == (11, 25, 51)
    assert book.ace_low_runs and book.ace_high_runs
    assert book.discard_take is DiscardTake.OPENING
    assert book.retrieved_joker is RetrievedJoker.HAND
    assert book.set_joker_release is SetJokerRelease.DECLARED
    assert not book.go_out_by_discard and book.restocks == 1
    assert book.scoring is Scoring.WINNER_COLLECTS and book.rummy_bonus is RummyBonus.NONE
    assert (book.target, book.limit, book.penalty_end) == (250, 150, PenaltyEnd.ELIMINATE)
    assert book.game_length is GameLength.MATCH and book.two_player_deal is TwoPlayerDeal.ALTERNATE
    assert not book.lay_off_after_own_meld


def test_book_hand_sizes_follow_the_players():
    book = PRESETS["book"]
    assert [book.hand_size(n) for n in range(2, 7)] == [15, 15, 15, 13, 11]


def test_uk_presets():
    uk40, uk51 = PRESETS["uk40"], PRESETS["uk51"]
    assert (uk40.decks, uk40.jokers, uk40.deck_size) == (2, 2, 106)
    assert [uk40.hand_size(n) for n in range(2, 7)] == [13] * 5
    assert (uk40.opening, uk40.joker_value, uk40.ace_low_runs) == (40, 15, False)
    assert uk40.discard_take is DiscardTake.MELD
    assert uk40.retrieved_joker is RetrievedJoker.REUSE_NOW
    assert uk40.set_joker_release is SetJokerRelease.ALL_MISSING
    assert uk40.go_out_by_discard and uk40.scoring is Scoring.PENALTY
    assert (uk40.limit, uk40.penalty_end) == (150, PenaltyEnd.ELIMINATE)
    assert (uk51.opening, uk51.joker_value) == (51, 25)
    assert KalukiRules.from_options("uk40", opening=51, joker_value=25) == uk51


def test_rummy_preset():
    rummy = PRESETS["rummy"]
    assert (rummy.decks, rummy.jokers, rummy.deck_size) == (1, 0, 52)
    assert [rummy.hand_size(n) for n in range(2, 7)] == [10, 7, 7, 6, 6]
    assert (rummy.ace_value, rummy.ace_low_runs, rummy.ace_high_runs) == (1, True, False)
    assert rummy.opening == 0 and rummy.discard_take is DiscardTake.ANY and not rummy.open_before_lay_off
    assert (rummy.target, rummy.limit, rummy.penalty_end) == (100, 100, PenaltyEnd.FIRST_TO_LIMIT)
    assert rummy.two_player_deal is TwoPlayerDeal.WINNER and not rummy.lay_off_after_own_meld


def test_card_values():
    book, bicycle, uk40, rummy = PRESETS["book"], KalukiRules(ace_value=15), PRESETS["uk40"], PRESETS["rummy"]
    assert book.hand_value(parse_hand("JK AS KD QC JH 10S 2C")) == 25 + 11 + 10 + 10 + 10 + 10 + 2
    assert bicycle.card_value(parse_card("AH")) == 15
    assert uk40.card_value(JOKER) == 15
    assert rummy.hand_value(parse_hand("AC KS 7D")) == 1 + 10 + 7


def test_options_are_read_as_their_values():
    rules = KalukiRules(scoring="penalty", rummy_bonus="double", game_length="hand", set_joker_release="either_missing")
    assert rules.scoring is Scoring.PENALTY and rules.rummy_bonus is RummyBonus.DOUBLE
    assert rules.game_length is GameLength.HAND and rules.set_joker_release is SetJokerRelease.EITHER_MISSING
    assert KalukiRules(hand_sizes=[9, 9, 9, 9, 9]).hand_sizes == (9,) * 5


@pytest.mark.parametrize(
    ("options", "option", "allowed"),
    [
        ({"ace_value": 12}, "ace_value", "(1, 11, 15)"),
        ({"opening": -1}, "opening", "from 0 to 200"),
        ({"opening": "51"}, "opening", "from 0 to 200"),
        ({"decks": 3}, "decks", "from 1 to 2"),
        ({"jokers": 5}, "jokers", "from 0 to 4"),
        ({"restocks": True}, "restocks", "from 0 to 10"),
        ({"target": 0}, "target", "from 1 to 10000"),
        ({"limit": 10_001}, "limit", "from 1 to 10000"),
        ({"scoring": "points"}, "scoring", "'winner_collects', 'penalty'"),
        ({"rummy_bonus": "triple"}, "rummy_bonus", "'none', 'plus10', 'double'"),
        ({"retrieved_joker": "table"}, "retrieved_joker", "'hand', 'reuse_now'"),
        ({"set_joker_release": "any"}, "set_joker_release", "'declared', 'either_missing', 'all_missing'"),
        ({"penalty_end": "never"}, "penalty_end", "'eliminate', 'first_to_limit'"),
        ({"game_length": "set"}, "game_length", "'match', 'hand'"),
        ({"two_player_deal": "loser"}, "two_player_deal", "'alternate', 'winner'"),
        ({"discard_take": "never"}, "discard_take", "'opening', 'meld', 'any'"),
        ({"go_out_by_discard": 1}, "go_out_by_discard", "true or false"),
        ({"ace_low_runs": False, "ace_high_runs": False}, "ace_high_runs", "ace_low_runs or ace_high_runs"),
        ({"hand_sizes": (18, 18, 18, 18, 18)}, "hand_sizes", "with 6 players"),
        ({"hand_sizes": (15, 15)}, "hand_sizes", "5 ints"),
        ({"hand_sizes": "15"}, "hand_sizes", "5 ints"),
    ],
)
def test_a_bad_option_names_itself_and_its_values(options, option, allowed):
    with pytest.raises(KalukiRulesError) as error:
        KalukiRules(**options)
    assert error.value.option == option
    assert option in str(error.value) and allowed in str(error.value)


def test_presets_and_overrides_are_checked():
    with pytest.raises(KalukiRulesError, match="unknown preset 'uk60'") as error:
        KalukiRules.from_options("uk60")
    assert error.value.option == "preset"
    with pytest.raises(KalukiRulesError, match="unknown option") as error:
        KalukiRules.from_options("book", openning=40)
    assert error.value.option == "openning"
    # A preset's hand sizes are checked against its pack: one deck cannot deal 15 to 4 players.
    with pytest.raises(KalukiRulesError, match="hand_sizes"):
        KalukiRules.from_options("rummy", hand_sizes=(15, 15, 15, 15, 15))
    assert KalukiRules.from_options("rummy", scoring="penalty").scoring is Scoring.PENALTY


def test_rules_are_frozen_and_hashable():
    rules = PRESETS["book"]
    with pytest.raises(AttributeError):
        rules.opening = 40  # type: ignore[misc]
    assert len({PRESETS[name] for name in PRESETS}) == len(PRESETS)
