"""Kaluki's engine from concrete card situations (RULES.md, "Kaluki" worked examples 1 and
4 to 8, "Rummy" examples 1, 3 and 4), each option's effect, and errors that name the rule and
leave the state as it was."""

from __future__ import annotations

import copy

import pytest

from carousel_env.core.cards import JOKER, parse_card, parse_hand, parse_meld
from carousel_env.core.errors import IllegalAction
from carousel_env.games.kaluki.engine import apply, may_lay_off, may_open, next_hand, opening_value
from carousel_env.games.kaluki.legal import (
    exchange_options,
    layoff_options,
    legal_discards,
    legal_draws,
    opening_options,
)
from carousel_env.games.kaluki.rules import PRESETS, KalukiRules
from carousel_env.games.kaluki.state import (
    DRAW_STOCK,
    HandEnd,
    Move,
    MoveKind,
    Phase,
    exchange,
    lay_melds,
    open_with,
    take_discard,
)
from tests.games.kaluki.positions import BOOK, lay, melds, position, throw

UK40, RUMMY = PRESETS["uk40"], PRESETS["rummy"]


def illegal(state, move, rule: str):
    """``move`` is illegal, the error names ``rule`` and ``state`` is unchanged."""
    before = copy.deepcopy(state)
    with pytest.raises(IllegalAction, match=rule):
        apply(state, move)
    assert state == before


# ---------------------------------------------------------------- Kaluki's worked examples


def test_example_1_opening_requirement():
    state = position(["QH KH AH 7S 7D 7C JS QS KS 5H 5D 5C 2D", "2S 3S"])
    opened = apply(state, open_with(melds("QH KH AH", "7S 7D 7C")))
    assert opened.opened[0] and opened.hands[0] == parse_hand("JS QS KS 5H 5D 5C 2D")
    illegal(state, open_with(melds("JS QS KS", "5H 5D 5C")), r"45 points: the opening requirement is 51 \(opening\)")
    forty = position(["JS QS KS 5H 5D 5C 2D", "2S 3S"], rules=KalukiRules(opening=40))
    assert apply(forty, open_with(melds("JS QS KS", "5H 5D 5C"))).opened[0]


def test_example_4_the_discard_before_opening_only_into_the_opening():
    state = position(["9C 10C KH KS KD 2D 5S", "2S 3S"], phase=Phase.DRAW, discards="4H 8C")
    illegal(state, take_discard(), r"only as part of the opening laid this turn \(discard_take: opening\)")
    illegal(state, take_discard(melds("KH KS KD")), "only as part of the opening")
    after = apply(state, take_discard(melds("8C 9C 10C", "KH KS KD")))
    assert after.opened[0] and after.phase is Phase.PLAY
    assert after.hands[0] == parse_hand("2D 5S") and after.discards == (parse_card("4H"),)
    assert [str(m) for m in after.melds[0]] == ["8C 9C 10C", "KD KH KS"]
    short = position(["9C 10C 2H 2S 2D 5S", "2S 3S"], phase=Phase.DRAW, discards="8C")
    illegal(short, take_discard(melds("8C 9C 10C", "2H 2S 2D")), "opening requirement is 51")
    assert take_discard(melds("8C 9C 10C", "KH KS KD")) in legal_draws(state)


def test_example_5_joker_exchange_book_and_reuse_now():
    table = [["7D 7S 7H"], ["8C 9C JK=10C JC"]]
    state = position(["10C 5S 5D 2H", "2S 3S"], melds=table, opened=(True, True))
    after = apply(state, exchange(1, 0, parse_card("10C"), [parse_card("10C")]))
    assert str(after.melds[1][0]) == "8C 9C 10C JC"
    assert after.hands[0] == parse_hand("5S 5D 2H JK")
    reuse = KalukiRules(retrieved_joker="reuse_now")
    state = position(["10C 5S 5D 2H", "2S 3S"], melds=table, opened=(True, True), rules=reuse)
    illegal(state, exchange(1, 0, parse_card("10C"), [parse_card("10C")]), r"retrieved_joker: reuse_now")
    after = apply(state, exchange(1, 0, parse_card("10C"), [parse_card("10C")], melds("5S 5D JK=5C", rules=reuse)))
    assert after.hands[0] == parse_hand("2H") and str(after.melds[0][-1]) == "JK=5C 5D 5S"
    illegal(
        position(["10C 5S 5D 2H", "2S 3S"], melds=table, opened=(True, True)),
        exchange(1, 0, parse_card("10C"), [parse_card("10C")], melds("5S 5D JK=5C")),
        r"retrieved_joker: hand",
    )


