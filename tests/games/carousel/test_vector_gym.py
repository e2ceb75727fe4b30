"""The single-agent vector env against the single-agent env: row ``i`` of a vector env reset
with seed ``s`` plays what ``CarouselSingleAgentEnv(...).reset(seed=s + i)`` and its later
resets play, step for step; and its own API: spaces, infos, illegal actions, options,
callable and view-policy opponents."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv

from carousel_env.core.errors import IllegalAction
from carousel_env.games.carousel.agents.registry import UnknownPolicyError
from carousel_env.games.carousel.agents.search import SearchPlayer
from carousel_env.games.carousel.envs.aec import INFO_KEYS
from carousel_env.games.carousel.envs.config import EnvConfigError
from carousel_env.games.carousel.gym import CarouselSingleAgentEnv
from carousel_env.games.carousel.vector.gym import CarouselGymVectorEnv
from tests.support.examples import load_example
from tests.support.gym_forms import play_both, random_legal
from tests.support.view_policies import SeatRecorder


def _legal_actions(venv: CarouselGymVectorEnv, last: bool = False) -> np.ndarray:
    """Each row's first (or last) legal action; 0 in a row that just ended (it is ignored)."""
    return np.array([np.flatnonzero(m)[-1 if last else 0] if m.any() else 0 for m in venv.action_masks()])


