"""Gin Rummy's engine from concrete card situations (RULES.md, "Gin Rummy")."""

from __future__ import annotations

import dataclasses

import pytest

from carousel_env.core.cards import parse_hand
from carousel_env.core.errors import IllegalAction
from carousel_env.games.gin_rummy import engine as ge
from carousel_env.games.gin_rummy import melds as gm
from carousel_env.games.gin_rummy.rules import GameLength, GinRules, GinRulesError, StockEnd

BOOK = GinRules()


def card(text: str) -> int:
    return parse_hand(text)[0]


def deal(p0: str, p1: str, upcard: str, stock: str = "") -> tuple[int, ...]:
    """A deck dealing ``p0`` to the non-dealer, ``p1`` to the dealer, then the upcard and stock."""
    top = tuple(card(c) for c in f"{p0} {p1} {upcard} {stock}".split())
    return top + tuple(c for c in range(52) if c not in top)


def state_with(p0: str, p1: str, upcard: str, rules: GinRules = BOOK, stock: str = "") -> ge.GinState:
    return ge.new_game(dataclasses.replace(rules, first_dealer=1), 0, deck=deal(p0, p1, upcard, stock))


def discard(state: ge.GinState, text: str) -> ge.GinState:
    return ge.apply(state, ge.Move(ge.MoveKind.DISCARD, card(text)))


def knock_best(state: ge.GinState) -> ge.GinState:
    best = min(ge.knock_options(state), key=lambda a: (a.deadwood, a.discard, a.melds))
    return ge.apply(state, ge.Move(ge.MoveKind.KNOCK, arrangement=best))


# --------------------------------------------------------------- rules and presets


def test_presets():
    assert GinRules.from_options() == BOOK
    os_rules = GinRules.from_options("openspiel")
    assert (os_rules.gin_bonus, os_rules.undercut_bonus, os_rules.tie_is_undercut) == (25, 25, False)
    assert (
        os_rules.game_length is GameLength.HAND and os_rules.stock_end is StockEnd.WALL and os_rules.first_dealer == 1
    )
    eaai = GinRules.from_options("eaai")
    assert (eaai.gin_bonus, eaai.undercut_bonus, eaai.tie_is_undercut, eaai.match_bonuses) == (25, 25, True, False)
    assert GinRules.from_options("openspiel", knock_limit=7).knock_limit == 7


@pytest.mark.parametrize(
    ("options", "named"),
    [
        ({"preset": "vegas"}, "preset"),
        ({"knock_limit": 11}, "knock_limit"),
        ({"knock_limit": -1}, "knock_limit"),
        ({"knock_limit": 5.0}, "knock_limit"),
        ({"gin_bonus": True}, "gin_bonus"),
        ({"game_length": "rubber"}, "game_length"),
        ({"stock_end": "sudden"}, "stock_end"),
        ({"first_dealer": 2}, "first_dealer"),
        ({"tie_is_undercut": "yes"}, "tie_is_undercut"),
        ({"oklahoma": True}, "oklahoma"),
    ],
)
def test_bad_options_are_named(options, named):
    with pytest.raises(GinRulesError) as error:
        GinRules.from_options(**options)
    assert error.value.option == named and repr(named) in str(error.value)


# --------------------------------------------------------------- the first upcard


def test_first_upcard_goes_to_the_non_dealer_then_the_dealer():
    state = state_with("AS 2S 3S 4H 5H 6H 9C 9D KS QD", "AC 2C 3C 4C 5D 6D 7D 8S 9S 10S", "JH")
    assert state.phase is ge.Phase.FIRST_UPCARD and state.current == 0 and state.dealer == 1
    state = ge.apply(state, ge.PASS)
    assert state.current == 1 and ge.legal_kinds(state) == {ge.MoveKind.TAKE_UPCARD, ge.MoveKind.PASS}
    state = ge.apply(state, ge.PASS)
    assert state.current == 0 and ge.legal_kinds(state) == {ge.MoveKind.DRAW_STOCK}
    assert state.declined == (1 << card("JH"), 1 << card("JH"))


