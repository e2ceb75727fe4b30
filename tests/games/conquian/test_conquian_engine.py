"""Conquian's rules from RULES.md's worked examples and the turn's phases, as concrete cards."""

from __future__ import annotations

from dataclasses import replace

import pytest

from carousel_env.core.cards import parse_card, parse_hand
from carousel_env.core.errors import IllegalAction
from carousel_env.games.conquian.engine import apply, new_game, next_hand
from carousel_env.games.conquian.melds import is_meld, melds_of
from carousel_env.games.conquian.rules import (
    CARDS,
    ConquianRules,
    ConquianRulesError,
    hand_points,
)
from carousel_env.games.conquian.state import (
    FORCE,
    NO_CARD,
    PASS,
    ConquianState,
    HandEnd,
    Phase,
    discard,
    leave,
    take,
)

BOOK = ConquianRules()


def H(text: str) -> tuple[int, ...]:
    return parse_hand(text)


def M(*melds: str):
    return melds_of(H(m) for m in melds)


def position(
    hand: str,
    melds=(),
    faced: str | None = None,
    phase: Phase = Phase.FACED,
    rules: ConquianRules = BOOK,
    other: str = "AS 2S 3S 4S 5S 6S 7S JS QS KS",
    stock: str = "KC",
    other_melds=(),
) -> ConquianState:
    """Player 0 to act holding ``hand`` and ``melds``; player 1 holds ``other``."""
    return ConquianState(
        rules=rules,
        seed=0,
        hand_number=0,
        dealer=1,
        current=0,
        phase=phase,
        hands=(H(hand), H(other)),
        melds=(M(*melds), M(*other_melds)),
        stock=tuple(parse_card(t) for t in stock.split()),  # in order: the top is the last
        dead=(),
        faced=parse_card(faced) if faced else NO_CARD,
        faced_by=1,
        upcard=False,
        left_card=False,
        declined=((), ()),
        totals=(0, 0),
    )


# ---------------------------------------------------------------- example 1: melds


def test_example_1_melds():
    assert is_meld(H("5H 6H 7H JH"), BOOK)  # the 7 and the J are consecutive
    assert is_meld(H("AS 2S 3S"), BOOK)
    assert not is_meld(H("QS KS AS"), BOOK)  # the ace is low only
    assert not is_meld(H("KS AS 2S"), BOOK)
    assert is_meld(H("KH KD KS"), BOOK)
    nine = H("AH 2H 3H 4H 5H 6H 7H JH QH")
    assert not is_meld(nine, BOOK)
    assert is_meld(nine, ConquianRules(max_run=None))
    assert not is_meld(H("7H 8H 9H"), BOOK)  # not Conquian's cards, and never consecutive to J


def test_the_pack_is_forty_cards_without_8_9_10():
    assert len(CARDS) == 40
    assert not set(H("8C 9D 10H 8S")) & set(CARDS)


# ---------------------------------------------------------------- example 2: taking


def test_example_2_taking_onto_a_meld_then_discarding():
    state = position("AD 2C 3S 4H 5S 6D QC", melds=["4C 5C 6C"], faced="7C")
    after = apply(state, take(M("4C 5C 6C 7C")))
    assert after.phase is Phase.DISCARD and after.current == 0
    assert after.melds[0] == M("4C 5C 6C 7C")
    after = apply(after, discard(parse_card("QC")))
    assert after.phase is Phase.FACED and after.current == 1 and after.faced == parse_card("QC")


def test_example_2_taking_into_a_new_set():
    state = position("2H 2S 3C 4D 5S 6D 7C QC KC AD", faced="2D")
    after = apply(state, take(M("2D 2H 2S")))
    assert after.hands[0] == H("3C 4D 5S 6D 7C QC KC AD")


