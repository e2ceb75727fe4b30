"""The vector env against the AEC env: the same seeded games, step for step (the
differential test of the compiled rules), and its own API: shapes, resets, errors."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from carousel_env.core import compiled as _cache
from carousel_env.core.cards import parse_hand, parse_table
from carousel_env.core.errors import IllegalAction
from carousel_env.games.carousel.engine.game import new_game
from carousel_env.games.carousel.engine.scoring import RoundEnd
from carousel_env.games.carousel.envs.aec import decision, raw_env
from carousel_env.games.carousel.envs.config import EnvConfigError
from carousel_env.games.carousel.envs.observation import encode, upper_bounds
from carousel_env.games.carousel.vector import WAIT, CarouselVectorEnv, kernel


def _uniform(rng: np.random.Generator, mask: np.ndarray) -> int:
    return int(rng.choice(np.flatnonzero(mask)))


def _drawer(rng: np.random.Generator, mask: np.ndarray) -> int:
    """Mostly draws and ends turns, so that stocks run out and final turns are played (where
    it plays, knocks or ends at random): the paths uniform play seldom reaches."""
    legal = np.flatnonzero(mask)
    final_turn_ish = not mask[0] and mask[2]  # no drawing: after a play, the third card, or a final turn
    if mask[0] and rng.random() < 0.9:
        return 0
    if final_turn_ish and rng.random() < 0.5:
        return 2
    return int(rng.choice(legal))


def _play_both(num_envs: int, steps: int, seed: int, choose=_uniform, short_stock=None, **config) -> dict:
    """Step ``num_envs`` vector games and as many AEC envs with the same legal actions
    (``choose(rng, mask)``), asserting that everything agrees at every step. Returns counts.
    ``short_stock``: each game's stock is cut to that many cards first (white box: written
    into both envs), so that it runs out within a few turns."""
    venv = CarouselVectorEnv(num_envs, **config)
    aecs = [raw_env(**config) for _ in range(num_envs)]
    for i, env in enumerate(aecs):
        env.reset(seed=seed + i)
    step = venv.reset(seed=seed)
    if short_stock is not None:
        for i, env in enumerate(aecs):
            state = replace(env.game_state, stock=env.game_state.stock[-short_stock:])
            env._state = state  # the AEC env takes its decision from here, as after a step
            env._settle()
            env._publish_infos()
            env.agent_selection = env.possible_agents[env.game_state.current]
            venv.arrays.write(i, state, None)
        rewards, info = np.zeros((num_envs, venv.num_players)), venv._blank_info()
        step = venv._result(rewards, venv._run(np.full(num_envs, kernel.DEALT), rewards, info), info)
    rng = np.random.default_rng(seed)
    seen = {"episodes": 0, "rounds": 0, "plays": 0, "auto": 0, "stock_out": 0, "final_turns": 0}
    for _ in range(steps):
        for i, env in enumerate(aecs):
            agent = env.agent_selection
            assert step.to_play[i] == env.possible_agents.index(agent)
            obs = env.observe(agent)
            np.testing.assert_array_equal(step.action_mask[i], obs["action_mask"])
            np.testing.assert_array_equal(step.observation[i], obs["observation"])
            assert venv.game_state(i) == env.game_state
        actions = np.array([choose(rng, m) for m in step.action_mask])
        step = venv.step(actions)
        for i, env in enumerate(aecs):
            seen["final_turns"] += env.game_state.final_turns_left is not None
            env.step(int(actions[i]))
            rewards = [env.rewards[a] for a in env.possible_agents]
            np.testing.assert_array_equal(step.rewards[i], rewards)
            info = env.infos[env.possible_agents[0]]
            assert step.info.num_auto_actions[i] == info["num_auto_actions"]
            assert step.info.rounds_ended[i] == info["rounds_ended"]
            np.testing.assert_array_equal(step.info.round_points[i], info["round_points"])
            assert step.info.game_over[i] == info["game_over"]
            done = all(env.terminations.values())
            assert step.terminated[i] == done
            seen["rounds"] += info["rounds_ended"]
            seen["stock_out"] += sum(r.end is RoundEnd.STOCK_EXHAUSTED for r in env.round_results)
            seen["auto"] += info["num_auto_actions"]
            seen["plays"] += actions[i] >= 3
            if done:
                finished = next(f for f in step.info.finished if f.env == i)
                assert finished.rounds == env.game_state.round_scores
                assert finished.result == env.game_state.game_result
                for seat, agent in enumerate(env.possible_agents):  # every seat's final view
                    np.testing.assert_array_equal(finished.observations[seat], env.observe(agent)["observation"])
                seen["episodes"] += 1
                env.reset()
    return seen


@pytest.mark.parametrize(
    ("config", "steps"),
    [
        ({"num_players": 2}, 1500),
        ({"num_players": 3, "round_bonus": "everyone"}, 700),
        ({"num_players": 5, "k_suggestions": 3}, 500),
        ({"num_players": 4, "episode": "round", "reward": "game_result"}, 500),
        ({"num_players": 2, "reward": "game_result", "reward_scale": 2.0}, 800),
        ({"variant": "manipulation_rummy", "num_players": 3}, 600),
        ({"variant": "manipulation_rummy", "num_players": 5, "episode": "round"}, 400),
    ],
)
def test_same_games_as_the_aec_env(config, steps):
    seen = _play_both(4, steps, seed=11, **config)
    # The run covers what it should: plays, forced actions, round ends, whole episodes.
    assert seen["plays"] > 0 and seen["auto"] > 0 and seen["rounds"] > 0 and seen["episodes"] > 0


@pytest.mark.parametrize(
    "config",
    [
        {"num_players": 2},
        {"num_players": 3, "episode": "round"},
        {"num_players": 5, "k_suggestions": 1},
    ],
)
def test_same_games_when_stocks_run_out(config):
    # Drawing players exhaust the stock: final turns, knocks and plays in them, stock-out ends.
    seen = _play_both(3, 500, seed=2, choose=_drawer, **config)
    assert seen["stock_out"] > 0 and seen["final_turns"] > 20 and seen["episodes"] > 0


def _fewest_cards(rng: np.random.Generator, mask: np.ndarray) -> int:
    """Ends the turn when it may, else makes the last suggestion (the smallest): hands stay
    large, so that Manipulation Rummy's players run the stock out and then pass."""
    return 2 if mask[2] else int(np.flatnonzero(mask)[-1])


