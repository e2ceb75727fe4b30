"""Gin Rummy's AEC env: configuration, the action codec and its mask, knock suggestions,
automatic decisions, rewards, and an observation that holds nothing hidden."""

from __future__ import annotations

import dataclasses
import random
import warnings

import numpy as np
import pytest

import carousel_env
from carousel_env.core.cards import parse_hand
from carousel_env.core.errors import IllegalAction
from carousel_env.games.gin_rummy import engine as ge
from carousel_env.games.gin_rummy import melds as gm
from carousel_env.games.gin_rummy.config import GinEnvConfigError
from carousel_env.games.gin_rummy.env import INFO_KEYS, NUM_FIXED_ACTIONS, GinAction, decision, engine_move, raw_env
from carousel_env.games.gin_rummy.observation import SCALARS, encode, layout
from carousel_env.games.gin_rummy.rules import GinRules


@pytest.mark.parametrize(
    ("config", "key"),
    [
        ({"preset": "vegas"}, "preset"),
        ({"knock_limit": 12}, "knock_limit"),
        ({"k_knocks": 0}, "k_knocks"),
        ({"episode": "round"}, "episode"),
        ({"preset": "openspiel", "episode": "match"}, "episode"),
        ({"reward": "win"}, "reward"),
        ({"reward_scale": 0}, "reward_scale"),
        ({"render_mode": "rgb"}, "render_mode"),
        ({"render_observer": 2}, "render_observer"),
        ({"num_players": 3}, "num_players"),
        ({"colour": "red"}, "colour"),
    ],
)
def test_bad_config_names_the_key(config, key):
    with pytest.raises(GinEnvConfigError) as error:
        raw_env(**config)
    assert error.value.key == key


def test_action_ids():
    assert (GinAction.DRAW_STOCK, GinAction.TAKE_UPCARD, GinAction.PASS) == (0, 1, 2)
    assert (GinAction.FIRST_DISCARD, GinAction.FIRST_KNOCK, NUM_FIXED_ACTIONS) == (3, 55, 55)
    env = raw_env(k_knocks=4)
    assert env.action_space("player_0").n == 59


def _play_until(env, predicate, rng, limit=2000):
    for _ in range(limit):
        if env.terminations[env.agent_selection]:
            env.reset(seed=rng.randrange(10**6))
        if predicate(env):
            return True
        legal = np.flatnonzero(env.action_mask)
        knocks = legal[legal >= GinAction.FIRST_KNOCK]
        discards = legal[(legal >= GinAction.FIRST_DISCARD) & (legal < GinAction.FIRST_KNOCK)]
        state = env.game_state
        if len(discards):  # discard the card leaving the least deadwood, so knocks come
            hand = state.hands[state.current]
            best = min(discards, key=lambda a: gm.deadwood(hand ^ 1 << int(a - GinAction.FIRST_DISCARD)))
            env.step(int(knocks[0]) if len(knocks) and rng.random() < 0.3 else int(best))
        else:
            env.step(int(rng.choice(legal)))
    return False


def test_knock_slots_are_ordered_and_masked():
    env = raw_env(k_knocks=3)
    env.reset(seed=5)
    rng = random.Random(0)
    assert _play_until(env, lambda e: e.action_mask[GinAction.FIRST_KNOCK], rng)
    knocks = env.knocks
    assert 1 <= len(knocks) <= 3
    keys = [(a.deadwood, spots) for a, spots in knocks]
    assert keys == sorted(keys)
    mask = env.action_mask
    assert mask[GinAction.FIRST_KNOCK : GinAction.FIRST_KNOCK + len(knocks)].all()
    assert not mask[GinAction.FIRST_KNOCK + len(knocks) :].any()
    obs = env.observe(env.agent_selection)["observation"]
    lay = env.observation_layout
    for k, (arrangement, _) in enumerate(knocks):
        base = lay.global_size + k * lay.slot_size
        assert obs[base] == 1.0  # valid
        assert obs[base + lay.slot_offsets["discard"][0] + arrangement.discard] == 1.0
    env.step(int(GinAction.FIRST_KNOCK))
    (result,) = env.hand_results
    assert result.arrangement == knocks[0][0]
    assert sum(env.rewards.values()) == pytest.approx(0)
    assert env.infos["player_0"]["hands_ended"] == 1
    assert env.infos["player_0"]["hand_points"].tolist() == list(result.points)


