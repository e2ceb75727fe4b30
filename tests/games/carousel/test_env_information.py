"""A player's observation depends only on what that player may know: changing hidden
information (the other hands, the stock order) must not change it."""

from __future__ import annotations

import random
from dataclasses import replace

import numpy as np
import pytest

from carousel_env.core.cards import JOKER, TABLE_JOKER, parse_hand, parse_table
from carousel_env.games.carousel.engine.game import ActionKind, GameState, Phase, apply, new_game, next_round
from carousel_env.games.carousel.engine.rules import Rules
from carousel_env.games.carousel.envs.aec import decision
from carousel_env.games.carousel.envs.observation import encode, layout
from carousel_env.games.carousel.solver import can_play

K = 8
LAY = layout(K)


def observation(state: GameState, observer: int) -> np.ndarray:
    suggestions = decision(state, K)[1] if observer == state.current else ()
    return encode(state, observer, suggestions, LAY)


def reshuffle_hidden(state: GameState, observer: int, rng: random.Random) -> GameState:
    """Deal the cards the observer cannot see (other hands + stock) anew, keeping every
    hand's size and the stock's size."""
    others = [p for p in range(state.num_players) if p != observer]
    pool = [c for p in others for c in state.hands[p]] + list(state.stock)
    rng.shuffle(pool)
    hands = list(state.hands)
    for p in others:
        size = len(hands[p])
        hands[p], pool = tuple(sorted(pool[:size])), pool[size:]
    return replace(state, hands=tuple(hands), stock=tuple(pool))


def states(num_players: int, count: int, seed: int) -> list[GameState]:
    rng = random.Random(seed)
    rules = Rules(num_players=num_players)
    state = new_game(rules, seed, can_play=can_play)
    out = []
    while len(out) < count:
        if state.phase is Phase.ROUND_OVER:
            state = next_round(state)
            continue
        if state.phase is Phase.GAME_OVER:
            state = new_game(rules, rng.randrange(10**6), can_play=can_play)
            continue
        out.append(state)
        mask, suggestions = decision(state, K)
        action = int(rng.choice(np.flatnonzero(mask)))
        kinds = (ActionKind.DRAW_AGAIN, ActionKind.KNOCK, ActionKind.END_TURN)
        state = apply(state, kinds[action] if action < 3 else suggestions[action - 3].play)
    return out


@pytest.mark.parametrize("n", [2, 3, 5])
def test_hidden_information_does_not_change_observations(n):
    rng = random.Random(n)
    for state in states(n, 12, seed=100 + n):
        for observer in range(n):
            before = observation(state, observer)
            for _ in range(2):
                shuffled = reshuffle_hidden(state, observer, rng)
                assert np.array_equal(before, observation(shuffled, observer))


def test_swapping_two_opponents_equal_hands_changes_nothing_for_the_third():
    state = states(3, 1, seed=9)[0]
    # Three players at the start of a round: the player to act holds 11 cards, the other two 10.
    a, b = [p for p in range(3) if p != state.current]
    assert len(state.hands[a]) == len(state.hands[b])
    hands = list(state.hands)
    hands[a], hands[b] = hands[b], hands[a]
    swapped = replace(state, hands=tuple(hands))
    assert np.array_equal(observation(state, state.current), observation(swapped, state.current))


def test_own_hand_and_table_do_change_the_observation():
    state = states(2, 1, seed=3)[0]
    me = state.current
    hands = list(state.hands)
    hands[me] = tuple(sorted((*hands[me][1:], state.stock[0])))
    changed = replace(state, hands=tuple(hands))
    if changed.hands[me] != state.hands[me]:
        assert not np.array_equal(observation(state, me), observation(changed, me))


def test_card_channels():
    rules = Rules(num_players=3)
    state = replace(
        new_game(rules, 1, can_play=can_play),
        hands=(parse_hand("7H 8H JK"), parse_hand("2C 3C"), parse_hand("KD")),
        table=parse_table("3C 4C 5C | 9S 9D JK=9H"),
    )
    v = encode(state, 0, (), LAY)
    g = LAY.global_fields
    hand = v[g["hand"]]
    assert hand.sum() == 3 and hand[JOKER] == 1
    assert v[g["table_cards"]].sum() == 5
    jokers = v[g["table_jokers"]]
    assert jokers.sum() == 1 and jokers[parse_table("9H")[0][0]] == 1
    unseen = v[g["unseen"]]
    # Two decks + two jokers, minus 3 in hand, minus 6 table units.
    assert unseen.sum() == 106 - 3 - 6
    assert unseen[JOKER] == 0  # one joker in hand, one on the table
    assert TABLE_JOKER > JOKER
    opponents = v[g["opponents"]].reshape(-1, 5)
    assert list(opponents[:, 0]) == [1, 1, 0, 0]
    assert opponents[0, 1] * 20 == 2 and opponents[1, 1] * 20 == 1  # seat order after the observer


def test_extending_one_of_two_equal_melds_changes_the_table():
    # "3C 4C 5C" twice; the play extends one copy: an old meld is gone, although an equal
    # one is still there (the melds compare as a multiset, not as a set).
    rules = Rules(num_players=3)
    state = replace(
        new_game(rules, 1, can_play=can_play),
        hands=(parse_hand("6C KD"), parse_hand("2D 3D"), parse_hand("KS")),
        table=parse_table("3C 4C 5C | 3C 4C 5C"),
        current=0,
    )
    suggestions = decision(state, K)[1]
    assert [s.play.table for s in suggestions] == [parse_table("3C 4C 5C | 3C 4C 5C 6C")]
    changes = LAY.slot(0).start + LAY.slot_fields["changes_melds"].start
    assert encode(state, 0, suggestions, LAY)[changes] == 1.0