def test_example_2_a_card_that_melds_with_nothing_is_turned_down():
    state = position("2H 2S 3C 4D 5S 6D 7C QC AC AD", faced="KD", stock="JH 4S")
    with pytest.raises(IllegalAction, match="KD"):
        apply(state, take(M("KD QC JH")))
    after = apply(state, PASS)
    assert after.dead == H("KD")
    assert after.phase is Phase.TURNED and after.current == 0 and after.faced == parse_card("4S")
    assert after.stock == H("JH")
    assert after.declined[0] == H("KD")


# ---------------------------------------------------------------- example 3: rearranging


def test_example_3_bicycles_rearrangement():
    state = position("JH JD AC 2C 3C 4D 5D", melds=["6S 7S JS"], faced="5S")
    after = apply(state, take(M("5S 6S 7S", "JS JH JD")))
    assert after.melds[0] == M("5S 6S 7S", "JD JH JS")
    assert after.phase is Phase.DISCARD


@pytest.mark.parametrize("mode, legal", [("free", True), ("borrow", False), ("none", False)])
def test_example_3_a_middle_card_moves_only_under_free(mode, legal):
    rules = ConquianRules(rearrange=mode)
    state = position("5D 5C KC KD", melds=["3H 4H 5H 6H 7H JH"], faced="2H", rules=rules)
    move = take(M("2H 3H 4H", "5H 5D 5C", "6H 7H JH"))
    if legal:
        assert apply(state, move).melds[0] == M("2H 3H 4H", "5C 5D 5H", "6H 7H JH")
    else:
        with pytest.raises(IllegalAction, match="split"):
            apply(state, move)


def test_borrow_takes_an_end_of_a_run_of_four():
    rules = ConquianRules(rearrange="borrow")
    state = position("QD KC KD AS AD 3C", melds=["3H 4H 5H 6H"], faced="3S", rules=rules)
    after = apply(state, take(M("3C 3H 3S", "4H 5H 6H")))
    assert after.melds[0] == M("3C 3H 3S", "4H 5H 6H")
    with pytest.raises(IllegalAction, match="4H 5H is not a meld"):
        apply(
            position("QD KC KD AS AD 3C 3D", melds=["3H 4H 5H"], faced="3S", rules=rules),
            take(M("3C 3H 3S", "4H 5H")),
        )


# ---------------------------------------------------------------- example 4: forcing


def test_example_4_a_left_card_that_fits_is_forced():
    state = position("AC 2C 3C 4H 5H 6H 7S", melds=["2D 3D 4D"], phase=Phase.TURNED, faced="5D")
    after = apply(state, PASS)
    assert after.phase is Phase.FORCE and after.current == 1
    forced = apply(after, FORCE)
    assert forced.phase is Phase.FORCED and forced.current == 0
    with pytest.raises(IllegalAction, match="forced"):
        apply(forced, PASS)
    done = apply(forced, take(M("2D 3D 4D 5D")))
    assert done.melds[0] == M("2D 3D 4D 5D") and done.phase is Phase.DISCARD


def test_example_4_a_card_that_needs_the_hand_cannot_be_forced():
    state = position("4D 6D AC 2C 3C 4H 5H", melds=["7H 7S 7C"], phase=Phase.TURNED, faced="5D")
    after = apply(state, PASS)
    assert after.phase is Phase.FACED and after.current == 1 and after.faced == parse_card("5D")


def test_not_forcing_a_left_card_hands_it_to_the_forcer():
    state = position("AC 2C 3C 4H 5H 6H 7S", melds=["2D 3D 4D"], phase=Phase.TURNED, faced="5D")
    after = apply(apply(state, PASS), PASS)
    assert after.phase is Phase.FACED and after.current == 1 and after.faced == parse_card("5D")


def test_not_forcing_a_declined_discard_turns_up_the_stock_for_the_decliner():
    state = position("AC 2C 3C 4H 5H 6H 7S", melds=["2D 3D 4D"], faced="5D", stock="QH KS")
    after = apply(apply(state, PASS), PASS)
    assert after.phase is Phase.TURNED and after.current == 0 and after.faced == parse_card("KS")
    assert after.dead == H("5D")


