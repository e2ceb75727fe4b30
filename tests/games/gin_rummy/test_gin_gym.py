"""Gin Rummy's Gymnasium forms: row ``i`` of ``GinGymVectorEnv`` reset with seed ``s`` plays
what ``GinSingleAgentEnv(...).reset(seed=s + i)`` and its later resets play, step for step,
in single hands and in matches; their options' errors; illegal actions; the opponents'
knocks; Gymnasium's checker and registration."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium import spaces
from gymnasium.utils.env_checker import check_env
from gymnasium.vector import AutoresetMode, VectorEnv

from carousel_env.core.errors import CarouselError, IllegalAction
from carousel_env.games.gin_rummy import engine as ge
from carousel_env.games.gin_rummy.config import GinEnvConfigError
from carousel_env.games.gin_rummy.env import INFO_KEYS, GinAction, raw_env
from carousel_env.games.gin_rummy.gym import GinGymVectorEnv, GinSingleAgentEnv
from carousel_env.games.gin_rummy.policies import move_action
from tests.support.gym_forms import play_both


def _knock_often(rng: np.random.Generator, mask: np.ndarray) -> int:
    """A random legal action, a knock half the time one is legal (hands end sooner)."""
    legal = np.flatnonzero(mask)
    knocks = legal[legal >= GinAction.FIRST_KNOCK]
    if len(knocks) and rng.random() < 0.5:
        return int(rng.choice(knocks))
    return int(rng.choice(legal))


def _first_legal_rows(venv: GinGymVectorEnv) -> np.ndarray:
    return np.array([np.flatnonzero(m)[0] if m.any() else 0 for m in venv.action_masks()])


def _an_illegal_action(mask: np.ndarray) -> int:
    return int(np.flatnonzero(~mask)[0])


# Random against random rarely knocks (most hands die at the stock's end): the hands face greedy.
HANDS = [
    {"opponents": "greedy", "learner_seat": "random", "preset": "openspiel"},
    {"opponents": "greedy", "learner_seat": 0, "episode": "hand", "reward": "result"},
    {"opponents": ["greedy"], "learner_seat": 1, "preset": "eaai", "episode": "hand", "k_knocks": 2},
]
MATCHES = [  # short matches: several hands dealt inside an episode
    ({"opponents": "greedy", "learner_seat": "random", "target": 50}, [7, 8], 200),
    (
        {"opponents": "random", "learner_seat": 0, "preset": "eaai", "target": 25, "reward": "result"},
        [7, 8, 9, 10],
        400,
    ),
]


@pytest.mark.parametrize("options", HANDS, ids=lambda o: "-".join(f"{k}={v}" for k, v in o.items()))
def test_rows_play_the_single_agent_env_hand_episodes(options):
    seen = play_both(GinGymVectorEnv, GinSingleAgentEnv, [3, 4, 5], 150, choose=_knock_often, **options)
    # Several hands ended (so several NEXT_STEP resets), one a hand each, and some paid.
    assert seen["episodes"] >= 6 and seen["resets"] >= 5 and seen["infos"]["hands_ended"] == seen["episodes"]
    assert seen["rewards"] >= 1 and seen["infos"]["hand_points"] > 0
    assert seen["seats"] == ({0, 1} if options["learner_seat"] == "random" else {options["learner_seat"]})


@pytest.mark.parametrize(("options", "seeds", "steps"), MATCHES, ids=["book-greedy", "eaai-random-result"])
def test_rows_play_the_single_agent_env_match_episodes(options, seeds, steps):
    seen = play_both(GinGymVectorEnv, GinSingleAgentEnv, seeds, steps, choose=_knock_often, **options)
    # Matches ended, and more hands than matches: hands were dealt inside episodes.
    assert seen["episodes"] >= 5 and seen["infos"]["game_over"] == seen["episodes"]
    assert seen["infos"]["hands_ended"] >= seen["episodes"] + 5 and seen["rewards"] >= 5


def test_callable_opponent_decides_its_own_seat_in_both_forms():
    calls = []

    def last_legal(observation, mask):
        calls.append((observation.copy(), mask.copy()))
        return int(np.flatnonzero(mask)[-1])

    seen = play_both(GinGymVectorEnv, GinSingleAgentEnv, [1, 2], 60, opponents=last_legal, preset="openspiel")
    assert seen["episodes"] >= 1 and calls
    start, _ = GinGymVectorEnv(1).venv.observation_layout.offsets["scalars"]
    for observation, mask in calls:
        assert mask.sum() >= 2  # the env takes forced decisions itself
        assert observation[start] == 1.0  # the "to_play" scalar: its own observation, to play


def test_spaces_and_infos():
    venv = GinGymVectorEnv(3, opponents="greedy", k_knocks=5)
    single = GinSingleAgentEnv(opponents="greedy", k_knocks=5)
    assert isinstance(venv, VectorEnv) and venv.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP
    assert venv.single_observation_space == single.observation_space
    assert venv.single_action_space == single.action_space == spaces.Discrete(55 + 5)
    assert venv.action_space == spaces.MultiDiscrete([60, 60, 60])
    obs, infos = venv.reset(seed=0)
    assert obs.shape == (3, single.observation_space.shape[0]) and venv.observation_space.contains(obs)
    masks = venv.action_masks()
    assert masks.shape == (3, 60) and masks.dtype == np.bool_ and masks.any(axis=1).all()
    assert np.array_equal(infos["action_mask"] > 0, masks) and infos["hand_points"].shape == (3, 2)
    keys = {*INFO_KEYS, "action_mask", "learner_seat"}
    assert set(infos) == keys | {f"_{key}" for key in keys}
    assert venv.np_random_seed == (0, 1, 2)


def test_illegal_action_ends_the_row_with_the_illegal_reward():
    venv = GinGymVectorEnv(3, preset="openspiel")
    single = GinSingleAgentEnv(preset="openspiel")  # row 1's twin
    obs, _ = venv.reset(seed=5)
    np.testing.assert_array_equal(obs[1], single.reset(seed=6)[0])
    actions = _first_legal_rows(venv)
    actions[1] = _an_illegal_action(venv.action_masks()[1])
    after, rewards, terminated, _, infos = venv.step(actions)
    single_obs, single_reward, single_done, _, single_info = single.step(int(actions[1]))
    assert rewards[1] == single_reward == -1.0 and terminated[1] and single_done and not terminated[[0, 2]].any()
    np.testing.assert_array_equal(after[1], single_obs)
    assert infos["illegal_action"][1] == single_info["illegal_action"] == actions[1]
    assert infos["_illegal_action"].tolist() == [False, True, False] and not venv.action_masks()[1].any()


def test_illegal_action_without_illegal_reward_raises_naming_the_row_and_moves_nothing():
    strict = GinGymVectorEnv(3, preset="openspiel", illegal_reward=None, opponents="random")
    strict.reset(seed=1)
    for _ in range(5):  # into the hands, past the first upcard
        strict.step(_first_legal_rows(strict))
    masks = strict.action_masks()
    before = [strict.venv.game_state(i) for i in range(3)]
    actions = _first_legal_rows(strict)
    actions[2] = _an_illegal_action(masks[2])
    with pytest.raises(IllegalAction, match=r"row 2: action \d+ \(.+\) is not legal now; legal: "):
        strict.step(actions)
    with pytest.raises(IllegalAction, match=r"row 0: action must be an int in 0..62, got 63"):
        strict.step(np.array([63, *actions[1:]]))
    assert [strict.venv.game_state(i) for i in range(3)] == before
    np.testing.assert_array_equal(strict.action_masks(), masks)
    strict.step(_first_legal_rows(strict))  # a legal step goes on from there
    assert [strict.venv.game_state(i) for i in range(3)] != before

    single = GinSingleAgentEnv(preset="openspiel", illegal_reward=None)
    single.reset(seed=1)
    state, mask = single.aec.game_state, single.action_masks()
    with pytest.raises(IllegalAction, match="is not legal now"):
        single.step(_an_illegal_action(mask))
    assert single.aec.game_state == state and np.array_equal(single.action_masks(), mask)


@pytest.mark.parametrize("form", [GinSingleAgentEnv, lambda **o: GinGymVectorEnv(2, **o)], ids=["single", "vector"])
def test_bad_options_are_named(form):
    with pytest.raises(ValueError, match=r"learner_seat must be 'random' or a seat 0\.\.1, got 2"):
        form(learner_seat=2)
    with pytest.raises(ValueError, match="learner_seat"):
        form(learner_seat="first")
    with pytest.raises(ValueError, match="opponents: expected 1 policies for 2 players, got 2"):
        form(opponents=["random", "greedy"])
    unknown = "unknown Gin Rummy player 'smart' \\(players: random, greedy, simple, expert, search, search@N\\)"
    with pytest.raises(CarouselError, match=unknown):
        form(opponents="smart")
    with pytest.raises(TypeError, match="a Gin Rummy policy is"):
        form(opponents=42)
    with pytest.raises(GinEnvConfigError, match="k_knocks"):
        form(k_knocks=0)
    with pytest.raises(GinEnvConfigError, match="num_players"):
        form(num_players=3)


def test_a_scripted_knock_plays_its_offered_slot_or_the_first():
    # Seeds are searched for a knock decision with more arrangements than the 2 slots offered.
    env = raw_env(preset="openspiel", k_knocks=2)
    rng = np.random.default_rng(0)
    for seed in range(200):
        env.reset(seed=seed)
        while not all(env.terminations.values()):
            options = ge.knock_options(env.game_state) if env.knocks else []
            if len(options) > 2:
                offered = [arrangement for arrangement, _ in env.knocks]
                unoffered = next(a for a in options if a not in offered)
                knock = ge.MoveKind.KNOCK
                assert move_action(ge.Move(knock, arrangement=offered[1]), env.knocks) == GinAction.FIRST_KNOCK + 1
                assert move_action(ge.Move(knock, arrangement=unoffered), env.knocks) == GinAction.FIRST_KNOCK
                assert move_action(ge.DRAW_STOCK, env.knocks) == GinAction.DRAW_STOCK
                card = next(iter(ge.legal_discards(env.game_state)))
                assert move_action(ge.Move(ge.MoveKind.DISCARD, card), ()) == GinAction.FIRST_DISCARD + card
                return
            env.step(int(rng.choice(np.flatnonzero(env.action_mask))))
    pytest.fail("no knock decision with more than 2 arrangements in 200 games")


def test_gymnasium_check_env():
    check_env(GinSingleAgentEnv(opponents="greedy", episode="hand"), skip_render_check=True)


def test_gymnasium_make_and_make_vec():
    env = gymnasium.make("GinRummy-v0", opponents="greedy", episode="hand")
    assert isinstance(env.unwrapped, GinSingleAgentEnv)
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs) and info["action_mask"].any()
    env.close()
    envs = gymnasium.make_vec("GinRummy-v0", num_envs=4, vectorization_mode="vector_entry_point", preset="openspiel")
    assert isinstance(envs.unwrapped, GinGymVectorEnv) and envs.num_envs == 4
    obs, _ = envs.reset(seed=0)
    assert obs.shape == (4, envs.single_observation_space.shape[0])
    _, rewards, terminated, _, _ = envs.step(_first_legal_rows(envs.unwrapped))
    assert rewards.shape == terminated.shape == (4,)
    envs.close()
