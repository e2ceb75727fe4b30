"""Kaluki's scripted players: what ``simple`` does in concrete positions, that it beats
``random`` over seeded hands, and what ``search`` weighs and reads."""

from __future__ import annotations

import random

import numpy as np
import pytest

from carousel_env.core.cards import parse_card, parse_hand
from carousel_env.core.errors import CarouselError
from carousel_env.games.kaluki.engine import new_game
from carousel_env.games.kaluki.env import KalukiAction, decision, raw_env
from carousel_env.games.kaluki.players import (
    candidate_actions,
    determinize,
    discard_order,
    get_player,
    melds_with,
    play_hand_or_game,
    simple_action,
    simple_discard,
)
from carousel_env.games.kaluki.policies import env_action, resolve_policy
from carousel_env.games.kaluki.rules import PRESETS, KalukiRules
from carousel_env.games.kaluki.state import Phase
from tests.games.kaluki.positions import position

K = 8


def test_simple_takes_the_top_to_open_with_it():
    state = position(["9C 10C KH KS KD 2D 5H", "3S 4S 6H"], phase=Phase.DRAW, discards="4D 8C")
    _, offers = decision(state, K)
    assert get_player("simple")(state, offers) == KalukiAction.FIRST_OFFER


def test_simple_lays_its_best_play_before_discarding():
    state = position(["7H 9S 9D 9C 2C", "3S 4S 6H"], melds=[["QS KS AS"], ["4H 5H 6H"]], opened=[True, True])
    _, offers = decision(state, K)
    assert get_player("simple")(state, offers) == KalukiAction.FIRST_OFFER


def test_simple_discards_its_highest_card_that_melds_with_nothing():
    # KD melds with nothing; QH has QS; 9C has 10C; 3S is low.
    state = position(["KD QH QS 9C 10C 3S", "2C 4D 6H"])
    assert simple_discard(state) == parse_card("KD")
    # The card taken from the pile stays, a joker stays while another card may go.
    state = position(["KD JK 3S 9C 10C", "2C 4D 6H"], taken="KD")
    assert simple_discard(state) == parse_card("3S")


@pytest.mark.parametrize(
    ("top", "opened", "takes"),
    [
        ("8C", True, True),  # it makes 8C 9C 10C
        ("QC", True, False),  # it only melds with 10C: simple would take it
        ("7H", True, True),  # it fits the run on the table
        ("7H", False, False),  # but not before its taker has opened
        ("JK", False, True),  # a joker is always of use
    ],
)
def test_careful_takes_the_piles_top_only_where_it_can_use_it(top, opened, takes):
    """9C 10C KH 2S in hand, 4H 5H 6H on the table; plain Rummy with two jokers, where the top
    may be taken freely, opened or not."""
    rules = KalukiRules.from_options("rummy", jokers=2)
    state = position(
        ["9C 10C KH 2S", "3S 4S 6D"],
        rules=rules,
        melds=[[], ["4H 5H 6H"]],
        opened=[opened, True],
        phase=Phase.DRAW,
        discards=f"4D {top}",
    )
    mask, offers = decision(state, K)
    assert mask[KalukiAction.TAKE_DISCARD]
    expected = KalukiAction.TAKE_DISCARD if takes else KalukiAction.DRAW_STOCK
    assert get_player("careful")(state, offers) == expected
    if top == "QC":
        assert simple_action(state, offers) == KalukiAction.TAKE_DISCARD


def test_wary_spares_the_cards_that_feed_the_next_player():
    """KD and 8H meld with nothing in hand; the next player took 7H from the pile, so 8H would
    feed it: wary discards KD where simple would too, and 3S (not 8H) once KD is gone."""
    hands = ["KD 8H QH QS 9C 10C 3S", "2C 7H 6D", "4D 5S"]
    state = position(hands, known=["", "7H", ""])
    wary = get_player("wary")
    assert wary(state, ()) == simple_action(state, ()) == KalukiAction.FIRST_DISCARD + parse_card("KD")
    state = position(["8H QH QS 9C 10C 3S", "2C 7H 6D", "4D 5S"], known=["", "7H", ""])
    assert simple_discard(state) == parse_card("8H")
    assert wary(state, ()) == KalukiAction.FIRST_DISCARD + parse_card("3S")
    # The player after the next does not count; with every loose card feeding, simple's choice.
    assert wary(position(["8H QH QS 9C 10C 3S", "2C 6D", "4D 7H"], known=["", "", "7H"]), ()) == (
        KalukiAction.FIRST_DISCARD + parse_card("8H")
    )
    assert wary(position(["8H QH QS 9C 10C 7D", "2C 7H 6D", "4D"], known=["", "7H", ""]), ()) == (
        KalukiAction.FIRST_DISCARD + parse_card("8H")
    )


def test_wary_draws_and_plays_as_simple():
    state = position(["7H 9S 9D 9C 2C", "3S 4S 6H"], melds=[["QS KS AS"], ["4H 5H 6H"]], opened=[True, True])
    _, offers = decision(state, K)
    assert get_player("wary")(state, offers) == simple_action(state, offers) == KalukiAction.FIRST_OFFER
    draw = position(["9C 10C KH", "3S 4S 6D"], phase=Phase.DRAW, discards="4D 8C", known=["", "5D"])
    _, offers = decision(draw, K)
    assert get_player("wary")(draw, offers) == simple_action(draw, offers)


