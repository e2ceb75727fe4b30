"""OpenSpiel's own Gin Rummy scenarios (``gin_rummy_test.cc``: meld counts, three played
hands, the wall and the limit on upcard draws), replayed through our engine under preset
``openspiel``. The deals are the scenarios' (player 0, player 1, the upcard, then the stock
cards in the order drawn), written in our notation; the results are OpenSpiel's."""

from __future__ import annotations

import pytest

from carousel_env.core.cards import parse_hand
from carousel_env.games.gin_rummy import engine as ge
from carousel_env.games.gin_rummy import melds as gm
from carousel_env.games.gin_rummy.rules import GinRules

OPENSPIEL = GinRules.from_options("openspiel")


def deal(p0: str, p1: str, upcard: str, stock: str = "") -> tuple[int, ...]:
    """A deck that deals these hands and upcard, then these stock cards, then the rest."""
    top = tuple(parse_hand(card)[0] for card in f"{p0} {p1} {upcard} {stock}".split())
    return top + tuple(c for c in range(52) if c not in top)


def knock_with(state: ge.GinState, discard: str, melds: list[str]) -> ge.GinState:
    wanted = (parse_hand(discard)[0], tuple(sorted(gm.Meld(parse_hand(m)) for m in melds)))
    (arrangement,) = [a for a in ge.knock_options(state) if (a.discard, a.melds) == wanted]
    return ge.apply(state, ge.Move(ge.MoveKind.KNOCK, arrangement=arrangement))


def test_meld_counts():
    assert len(gm.BASE_MELDS) == 185  # 65 sets (4 of 3 and 1 of 4 per rank) and 120 runs of 3 to 5
    assert sum(1 for m in gm.BASE_MELDS if not m.is_run) == 65
    # Four aces, 2S and 3S: the set of 4, four sets of 3 and AS 2S 3S.
    hand = gm.mask_of(parse_hand("AS AC AD AH 2S 3S"))
    assert sum(1 for m in gm.BASE_MELDS if m.mask & hand == m.mask) == 6
    hand = gm.mask_of(parse_hand("4S 4C 4D 4H 5S 5C 5D 5H 6S 6C 6D"))
    assert sum(1 for m in gm.BASE_MELDS if m.mask & hand == m.mask) == 14
    # 11 cards: 4444, 555 and 3S 4S 5S... the least deadwood after the best discard is 3.
    assert gm.deadwood_after_discard(gm.mask_of(parse_hand("4S 4C 4D 4H 5S 5C 5D 6S 2C 3S 3C"))) == 3


def test_undercut_after_layoffs_on_both_runs():
    rules = GinRules.from_options("openspiel", undercut_bonus=20)
    state = ge.new_game(rules, 0, deck=deal("QS 5S 6S 7S 9C 10C JC KS KC KD", "2S 2C 2D 2H 8S 8C 8D 9S 7C AC", "JD"))
    state = ge.apply(state, ge.TAKE_UPCARD)
    state = knock_with(state, "QS", ["KS KC KD", "5S 6S 7S", "9C 10C JC"])
    result = state.last_hand
    assert result.arrangement.deadwood == 10  # JD
    assert sorted(c for c, _ in result.layoffs.laid_off) == sorted(parse_hand("8S 9S 8C 7C"))
    assert [str(m) for m in result.layoffs.melds] == ["2C 2D 2H 2S"]
    assert result.layoffs.deadwood == 9  # 8D AC
    assert result.undercut and result.points == (0, 21)


def test_knock_with_three_sets_and_an_opponent_who_melds():
    state = ge.new_game(OPENSPIEL, 0, deck=deal("2S 5S 6S 7S 5C 6C 7C 5D 6D 7D", "3S 4S 4C 4D 5H 6H 7H 8S 8C 8D", "AS"))
    state = ge.apply(state, ge.TAKE_UPCARD)
    with_two = {a.melds for a in ge.knock_options(state) if a.discard == parse_hand("2S")[0]}
    sets = tuple(sorted(gm.Meld(parse_hand(m)) for m in ["5C 5D 5S", "6C 6D 6S", "7C 7D 7S"]))
    runs = tuple(sorted(gm.Meld(parse_hand(m)) for m in ["5S 6S 7S", "5C 6C 7C", "5D 6D 7D"]))
    assert with_two == {sets, runs}
    state = knock_with(state, "2S", ["5S 5C 5D", "6S 6C 6D", "7S 7C 7D"])
    assert state.last_hand.layoffs.deadwood == 3  # 3S: 444, 888 and 5H 6H 7H melded
    assert state.last_hand.points == (2, 0)


