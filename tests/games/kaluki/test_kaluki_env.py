"""The Kaluki AEC env: PettingZoo's API test at every table size and preset, the decisions of
RULES.md's worked examples, rewards, errors that change nothing, observations in bounds."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from pettingzoo.test import api_test

from carousel_env.core.cards import parse_card, parse_hand
from carousel_env.core.errors import IllegalAction
from carousel_env.games.kaluki.config import KalukiEnvConfig, KalukiEnvConfigError
from carousel_env.games.kaluki.engine import apply
from carousel_env.games.kaluki.env import (
    NUM_FIXED_ACTIONS,
    KalukiAction,
    decision,
    engine_moves,
    env,
    hand_rewards,
    raw_env,
)
from carousel_env.games.kaluki.observation import SCALARS, encode, layout
from carousel_env.games.kaluki.render import render_text
from carousel_env.games.kaluki.rules import PRESETS
from carousel_env.games.kaluki.state import DRAW_STOCK, HandEnd, HandResult, Phase
from tests.games.kaluki.positions import position

K = 4


@pytest.mark.parametrize(("preset", "players"), [("book", 2), ("book", 6), ("uk40", 3), ("rummy", 4)])
def test_pettingzoo_api(preset, players):
    api_test(env(preset=preset, num_players=players, k_plays=K), num_cycles=300)


def test_worked_example_4_the_discard_is_taken_only_with_an_opening_that_lays_it():
    """Top 8C; 9C 10C KH KS KD in hand, not opened: the take comes with 8C 9C 10C + KH KS KD (57)."""
    state = position(["9C 10C KH KS KD 2D 5H", "3S 4S 6H"], phase=Phase.DRAW, discards="4D 8C")
    mask, offers = decision(state, K)
    assert mask[KalukiAction.DRAW_STOCK] and not mask[KalukiAction.TAKE_DISCARD]
    assert offers and mask[KalukiAction.FIRST_OFFER]
    best = offers[0]
    assert {str(m) for m in best.melds} == {"8C 9C 10C", "KD KH KS"} and best.opening_value == 57
    (move,) = engine_moves(state, KalukiAction.FIRST_OFFER, offers)
    assert parse_card("8C") in [c for m in move.melds for c in m.cards()]


def test_without_an_opening_only_the_stock_is_offered():
    state = position(["9C 10C 2D 5H 7S", "3S 4S 6H"], phase=Phase.DRAW, discards="4D 8C")
    mask, offers = decision(state, K)
    assert np.flatnonzero(mask).tolist() == [KalukiAction.DRAW_STOCK] and offers == ()


def test_plain_rummy_takes_the_discard_freely():
    rules = PRESETS["rummy"]
    state = position(["9C 10C 2D 5H 7S", "3S 4S 6H"], rules=rules, phase=Phase.DRAW, discards="4D 8C")
    mask, offers = decision(state, K)
    assert mask[KalukiAction.TAKE_DISCARD] and mask[KalukiAction.DRAW_STOCK] and offers == ()


def test_a_play_lays_melds_and_lay_offs_together_and_discards_stay_legal():
    """Opened, holding 7H (fits 4H 5H 6H) and 9S 9D 9C: the best play lays both, leaving 2C."""
    state = position(
        ["7H 9S 9D 9C 2C", "3S 4S 6H"], melds=[["QS KS AS"], ["4H 5H 6H"]], opened=[True, True], laid=[True, True]
    )
    mask, plays = decision(state, K)
    first_play = KalukiAction.FIRST_OFFER
    assert plays and mask[first_play]
    assert plays[0].hand_value == 2  # only 2C left
    for card in parse_hand("7H 9S 9D 9C 2C"):
        assert mask[KalukiAction.FIRST_DISCARD + card]
    moves = engine_moves(state, first_play, plays)
    after = state
    from carousel_env.games.kaluki.engine import apply

    for move in moves:
        after = apply(after, move)
    assert after.hands[0] == parse_hand("2C")


def test_an_illegal_action_raises_and_changes_nothing():
    e = raw_env(num_players=3, k_plays=K)
    e.reset(seed=3)
    before = copy.deepcopy(e.game_state)
    mask = e.observe(e.agent_selection)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(IllegalAction, match="not legal"):
        e.step(illegal)
    with pytest.raises(IllegalAction, match="must be an int"):
        e.step(NUM_FIXED_ACTIONS + K)
    assert e.game_state == before


@pytest.mark.parametrize("bad", [{"num_players": 7}, {"k_plays": 0}, {"preset": "gin"}, {"opening": -1}, {"x": 1}])
def test_bad_config_names_the_key(bad):
    with pytest.raises(KalukiEnvConfigError, match=repr(next(iter(bad)) if "preset" not in bad else "preset")):
        raw_env(**bad)


def test_hand_rewards_are_zero_sum_and_losers_pay_by_what_they_held():
    config = KalukiEnvConfig.from_kwargs(num_players=3, episode="hand")
    state = position(["", "JK AS 7D", "KC 2H"], phase=Phase.HAND_OVER)
    hands = ((), parse_hand("JK AS 7D"), parse_hand("KC 2H"))
    result = HandResult(1, HandEnd.OUT, 0, (0, 43, 12), (55, 0, 0), False, hands)
    paid = hand_rewards(config, result, state)
    assert paid[0] == pytest.approx(0.55) and sum(paid) == pytest.approx(0.0)
    assert paid[1] == pytest.approx(-0.43) and paid[2] == pytest.approx(-0.12)  # RULES.md example 7
    penalty = KalukiEnvConfig.from_kwargs(num_players=3, preset="uk40", episode="hand")
    result = HandResult(1, HandEnd.OUT, 0, (0, 33, 12), (0, 33, 12), False, hands)
    paid = hand_rewards(penalty, result, position(["", "JK AS 7D", "KC 2H"], rules=penalty.rules))
    assert paid == pytest.approx([0.15, -0.18, 0.03]) and sum(paid) == pytest.approx(0.0)


def _scalar(observation, name):
    lay = layout(K)
    return observation[lay.offsets["scalars"][0] + SCALARS.index(name)]


@pytest.mark.parametrize(
    ("top", "melds_with_hand", "makes_meld", "fits_table"),
    [
        ("8C", True, True, False),
        ("QC", True, False, False),
        ("JK", True, False, True),
        ("7H", False, False, True),
        ("2D", False, False, False),
        ("QD", False, False, False),
    ],
)
def test_the_observation_says_whether_the_piles_top_melds_with_the_hand_or_fits_the_table(
    top, melds_with_hand, makes_meld, fits_table
):
    """9C 10C KH in hand; on the table 4H 5H 6H: 8C makes a run with the hand, QC only melds
    with 10C, 7H fits the run, a joker melds and fits; 2D and QD (the other player's cards
    aside) neither."""
    state = position(
        ["9C 10C KH", "3S 4S 6D"], melds=[[], ["4H 5H 6H"]], opened=[True, True], phase=Phase.DRAW, discards=f"4D {top}"
    )
    observation = encode(state, 0, (), layout(K))
    assert _scalar(observation, "top_melds") == float(melds_with_hand)
    assert _scalar(observation, "top_makes_meld") == float(makes_meld)
    assert _scalar(observation, "top_fits") == float(fits_table)


def test_each_offer_slot_gives_its_place_among_the_offers():
    """Opened with 7H 8H 9H 9S 9D 9C 2C: the solver offers several plays, best first."""
    state = position(["7H 8H 9H 9S 9D 9C 2C", "3S 4S 6H"], melds=[[], ["4H 5H 6H"]], opened=[True, True])
    _, offers = decision(state, K)
    assert len(offers) >= 2
    lay = layout(K)
    observation = encode(state, 0, offers, lay)
    order = lay.slot_offsets["order"][0]
    places = [observation[lay.global_size + i * lay.slot_size + order] for i in range(K)]
    assert places[: len(offers)] == pytest.approx([i / K for i in range(len(offers))])
    assert all(observation[lay.global_size + i * lay.slot_size] == 0 for i in range(len(offers), K))


def _channel(observation, name: str) -> np.ndarray:
    start, end = layout(K).offsets[name]
    return observation[start:end]


def test_the_observation_shows_the_cards_each_seat_is_known_to_hold_and_what_feeds_the_next():
    """Three seats; seat 1 (next after 0) is known to hold 7H, seat 2 2C (both taken from the
    pile). Seat 0 sees both, each at its relative seat, and that 5H 6H 8H 9H and the other 7s
    would meld with seat 1's 7H; seat 2 sees its own known card at relative seat 0."""
    state = position(["9C 10C KH", "3S 7H 6D", "2C 4D"], known=["", "7H", "2C"], phase=Phase.DRAW)
    mine = encode(state, 0, (), layout(K))
    assert _channel(mine, "known_1")[parse_card("7H")] == 0.5 and _channel(mine, "known_1").sum() == 0.5
    assert _channel(mine, "known_2")[parse_card("2C")] == 0.5 and _channel(mine, "known_0").sum() == 0
    assert set(np.flatnonzero(_channel(mine, "feeds"))) == set(parse_hand("5H 6H 8H 9H 7C 7D 7S"))
    theirs = encode(state, 2, (), layout(K))
    assert _channel(theirs, "known_0")[parse_card("2C")] == 0.5 and _channel(theirs, "known_2")[parse_card("7H")]
    assert _channel(theirs, "feeds").sum() == 0  # seat 0, next after 2, is known to hold nothing
    assert "Player 1: 3 cards, known to hold 7H" in render_text(state, 0)
    # Once the next player has opened, what fits the table feeds it too (a joker is never counted).
    opened = position(["9C 10C KH", "3S 7H 6D", "2C"], melds=[[], ["4S 5S 6S"], []], known=["", "7H", ""])
    expected = set(parse_hand("5H 6H 8H 9H 7C 7D 7S 3S 7S"))
    assert set(np.flatnonzero(_channel(encode(opened, 0, (), layout(K)), "feeds"))) == expected