def _first_legal(rng: np.random.Generator, mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


def _play_both(seeds: list[int], steps: int, choose=random_legal, **options) -> dict:
    """Carousel's two forms stepped side by side, everything compared at every step
    (``tests/support/gym_forms.play_both``)."""
    seen = play_both(CarouselGymVectorEnv, CarouselSingleAgentEnv, seeds, steps, choose, **options)
    seen["auto"], seen["rounds"] = seen["infos"]["num_auto_actions"], seen["infos"]["rounds_ended"]
    return seen


@pytest.mark.parametrize("num_players", [2, 3])
@pytest.mark.parametrize("learner_seat", [0, "random"])
@pytest.mark.parametrize("opponents", ["random", "greedy"])
def test_rows_play_the_single_agent_env(opponents, learner_seat, num_players):
    steps = 350 if num_players == 2 else 250
    seen = _play_both([21, 22, 23, 24], steps, opponents=opponents, learner_seat=learner_seat, num_players=num_players)
    # Several whole games ended (so several NEXT_STEP resets), rounds ended, rewards paid.
    assert seen["episodes"] >= 5 and seen["resets"] >= 5 and seen["rounds"] > 0 and seen["rewards"] > 0
    assert seen["auto"] > 0
    if learner_seat == "random":
        assert seen["seats"] == set(range(num_players))


@pytest.mark.parametrize(
    "options",
    [
        {"opponents": ["greedy", "random"], "learner_seat": 2, "num_players": 3, "round_bonus": "everyone"},
        {"opponents": "random", "learner_seat": "random", "num_players": 4, "episode": "round"},
        {"opponents": "greedy", "num_players": 2, "reward": "game_result", "reward_scale": 2.0, "k_suggestions": 4},
        {"opponents": "random", "learner_seat": "random", "num_players": 3, "variant": "manipulation_rummy"},
    ],
)
def test_rows_play_the_single_agent_env_configured(options):
    seen = _play_both([5, 6, 7], 250, **options)
    assert seen["episodes"] >= 3 and seen["resets"] >= 2 and seen["rewards"] > 0


def test_episodes_that_end_before_the_learner_decides_are_skipped():
    # Found by search: with four greedy opponents before the learner, seed 85's first deal
    # ends before the learner decides, as do seed 24's and 211's later deals (first-legal
    # learner): the reset and the NEXT_STEP reset both deal another game.
    options = {"opponents": "greedy", "learner_seat": 4, "num_players": 5, "episode": "round"}
    seen = _play_both([24, 85, 211], 90, choose=_first_legal, **options)
    assert seen["aec_resets"] > 3 + seen["resets"]  # more deals than resets: some were skipped
    assert seen["resets"] >= 4


def test_spaces_shapes_and_masks():
    venv = CarouselGymVectorEnv(3, opponents="greedy", num_players=3, k_suggestions=5)
    single = CarouselSingleAgentEnv(opponents="greedy", num_players=3, k_suggestions=5)
    assert isinstance(venv, VectorEnv) and venv.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP
    assert venv.single_observation_space == single.observation_space
    assert venv.single_action_space == single.action_space == spaces.Discrete(8)
    assert venv.observation_space.shape == (3, single.observation_space.shape[0])
    assert venv.action_space == spaces.MultiDiscrete([8, 8, 8])
    obs, infos = venv.reset(seed=0)
    assert obs.dtype == np.float32 and venv.observation_space.contains(obs)
    masks = venv.action_masks()
    assert masks.shape == (3, 8) and masks.dtype == np.bool_ and masks.any(axis=1).all()
    assert infos["action_mask"].dtype == np.int8 and np.array_equal(infos["action_mask"] > 0, masks)
    assert infos["round_points"].shape == (3, 3) and infos["learner_seat"].tolist() == [0, 0, 0]
    keys = {*INFO_KEYS, "action_mask", "learner_seat"}
    assert set(infos) == keys | {f"_{key}" for key in keys} and all(infos[f"_{key}"].all() for key in keys)
    obs, rewards, terminated, truncated, infos = venv.step(_legal_actions(venv))
    assert obs.shape == (3, venv.single_observation_space.shape[0]) and rewards.shape == (3,)
    assert terminated.shape == truncated.shape == (3,)
    assert len(venv.np_random) == 3 and venv.np_random_seed == (0, 1, 2)


def test_illegal_action_ends_the_row_or_raises():
    venv = CarouselGymVectorEnv(3, episode="round")
    single = CarouselSingleAgentEnv(episode="round")  # row 1's twin
    obs, _ = venv.reset(seed=5)
    np.testing.assert_array_equal(obs[1], single.reset(seed=6)[0])
    masks = venv.action_masks()
    actions = _legal_actions(venv)
    actions[1] = np.flatnonzero(~masks[1])[0]
    after, rewards, terminated, _, infos = venv.step(actions)
    single_obs, single_reward, single_done, _, _ = single.step(int(actions[1]))
    assert rewards[1] == single_reward == -1.0 and terminated[1] and single_done and not terminated[[0, 2]].any()
    np.testing.assert_array_equal(after[1], obs[1])  # the decision it failed, as the single env shows it
    np.testing.assert_array_equal(after[1], single_obs)
    assert not venv.action_masks()[1].any() and infos["num_auto_actions"][1] == 0  # nothing moved
    assert infos["illegal_action"][1] == actions[1] and infos["_illegal_action"].tolist() == [False, True, False]
    # The next step deals row 1 its next episode, as the single-agent env's reset() does.
    after, rewards, terminated, _, _ = venv.step(_legal_actions(venv))
    np.testing.assert_array_equal(after[1], single.reset()[0])
    assert rewards[1] == 0.0 and not terminated[1]

    strict = CarouselGymVectorEnv(2, episode="round", illegal_reward=None)
    strict.reset(seed=1)
    masks = strict.action_masks()
    before = [strict.venv.game_state(i) for i in range(2)]
    actions = _legal_actions(strict)
    actions[1] = np.flatnonzero(~masks[1])[0]
    with pytest.raises(IllegalAction, match=r"row 1: action .* is not legal now"):
        strict.step(actions)
    with pytest.raises(IllegalAction, match=r"row 0: action must be an int in 0..10"):
        strict.step(np.array([11, actions[0]]))
    with pytest.raises(IllegalAction, match="2 ints"):
        strict.step(np.array([0]))
    # Nothing moved: the rows are where they were, and a legal step goes on from there.
    assert [strict.venv.game_state(i) for i in range(2)] == before
    np.testing.assert_array_equal(strict.action_masks(), masks)
    strict.step(_legal_actions(strict))


def test_bad_options_name_the_option():
    with pytest.raises(ValueError, match="learner_seat"):
        CarouselGymVectorEnv(2, learner_seat=2)
    with pytest.raises(ValueError, match="learner_seat"):
        CarouselGymVectorEnv(2, learner_seat="first")
    with pytest.raises(ValueError, match="opponents"):
        CarouselGymVectorEnv(2, opponents=["random", "random"], num_players=2)
    with pytest.raises(UnknownPolicyError, match="'nobody'"):
        CarouselGymVectorEnv(2, opponents="nobody")
    with pytest.raises(TypeError, match="a policy is"):
        CarouselGymVectorEnv(2, opponents=42)
    with pytest.raises(EnvConfigError, match="num_envs"):
        CarouselGymVectorEnv(0)
    with pytest.raises(EnvConfigError, match="k_suggestions"):
        CarouselGymVectorEnv(2, k_suggestions=0)
    with pytest.raises(EnvConfigError, match="colour"):
        CarouselGymVectorEnv(2, colour="red")
    # Steps before reset and bad resets: tests/games/test_every_game.py, for every game.


def test_seeded_resets_replay_and_reset_mask():
    def trace(venv, seed):
        obs, _ = venv.reset(seed=seed)
        rng = np.random.default_rng(0)
        out = [obs]
        for _ in range(40):
            actions = np.array([random_legal(rng, m) if m.any() else 0 for m in venv.action_masks()])
            out.extend(venv.step(actions)[:3])
        return out

    options = {"opponents": "random", "learner_seat": "random", "num_players": 3, "episode": "round"}
    a, b = CarouselGymVectorEnv(2, **options), CarouselGymVectorEnv(2, **options)
    for x, y in zip(trace(a, 9), trace(b, [9, 10])):
        np.testing.assert_array_equal(x, y)
    # reset_mask: row 1 is dealt seed 10's first episode again; row 0 stays as it is.
    obs_before = a.step(_legal_actions(a))[0]
    state0 = a.venv.game_state(0)
    obs, infos = a.reset(seed=[None, 10], options={"reset_mask": np.array([False, True])})
    np.testing.assert_array_equal(obs[0], obs_before[0])
    assert a.venv.game_state(0) == state0 and infos["_action_mask"].tolist() == [False, True]
    np.testing.assert_array_equal(obs[1], CarouselSingleAgentEnv(**options).reset(seed=10)[0])


def test_callable_opponent_sees_its_own_decisions():
    calls = []

    def first_legal(observation, mask):
        calls.append((observation.copy(), mask.copy()))
        return int(np.flatnonzero(mask)[0])

    venv = CarouselGymVectorEnv(3, opponents=first_legal, num_players=2, episode="round")
    venv.reset(seed=4)
    for _ in range(10):
        venv.step(_legal_actions(venv, last=True))
    assert calls
    to_play = venv.venv.observation_layout.global_fields["to_play"]
    for observation, mask in calls:
        assert mask.sum() >= 2  # the env takes forced decisions itself
        assert observation[to_play][0] == 1.0  # the opponent's own observation: it is to play


def test_view_policy_opponents_decide_from_their_own_seat_view():
    # 3 players, the learner in seat 1: the opponents sit in seats 2 and 0, in that order.
    recorder = SeatRecorder()
    venv = CarouselGymVectorEnv(2, opponents=[recorder, "search@2"], learner_seat=1, num_players=3, episode="round")
    venv.reset(seed=0)
    searchers = [row[1] for row in venv.opponents]
    assert all(isinstance(s, SearchPlayer) for s in searchers) and searchers[0] is not searchers[1]  # one per row
    for _ in range(40):  # until both rows' searchers have decided (a search decision costs)
        if all(s.decisions for s in searchers):
            break
        venv.step(_legal_actions(venv, last=True))
    assert all(s.decisions > 0 for s in searchers)
    assert recorder.seats and set(recorder.seats) == {2}


def test_gymnasium_make_vec_builds_the_compiled_vector_env():
    import gymnasium

    from carousel_env.games.carousel.vector.gym import CarouselGymVectorEnv

    envs = gymnasium.make_vec(
        "carousel_env.single_agent:Carousel-v0",
        num_envs=3,
        vectorization_mode="vector_entry_point",
        opponents="greedy",
        num_players=3,
    )
    assert isinstance(envs.unwrapped, CarouselGymVectorEnv) and envs.num_envs == 3
    obs, _ = envs.reset(seed=0)
    assert obs.shape == (3, envs.single_observation_space.shape[0])
    envs.close()


def test_the_vector_example_runs_under_gymnasiums_wrappers():
    games, learner = load_example("vector_env").main(num_envs=3, steps=800, seed=1)
    assert len(games) > 0 and np.allclose(games.sum(axis=1), 0.0)  # zero-sum per game
    assert len(learner) > 0  # RecordEpisodeStatistics saw the learner's episodes end


def test_the_vector_example_prints_no_nan_when_no_game_has_finished(capsys):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy's "Mean of empty slice" would fail here
        games, learner = load_example("vector_env").main(num_envs=1, steps=1, seed=0)
    out = capsys.readouterr().out
    assert len(games) == 0 and not learner
    assert "nan" not in out and "every seat: no game finished in 1 step" in out
