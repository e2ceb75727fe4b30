"""Conquian's scripted players: what ``simple`` does at each decision, what ``search``
weighs and what it may not see, and the names."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from carousel_env.core.cards import parse_card
from carousel_env.core.errors import CarouselError
from carousel_env.games.conquian.decision import ConquianAction, decision, engine_move, fixed_actions
from carousel_env.games.conquian.engine import apply, new_game
from carousel_env.games.conquian.players import (
    candidate_actions,
    determinize,
    discard_order,
    get_player,
    play_out,
)
from carousel_env.games.conquian.rules import CARDS, ConquianRules, index_of
from carousel_env.games.conquian.state import Phase
from tests.games.conquian.test_conquian_engine import position

K = 8


def discard_position():
    """Player 0 to discard from ``2C 3C 4C 4D KS`` (it took: 11 cards) with ``AH 2H 3H | 5S 5H
    5C`` melded; player 1 has ``5D 6D 7D`` melded and 7 cards; the 40 cards each once (the rest
    in the stock)."""
    state = position("2C 3C 4C 4D KS", melds=["AH 2H 3H", "5S 5H 5C"], phase=Phase.DISCARD, other_melds=["5D 6D 7D"])
    used = {*state.hands[0], *(c for t in state.melds for m in t for c in m)}
    rest = [c for c in CARDS if c not in used]
    return replace(state, hands=(state.hands[0], tuple(rest[:7])), stock=tuple(rest[7:]), faced=-1)


def act(name: str, state, seed: int = 0) -> int:
    _, found = decision(state, K)
    return get_player(name, seed)(state, found)


def test_simple_takes_what_melds_laying_the_most():
    state = position("JH JD AC 2C 3C 4D 5D", melds=["6S 7S JS"], faced="5S")
    assert act("simple", state) == ConquianAction.FIRST_OFFER  # 5S 6S 7S | JS JH JD: two cards laid


def test_simple_passes_what_melds_with_nothing():
    state = position("JH JD AC 2C 3C 4D 5D", melds=["6S 7S JS"], faced="KD", phase=Phase.TURNED)
    assert act("simple", state) == ConquianAction.PASS


def test_simple_forces_when_it_may():
    state = position("AC 2C 3C 4H 5H 6H 7S", melds=["2D 3D 4D"], phase=Phase.FORCE, faced="5D")
    state = replace(state, current=1)
    assert act("simple", state) == ConquianAction.FORCE


def test_simple_discards_what_helps_the_opponent_least():
    # 4D would grow the opponent's 5D 6D 7D; KS melds with nothing; 2C 3C 4C are kept together.
    state = discard_position()
    order = discard_order(state)
    assert order[0] == parse_card("KS") and order[-1] == parse_card("4D")
    assert act("simple", state) == ConquianAction.FIRST_DISCARD + index_of(parse_card("KS"))


def test_simple_never_lays_before_leaving_a_turned_card():
    rules = ConquianRules.from_options("bicycle")
    state = position("2H 2S 2D 4C 5D 6S 7S", phase=Phase.TURNED, faced="KD", rules=rules)
    _, found = decision(state, K)
    assert found and not any(o.take for o in found)  # only ways to lay from the hand
    assert act("simple", state) == ConquianAction.PASS


def test_random_plays_only_legal_actions():
    state = new_game(ConquianRules(), 4)
    player = get_player("random", 1)
    for _ in range(200):
        if state.over:
            break
        mask, found = decision(state, K)
        action = player(state, found)
        assert mask[action]
        state = apply(state, engine_move(action, found))


def test_search_weighs_simples_action_first_and_every_fixed_action():
    state = discard_position()
    _, found = decision(state, K)
    actions = candidate_actions(state, found)
    assert actions[0] == act("simple", state)
    assert sorted(actions) == sorted(int(a) for a in fixed_actions(state))


def test_determinize_deals_the_unseen_cards_again_keeping_sizes():
    state = new_game(ConquianRules(), 9)
    dealt = determinize(state, random.Random(0))
    other = 1 - state.current
    assert dealt.hands[state.current] == state.hands[state.current]
    assert len(dealt.hands[other]) == len(state.hands[other]) and len(dealt.stock) == len(state.stock)
    assert sorted(dealt.hands[other] + dealt.stock) == sorted(state.hands[other] + state.stock)


def test_search_decides_the_same_whatever_the_hidden_cards():
    state = discard_position()
    swapped = replace(
        state, hands=(state.hands[0], state.stock[:4] + state.hands[1][4:]), stock=state.hands[1][:4] + state.stock[4:]
    )
    assert act("search@4", state, seed=3) == act("search@4", swapped, seed=3)


def test_whole_hands_end_with_every_player():
    for names in (("simple", "random"), ("search@2", "simple")):
        state = play_out([get_player(n, 5) for n in names], new_game(ConquianRules(), 2), K, hand_only=True)
        assert state.over and state.last_hand is not None


@pytest.mark.parametrize("name", ["smart", "search@0", "search@x", "simple@4"])
def test_bad_player_names_are_refused(name):
    with pytest.raises(CarouselError, match="Conquian player"):
        get_player(name)