def test_example_5_set_exchange_book_and_all_missing():
    table = [["2D 3D 4D"], ["10D 10S JK=10H"]]
    state = position(["10H 10C 6S", "2S 3S"], melds=table, opened=(True, True))
    after = apply(state, exchange(1, 0, parse_card("10H"), [parse_card("10H")]))
    assert str(after.melds[1][0]) == "10D 10H 10S" and JOKER in after.hands[0]
    uk = position(["10H 10C 6S 6D 3C", "2S 3S"], melds=table, opened=(True, True), rules=UK40)
    illegal(uk, exchange(1, 0, parse_card("10H"), [parse_card("10H")]), "all_missing")
    cards = parse_hand("10H 10C")
    after = apply(uk, exchange(1, 0, parse_card("10H"), cards, melds("6S 6D JK=6C", rules=UK40)))
    assert sorted(after.melds[1][0].units) == sorted(parse_meld("10D 10S 10H 10C"))
    assert after.hands[0] == parse_hand("3C")


def test_example_6_no_lay_off_before_opening():
    state = position(["7H 2C 3D", "KS"], melds=[[], ["4H 5H 6H"]], opened=(False, True))
    illegal(state, lay("7H", 1, 0), "only after opening")
    illegal(state, exchange(1, 0, parse_card("6H"), [parse_card("6H")]), "only after opening")
    assert layoff_options(state) == []
    opened = position(["7H 2C 3D", "KS"], melds=[["JC QC KC"], ["4H 5H 6H"]])
    assert str(apply(opened, lay("7H", 1, 0)).melds[1][0]) == "4H 5H 6H 7H"


def going_out(rules: KalukiRules, hands=("5H 6H 7H", "JK AS 7D", "KC 2H"), laid=(True, True, True)):
    """Player 0 holds only a meld: lay it (or, under go_out_by_discard, discard the last card)."""
    if rules.go_out_by_discard:
        state = position(["5H", *hands[1:]], rules=rules, melds=[["2C 3C 4C"], [], []], laid=laid)
        return apply(state, throw("5H"))
    state = position(list(hands), rules=rules, melds=[["2C 3C 4C"], [], []], laid=laid)
    return apply(state, lay_melds(melds("5H 6H 7H")))


def test_example_7_scoring():
    book = going_out(BOOK)
    assert book.phase is Phase.HAND_OVER and book.last_hand.values == (0, 43, 12)
    assert book.last_hand.scores == (55, 0, 0) and book.totals == (55, 0, 0)
    penalty = going_out(KalukiRules(scoring="penalty"))
    assert penalty.last_hand.scores == (0, 43, 12)
    uk = going_out(UK40)
    assert uk.last_hand.scores == (0, 33, 12) and uk.last_hand.end is HandEnd.OUT


def test_example_8_going_out_without_a_discard():
    state = position(["5H 6H 7H", "KS 2C"], melds=[["2D 3D 4D"], []])
    after = apply(state, lay_melds(melds("5H 6H 7H")))
    assert after.phase is Phase.HAND_OVER and after.last_hand.out == 0 and after.current == -1
    uk = position(["5H 6H 7H", "KS 2C"], melds=[["QD KD AD"], []], rules=UK40)
    illegal(uk, lay_melds(melds("5H 6H 7H", rules=UK40)), r"going out is by discard \(go_out_by_discard\)")
    last = position(["5H", "KS 2C"], melds=[["2H 3H 4H"], []], rules=UK40)
    illegal(last, lay("5H", 0, 0), "go_out_by_discard")


# ---------------------------------------------------------------- Rummy's worked examples