@pytest.mark.parametrize("players", [3, 5])
def test_manipulation_rummy_passes_when_the_stock_is_out(players):
    # A stock of 4 cards: forced draws empty it, then a player who cannot play passes.
    seen = _play_both(
        3, 120, seed=5, choose=_fewest_cards, short_stock=4, variant="manipulation_rummy", num_players=players
    )
    assert seen["final_turns"] > 0 and seen["auto"] > 0


def test_batched_shapes_and_dtypes():
    venv = CarouselVectorEnv(3, num_players=3, k_suggestions=5)
    step = venv.reset(seed=0)
    assert step.observation.shape == (3, venv.observation_layout.size) and step.observation.dtype == np.float32
    assert step.action_mask.shape == (3, 8) and step.action_mask.dtype == np.int8
    assert step.rewards.shape == (3, 3) and step.terminated.shape == (3,)
    assert list(step.info.seeds) == [0, 1, 2]
    assert all(step.action_mask[i, :].any() for i in range(3))


def test_seeded_resets_replay():
    a, b = CarouselVectorEnv(2), CarouselVectorEnv(2)
    sa, sb = a.reset(seed=5), b.reset(seed=[5, 6])
    np.testing.assert_array_equal(sa.observation, sb.observation)
    rng = np.random.default_rng(0)
    for _ in range(50):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in sa.action_mask])
        sa, sb = a.step(actions), b.step(actions)
        np.testing.assert_array_equal(sa.observation, sb.observation)
        np.testing.assert_array_equal(sa.rewards, sb.rewards)


def test_illegal_action_names_the_game_and_moves_nothing():
    venv = CarouselVectorEnv(2)
    step = venv.reset(seed=3)
    before = [venv.game_state(i) for i in range(2)]
    illegal = int(np.flatnonzero(step.action_mask[1] == 0)[0])
    legal = int(np.flatnonzero(step.action_mask[0])[0])
    with pytest.raises(IllegalAction, match=r"game 1: action .* is not legal now; legal: "):
        venv.step(np.array([legal, illegal]))
    with pytest.raises(IllegalAction, match=r"out of 0\.\.10"):
        venv.step(np.array([legal, 99]))
    with pytest.raises(IllegalAction, match="2 ints"):
        venv.step(np.array([legal]))
    assert [venv.game_state(i) for i in range(2)] == before


def test_step_before_reset_and_bad_config():
    with pytest.raises(IllegalAction, match="reset"):
        CarouselVectorEnv(1).step(np.array([0]))
    with pytest.raises(EnvConfigError, match="num_envs"):
        CarouselVectorEnv(0)
    with pytest.raises(EnvConfigError, match="num_players"):
        CarouselVectorEnv(1, variant="manipulation_rummy", num_players=2)
    with pytest.raises(EnvConfigError, match="k_suggestions"):
        CarouselVectorEnv(1, k_suggestions=0)
    with pytest.raises(ValueError, match="seeds for 2 games"):
        CarouselVectorEnv(2).reset(seed=[1])


def test_compile_ahead_starts_no_process_for_a_bad_config(monkeypatch):
    started = []
    monkeypatch.setattr(_cache, "compile_in_child", started.append)
    with pytest.raises(EnvConfigError, match="num_players"):
        CarouselVectorEnv.compile_ahead(num_players=9)
    assert started == []


