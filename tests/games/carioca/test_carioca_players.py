"""Carioca's scripted players: every move legal at every table size, `simple`'s choices on
concrete hands, and `search` reading only what its seat may know."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace

import pytest

from carousel_env.core.cards import parse_card
from carousel_env.core.errors import CarouselError
from carousel_env.games.carioca import engine as ce
from carousel_env.games.carioca import players as cp
from carousel_env.games.carioca.engine import MoveKind, Phase
from tests.games.carioca.test_carioca_engine import all_cards, position
from tests.games.carioca.test_carioca_env import hide_and_shuffle


@pytest.mark.parametrize("players", range(2, 6))
def test_every_player_plays_whole_games(players):
    names = ["simple", "outs", "search@1", "random", "simple"][:players]
    state = cp.play_game([cp.get_player(n, seed=i) for i, n in enumerate(names)], seed=players)
    assert state.phase is Phase.GAME_OVER and len(state.rounds) == 6


def test_simple_takes_the_top_only_when_it_brings_the_contract_closer():
    state = position(["7H 7S 2C 9D KH QS 4C 5C 10D 3H 8S", "2D"], phase=Phase.DRAW, discards="4D 7C")
    assert cp.simple_move(state) == ce.TAKE_DISCARD  # a third seven: a trio
    state = position(["7H 7S 2C 9D KH QS 4C 5C 10D 3H 8S", "2D"], phase=Phase.DRAW, discards="4D JC")
    assert cp.simple_move(state) == ce.DRAW_STOCK


def test_simple_goes_down_lays_off_the_highest_and_discards_what_helps_no_contract():
    state = position(["7H 7S 7C 8H 8S 8C KH 2C 3C 5D 9D AS", "4D 5D"])
    move = cp.simple_move(state)
    assert move.kind is MoveKind.GO_DOWN and {m.rank for m in move.melds} == {7, 8}
    down = position(["KH 7D 2C", "4D 5D"], melds=[["7H 7S 7C", "KS KC KD"], []])
    assert cp.simple_move(down).layoff.card == parse_card("KH")  # the most valuable first
    # Not down: the ace helps no trio and is worth most; the pair of sevens is kept.
    state = position(["7H 7S 2C 9D KH QS 4C 5C 10D 3H 8S AD", "2D"])
    assert cp.simple_move(state) == ce.Move(MoveKind.DISCARD, parse_card("AD"))
    assert cp.discard_order(state)[-1] != parse_card("AD")


def test_outs_keeps_what_more_draws_complete_where_simple_throws_the_highest():
    # Round 2 (an escalera and a trio): the sevens are the trio; 4D 5D and JC QC each need two
    # cards. Throwing QC (simple: the highest that helps no contract) leaves only the diamonds
    # to draw to; throwing 9S or 2H leaves both: 2D 3D 6D 7D and 9C 10C KC AC, two copies each.
    state = position(["7H 7S 7C 4D 5D JC QC 9S 2H", "2D"], round_index=1, stock="2C", discards="10D")
    unseen = cp.unseen_counts(state)
    assert unseen[parse_card("7D")] == 2 and unseen[parse_card("7H")] == 1 and unseen[parse_card("10D")] == 1
    assert cp.outs(ce.without(state.hands[0], (parse_card("QC"),)), state.contract, unseen) == 8
    assert cp.outs(ce.without(state.hands[0], (parse_card("9S"),)), state.contract, unseen) == 16
    assert cp.outs(ce.without(state.hands[0], (parse_card("2H"),)), state.contract, unseen) == 16
    assert cp.simple_discard(state) == parse_card("QC")
    assert cp.outs_move(state) == ce.Move(MoveKind.DISCARD, parse_card("9S"))  # 16 outs, the higher of two
    # With KH and AH beside them simple throws the ace; outs keeps it (QH JH would make an
    # escalera of it) and throws the king, as many outs left as by 2H, and worth more.
    full = position(["7H 7S 7C 4D 5D JC QC 9S 2H 8S AH KH", "2D"], round_index=1, stock="2C", discards="10D")
    assert cp.simple_discard(full) == parse_card("AH") and cp.outs_discard(full) == parse_card("KH")
    # The cards the opponent took from the pile and kept are not there to draw.
    took = replace(state, taken=((), (parse_card("6D"),)))
    assert cp.unseen_counts(took)[parse_card("6D")] == unseen[parse_card("6D")] - 1 == 1
    # Once down, outs throws as simple does: the highest card; drawing and going down alike.
    down = position(["KH 7D 2C 4S", "4D 5D"], melds=[["7H 7S 7C", "KS KC KD"], []])
    assert cp.outs_move(down) == cp.simple_move(down)
    laid = ce.apply(ce.apply(down, cp.simple_move(down)), cp.simple_move(ce.apply(down, cp.simple_move(down))))
    assert cp.outs_move(laid) == cp.simple_move(laid) == ce.Move(MoveKind.DISCARD, parse_card("4S"))
    draw = position(["7H 7S 2C 9D KH QS 4C 5C 10D 3H 8S", "2D"], phase=Phase.DRAW, discards="4D 7C")
    assert cp.outs_move(draw) == cp.simple_move(draw) == ce.TAKE_DISCARD


def test_search_weighs_only_where_it_matters_and_simple_first():
    state = position(["KH 7D 2C", "4D 5D"], melds=[["7H 7S 7C", "KS KC KD"], []])
    assert cp.candidate_moves(state) == [cp.simple_move(state)]  # a lay-off: simple's alone
    draw = position(["7H 7S 2C 9D KH QS 4C 5C 10D 3H 8S", "2D"], phase=Phase.DRAW, discards="4D 7C")
    assert cp.candidate_moves(draw) == [ce.TAKE_DISCARD, ce.DRAW_STOCK]


def test_determinize_keeps_every_card_and_what_the_others_took():
    state = ce.new_game(3, seed=4)
    rng = random.Random(0)
    for _ in range(24):
        state = ce.apply(state, cp.simple_move(state))
    # A seat not down still holds every card it took and did not throw.
    assert any(state.taken[s] and not state.down[s] and s != state.current for s in range(3))
    for _ in range(20):
        world = cp.determinize(state, rng)
        assert all_cards(world) == all_cards(state)
        assert world.hands[state.current] == state.hands[state.current]
        for seat in range(3):
            assert len(world.hands[seat]) == len(state.hands[seat])
            if not state.down[seat]:
                assert not Counter(cp._known(state, seat)) - Counter(world.hands[seat])


def test_search_decides_the_same_whatever_the_hidden_cards():
    state = ce.new_game(2, seed=9)
    for _ in range(21):
        state = ce.apply(state, cp.simple_move(state))
    shuffled = hide_and_shuffle(state, state.current, random.Random(5))
    assert shuffled != state
    assert cp.get_player("search@2", seed=3)(state) == cp.get_player("search@2", seed=3)(shuffled)


def test_search_plays_on_the_worlds_its_deal_gives():
    # bench_carioca --deal all hands it the real state: then one world is the whole truth.
    state = ce.new_game(2, seed=9)
    for _ in range(21):
        state = ce.apply(state, cp.simple_move(state))
    dealt = []
    real = cp.search_player(seed=3, samples=3, deal=lambda s, rng: dealt.append(s) or s)
    move = real(state)
    assert dealt == [state] * 3
    # Every world the true one, so each move has one exact value: the best one is played
    # where it beats simple's, simple's otherwise.
    seat = state.current

    def value(m):
        penalties = cp.playout(ce.apply(state, m)).last_round.penalties
        return penalties[1 - seat] - penalties[seat]

    moves = cp.candidate_moves(state)
    values = [value(m) for m in moves]
    best = max(range(len(moves)), key=lambda i: (values[i], -i))
    assert move == (moves[best] if values[best] > values[0] else moves[0])


@pytest.mark.parametrize("name", ["search@0", "search@x", "simple@2", "smart"])
def test_bad_player_names_are_refused(name):
    with pytest.raises(CarouselError, match="Carioca player"):
        cp.get_player(name)