def test_forced_card_must_be_laid_with_table_cards_under_none():
    rules = ConquianRules(rearrange="none")
    state = position("5D 5C AC 2C 3C 4H", melds=["2H 3H 4H"], phase=Phase.FORCED, faced="5H", rules=rules)
    with pytest.raises(IllegalAction, match="table cards alone"):
        apply(state, take(M("2H 3H 4H", "5C 5D 5H")))
    after = apply(state, take(M("2H 3H 4H 5H")))
    assert after.melds[0] == M("2H 3H 4H 5H")


# ---------------------------------------------------------------- examples 5 and 6: going out


def test_example_5_eleven_melded_wins_without_a_discard():
    state = position("QH QD", melds=["AC 2C 3C 4C 5C", "KH KD KS"], faced="QS")
    after = apply(state, take(M("AC 2C 3C 4C 5C", "KH KD KS", "QH QD QS")))
    assert after.phase is Phase.GAME_OVER
    result = after.last_hand
    assert result.end is HandEnd.OUT and result.winner == 0 and result.scores == (1, -1)


def test_example_5_nine_melded_must_discard():
    state = position("QH QD", melds=["AC 2C 3C 4C 5C", "KH KD KS"], faced="6C")
    after = apply(state, take(M("AC 2C 3C 4C 5C 6C", "KH KD KS")))
    assert after.phase is Phase.DISCARD and after.melded(0) == 9


def test_example_6_forcing_onto_a_full_table_wins_for_the_forced():
    state = position("", melds=["AC 2C 3C 4C", "KH KD KS", "JH JD JS"], faced="5C", phase=Phase.FORCED)
    after = apply(state, take(M("AC 2C 3C 4C 5C", "KH KD KS", "JH JD JS")))
    assert after.phase is Phase.GAME_OVER and after.last_hand.winner == 0


# ---------------------------------------------------------------- example 7: tableau


def test_example_7_an_empty_stock_is_a_tableau():
    state = position("AC 2C 3C 4H 5H 6H 7S", faced="KD", stock="")
    after = apply(state, PASS)
    assert after.phase is Phase.GAME_OVER
    assert after.last_hand.end is HandEnd.TABLEAU and after.last_hand.scores == (0, 0)
    assert after.game_result.winners == ()


def test_tableau_pool_makes_the_next_decided_hand_worth_more():
    rules = ConquianRules(tableau_pool=True, game_length="match", target=5)
    state = position("AC 2C 3C 4H 5H 6H 7S", faced="KD", stock="", rules=rules)
    after = apply(state, PASS)
    assert after.phase is Phase.HAND_OVER and after.pool == 1
    won = replace(position("QH QD", melds=["AC 2C 3C 4C 5C", "KH KD KS"], faced="QS", rules=rules), pool=after.pool)
    won = apply(won, take(M("AC 2C 3C 4C 5C", "KH KD KS", "QH QD QS")))
    assert won.last_hand.worth == 2 and won.last_hand.scores == (2, -2) and won.pool == 0


# ---------------------------------------------------------------- example 8: points


def test_example_8_points_scores_the_losers_hand():
    assert hand_points(H("AS KD 5C")) == 30
    rules = ConquianRules(scoring="points")
    state = position("QH QD", melds=["AC 2C 3C 4C 5C", "KH KD KS"], faced="QS", rules=rules, other="AS KC 5D")
    after = apply(state, take(M("AC 2C 3C 4C 5C", "KH KD KS", "QH QD QS")))
    assert after.last_hand.scores == (30, 0)


# ---------------------------------------------------------------- the deal and the turn


def test_the_deal_gives_ten_each_an_upcard_and_nineteen_in_stock():
    state = new_game(BOOK, 7)
    assert [len(h) for h in state.hands] == [10, 10]
    assert len(state.stock) == 19 and state.faced != NO_CARD and state.upcard
    assert state.current == 1 - state.dealer and state.phase is Phase.FACED
    seen = [*state.hands[0], *state.hands[1], *state.stock, state.faced]
    assert sorted(seen) == sorted(CARDS)


