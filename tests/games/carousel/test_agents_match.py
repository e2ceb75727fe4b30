"""The policy registry and the match runner: names, errors, rotated seats, seeded replay."""

from __future__ import annotations

import numpy as np
import pytest

from carousel_env.core.errors import CarouselError
from carousel_env.games.carousel.agents.baselines import greedy
from carousel_env.games.carousel.agents.match import (
    Episode,
    EpisodeResult,
    MatchResult,
    advance_to_decision,
    engine_player,
    play_episode,
    play_match,
    rotated_seats,
    round_robin,
)
from carousel_env.games.carousel.agents.registry import UnknownPolicyError, get_policy, policy_names, resolve_policy
from carousel_env.games.carousel.engine.game import allowed, new_game
from carousel_env.games.carousel.engine.rules import carousel
from carousel_env.games.carousel.envs.aec import raw_env


def test_names_and_seeded_policies():
    assert policy_names() == ("random", "greedy", "smart")
    assert resolve_policy(greedy) is greedy
    assert resolve_policy("greedy") is greedy
    with pytest.raises(TypeError):
        resolve_policy(3)
    a, b = get_policy("random", seed=1), get_policy("random", seed=1)
    mask = np.array([1, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0], np.int8)
    assert [a(None, mask) for _ in range(10)] == [b(None, mask) for _ in range(10)]


def test_an_unknown_name_is_an_error_naming_it_and_the_known_ones():
    with pytest.raises(UnknownPolicyError) as info:
        get_policy("perfect", seed=3)
    error = info.value
    assert isinstance(error, CarouselError)
    assert error.name == "perfect" and error.known == ("random", "greedy", "smart")
    assert "'perfect'" in str(error) and "random, greedy, smart" in str(error)
    with pytest.raises(UnknownPolicyError, match="'gredy'"):
        play_match(["greedy", "gredy"], games=1)
    with pytest.raises(UnknownPolicyError, match="not a checkpoint file"):
        raise UnknownPolicyError("runs/typo", also_not="a checkpoint file")


def test_seats_rotate_every_game():
    schedule = rotated_seats(3, 6, seed=10)
    assert [e.seed for e in schedule] == list(range(10, 16))
    # Game g puts policy i in seat (i + g) % 3: controllers[seat] is the policy there.
    assert schedule[0].controllers == (0, 1, 2)
    assert schedule[1].controllers == (2, 0, 1)
    assert schedule[2].controllers == (1, 2, 0)
    for policy in range(3):
        seats = [e.controllers.index(policy) for e in schedule]
        assert sorted(seats) == [0, 0, 1, 1, 2, 2]


def test_the_match_plays_each_policy_in_its_rotated_seat():
    match = play_match(["greedy", "smart"], games=2, seed=5)
    assert match.names == ("greedy", "smart")
    assert [g.episode for g in match.games] == [Episode(5, (0, 1)), Episode(6, (1, 0))]
    # The second game, replayed by hand with smart in seat 0 and greedy in seat 1.
    by_hand = play_episode(raw_env(num_players=2), Episode(6, (1, 0)), {0: get_policy("smart"), 1: greedy})
    assert by_hand == match.games[1]
    unrotated = play_episode(raw_env(num_players=2), Episode(6, (0, 1)), {0: greedy, 1: get_policy("smart")})
    assert unrotated.totals != by_hand.totals  # so the check above tells the seatings apart
    greedy_totals = [g.totals[g.episode.controllers.index(0)] for g in match.games]
    assert match.mean_total(0) == sum(greedy_totals) / 2
    assert match.wins(0) + match.wins(1) == 2


def test_same_seed_same_match_other_seed_other_games():
    first = play_match(["random", "smart", "greedy"], games=3, seed=7, episode="round")
    again = play_match(["random", "smart", "greedy"], games=3, seed=7, episode="round")
    other = play_match(["random", "smart", "greedy"], games=3, seed=8, episode="round")
    assert isinstance(first, MatchResult) and first == again
    assert [g.returns for g in first.games] != [g.returns for g in other.games]
    for game in first.games:  # a round episode: one round, running scores, no winner yet
        assert len(game.rounds) == 1 and game.winner is None
        assert game.totals == game.rounds[0].points
        assert sum(game.score(seat) for seat in range(3)) == pytest.approx(1.0)


def test_round_robin_pairs_every_two_names():
    matches = round_robin(["greedy", "smart", "random"], games=1, seed=1)
    assert [m.names for m in matches] == [("greedy", "smart"), ("greedy", "random"), ("smart", "random")]
    assert all(len(m.games) == 1 and m.wins(0) + m.wins(1) == 1 for m in matches)


def test_scores_with_a_winner_and_with_a_tie():
    episode = Episode(0, ("a", "b", "c"))
    assert [EpisodeResult(episode, (1.0, 0.0, -1.0), (), (10, 30, 30), 2).score(s) for s in range(3)] == [0, 0, 1]
    tie = EpisodeResult(episode, (1.0, 0.0, -1.0), (), (30, 30, 10), None)
    assert [tie.score(s) for s in range(3)] == [0.5, 0.5, 0.0]
    no_totals = EpisodeResult(episode, (0.5, 0.5, -1.0))
    assert [no_totals.score(s) for s in range(3)] == [0.5, 0.5, 0.0]


def test_advance_stops_at_a_seat_without_a_policy_and_collects_rewards():
    env = raw_env(num_players=2, episode="round")
    env.reset(seed=4)
    first = env.possible_agents.index(env.agent_selection)
    rewards = np.zeros(2)
    decision, steps = advance_to_decision(env, {}, rewards)
    assert decision is not None and decision.seat == first and steps == 0
    decision, steps = advance_to_decision(env, {first: greedy}, rewards)
    assert decision is not None and decision.seat == 1 - first and steps >= 1
    assert decision.action_mask.any()
    decision, _ = advance_to_decision(env, {0: greedy, 1: greedy}, rewards)
    assert decision is None and not env.agents
    assert rewards.sum() == pytest.approx(0.0) and rewards.any()  # zero-sum, paid to both seats


def test_engine_player_makes_allowed_moves():
    state = new_game(carousel(2), 3)
    action = engine_player("smart")(state)
    assert (action in allowed(state)) or hasattr(action, "added")
