"""Carioca's AEC env: PettingZoo's api test at every table size (the family's shared tests,
tests/games/test_every_game.py, run the api, seed and render tests at 3), random games
checked step by step, the action encoding, rewards, and an observation that hides what the
seat cannot see."""

from __future__ import annotations

import random
import warnings
from dataclasses import replace

import numpy as np
import pytest
from pettingzoo.test import api_test

from carousel_env.core.cards import parse_hand, parse_meld
from carousel_env.core.errors import IllegalAction
from carousel_env.games.carioca import engine as ce
from carousel_env.games.carioca import players as cp
from carousel_env.games.carioca.config import CariocaEnvConfigError
from carousel_env.games.carioca.env import (
    NUM_FIXED_ACTIONS,
    CariocaAction,
    action_name,
    env,
    layoff_action,
    layoff_of,
    raw_env,
)
from carousel_env.games.carioca.melds import End, LayOff, meld_from_units
from carousel_env.games.carioca.observation import SCALARS, encode, layout
from carousel_env.games.carioca.rules import MAX_PLAYERS
from carousel_env.games.carioca.solver import distance


@pytest.mark.parametrize("players", [2, 4, 5])  # 3 players: tests/games/test_every_game.py
def test_pettingzoo_api_at_every_table_size(players):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Dict observation spaces draw advisory warnings
        api_test(env(num_players=players, episode="round"), num_cycles=30)


def play_randomly(e, rng, check=None):
    """Random legal play to the episode's end; returns each agent's summed rewards."""
    total = dict.fromkeys(e.possible_agents, 0.0)
    for agent in e.agent_iter():
        observation, reward, termination, truncation, _ = e.last()
        total[agent] += reward
        assert e.observation_space(agent).contains(observation)
        if termination or truncation:
            e.step(None)
            continue
        legal = np.flatnonzero(observation["action_mask"])
        assert len(legal) >= 2  # a single legal action is taken by the env
        if check is not None:
            check(e, agent, observation)
        e.step(int(rng.choice(legal)))
    return total


@pytest.mark.parametrize("players", range(2, MAX_PLAYERS + 1))
def test_random_games_are_zero_sum_and_only_the_player_to_act_has_a_mask(players):
    e = env(num_players=players)
    rng = np.random.default_rng(players)

    def check(e, agent, observation):
        for other in e.agents:
            if other != agent:
                assert not e.observe(other)["action_mask"].any()

    e.reset(seed=players)
    total = play_randomly(e, rng, check)
    assert sum(total.values()) == pytest.approx(0, abs=1e-9)
    state = e.unwrapped.game_state
    assert state.phase is ce.Phase.GAME_OVER and len(state.rounds) == 6
    mean = sum(state.scores) / players
    for seat, agent in enumerate(e.possible_agents):  # score rewards: 0.01 * (mean - own) summed
        assert total[agent] == pytest.approx(0.01 * (mean - state.scores[seat]))


def test_result_rewards_rank_the_totals_lowest_first():
    e = env(num_players=3, reward="result")
    e.reset(seed=5)
    total = play_randomly(e, np.random.default_rng(1))
    scores = e.unwrapped.game_state.scores
    order = sorted(range(3), key=lambda s: scores[s])
    if len(set(scores)) == 3:
        assert [total[f"player_{s}"] for s in order] == [1.0, 0.0, -1.0]


def test_a_round_episode_ends_with_the_first_round():
    e = raw_env(num_players=2, episode="round")
    e.reset(seed=3)
    play_randomly(e, np.random.default_rng(3))
    assert e.game_state.phase is ce.Phase.ROUND_OVER and len(e.game_state.rounds) == 1


def test_the_lay_off_actions_round_trip_and_name_their_meld():
    seen = set()
    for actor in range(4):
        for seat in range(4):
            for meld in range(3):
                for end in End:
                    for card in (0, 25, 52):
                        layoff = LayOff(card, seat, meld, end)
                        action = layoff_action(layoff, actor, 4)
                        assert CariocaAction.FIRST_LAY_OFF <= action < CariocaAction.FIRST_GO_DOWN
                        assert layoff_of(action, actor, 4) == layoff
                        seen.add((actor, action))
    assert len(seen) == 4 * 4 * 3 * 2 * 3
    assert action_name(layoff_action(LayOff(25, 1, 2, End.HIGH), 0, 4)) == "LAY_OFF 7D on seat +1 meld 3 high end"
    assert action_name(NUM_FIXED_ACTIONS + 2) == "GO_DOWN_2" and action_name(2 + 52) == "DISCARD JK"


def test_an_illegal_action_is_named_and_changes_nothing():
    e = raw_env(num_players=2)
    e.reset(seed=0)
    before = e.game_state
    with pytest.raises(IllegalAction, match="not legal now; legal: DRAW_STOCK, TAKE_DISCARD"):
        e.step(CariocaAction.FIRST_DISCARD)
    assert e.game_state is before


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("num_players", 6),
        ("k_go_down", 0),
        ("episode", "hand"),
        ("reward", "win"),
        ("reward_scale", -1),
        ("render_mode", "svg"),
        ("render_observer", 2),
        ("variant", "x"),
    ],
)
def test_config_errors_name_the_key(key, value):
    with pytest.raises(CariocaEnvConfigError, match=repr(key)):
        raw_env(**{key: value})