def test_both_passing_the_upcard_has_the_non_dealer_turn_up_the_stock():
    state = new_game(BOOK, 3)
    first = state.current
    top = state.stock[-1]
    after = apply(state, PASS)
    if after.phase is Phase.FACED:  # the dealer is offered the upcard
        assert after.current == state.dealer
        after = apply(after, PASS)
    assert after.phase is Phase.TURNED and after.current == first and after.faced == top


def test_bicycle_has_no_upcard_and_melds_before_leaving():
    rules = ConquianRules.from_options("bicycle")
    state = new_game(rules, 5)
    assert state.phase is Phase.TURNED and len(state.stock) == 19 and not state.dead
    turned = position("2H 2S 2D 4C 5D 6S 7S", phase=Phase.TURNED, faced="KD", rules=rules)
    after = apply(turned, leave(M("2D 2H 2S")))
    assert after.melds[0] == M("2D 2H 2S") and after.current == 1 and after.phase is Phase.FACED
    with pytest.raises(IllegalAction, match="only with a taken card"):
        apply(position("2H 2S 2D 4C", phase=Phase.TURNED, faced="KD"), leave(M("2D 2H 2S")))


def test_foster_deals_in_pairs():
    plain = new_game(ConquianRules(), 11)
    pairs = new_game(ConquianRules.from_options("foster"), 11)
    assert plain.stock == pairs.stock and sorted(plain.hands[0] + plain.hands[1]) == sorted(
        pairs.hands[0] + pairs.hands[1]
    )
    assert plain.hands != pairs.hands


def test_a_match_deals_again_with_the_other_dealer():
    rules = ConquianRules(game_length="match", target=2)
    state = position("AC 2C 3C 4H 5H 6H 7S", faced="KD", stock="", rules=rules)
    over = apply(state, PASS)
    nxt = next_hand(over)
    assert nxt.hand_number == 1 and nxt.dealer == 1 - over.dealer and nxt.totals == over.totals


def test_bad_moves_name_the_rule_and_change_nothing():
    state = position("AC 2C 3C 4H 5H 6H 7S", faced="KD")
    with pytest.raises(IllegalAction, match="discard"):
        apply(replace(state, phase=Phase.DISCARD), PASS)
    with pytest.raises(IllegalAction, match="not in the hand"):
        apply(replace(state, phase=Phase.DISCARD), discard(parse_card("KS")))
    with pytest.raises(IllegalAction, match="takes the KD or passes"):
        apply(state, FORCE)
    with pytest.raises(IllegalAction, match="not a meld"):
        apply(state, take(M("KD AC 2C")))
    assert state.hands[0] == H("AC 2C 3C 4H 5H 6H 7S")


def test_bad_rules_name_the_option():
    with pytest.raises(ConquianRulesError, match="rearrange"):
        ConquianRules(rearrange="some")
    with pytest.raises(ConquianRulesError, match="max_run"):
        ConquianRules(max_run=2)
    with pytest.raises(ConquianRulesError, match="tableau_pool"):
        ConquianRules(tableau_pool=True, scoring="points")
    with pytest.raises(ConquianRulesError, match="preset"):
        ConquianRules.from_options("hoyle")


@pytest.mark.parametrize("mode", ["none", "borrow"])
def test_a_forced_card_is_not_bridged_to_a_meld_by_a_hand_card(mode):
    rules = ConquianRules(rearrange=mode)
    state = position("5D AC 2C 3C 4H", melds=["2D 3D 4D", "6C 6H 6S"], phase=Phase.FORCED, faced="6D", rules=rules)
    with pytest.raises(IllegalAction, match="table cards alone"):
        apply(state, take(M("2D 3D 4D 5D 6D", "6C 6H 6S")))
    assert apply(state, take(M("2D 3D 4D", "6C 6D 6H 6S"))).melds[0] == M("2D 3D 4D", "6C 6D 6H 6S")
