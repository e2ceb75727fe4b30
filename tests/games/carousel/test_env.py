"""The PettingZoo AEC environment: API conformance, configuration, rewards, illegal
actions, automatic single actions, determinism."""

from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

import carousel_env
from carousel_env.core.errors import IllegalAction
from carousel_env.games.carousel.agents.baselines import greedy
from carousel_env.games.carousel.engine.game import Phase
from carousel_env.games.carousel.envs.aec import DRAW_AGAIN, END_TURN, FIRST_SUGGESTION, INFO_KEYS, KNOCK, raw_env
from carousel_env.games.carousel.envs.config import EnvConfigError

# Short episodes keep the API tests quick; the game-length episode has its own tests.
PLAYERS = [2, 3, 4, 5]


@pytest.mark.parametrize("n", PLAYERS)
def test_api_wrapped(n):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Dict observation spaces draw advisory warnings
        api_test(carousel_env.env(num_players=n, episode="round"), num_cycles=25)


def test_api_raw_and_game_episode():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(raw_env(num_players=2), num_cycles=40)


@pytest.mark.parametrize("n", [2, 5])
def test_seed(n):
    seed_test(lambda: carousel_env.env(num_players=n, episode="round"), num_cycles=20)


@pytest.mark.parametrize("n", [2, 4])
def test_render_modes(n):
    def is_picture(image):
        return image.shape[0] > 100 and image.shape[1] > 100

    render_test(
        lambda render_mode=None: carousel_env.env(num_players=n, render_mode=render_mode),
        custom_tests={"ansi": lambda text: "Table" in text, "rgb_array": is_picture},
    )


def test_human_render_prints(capsys):
    e = carousel_env.env(render_mode="human")
    e.reset(seed=1)
    e.render()
    assert "Table" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("config", "key"),
    [
        ({"num_players": 6}, "num_players"),
        ({"num_players": "2"}, "num_players"),
        ({"variant": "gin"}, "variant"),
        ({"round_bonus": "nobody"}, "round_bonus"),
        ({"k_suggestions": 0}, "k_suggestions"),
        ({"episode": "match"}, "episode"),
        ({"reward": "win"}, "reward"),
        ({"reward_scale": -1.0}, "reward_scale"),
        ({"render_mode": "rgb"}, "render_mode"),
        ({"render_observer": 3}, "render_observer"),
        ({"colour": "red"}, "colour"),
        ({"variant": "manipulation_rummy", "num_players": 2}, "variant"),
    ],
)
def test_bad_config_names_the_key(config, key):
    with pytest.raises(EnvConfigError) as info:
        raw_env(**config)
    assert info.value.key == key
    assert repr(key) in str(info.value)


def test_spaces_are_stable_and_shared():
    e = raw_env(num_players=3, k_suggestions=5)
    assert len({id(e.observation_space(a)) for a in e.possible_agents}) == 1
    assert e.observation_space("player_0") is e.observation_space("player_0")
    assert e.action_space("player_1").n == 3 + 5
    lay = e.observation_layout
    assert (lay.global_size, lay.slot_features, lay.num_slots) == (265, 68, 5)
    assert lay.slots_start == 265 and lay.size == 265 + 5 * 68
    assert e.observation_space("player_0")["observation"].shape == (lay.size,)


def test_observations_fit_the_space_for_every_agent():
    e = raw_env(num_players=3)
    e.reset(seed=5)
    space = e.observation_space("player_0")
    for _ in range(30):
        for agent in e.agents:
            obs = e.observe(agent)
            assert space.contains(obs)
            if agent != e.agent_selection:
                assert not obs["action_mask"].any()
        mask = e.observe(e.agent_selection)["action_mask"]
        e.step(int(np.flatnonzero(mask)[-1]))
        if e.terminations[e.agent_selection]:
            break


def test_suggestion_slots_match_the_mask():
    e = raw_env(num_players=2)
    e.reset(seed=11)
    lay = e.observation_layout
    seen_play = False
    for _ in range(60):
        obs = e.observe(e.agent_selection)
        slots = lay.slots(obs["observation"])
        valid = slots[:, lay.slot_fields["valid"].start]
        assert np.array_equal(valid > 0, obs["action_mask"][FIRST_SUGGESTION:] > 0)
        for k, sug in enumerate(e.suggestions):
            seen_play = True
            assert slots[k, lay.slot_fields["cards"]].sum() == sug.cards
            assert slots[k, lay.slot_fields["points"].start] * 100 == pytest.approx(sug.points)
        e.step(greedy(obs["observation"], obs["action_mask"]))
        if e.terminations[e.agent_selection]:
            break
    assert seen_play