def test_a_taken_upcard_may_not_be_discarded_in_the_book():
    state = ge.apply(
        state_with("AS 2S 3S 4H 5H 6H 9C 9D KS QD", "AC 2C 3C 4C 5D 6D 7D 8S 9S 10S", "JH"), ge.TAKE_UPCARD
    )
    assert card("JH") not in ge.legal_discards(state)
    with pytest.raises(IllegalAction, match="just taken from the discard pile"):
        discard(state, "JH")
    openspiel = state_with(
        "AS 2S 3S 4H 5H 6H 9C 9D KS QD",
        "AC 2C 3C 4C 5D 6D 7D 8S 9S 10S",
        "JH",
        rules=GinRules.from_options("openspiel"),
    )
    assert card("JH") in ge.legal_discards(ge.apply(openspiel, ge.TAKE_UPCARD))


def test_the_opponent_knows_the_taken_upcard_until_it_is_discarded():
    state = ge.apply(
        state_with("AS 2S 3S 4H 5H 6H 9C 9D KS QD", "AC 2C 3C 4C 5D 6D 7D 8S 9S 10S", "JH"), ge.TAKE_UPCARD
    )
    assert state.known[0] == 1 << card("JH")
    state = discard(state, "KS")
    assert state.known[0] == 1 << card("JH") and state.discarded[0] == 1 << card("KS")


# --------------------------------------------------------------- knocking and scoring (RULES.md examples)


def test_example_1_knock_with_five():
    state = state_with("AS 2S 3S 7H 7D 7C 9C 10C JC KD", "2C 3C 4C 5C 6D 7S 8S 9S 10S JS", "QH", stock="5D")
    state = ge.apply(ge.apply(ge.apply(state, ge.PASS), ge.PASS), ge.DRAW_STOCK)
    assert ge.MoveKind.KNOCK in ge.legal_kinds(state)
    best = min(ge.knock_options(state), key=lambda a: a.deadwood)
    assert best.discard == card("KD") and best.deadwood == 5


def test_example_3_a_tie_is_an_undercut_in_the_book_and_nothing_in_openspiel():
    # Player 0 draws QC, discards it and knocks with 8 (8D); player 1 holds 8 (8H) and
    # nothing lays off on 2S 3S 4S, the nines or the kings.
    p0, p1 = "2S 3S 4S 9C 9D 9H KC KD KH 8D", "5C 5D 5H 6S 7S 8S JC JD JH 8H"
    for rules, points in ((BOOK, (0, 10)), (GinRules.from_options("openspiel"), (0, 0))):
        state = state_with(p0, p1, "4D", rules=rules, stock="QC")
        state = ge.apply(ge.apply(ge.apply(state, ge.PASS), ge.PASS), ge.DRAW_STOCK)
        (arrangement,) = [a for a in ge.knock_options(state) if a.discard == card("QC")]
        result = ge.apply(state, ge.Move(ge.MoveKind.KNOCK, arrangement=arrangement)).last_hand
        assert arrangement.deadwood == 8 and result.layoffs.deadwood == 8 and result.layoffs.laid_off == ()
        assert result.points == points and result.undercut == (rules is BOOK)


def test_example_4_gin_scores_the_opponents_deadwood_and_the_bonus():
    # Player 0 takes 10H and goes gin; player 1 holds 23 deadwood (9D 8C 4C 2H).
    p0, p1 = "AS 2S 3S 4D 5D 6D 7H 8H 9H KS", "QC QD QS JC JD JH 9D 8C 4C 2H"
    for rules, points in ((BOOK, (43, 0)), (GinRules.from_options("openspiel"), (48, 0))):
        state = ge.apply(state_with(p0, p1, "10H", rules=rules), ge.TAKE_UPCARD)
        result = knock_best(state).last_hand
        assert result.end is ge.HandEnd.GIN and result.layoffs.laid_off == ()
        assert result.layoffs.deadwood == 23 and result.points == points


