"""Gin Rummy's scripted players: legal moves only, and greedy beats random."""

from __future__ import annotations

import pytest

from carousel_env.core.errors import CarouselError
from carousel_env.games.gin_rummy import engine as ge
from carousel_env.games.gin_rummy.players import get_player
from carousel_env.games.gin_rummy.rules import GinRules

OPENSPIEL = GinRules.from_options("openspiel")


def _hand(seed: int, players) -> ge.GinState:
    state = ge.new_game(OPENSPIEL, seed)
    while not state.over:
        state = ge.apply(state, players[state.current](state))  # apply refuses an illegal move
    return state


def test_greedy_beats_random_from_both_seats():
    net = 0
    for seed in range(60):
        greedy_seat = seed % 2
        players = [get_player("random", seed), get_player("random", seed)]
        players[greedy_seat] = get_player("greedy")
        points = _hand(seed, players).last_hand.points
        net += points[greedy_seat] - points[1 - greedy_seat]
    assert net > 60 * 20


def test_greedy_knocks_as_soon_as_it_may():
    for seed in range(20):
        state = ge.new_game(OPENSPIEL, seed)
        greedy = get_player("greedy")
        while not state.over:
            move = greedy(state)
            if ge.MoveKind.KNOCK in ge.legal_kinds(state):
                assert move.kind is ge.MoveKind.KNOCK
            state = ge.apply(state, move)


def test_unknown_player_is_named():
    with pytest.raises(CarouselError, match="unknown Gin Rummy player 'smart' \\(players: random, greedy\\)"):
        get_player("smart")