def test_rummy_example_1_three_players():
    from carousel_env.games.kaluki.deal import new_game

    state = new_game(RUMMY, 3, seed=7)
    assert [len(h) for h in state.hands] == [7, 7, 7]
    assert len(state.discards) == 1 and len(state.stock) == 30


def test_rummy_example_3_lay_off_before_laying_a_meld():
    state = position(["7H 2C 3D", "KS"], melds=[[], ["4H 5H 6H"]], rules=RUMMY)
    assert str(apply(state, lay("7H", 1, 0)).melds[1][0]) == "4H 5H 6H 7H"
    strict = position(
        ["7H 2C 3D", "KS"],
        melds=[[], ["4H 5H 6H"]],
        rules=KalukiRules.from_options("rummy", lay_off_after_own_meld=True),
    )
    illegal(strict, lay("7H", 1, 0), r"lay_off_after_own_meld")


def test_rummy_example_4_score():
    state = position(["5H 6H 7H", "KS 3D", "AC AD 9H"], rules=RUMMY, melds=[["2C 3C 4C"], [], []], laid=(True,) * 3)
    after = apply(state, lay_melds(melds("5H 6H 7H", rules=RUMMY)))
    assert after.last_hand.scores == (24, 0, 0)


# ---------------------------------------------------------------- the draw and the discard


def test_the_taken_card_may_not_be_discarded():
    state = position(["2C 3D", "KS"], phase=Phase.DRAW, discards="4H 8C", rules=RUMMY)
    after = apply(state, take_discard())
    assert after.taken == parse_card("8C") and legal_discards(after) == list(parse_hand("2C 3D"))
    illegal(after, throw("8C"), "may not be discarded that turn")
    done = apply(after, throw("2C"))
    assert done.current == 1 and done.phase is Phase.DRAW and done.top == parse_card("2C")
    only = position(["8C", "KS"], phase=Phase.DRAW, discards="4H 8C", rules=RUMMY)
    illegal(only, take_discard(), "a card must remain to discard")


def test_after_opening_the_book_takes_the_discard_freely():
    state = position(["2C 3D", "KS"], phase=Phase.DRAW, discards="4H 8C", melds=[["7D 7S 7H"], []])
    assert apply(state, take_discard()).hands[0] == parse_hand("2C 3D 8C")


def test_uk_takes_the_discard_only_into_a_meld():
    table = [["QD KD AD"], []]
    state = position(["9C 10C 2H", "KS"], phase=Phase.DRAW, discards="4H 8C", melds=table, rules=UK40)
    illegal(state, take_discard(), r"laid in a meld this turn \(discard_take: meld\)")
    after = apply(state, take_discard(melds("8C 9C 10C", rules=UK40)))
    assert after.hands[0] == parse_hand("2H")
    layable = position(["JD 2H 3S", "KS"], phase=Phase.DRAW, discards="4H 9D", melds=[["10D JD QD"], []], rules=UK40)
    illegal(layable, take_discard(), "discard_take: meld")  # not to lay it off


def test_the_stock_is_turned_over_once_then_the_hand_ends():
    state = position(["2C 3D", "KS 4C"], phase=Phase.DRAW, stock="", discards="5H 6H 7H")
    after = apply(state, DRAW_STOCK)
    assert after.restocks_used == 1 and after.discards == ()
    assert after.hands[0] == parse_hand("2C 3D 5H") and after.stock == tuple(parse_card(c) for c in ("7H", "6H"))
    spent = position(["2C 3D", "KS 4C"], phase=Phase.DRAW, stock="", discards="5H 6H 7H", restocks_used=1)
    over = apply(spent, DRAW_STOCK)
    assert over.phase is Phase.HAND_OVER and over.last_hand.end is HandEnd.STOCK and over.last_hand.out == -1
    assert over.last_hand.scores == (0, 0)
    penalty = position(["2C 3D", "KS 4C"], phase=Phase.DRAW, stock="", discards="5H", rules=UK40)
    over = apply(penalty, DRAW_STOCK)
    assert over.restocks_used == 1
    never = position(["2C 3D", "KS 4C"], phase=Phase.DRAW, stock="", rules=KalukiRules(restocks=0, scoring="penalty"))
    over = apply(never, DRAW_STOCK)
    assert over.last_hand.end is HandEnd.STOCK and over.last_hand.scores == (5, 14)


