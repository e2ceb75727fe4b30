"""Round and game scoring (RULES.md "Scoring a round", "The game")."""

import pytest

from carousel_env.games.carousel.engine.rules import RoundBonus, carousel, manipulation_rummy
from carousel_env.games.carousel.engine.scoring import RoundEnd, finish_game, game_winner, score_round

FOUR = carousel(4)


def test_worked_example_5_four_against_six_twelve_seventeen():
    result = score_round([4, 6, 12, 17], FOUR, knocker=0)
    assert result.points == (23, 0, 0, 0)
    assert result.winners == (0,)
    assert not result.undercut


def test_same_example_without_knocker():
    result = score_round([6, 4, 12, 17], FOUR)
    assert result.points == (0, 23, 0, 0)
    assert result.end is RoundEnd.STOCK_EXHAUSTED


def test_knock_win_two_players():
    result = score_round([3, 20], carousel(2), knocker=0)
    assert result.points == (17, 0) and result.winners == (0,)
    assert result.end is RoundEnd.KNOCK


def test_undercut_gets_the_bonus():
    result = score_round([5, 2, 11, 30], FOUR, knocker=0)
    assert result.undercut
    assert result.winners == (1,)
    assert result.points == (0, (5 - 2) + (11 - 2) + (30 - 2) + 10, 0, 0)


def test_knocker_tied_with_another_player_is_beaten():
    result = score_round([4, 4, 10], carousel(3), knocker=0)
    assert result.undercut and result.winners == (1,)
    assert result.points == (0, 0 + 6 + 10, 0)


def test_two_non_knockers_tied_for_lowest_both_win_with_bonus():
    result = score_round([5, 2, 2, 9], FOUR, knocker=0)
    assert result.winners == (1, 2)
    each = (5 - 2) + 0 + (9 - 2) + 10
    assert result.points == (0, each, each, 0)


def test_going_out_scores_bonus_plus_all_other_hands():
    result = score_round([0, 6, 12, 17], FOUR, went_out=0)
    assert result.points == (25 + 35, 0, 0, 0)
    assert result.end is RoundEnd.GOING_OUT and result.winners == (0,)


def test_going_out_requires_an_empty_hand_value():
    with pytest.raises(ValueError):
        score_round([3, 6], carousel(2), went_out=0)
    with pytest.raises(ValueError):
        score_round([0, 6], carousel(2), went_out=0, knocker=1)


def test_stock_exhausted_tie_shares_the_win_without_bonus():
    result = score_round([7, 3, 3, 20], FOUR)
    assert result.winners == (1, 2)
    each = (7 - 3) + 0 + (20 - 3)
    assert result.points == (0, each, each, 0)
    assert not result.undercut


def test_stock_exhausted_everyone_tied_scores_nothing():
    result = score_round([5, 5], carousel(2))
    assert result.winners == (0, 1) and result.points == (0, 0)


def test_variant_going_out_scores_only_the_other_hands():
    result = score_round([0, 6, 12], manipulation_rummy(3), went_out=0)
    assert result.points == (18, 0, 0)


def test_game_end_default_round_bonus_goes_to_everyone_but_the_winner():
    game = finish_game([160, 120, 40], [4, 3, 1], dealer=0, rules=carousel(3))
    assert game.winner == 0
    assert game.bonuses == (100, 75, 25)
    assert game.totals == (260, 195, 65)
    assert game.standings == (0, 1, 2)


def test_game_end_round_bonus_everyone_includes_the_winner():
    game = finish_game([160, 120, 40], [4, 3, 1], dealer=0, rules=carousel(3, round_bonus=RoundBonus.EVERYONE))
    assert game.bonuses == (200, 75, 25)
    assert game.totals == (360, 195, 65)


def test_final_standing_is_by_total_even_when_bonuses_overtake_the_winner():
    game = finish_game([150, 140], [1, 6], dealer=0, rules=carousel(2))
    assert game.winner == 0
    assert game.totals == (250, 290)
    assert game.standings == (1, 0)


def test_game_winner_tie_breaks():
    # Two players at or above 150: the higher total wins.
    assert game_winner([155, 170, 10], [3, 2, 0], dealer=0) == 1
    # Equal totals: more rounds won.
    assert game_winner([160, 160, 10], [2, 3, 0], dealer=0) == 1
    # Equal totals and rounds: the earlier seat after the dealer (dealer 1 -> seat 2 first).
    assert game_winner([160, 10, 160], [2, 0, 2], dealer=1) == 2
    assert game_winner([160, 10, 160], [2, 0, 2], dealer=2) == 0


def test_variant_has_no_game_bonuses():
    game = finish_game([150, 20, 30], [3, 1, 1], dealer=0, rules=manipulation_rummy(3))
    assert game.bonuses == (0, 0, 0)