def test_knock_is_refused_over_the_limit_and_leaves_the_state_unchanged():
    state = ge.apply(
        state_with("AS 2S 3S 4H 5H 6H 9C 9D KS QD", "AC 2C 3C 4C 5D 6D 7D 8S 9S 10S", "JH"), ge.TAKE_UPCARD
    )
    assert ge.MoveKind.KNOCK not in ge.legal_kinds(state)
    fake = gm.Arrangement(card("QD"), (gm.Meld(parse_hand("AS 2S 3S")),), 9)
    before = state
    with pytest.raises(IllegalAction, match="KNOCK is not allowed"):
        ge.apply(state, ge.Move(ge.MoveKind.KNOCK, arrangement=fake))
    assert state == before


def test_a_knock_that_is_not_one_of_the_options_is_refused():
    state = ge.apply(
        state_with("AS 2S 3S 7H 7D 7C 9C 10C JC KD", "2C 3C 4C 5C 6D 7S 8S 9S 10S JS", "5D"), ge.TAKE_UPCARD
    )
    wrong = gm.Arrangement(card("KD"), (gm.Meld(parse_hand("AS 2S 3S")),), 5)  # melds missing: deadwood is not 5
    with pytest.raises(IllegalAction, match="not a legal knock"):
        ge.apply(state, ge.Move(ge.MoveKind.KNOCK, arrangement=wrong))


@pytest.mark.parametrize("bad", [52, -1, "5D", True, 3.0])
def test_bad_discards_are_named(bad):
    state = ge.apply(
        state_with("AS 2S 3S 4H 5H 6H 9C 9D KS QD", "AC 2C 3C 4C 5D 6D 7D 8S 9S 10S", "JH"), ge.TAKE_UPCARD
    )
    with pytest.raises(IllegalAction, match="is not a card in player 0's hand"):
        ge.apply(state, ge.Move(ge.MoveKind.DISCARD, bad))


def test_moves_out_of_turn_phase_are_refused():
    state = state_with("AS 2S 3S 4H 5H 6H 9C 9D KS QD", "AC 2C 3C 4C 5D 6D 7D 8S 9S 10S", "JH")
    with pytest.raises(IllegalAction, match="DISCARD is not allowed in phase first_upcard"):
        discard(state, "AS")
    with pytest.raises(IllegalAction, match="a move must be a Move"):
        ge.apply(state, 3)


# --------------------------------------------------------------- the end of the stock and the match


def test_a_discard_with_two_cards_left_ends_the_hand_dead_in_the_book():
    state = ge.new_game(BOOK, 3)
    while not state.over:
        if state.phase is ge.Phase.DISCARD:
            state = ge.apply(state, ge.Move(ge.MoveKind.DISCARD, max(ge.legal_discards(state))))
        elif ge.MoveKind.DRAW_STOCK in ge.legal_kinds(state):
            state = ge.apply(state, ge.DRAW_STOCK)
        else:
            state = ge.apply(state, ge.PASS)
    assert state.last_hand.end is ge.HandEnd.DEAD and state.stock_size == 2 and state.last_hand.points == (0, 0)
    assert state.phase is ge.Phase.HAND_OVER  # a match goes on
    nxt = ge.next_hand(state)
    assert nxt.dealer == 1 - state.dealer and nxt.hand_index == 1 and nxt.scores == state.scores


def test_next_hand_only_after_a_hand():
    with pytest.raises(IllegalAction, match="only after a hand ends"):
        ge.next_hand(ge.new_game(BOOK, 0))


def test_match_bonuses():
    rules = GinRules(target=100)
    assert ge._game_result(rules, (104, 0), (3, 0)) == ge.GameResult((104 + 100 + 100 + 60, 0), (260, 0), 0)
    assert ge._game_result(rules, (40, 101), (2, 4)) == ge.GameResult((80, 281), (40, 180), 1)
    eaai = GinRules.from_options("eaai")
    assert ge._game_result(eaai, (40, 101), (2, 4)) == ge.GameResult((40, 101), (0, 0), 1)


def test_a_deck_must_hold_each_card_once():
    with pytest.raises(IllegalAction, match="each of the 52 cards once"):
        ge.new_game(BOOK, 0, deck=(0,) * 52)