def test_the_pile_take_limit_ends_the_hand():
    from carousel_env.games.kaluki.rules import PILE_TAKE_LIMIT

    state = position(["2C 3D", "KS 4C"], pile_takes=PILE_TAKE_LIMIT, rules=RUMMY)
    after = apply(state, throw("2C"))
    assert after.phase is Phase.HAND_OVER and after.last_hand.end is HandEnd.PILE_LIMIT


# ---------------------------------------------------------------- scoring options


@pytest.mark.parametrize(
    ("bonus", "scoring", "scores"),
    [
        ("none", "winner_collects", (55, 0, 0)),
        ("plus10", "winner_collects", (65, 0, 0)),
        ("double", "winner_collects", (110, 0, 0)),
        ("plus10", "penalty", (0, 53, 22)),
        ("double", "penalty", (0, 86, 24)),
    ],
)
def test_rummy_bonus_for_going_out_in_one_turn(bonus, scoring, scores):
    rules = KalukiRules(rummy_bonus=bonus, scoring=scoring)
    after = going_out(rules, laid=(False, True, True))
    assert after.last_hand.rummy and after.last_hand.scores == scores
    after = going_out(rules, laid=(True, True, True))  # laid on an earlier turn: no rummy
    assert not after.last_hand.rummy and after.last_hand.scores == (
        (55, 0, 0) if scoring == "winner_collects" else (0, 43, 12)
    )


def test_laying_this_turn_still_goes_out_in_one_turn():
    rules = KalukiRules(rummy_bonus="plus10", opening=0)
    state = position(["5H 6H 7H 9C 9D 9S", "KS 2C"], rules=rules)
    state = apply(state, open_with(melds("9C 9D 9S")))
    after = apply(state, lay_melds(melds("5H 6H 7H")))
    assert after.last_hand.rummy and after.last_hand.scores == (22, 0)


def test_a_move_of_the_wrong_kind_or_phase_is_illegal():
    drawing = position(["2C 3D", "KS"], phase=Phase.DRAW)
    illegal(drawing, throw("2C"), "must first draw")
    playing = position(["2C 3D 4H 4S 4D", "KS"])
    illegal(playing, DRAW_STOCK, "one draw a turn")
    illegal(playing, throw("KS"), "not in hand")
    illegal(playing, lay_melds(melds("4H 4S 4D")), r"has not opened: the first melds are an opening")
    illegal(playing, "discard 2C", "a move is a kaluki.state.Move")
    illegal(playing, open_with(melds("4H 4S 4C")), "not all in hand")
    illegal(playing, open_with(()), "at least one meld")
    illegal(playing, Move(MoveKind.OPEN, melds=melds("4H 4S 4D")[0]), "a tuple of melds")
    opened = position(["2C 3D 4H 4S 4D", "KS"], melds=[["7D 7S 7H"], []])
    illegal(opened, open_with(melds("4H 4S 4D")), "opening is once a hand")
    illegal(opened, lay("2C", 0, 3), "no meld 3")
    illegal(opened, lay("2C", 5, 0), "no player 5")
    over = apply(position(["5H 6H 7H", "KS"], melds=[["7D 7S 7H"], []]), lay_melds(melds("5H 6H 7H")))
    illegal(over, throw("KS"), "the hand is over")


def test_a_joker_laid_off_declares_its_card():
    state = position(["JK 2C 3D", "KS"], melds=[["7D 7S 7H"], ["4H 5H 6H"]])
    illegal(state, lay("JK", 1, 0), r"declares a card \(declare\)")
    after = apply(state, lay("JK", 1, 0, declare="7H"))
    assert str(after.melds[1][0]) == "4H 5H 6H JK=7H"
    after = apply(state, lay("JK", 0, 0, declare="7C"))
    assert str(after.melds[0][0]) == "JK=7C 7D 7H 7S"
    illegal(state, lay("JK", 0, 0, declare="7D"), "different suit")
    assert {m.kind for m in layoff_options(state)} == {MoveKind.LAY_OFF}