def test_a_game_that_eliminates_every_player_is_still_observed():
    """UK rules: a hand nobody wins pushes all three over the limit, so none is left in play;
    the last observation says nothing feeds anyone (there is no next player)."""
    rules = PRESETS["uk40"]
    totals = [rules.limit - 1] * 3
    state = position(["KS QS", "KH QH", "KD QD"], rules=rules, phase=Phase.DRAW, stock="", discards="", totals=totals)
    over = apply(state, DRAW_STOCK)
    assert over.phase is Phase.GAME_OVER and not any(over.in_play)
    assert _channel(encode(over, 0, (), layout(K)), "feeds").sum() == 0


@pytest.mark.parametrize(("preset", "players"), [("book", 2), ("book", 5), ("uk51", 4), ("rummy", 6)])
def test_random_matches_end_with_zero_sum_rewards_and_observations_in_bounds(preset, players):
    e = raw_env(preset=preset, num_players=players, k_plays=K, episode="hand")
    rng = np.random.default_rng(players)
    assert e.observation_layout.size == layout(K).size
    for seed in range(4):
        e.reset(seed=seed)
        total = dict.fromkeys(e.possible_agents, 0.0)
        for agent in e.agent_iter():
            observation, reward, termination, truncation, info = e.last()
            total[agent] += reward
            assert e.observation_space(agent).contains(observation)
            assert set(info) == {"num_auto_actions", "hands_ended", "hand_points", "game_over"}
            if termination or truncation:
                e.step(None)
                continue
            e.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
        assert sum(total.values()) == pytest.approx(0.0, abs=1e-9)
        assert e.game_state.over