def test_both_passing_forces_the_stock_draw_and_reports_it():
    env = raw_env()
    env.reset(seed=3)
    state = env.game_state
    if state.phase is not ge.Phase.FIRST_UPCARD:
        pytest.skip("the deal's first decision was automatic")
    env.step(int(GinAction.PASS))
    env.step(int(GinAction.PASS))
    auto = env.auto_actions
    assert [a.name for a in auto] == ["DRAW_STOCK"] and env.infos["player_0"]["num_auto_actions"] == 1
    assert env.game_state.phase is ge.Phase.DISCARD


def test_illegal_actions_raise_in_the_raw_env_and_change_nothing():
    env = raw_env()
    env.reset(seed=1)
    before = env.game_state
    with pytest.raises(IllegalAction, match="not legal now"):
        env.step(int(GinAction.FIRST_KNOCK))
    with pytest.raises(IllegalAction, match="must be an int"):
        env.step(999)
    assert env.game_state is before


def test_wrapped_env_ends_the_episode_on_an_illegal_action():
    env = carousel_env.env(game="gin_rummy")
    env.reset(seed=1)
    agent = env.agent_selection
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PettingZoo's wrapper warns about the illegal move
        env.step(int(GinAction.FIRST_KNOCK))
    assert all(env.terminations.values()) and env.rewards[agent] == -1


def test_a_match_is_one_episode_and_its_rewards_sum_to_the_totals():
    env = raw_env(preset="book", target=30)  # a short match
    env.reset(seed=11)
    rng = random.Random(1)
    paid = {a: 0.0 for a in env.possible_agents}
    hands = 0
    while not all(env.terminations.values()):
        legal = np.flatnonzero(env.action_mask)
        knocks = legal[legal >= GinAction.FIRST_KNOCK]
        env.step(int(knocks[0]) if len(knocks) else int(rng.choice(legal)))
        hands += len(env.hand_results)
        for agent in env.possible_agents:
            paid[agent] += env.rewards[agent]
    result = env.game_state.game_result
    assert hands >= 1 and result is not None
    diff = 0.01 * (result.totals[0] - result.totals[1])
    assert paid["player_0"] == pytest.approx(diff) and paid["player_1"] == pytest.approx(-diff)
    assert set(env.infos["player_0"]) == set(INFO_KEYS) and env.infos["player_0"]["game_over"]


def test_result_reward_is_the_sign_of_the_hand():
    env = raw_env(preset="openspiel", reward="result")
    rng = random.Random(2)
    env.reset(seed=4)
    assert _play_until(env, lambda e: e.action_mask[GinAction.FIRST_KNOCK], rng)
    env.step(int(GinAction.FIRST_KNOCK))
    points = env.hand_results[0].points
    assert env.rewards["player_0"] == float(np.sign(points[0] - points[1]))


def _hidden_swapped(state: ge.GinState, seat: int, rng: random.Random) -> ge.GinState:
    """``state`` with the opponent's unknown cards and the stock shuffled together."""
    opp = 1 - seat
    hidden = list(gm.cards_of(state.hands[opp] & ~state.known[opp])) + list(state.stock[state.stock_top :])
    rng.shuffle(hidden)
    unknown = bin(state.hands[opp] & ~state.known[opp]).count("1")
    opp_hand = state.known[opp] | gm.mask_of(hidden[:unknown])
    stock = state.stock[: state.stock_top] + tuple(hidden[unknown:])
    hands = (state.hands[0], opp_hand) if seat == 0 else (opp_hand, state.hands[1])
    return dataclasses.replace(state, hands=hands, stock=stock)