def test_the_env_goes_down_lays_off_and_goes_out_through_its_actions():
    """The simple player driving the env through its actions: every kind of action is made."""
    e = raw_env(num_players=2)
    e.reset(seed=4)
    kinds = set()
    while not all(e.terminations.values()):
        state = e.game_state
        move = cp.simple_move(state)
        if move.kind is ce.MoveKind.GO_DOWN:
            action = NUM_FIXED_ACTIONS + e.suggestions.index(move.melds)
        elif move.kind is ce.MoveKind.LAY_OFF:
            action = layoff_action(move.layoff, state.current, 2)
        elif move.kind is ce.MoveKind.DISCARD:
            action = CariocaAction.FIRST_DISCARD + move.card
        else:
            action = int(move.kind)
        assert e.action_mask[action]
        kinds.add(move.kind)
        e.step(action)
        kinds.update(ce.MoveKind.DISCARD for a in e.auto_actions if a.name.startswith("DISCARD"))
    assert kinds == set(ce.MoveKind)
    assert len(e.game_state.rounds) == 6


def hide_and_shuffle(state: ce.CariocaState, seat: int, rng: random.Random) -> ce.CariocaState:
    """``state`` with every card ``seat`` cannot see (the others' hands, the stock) dealt again."""
    others = [s for s in range(state.num_players) if s != seat]
    hidden = [c for s in others for c in state.hands[s]] + list(state.stock)
    rng.shuffle(hidden)
    hands = list(state.hands)
    for s in others:
        hands[s], hidden = tuple(sorted(hidden[: len(hands[s])])), hidden[len(hands[s]) :]
    return replace(state, hands=tuple(hands), stock=tuple(hidden))


def test_the_observation_hides_what_the_seat_cannot_see():
    e = raw_env(num_players=3)
    e.reset(seed=8)
    rng = np.random.default_rng(8)
    deal = random.Random(0)
    checked = 0
    for _ in range(400):
        if all(e.terminations.values()):
            break
        agent = e.agent_selection
        for observer in e.possible_agents:
            seat = int(observer.split("_")[1])
            seen = e.observe(observer)
            state = e.game_state
            e._state, e._obs_cache = hide_and_shuffle(state, seat, deal), {}
            again = e.observe(observer)
            e._state, e._obs_cache = state, {}
            np.testing.assert_array_equal(seen["observation"], again["observation"])
            np.testing.assert_array_equal(seen["action_mask"], again["action_mask"])
            checked += 1
        e.step(int(rng.choice(np.flatnonzero(e.observe(agent)["action_mask"]))))
    assert checked > 300


def test_the_observation_shows_own_hand_and_the_table():
    e = raw_env(num_players=2)
    e.reset(seed=2)
    first = e.observe(e.agent_selection)["observation"].copy()
    state = e.game_state
    lay = e.observation_layout
    start, _ = lay.offsets["hand"]
    seat = state.current
    for card in set(state.hands[seat]):
        expected = state.hands[seat].count(card) / (4 if card == 52 else 2)
        assert first[start + card] == pytest.approx(expected)
    top, _ = lay.offsets["top"]
    assert first[top + state.top] == 1.0


def replace_seat(hands: tuple, seat: int, hand) -> tuple:
    return tuple(tuple(sorted(hand)) if s == seat else h for s, h in enumerate(hands))


def test_the_observation_shows_which_draw_and_discards_change_the_distance():
    # Round 1 (two trios): a trio of sevens, a pair of nines, singletons; distance 1.
    state = ce.new_game(2, 0)
    seat, lay = state.current, layout(8)
    held = parse_hand("7C 7D 7H 9C 9S KH 2C 3D 4S 5H 10D")
    top_helps = lay.offsets["scalars"][0] + SCALARS.index("top_helps")
    needed = lay.offsets["needed"][0]

    def observe(hand, pile, phase):
        position = replace(state, hands=replace_seat(state.hands, seat, hand), discards=pile, phase=phase)
        return encode(position, seat, (), distance(hand, position.contract), False, lay)

    assert observe(held, parse_hand("9D"), ce.Phase.DRAW)[top_helps] == 1.0  # the third nine
    assert observe(held, parse_hand("KD"), ce.Phase.DRAW)[top_helps] == 0.0  # a pair of kings: still 1 away
    obs = observe(held + parse_hand("9D"), parse_hand("KD"), ce.Phase.PLAY)
    shown = {card for card in range(53) if obs[needed + card]}
    assert shown == set(parse_hand("7C 7D 7H 9C 9D 9S"))  # throwing any other card keeps both trios
    assert not obs[top_helps]


def test_the_observation_shows_a_top_that_a_player_down_can_lay_off():
    # The observer is down; the table holds a trio of sevens and the escalera 4D-5D-6D-7D.
    state = ce.new_game(2, 0)
    seat, lay = state.current, layout(8)
    table = (meld_from_units(parse_meld("7C 7D 7H")), meld_from_units(parse_meld("4D 5D 6D 7D")))
    down = tuple(s == seat for s in range(2))
    melds = tuple(table if s == seat else () for s in range(2))
    top_fits = lay.offsets["scalars"][0] + SCALARS.index("top_fits")
    top_helps = lay.offsets["scalars"][0] + SCALARS.index("top_helps")

    def observe(pile, phase=ce.Phase.DRAW, is_down=down):
        position = replace(state, down=is_down, melds=melds, discards=parse_hand(pile), phase=phase)
        return encode(position, seat, (), 0, False, lay)

    assert observe("7S")[top_fits] == 1.0  # the trio's fourth seven
    assert observe("8D")[top_fits] == 1.0  # the escalera's next card
    assert observe("3D")[top_fits] == 1.0  # ... or the one below it
    assert observe("KD")[top_fits] == 0.0
    assert observe("7S")[top_helps] == 0.0  # top_helps is for a player not down
    assert observe("7S", ce.Phase.PLAY)[top_fits] == 0.0  # only while drawing
    assert observe("7S", is_down=(False, False))[top_fits] == 0.0