@pytest.mark.parametrize("mode", ["ansi", "rgb_array"])
def test_renders(mode):
    e = raw_env(num_players=4, k_plays=K, render_mode=mode, preset="rummy")
    e.reset(seed=1)
    e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0]))
    shown = e.render()
    if mode == "ansi":
        assert "Rummy, hand 1" in shown and "Your hand:" in shown and "Last action:" in shown
    else:
        assert shown.ndim == 3 and shown.shape[2] == 3 and shown.dtype == np.uint8


def test_an_offers_laid_cards_are_what_the_engine_takes_from_the_hand():
    """The offer slot's ``laid`` and ``goes_out`` follow from a play's melds, lay-offs,
    exchanges and released jokers: the same as making its moves with the engine, under every
    joker rule (a released joker back in the hand, or laid again at once)."""
    import random
    from collections import Counter

    from carousel_env.games.kaluki import observation, solver
    from carousel_env.games.kaluki.env import apply_moves
    from carousel_env.games.kaluki.rules import KalukiRules
    from tests.games.kaluki.test_kaluki_solver import played_positions, table_position

    rules = (
        KalukiRules.from_options("book"),
        KalukiRules.from_options("uk40"),
        KalukiRules.from_options("book", set_joker_release="either_missing"),
        KalukiRules.from_options("book", set_joker_release="all_missing", retrieved_joker="reuse_now"),
    )
    rng = random.Random(3)
    states = [table_position(rng, rules[i % len(rules)]) for i in range(200)] + list(played_positions(4, 200))
    exchanges = 0
    for state in states:
        s = state.current
        for play in solver.best_play(state, 8):
            after = apply_moves(state, play.moves)
            laid, goes_out = observation._laid(state, play)
            assert Counter(laid) == Counter(state.hands[s]) - Counter(after.hands[s]), (state, play)
            assert goes_out == (not after.hands[s])
            exchanges += play.released > 0
    assert exchanges > 20