def test_wait_leaves_a_row_as_it_is():
    venv = CarouselVectorEnv(2, num_players=3)
    step = venv.reset(seed=8)
    before = venv.game_state(1)
    first = int(np.flatnonzero(step.action_mask[0])[0])
    after = venv.step(np.array([first, WAIT]))
    assert venv.game_state(1) == before
    np.testing.assert_array_equal(after.observation[1], step.observation[1])
    assert not after.rewards[1].any() and after.info.num_auto_actions[1] == 0


def test_without_autoreset_a_finished_row_waits_for_reset_rows():
    venv = CarouselVectorEnv(2, autoreset=False, episode="round")
    aec = raw_env(episode="round")
    aec.reset(seed=4)
    step = venv.reset(seed=4)
    rng = np.random.default_rng(1)
    while not step.terminated[0]:
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else WAIT for m in step.action_mask])
        step = venv.step(actions)
        aec.step(int(actions[0]))
    assert not step.action_mask[0].any() and step.info.finished[0].env == 0
    assert venv.game_state(0) == aec.game_state  # the row holds the final state: totals, phase
    np.testing.assert_array_equal(step.observation[0], aec.observe(aec.agent_selection)["observation"])
    with pytest.raises(IllegalAction, match=r"game 0: .*legal: none"):
        venv.step(np.array([0, WAIT]))
    fresh = venv.reset_rows([0], [123])
    assert fresh.action_mask[0].any() and fresh.info.seeds[0] == 123
    one = CarouselVectorEnv(1).reset(seed=123)
    np.testing.assert_array_equal(fresh.observation[0], one.observation[0])
    with pytest.raises(ValueError, match="rows must be distinct"):
        venv.reset_rows([0, 0], [1, 2])


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**31 - 1),
    players=st.integers(2, 5),
    reward=st.sampled_from(["round_score", "game_result"]),
)
def test_every_step_keeps_the_cards_and_pays_zero_sum(seed, players, reward):
    venv = CarouselVectorEnv(3, num_players=players, reward=reward)
    a = venv.arrays
    high = upper_bounds(venv.k)
    step = venv.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(60):
        cards = a.hand_len.sum(axis=1) + a.n_units + a.stock_len
        assert (cards == venv.rules.deck_size).all()  # every card is in a hand, on the table or in the stock
        assert step.action_mask.any(axis=1).all()  # autoreset: every row has a decision
        assert ((step.to_play >= 0) & (step.to_play < players)).all()
        assert (step.observation >= 0).all() and (step.observation <= high).all()
        np.testing.assert_allclose(step.rewards.sum(axis=1), 0.0, atol=1e-9)
        step = venv.step(np.argmax(rng.random(step.action_mask.shape) * step.action_mask, axis=1))


def test_bad_seeds_and_rows_change_nothing():
    venv = CarouselVectorEnv(2)
    venv.reset(seed=1)
    before = [venv.game_state(i) for i in range(2)]
    for call, match in [
        (lambda: venv.reset_rows([0, 1], [5, 2**64]), "seed must be an int"),
        (lambda: venv.reset_rows([True], [5]), "a row must be an int"),
        (lambda: venv.reset_rows([0], [1.5]), "seed must be an int"),
        (lambda: venv.reset(seed=2**63 - 1), "seed must be an int"),
        (lambda: venv.reset(seed=[1.9, 2.5]), "seed must be an int"),
        (lambda: venv.reset_rows([2], [5]), r"row must be an int in 0\.\.1"),
    ]:
        with pytest.raises(ValueError, match=match):
            call()
        assert [venv.game_state(i) for i in range(2)] == before
    assert venv.reset(seed=np.int64(3)).info.seeds.tolist() == [3, 4]


def test_reset_rows_before_reset_deals_only_those_rows():
    venv = CarouselVectorEnv(3, autoreset=False)
    step = venv.reset_rows([1], [9])
    assert step.action_mask[1].any() and not step.action_mask[0].any() and not step.action_mask[2].any()
    np.testing.assert_array_equal(step.observation[1], CarouselVectorEnv(1).reset(seed=9).observation[0])


def test_the_compiled_encoder_counts_repeated_melds_like_the_engines():
    # A position uniform play seldom builds: two equal melds, one of them extended. It is
    # written into the arrays directly (white box) and observed through both encoders.
    venv = CarouselVectorEnv(1, num_players=3)
    venv.reset(seed=1)
    state = replace(
        new_game(venv.rules, 1),
        hands=(parse_hand("6C KD"), parse_hand("2D 3D"), parse_hand("KS")),
        table=parse_table("3C 4C 5C | 3C 4C 5C"),
        current=0,
    )
    venv.arrays.write(0, state, None)
    rewards, info = np.zeros((1, 3)), venv._blank_info()
    terminated = venv._run(np.array([kernel.DEALT]), rewards, info)  # solve the row's decision
    step = venv._result(rewards, terminated, info)
    mask, suggestions = decision(state, venv.k)
    np.testing.assert_array_equal(step.action_mask[0], mask)
    np.testing.assert_array_equal(step.observation[0], encode(state, 0, suggestions, venv.observation_layout))