def test_the_observation_holds_nothing_hidden():
    rng = random.Random(9)
    lay = layout(8)
    checked = 0
    for seed in range(30):
        state = ge.new_game(GinRules(), seed)
        while not state.over and checked < 400:
            seat = rng.randrange(2)
            obs = encode(state, seat, (), 0, lay)
            other = _hidden_swapped(state, seat, rng)
            assert np.array_equal(obs, encode(other, seat, (), 0, lay))
            checked += 1
            mask, knocks = decision(state, 8)
            legal = np.flatnonzero(mask)
            action = int(rng.choice(legal))
            state = ge.apply(state, engine_move(action, knocks))
    assert checked >= 300


def test_observation_shows_the_opponents_taken_upcard():
    rules = dataclasses.replace(GinRules(), first_dealer=1)
    dealt = "AS 2S 3S 4H 5H 6H 9C 9D KS QD  AC 2C 3C 4C 5D 6D 7D 8S 9S 10S  JH"
    top = tuple(parse_hand(c)[0] for c in dealt.split())
    state = ge.new_game(rules, 0, deck=top + tuple(c for c in range(52) if c not in top))
    state = ge.apply(state, ge.TAKE_UPCARD)
    state = ge.apply(state, ge.Move(ge.MoveKind.DISCARD, parse_hand("KS")[0]))
    lay = layout(8)
    obs = encode(state, 1, (), 0, lay)
    start = lay.offsets["opp_known"][0]
    assert obs[start + parse_hand("JH")[0]] == 1.0 and obs[start : start + 52].sum() == 1
    assert obs[lay.offsets["upcard"][0] + parse_hand("KS")[0]] == 1.0


def test_observation_shows_the_deadwood_each_move_would_leave():
    # Seat 0 holds two runs (AS 2S 3S, 4H 5H 6H) and 9C 9D KS QD; the upcard JH fits nothing.
    rules = dataclasses.replace(GinRules(), first_dealer=1)
    dealt = "AS 2S 3S 4H 5H 6H 9C 9D KS QD  AC 2C 3C 4C 5D 6D 7D 8S 9S 10S  JH"
    top = tuple(parse_hand(c)[0] for c in dealt.split())
    state = ge.new_game(rules, 0, deck=top + tuple(c for c in range(52) if c not in top))
    lay = layout(8)
    after_upcard = lay.offsets["scalars"][0] + SCALARS.index("after_upcard")
    after_discard = lay.offsets["after_discard"][0]
    # Taking JH, then throwing a ten-point card, leaves 9C 9D and two of KS QD JH: 38.
    assert encode(state, 0, (), 0, lay)[after_upcard] == pytest.approx(1 - 38 / 100)
    assert encode(state, 1, (), 0, lay)[after_upcard] == 0.0  # not seat 1's move
    state = ge.apply(state, ge.TAKE_UPCARD)
    obs = encode(state, 0, (), 0, lay)
    assert obs[after_upcard] == 0.0
    expected = {"KS": 38, "QD": 38, "JH": 38, "9C": 39, "AS": 53, "3S": 51, "4H": 59, "5H": 58}
    left = {card: 1 - obs[after_discard + parse_hand(card)[0]] for card in expected}
    assert left == pytest.approx({card: d / 100 for card, d in expected.items()}, abs=1e-6)
    assert obs[after_discard : after_discard + 52].astype(bool).sum() == 11  # the hand's cards only
    assert not encode(state, 1, (), 0, lay)[after_discard : after_discard + 52].any()  # the observer's own move


def test_variant_is_the_presets_other_name():
    import carousel_env

    assert carousel_env.raw_env(game="gin_rummy", variant="openspiel").config.preset == "openspiel"
    with pytest.raises(GinEnvConfigError, match="'variant': is the preset's other name"):
        carousel_env.raw_env(game="gin_rummy", variant="openspiel", preset="book")