# ---------------------------------------------------------------- options and helpers


def test_either_missing_through_the_engine():
    rules = KalukiRules(set_joker_release="either_missing")
    table = [["2D 3D 4D"], ["10D 10S JK=10H"]]
    state = position(["10C 6S 6H", "2S 3S"], melds=table, opened=(True, True), rules=rules)
    after = apply(state, exchange(1, 0, parse_card("10H"), [parse_card("10C")]))
    assert str(after.melds[1][0]) == "10C 10D 10S" and after.hands[0] == parse_hand("6S 6H JK")
    assert exchange(1, 0, parse_card("10H"), (parse_card("10C"),)) in exchange_options(state)


def test_exchange_options_under_reuse_now_carry_the_new_meld():
    rules = KalukiRules(retrieved_joker="reuse_now")
    table = [["7D 7S 7H"], ["8C 9C JK=10C JC"]]
    state = position(["10C 5S 5D 2H", "2S 3S"], melds=table, opened=(True, True), rules=rules)
    options = exchange_options(state)
    assert options and all(m.melds and sum(x.jokers for x in m.melds) >= 1 for m in options)
    for move in options:
        assert JOKER not in apply(state, move).hands[0]


def test_a_joker_upcard_is_taken_into_the_opening_like_any_card():
    state = position(["9C 10C KH KS KD 2D 5S", "2S 3S"], phase=Phase.DRAW, discards="4H JK")
    illegal(state, take_discard(), "only as part of the opening")
    after = apply(state, take_discard(melds("JK=8C 9C 10C", "KH KS KD")))
    assert after.opened[0] and after.hands[0] == parse_hand("2D 5S")


def test_legal_draws_follow_the_discard_rule():
    kinds = lambda moves: [(m.kind, len(m.melds)) for m in moves]  # noqa: E731
    book_unopened = position(["2C 3D", "KS"], phase=Phase.DRAW, discards="4H 8C")
    assert kinds(legal_draws(book_unopened)) == [(MoveKind.DRAW_STOCK, 0)]
    book_opened = position(["2C 3D", "KS"], phase=Phase.DRAW, discards="4H 8C", melds=[["7D 7S 7H"], []])
    assert kinds(legal_draws(book_opened)) == [(MoveKind.DRAW_STOCK, 0), (MoveKind.TAKE_DISCARD, 0)]
    uk = position(["9C 10C 2H", "KS"], phase=Phase.DRAW, discards="8C", melds=[["QD KD AD"], []], rules=UK40)
    assert kinds(legal_draws(uk)) == [(MoveKind.DRAW_STOCK, 0), (MoveKind.TAKE_DISCARD, 1)]
    assert legal_draws(position(["2C", "KS"])) == []


def test_lay_off_after_own_meld_opens_the_table_once_a_meld_is_laid():
    rules = KalukiRules.from_options("rummy", lay_off_after_own_meld=True)
    state = position(["7H 2C 3D 9S 9D 9C", "KS"], melds=[[], ["4H 5H 6H"]], rules=rules)
    assert not may_lay_off(state, 1)
    state = apply(state, open_with(melds("9S 9D 9C", rules=rules)))
    assert may_lay_off(state, 1) and str(apply(state, lay("7H", 1, 0)).melds[1][0]) == "4H 5H 6H 7H"


def test_may_open_and_the_opening_helpers():
    state = position(["QH KH AH 7S 7D 7C 2D", "2S 3S"])
    assert may_open(state)
    options = opening_options(state)
    assert any(set(m.melds) == set(melds("QH KH AH", "7C 7D 7S")) for m in options)
    assert all(opening_value(m.melds, BOOK) >= BOOK.opening for m in options)
    assert not may_open(apply(state, options[0]))