def test_raw_env_raises_on_illegal_action():
    e = raw_env(num_players=2)
    e.reset(seed=3)
    mask = e.observe(e.agent_selection)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    state = e.game_state
    with pytest.raises(IllegalAction, match="not legal"):
        e.step(illegal)
    with pytest.raises(IllegalAction, match="must be an int"):
        e.step(99)
    assert e.game_state is state  # nothing changed


def test_wrapped_env_terminates_on_illegal_action():
    e = carousel_env.env(num_players=3)
    e.reset(seed=3)
    agent = e.agent_selection
    mask = e.last()[0]["action_mask"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e.step(int(np.flatnonzero(mask == 0)[0]))
    assert all(e.terminations.values())
    assert e.rewards[agent] == -1
    assert sum(e.rewards.values()) == -1


@pytest.mark.parametrize("action", [99, -1, np.int64(99), 2.0, "2"])
def test_wrapped_env_asserts_actions_outside_the_space(action):
    e = carousel_env.env(num_players=2)
    e.reset(seed=1)
    state = e.unwrapped.game_state
    with pytest.raises(AssertionError, match="not in action space"):
        e.step(action)
    assert e.unwrapped.game_state is state


def test_wrapped_env_accepts_numpy_integer_actions():
    e = carousel_env.env(num_players=2)
    e.reset(seed=1)
    action = np.int64(np.flatnonzero(e.last()[0]["action_mask"])[0])
    before = e.unwrapped.game_state
    e.step(action)  # not a plain int: checked by gymnasium's Discrete.contains, as before
    assert e.unwrapped.game_state is not before


def test_single_legal_actions_are_taken_and_reported():
    """Drawing three times without a play leaves only END_TURN (when the hand cannot
    knock): the env takes it and reports it; every reported action was the only legal one."""
    e = raw_env(num_players=2)
    reported = 0
    for seed in range(10):
        e.reset(seed=seed)
        for _ in range(40):
            agent = e.agent_selection
            if e.terminations[agent]:
                break
            mask = e.observe(agent)["action_mask"]
            action = DRAW_AGAIN if mask[DRAW_AGAIN] else int(np.flatnonzero(mask)[0])
            e.step(action)
            auto = e.auto_actions
            for who, act, name in auto:
                assert who in e.possible_agents and isinstance(act, int) and isinstance(name, str)
            reported += len(auto)
            # Every agent's info counts what the env did on its own.
            assert all(info["num_auto_actions"] == len(auto) for info in e.infos.values())
        if reported:
            break
    assert reported > 0
    # A decision handed to an agent always has at least two legal actions.
    assert e.terminations[e.agent_selection] or e.observe(e.agent_selection)["action_mask"].sum() >= 2


def play_game(e, seed, policy=greedy):
    e.reset(seed=seed)
    trace, returns = [], dict.fromkeys(e.possible_agents, 0.0)
    for agent in e.agent_iter():
        obs, reward, term, trunc, _ = e.last()
        returns[agent] += reward
        if term or trunc:
            e.step(None)
            continue
        action = policy(obs["observation"], obs["action_mask"])
        trace.append((agent, action, e.unwrapped.auto_actions))
        e.step(action)
    return trace, returns


@pytest.mark.parametrize("variant,n", [("carousel", 2), ("manipulation_rummy", 3)])
def test_infos_have_fixed_numeric_keys_at_every_step(variant, n):
    """Generic wrappers batch infos: the same keys, numbers and shapes from reset to the end."""
    e = carousel_env.env(num_players=n, variant=variant)
    e.reset(seed=3)
    rows = []
    for _agent in e.agent_iter():
        obs, _, term, trunc, info = e.last()
        assert tuple(info) == INFO_KEYS
        assert all(np.isscalar(info[k]) for k in INFO_KEYS if k != "round_points")
        assert info["round_points"].shape == (n,) and info["round_points"].dtype == np.int64
        rows.append(
            np.concatenate([[info["num_auto_actions"], info["rounds_ended"], info["game_over"]], info["round_points"]])
        )
        e.step(None if term or trunc else greedy(obs["observation"], obs["action_mask"]))
    batch = np.stack(rows)  # what a vector env or replay buffer does with them
    assert batch.shape == (len(rows), 3 + n) and batch[:, 0].sum() > 0 and batch[:, 2].any()


def test_whole_games_are_deterministic_and_zero_sum():
    e1, e2 = carousel_env.env(num_players=2), carousel_env.env(num_players=2)
    trace1, returns1 = play_game(e1, seed=21)
    trace2, returns2 = play_game(e2, seed=21)
    assert trace1 == trace2 and returns1 == returns2
    assert sum(returns1.values()) == pytest.approx(0.0, abs=1e-9)
    # round_score rewards add up to scale * (own final total - mean of the others').
    result = e1.unwrapped.game_state.game_result
    totals = result.totals
    for seat, agent in enumerate(e1.possible_agents):
        assert returns1[agent] == pytest.approx(0.01 * (totals[seat] - totals[1 - seat]))
    assert e1.unwrapped.game_state.phase is Phase.GAME_OVER


def test_round_episode_and_game_result_reward():
    e = raw_env(num_players=3, episode="round", reward="game_result")
    _trace, returns = play_game(e, seed=4)
    state = e.game_state
    assert state.round_index == 0 and state.phase in (Phase.ROUND_OVER, Phase.GAME_OVER)
    points = state.last_round.points
    best = max(points)
    for seat, agent in enumerate(e.possible_agents):
        if points[seat] == best and points.count(best) == 1:
            assert returns[agent] == pytest.approx(1.0)
    assert sum(returns.values()) == pytest.approx(0.0, abs=1e-9)


def test_round_result_info_and_round_rewards():
    e = raw_env(num_players=2, episode="round", reward_scale=0.5)
    e.reset(seed=8)
    while not e.terminations[e.agent_selection]:
        obs = e.observe(e.agent_selection)
        e.step(greedy(obs["observation"], obs["action_mask"]))
    (result,) = e.round_results
    p = result.points
    assert e.infos["player_0"]["round_points"].tolist() == list(p)
    assert e.infos["player_0"]["rounds_ended"] == 1
    assert e._cumulative_rewards["player_0"] + e._cumulative_rewards["player_1"] == pytest.approx(0)
    assert result.end.value in ("knock", "going_out", "stock_exhausted")
    assert e.rewards["player_0"] == pytest.approx(0.5 * (p[0] - p[1]))


@pytest.mark.xdist_group("cores")
def test_a_plain_import_registers_every_game_with_pettingzoo_and_gymnasium():
    # A fresh interpreter: nothing but ``import carousel_env`` before ``pettingzoo.make``.
    code = (
        "import carousel_env, pettingzoo\n"
        "e = pettingzoo.make('aec', 'carousel/carousel_v0', num_players=3)\n"
        "e.reset(seed=0)\n"
        "assert e.unwrapped.config.num_players == 3\n"
        "g = pettingzoo.make('aec', 'carousel/gin_rummy_v0', preset='openspiel')\n"
        "g.reset(seed=0)\n"
        "assert g.unwrapped.config.preset == 'openspiel'\n"
        "import gymnasium\n"
        "single = gymnasium.make('GinRummy-v0', opponents='greedy')\n"
        "assert single.reset(seed=0)[0].shape == single.observation_space.shape\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.xdist_group("cores")
def test_importing_the_package_stays_light():
    # The PettingZoo registration names each env by path: no game, numba or torch is loaded.
    code = (
        "import sys, carousel_env\n"
        "heavy = [m for m in sys.modules if m in ('torch', 'numba') or m.startswith('carousel_env.games')]\n"
        "assert not heavy, heavy\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_knock_and_end_turn_constants():
    assert (DRAW_AGAIN, KNOCK, END_TURN, FIRST_SUGGESTION) == (0, 1, 2, 3)


def test_the_families_reward_names_are_read_as_carousels():
    assert carousel_env.raw_env(reward="score").config.reward == "round_score"
    assert carousel_env.raw_env(reward="result").config.reward == "game_result"
