"""Gin Rummy's ``expert``: each rule on a hand built for it (hold for gin while the stock is
long, knock once it is short, gin at once; discard what draws best and what the opponent
cannot use; take the upcard only when it beats the stock), and legal play to a match's end."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from carousel_env.core.cards import parse_hand
from carousel_env.games.gin_rummy import engine as ge
from carousel_env.games.gin_rummy import melds as gm
from carousel_env.games.gin_rummy.expert import ExpertParams, danger, draw_gain, expert_move
from carousel_env.games.gin_rummy.players import get_player, simple_move
from carousel_env.games.gin_rummy.rules import GinRules

EAAI = GinRules.from_options("eaai", first_dealer=1)


def _card(text: str) -> int:
    return parse_hand(text)[0]


def _mask(text: str) -> int:
    return gm.mask_of(parse_hand(text))


def _deal(p0: str, p1: str, upcard: str, stock: str = "") -> tuple[int, ...]:
    top = tuple(_card(card) for card in f"{p0} {p1} {upcard} {stock}".split())
    return top + tuple(c for c in range(52) if c not in top)


def _discarding(p0: str, drawn: str, stock_left: int | None = None) -> ge.GinState:
    """Player 0 to discard from ``p0`` plus ``drawn`` (drawn after both passed the upcard),
    the stock cut to ``stock_left`` cards if given."""
    state = ge.new_game(EAAI, 0, deck=_deal(p0, "2C 3D 4H 6C 8C 8H 10C JC QH KC", "AD", drawn))
    state = ge.apply(ge.apply(state, ge.PASS), ge.PASS)
    state = ge.apply(state, ge.DRAW_STOCK)
    if stock_left is not None:
        state = replace(state, stock_top=len(state.stock) - stock_left)
    return state


def test_it_holds_a_low_knock_for_gin_while_the_stock_is_long():
    # Three melds and the 2S: a knock with deadwood 2 after discarding the KD.
    state = _discarding("AH 2H 3H 5S 6S 7S 9D 9H 9S 2S", "KD")
    assert ge.MoveKind.KNOCK in ge.legal_kinds(state) and state.stock_size > 6
    move = expert_move(state)
    assert move.kind is ge.MoveKind.DISCARD and move.card == _card("KD")  # holds, throws the king
    assert simple_move(state).kind is ge.MoveKind.KNOCK  # where simple knocks


def test_it_knocks_once_the_stock_is_short_and_goes_gin_at_once():
    short = _discarding("AH 2H 3H 5S 6S 7S 9D 9H 9S 2S", "KD", stock_left=ExpertParams().gin_hold_stock - 1)
    move = expert_move(short)
    assert move.kind is ge.MoveKind.KNOCK and move.arrangement.deadwood == 2
    gin = _discarding("AH 2H 3H 5S 6S 7S 9D 9H 9S 4S", "KD")
    move = expert_move(gin)
    assert move.kind is ge.MoveKind.KNOCK and move.arrangement.deadwood == 0


def test_with_hold_off_it_knocks_at_its_first_chance():
    state = _discarding("AH 2H 3H 5S 6S 7S 9D 9H 9S 2S", "KD")
    move = expert_move(state, ExpertParams(gin_hold=0))
    assert move.kind is ge.MoveKind.KNOCK


def test_it_keeps_the_pair_that_draws_best():
    # Two melds; loose 5D 5C QC 10S and the KH drawn. The pair of fives melds with either
    # unseen five; the other loose cards meld with little. The expert breaks no pair.
    state = _discarding("AS 2S 3S 7D 8D 9D 5D 5C QC 10S", "KH")
    move = expert_move(state)
    assert move.kind is ge.MoveKind.DISCARD and move.card not in (_card("5C"), _card("5D"))
    hand, every = state.hands[0], (1 << 52) - 1
    assert draw_gain(hand ^ 1 << _card("QC"), every) > draw_gain(hand ^ 1 << _card("5C"), every)


def test_a_card_next_to_one_the_opponent_took_is_dangerous_and_one_it_threw_is_safe():
    state = _discarding("AS 2S 3S 7D 8D 9D 5D 5C QC 10S", "KH")
    state = replace(state, known=(0, _mask("JC")), discarded=(0, _mask("QD")))  # player 1's
    assert danger(state, _card("QC")) > danger(state, _card("10S"))  # the opponent holds the JC
    assert danger(state, _card("KH")) == 0.0  # next to the QD it threw


def test_it_takes_an_upcard_that_melds_and_declines_one_that_does_not():
    state = ge.new_game(EAAI, 0, deck=_deal("AH 2H 3H 5S 6S 9D 9H QC KD 2C", "2D 3D 4H 6C 8C 8H 10C JC QH KC", "7S"))
    assert expert_move(state) == ge.TAKE_UPCARD  # 5S 6S 7S
    state = ge.new_game(EAAI, 0, deck=_deal("AH 2H 3H 5S 6S 9D 9H QC KD 2C", "2D 3D 4H 6C 8C 8H 10C JC QH KS", "KC"))
    assert expert_move(state) == ge.PASS


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), expert_seat=st.integers(0, 1))
def test_it_plays_legal_moves_to_the_end_of_a_match(seed, expert_seat):
    players = [simple_move, simple_move]
    players[expert_seat] = get_player("expert")
    state = ge.new_game(EAAI, seed)
    while state.phase is not ge.Phase.GAME_OVER:
        if state.phase is ge.Phase.HAND_OVER:
            state = ge.next_hand(state)
            continue
        state = ge.apply(state, players[state.current](state))  # apply refuses an illegal move
    assert state.game_result is not None