def test_a_play_may_pass_through_a_hand_of_only_the_taken_card_while_a_copy_still_fits():
    """AH AH JK, AH taken: JK as KH on 9H..QH leaves AH AH, legal because an AH now fits
    after KH; laying it frees the other copy to be discarded."""
    from carousel_env.games.kaluki.engine import apply
    from carousel_env.games.kaluki.state import lay_off

    state = position(["AH AH JK", "3S 4S 6H"], melds=[["9H 10H JH QH"], ["7C 7D 7H"]], opened=[True, True], taken="AH")
    after = apply(state, lay_off(parse_card("JK"), 0, 0, declare=parse_card("KH")))
    assert after.hands[0] == parse_hand("AH AH")
    after = apply(after, lay_off(parse_card("AH"), 0, 0))
    assert after.hands[0] == parse_hand("AH")
    # Without the joker's KH, no copy fits: keeping only the taken card is refused.
    stuck = position(["AH 5C", "3S 4S 6H"], melds=[["9H 10H JH"], ["5D 5H 5S"]], opened=[True, True], taken="AH")
    with pytest.raises(IllegalAction, match="would keep only AH"):
        apply(stuck, lay_off(parse_card("5C"), 1, 0))


# ---------------------------------------------------------------- what every player has seen


def test_a_card_taken_from_the_pile_is_known_until_it_leaves_the_hand():
    state = position(["2C 3D 9S", "KS 4C"], phase=Phase.DRAW, discards="4H 8C", melds=[["7D 7S 7H"], []])
    assert state.known == ((), ())
    taken = apply(state, take_discard())
    assert taken.known == (parse_hand("8C"), ())
    after = apply(taken, throw("2C"))
    assert after.known == (parse_hand("8C"), ()) and after.current == 1
    # A stock card comes unseen; the known card stays known while it is held.
    drawn = apply(apply(after, DRAW_STOCK), throw("KS"))
    assert drawn.known == (parse_hand("8C"), ())
    laid = apply(
        position(["8C 9C 10C 2H", "KS"], melds=[["7D 7S 7H"], []], known=["8C", ""]),
        lay_melds(melds("8C 9C 10C")),
    )
    assert laid.known == ((), ())


def test_a_card_taken_into_a_meld_at_once_is_not_left_known():
    table = [["QD KD AD"], []]
    state = position(["9C 10C 2H", "KS"], phase=Phase.DRAW, discards="4H 8C", melds=table, rules=UK40)
    assert apply(state, take_discard(melds("8C 9C 10C", rules=UK40))).known == ((), ())


def test_a_copy_laid_may_be_the_one_seen_so_it_is_no_longer_known():
    # Two decks: the taken 8C and the copy held before are one kind, and only the taken one was
    # seen; once an 8C is laid nobody else can tell whether another is still held.
    state = position(["8C 8D 8S 2H", "KS"], phase=Phase.DRAW, discards="4H 8C", melds=[["7D 7S 7H"], []])
    taken = apply(state, take_discard())
    assert taken.known[0] == parse_hand("8C")
    laid = apply(taken, lay_melds(melds("8C 8D 8S")))
    assert laid.hands[0] == parse_hand("8C 2H") and laid.known[0] == ()


def test_a_joker_won_by_an_exchange_is_known():
    table = [["7D 7S 7H"], ["8C 9C JK=10C JC"]]
    state = position(["10C 5S 5D 2H", "2S 3S"], melds=table, opened=(True, True))
    after = apply(state, exchange(1, 0, parse_card("10C"), [parse_card("10C")]))
    assert after.known == ((JOKER,), ())
    reuse = KalukiRules(retrieved_joker="reuse_now")
    state = position(["10C 5S 5D 2H", "2S 3S"], melds=table, opened=(True, True), rules=reuse)
    move = exchange(1, 0, parse_card("10C"), [parse_card("10C")], melds("5S 5D JK=5C", rules=reuse))
    assert apply(state, move).known == ((), ())  # laid again at once


def test_known_cards_are_one_hand_a_seat():
    with pytest.raises(ValueError, match="one hand per seat"):
        position(["2C", "KS 4C"], known=["2C"])


def test_known_cards_are_forgotten_at_the_next_deal():
    state = position(["2C", "KS 4C"], phase=Phase.PLAY, known=["2C", ""], melds=[["7D 7S 7H"], []])
    over = apply(state, throw("2C"))
    assert over.over and next_hand(over).known == ((), ())