def test_melds_with_reads_ranks_and_near_suits():
    hand = [parse_card(c) for c in ("7H", "10S")]
    assert melds_with(hand, parse_card("7C")) and melds_with(hand, parse_card("9H"))
    assert melds_with(hand, parse_card("QS")) and not melds_with(hand, parse_card("KD"))
    assert not melds_with([parse_card("7H")], parse_card("7H"))  # a duplicate makes no set


@pytest.mark.parametrize(("preset", "players"), [("book", 2), ("book", 4), ("rummy", 3), ("uk51", 2)])
def test_simple_wins_well_over_its_share_of_hands_against_random(preset, players):
    won, hands = 0, 20
    for seed in range(hands):
        seats = [get_player("simple" if s == 0 else "random", seed + s) for s in range(players)]
        state = play_hand_or_game(seats, new_game(PRESETS[preset], players, seed), hand_only=True)
        won += state.last_hand.out == 0
    assert won >= hands * (1 / players + 0.1), won  # measured: 29 of 40 under uk51 heads-up, 25 of 40 at 4


def test_an_unknown_player_is_named():
    with pytest.raises(CarouselError, match="unknown Kaluki player 'smart'"):
        get_player("smart")


@pytest.mark.parametrize("name", ["search@0", "search@x", "simple@2", "search@"])
def test_a_bad_search_budget_is_named(name):
    with pytest.raises(CarouselError, match=f"Kaluki player {name!r}"):
        get_player(name)


def test_discard_order_puts_simple_first_and_jokers_last():
    state = position(["KD JK QH QS 9C 10C 3S", "2C 4D 6H"], taken="QS")
    order = discard_order(state)
    assert order[0] == simple_discard(state) == parse_card("KD")
    assert order[1] == parse_card("3S")  # the other card that melds with nothing
    assert order[-1] == parse_card("JK") and parse_card("QS") not in order  # the taken card stays


def test_search_weighs_the_draws_the_plays_and_the_first_discards_simple_first():
    drawing = position(["9C 10C KH KS KD 2D 5H", "3S 4S 6H"], phase=Phase.DRAW, discards="4D 8C")
    _, offers = decision(drawing, K)
    actions = candidate_actions(drawing, offers)
    assert actions[0] == simple_action(drawing, offers) == KalukiAction.FIRST_OFFER
    assert set(actions) == {KalukiAction.DRAW_STOCK} | {
        KalukiAction.FIRST_OFFER + i for i in range(min(3, len(offers)))
    }
    playing = position(["7H 9S 9D 9C 2C KD", "3S 4S 6H"], melds=[["QS KS AS"], ["4H 5H 6H"]], opened=[True, True])
    _, offers = decision(playing, K)
    actions = candidate_actions(playing, offers)
    assert actions[0] == KalukiAction.FIRST_OFFER and len(actions) == len(set(actions))
    discards = [KalukiAction.FIRST_DISCARD + c for c in discard_order(playing)[:3]]
    assert set(discards) <= set(actions)  # not playing at all is weighed too


def test_determinize_deals_only_the_unseen_cards_again():
    state = position(["7H 9S 9D", "3S 4S 6H 8D", "2H KC"], stock="2C 3C 4C 5D JK", discards="9H QD")
    world = determinize(state, random.Random(4))
    assert world.hands[0] == state.hands[0] and world.discards == state.discards and world.melds == state.melds
    assert [len(h) for h in world.hands] == [len(h) for h in state.hands] and len(world.stock) == len(state.stock)
    unseen = lambda s: sorted([c for h in s.hands[1:] for c in h] + list(s.stock))  # noqa: E731
    assert unseen(world) == unseen(state) and world != state


def test_determinize_forgets_what_the_table_showed_of_the_hands_it_deals_again():
    state = position(["KD 8H", "2C 7H 6D", "4D 5S"], known=["8H", "7H", ""])
    dealt = determinize(state, random.Random(0))
    assert dealt.known == (parse_hand("8H"), (), ())  # the seat's own stays: its hand is not dealt again


def test_search_decides_the_same_whatever_the_hidden_cards():
    state = position(["7H 9S 9D 9C 2C KD 5S", "3S 4S 6H QC"], stock="2C 3C 4C 8H 10D JH")
    hidden = position(["7H 9S 9D 9C 2C KD 5S", "8H 10D JH 4C"], stock="2C 3C 3S 4S 6H QC")
    _, offers = decision(state, K)
    assert get_player("search@2", seed=3)(state, offers) == get_player("search@2", seed=3)(hidden, offers)


@pytest.mark.parametrize("seed", [0, 1])
def test_search_plays_legal_actions_through_a_whole_hand(seed):
    seats = [get_player("search@1", seed), get_player("simple")]
    state = play_hand_or_game(seats, new_game(PRESETS["rummy"], 2, seed), hand_only=True)
    assert state.over and state.last_hand is not None


def test_a_scripted_policy_plays_legal_actions_in_the_env():
    env = raw_env(num_players=3, k_plays=K)
    policies = [resolve_policy(name, seed=1) for name in ("simple", "random", "simple")]
    env.reset(seed=5)
    for agent in env.agent_iter():
        observation, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            continue
        seat = env.possible_agents.index(agent)
        action = env_action(policies[seat], env, observation["observation"], observation["action_mask"])
        assert observation["action_mask"][action]
        env.step(action)
    assert env.game_state.over and np.isfinite(sum(env._cumulative_rewards.values()))