def test_layoffs_through_a_card_that_could_join_a_set_or_a_run():
    state = ge.new_game(
        OPENSPIEL, 0, deck=deal("JS QS KS 10C 10D 10H AC AD 2S 2H", "10S 9S 4S 4C 4D 4H 5S 5C 5D 5H", "AS")
    )
    state = ge.apply(state, ge.TAKE_UPCARD)
    state = knock_with(state, "2S", ["AS AC AD", "10C 10D 10H", "JS QS KS"])
    answer = state.last_hand.layoffs
    assert sorted(c for c, _ in answer.laid_off) == sorted(parse_hand("10S 9S")) and answer.deadwood == 0
    assert state.last_hand.undercut and state.last_hand.points == (0, 27)  # 2 - 0 + 25


def _to_the_wall() -> ge.GinState:
    # Both pass the first upcard; then each draws the next stock card and discards it at
    # once, until player 0 draws 8H with 2 cards left and discards JH.
    passing = "5C 6C 7C 8C 9C 10C JC QC KC AD 2D 3D 4D 5D 6D 7D 8D 9D 10D JD QD KD AH 2H 3H 4H 5H 6H"
    state = ge.new_game(
        OPENSPIEL,
        0,
        deck=deal("9S 10S JS QS KS AC 2C 3C 10H JH", "AS 2S 3S 4S 5S 6S 7S 8S QH KH", "4C", passing + " 8H"),
    )
    state = ge.apply(ge.apply(state, ge.PASS), ge.PASS)
    for card in passing.split():
        state = ge.apply(state, ge.DRAW_STOCK)
        state = ge.apply(state, ge.Move(ge.MoveKind.DISCARD, parse_hand(card)[0]))
    state = ge.apply(state, ge.DRAW_STOCK)
    return ge.apply(state, ge.Move(ge.MoveKind.DISCARD, parse_hand("JH")[0]))


def test_the_wall_pass_ends_the_hand_dead():
    state = _to_the_wall()
    assert state.phase is ge.Phase.WALL and state.current == 1 and state.stock_size == 2
    assert ge.legal_kinds(state) == {ge.MoveKind.PASS, ge.MoveKind.KNOCK}
    ended = ge.apply(state, ge.PASS)
    assert ended.phase is ge.Phase.GAME_OVER and ended.last_hand.points == (0, 0)


def test_the_wall_knock_takes_the_upcard_and_goes_gin():
    state = knock_with(_to_the_wall(), "AS", ["2S 3S 4S 5S 6S 7S 8S", "JH QH KH"])
    result = state.last_hand
    assert result.end is ge.HandEnd.GIN and result.layoffs.laid_off == ()
    assert result.layoffs.deadwood == 18  # 10H 8H, after 9S-KS and AC 2C 3C
    assert result.points == (0, 43)  # 18 + the gin bonus 25


@pytest.mark.parametrize("upcard_limits", [True, False])
def test_the_fiftieth_upcard_draw_ends_the_hand(upcard_limits):
    rules = GinRules.from_options("openspiel", upcard_limits=upcard_limits)
    state = ge.new_game(rules, 0, deck=deal("AS 2S 3S AC 2C 3C AD 2D 3D AH", "10S JS QS KS JC QC KC JD QD KD", "2H"))
    # Each takes the upcard and throws another card, round and round: AS, KS, 2S.
    throws = [parse_hand(card)[0] for card in ("AS", "KS", "2S")]
    draws = 0
    for turn in range(60):
        state = ge.apply(state, ge.TAKE_UPCARD)
        draws += turn > 0  # the first upcard is not counted
        if state.over:
            break
        state = ge.apply(state, ge.Move(ge.MoveKind.DISCARD, throws[turn % 3]))
    if upcard_limits:
        assert draws == 50 and state.last_hand.end is ge.HandEnd.UPCARD_LIMIT and state.last_hand.points == (0, 0)
    else:
        assert not state.over
