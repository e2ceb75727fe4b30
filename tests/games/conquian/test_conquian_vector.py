"""Conquian's vector env against its AEC env, step for step over seeded games, and the shared
driver's rows: autoreset or not, ``reset_rows``, ``WAIT``, illegal actions, policies, config."""

from __future__ import annotations

import numpy as np
import pytest

from carousel_env.core.errors import IllegalAction
from carousel_env.games.conquian.config import ConquianEnvConfigError
from carousel_env.games.conquian.env import raw_env
from carousel_env.games.conquian.policies import env_action, resolve_policy
from carousel_env.games.conquian.vector import WAIT, ConquianVectorEnv
from tests.support import vector_lockstep
from tests.support.vector_lockstep import check_row, check_step, random_choice

K = 4  # few offer slots, so that some decisions have more ways than slots


lockstep = vector_lockstep.envs_lockstep(ConquianVectorEnv, raw_env, k_plays=K)  # over Conquian's envs


def check_state(venv: ConquianVectorEnv, i: int, env: raw_env) -> None:
    """Row ``i``'s engine state is the AEC env's, field for field."""
    assert venv.game_state(i) == env.game_state


@pytest.mark.parametrize(
    "options",
    [
        {"preset": "book"},
        {"preset": "bicycle"},
        {"preset": "foster"},
        {"preset": "book", "rearrange": "none"},
        {"preset": "book", "rearrange": "borrow", "max_run": None},
        {"preset": "bicycle", "rearrange": "none", "max_run": 4},
    ],
)
def test_random_hands_agree_with_the_aec_env_at_every_step(options):
    config = {"episode": "hand", **options}
    assert lockstep(3, seed=11, steps=300, choose=random_choice(5), **config) > 0


@pytest.mark.parametrize("preset", ["book", "foster"])
def test_simple_hands_agree_and_their_states_too(preset):
    config = {"episode": "hand", "preset": preset}
    venv = ConquianVectorEnv(2, k_plays=K, **config)
    aecs = [raw_env(k_plays=K, **config) for _ in range(2)]
    step = venv.reset(seed=30)
    for i, env in enumerate(aecs):
        env.reset(seed=30 + i)
    ended = 0
    for _ in range(200):
        actions = np.array([simple_choice(i, step.action_mask[i], env) for i, env in enumerate(aecs)])
        step = venv.step(actions)
        for i, env in enumerate(aecs):
            env.step(int(actions[i]))
            check_step(step, i, env)
            if step.terminated[i]:
                ended += 1
                env.reset()
            check_row(step, i, env)
            check_state(venv, i, env)
    assert ended > 2


def test_without_autoreset_finished_rows_wait_until_dealt_again():
    config = {"preset": "book", "episode": "hand"}
    assert lockstep(2, seed=1, steps=300, choose=random_choice(3), autoreset=False, **config) > 1


def simple_choice(i, mask, env):
    """The simple player's move at the AEC env's decision (it melds, so hands end soon)."""
    return env_action(resolve_policy("simple"), env, None, mask)


@pytest.mark.parametrize(
    "short", [{"target": 2}, {"scoring": "points", "target": 30}, {"preset": "foster", "target": 2}]
)
def test_whole_matches_agree_with_result_rewards(short):
    config = {"episode": "match", "game_length": "match", "reward": "result", **short}
    assert lockstep(2, seed=3, steps=300, choose=simple_choice, **config) > 0


def test_policy_moves_are_the_scripted_players_moves():
    venv = ConquianVectorEnv(3, k_plays=K, episode="hand")
    aecs = [raw_env(k_plays=K, episode="hand") for _ in range(3)]
    step = venv.reset(seed=20)
    for i, env in enumerate(aecs):
        env.reset(seed=20 + i)
    simple = resolve_policy("simple")
    for _ in range(40):
        # Row 2's seats decide elsewhere: it waits.
        moves = venv.policy_moves(step, [0, 1, 2], lambda r, seat: None if r == 2 else simple)
        assert moves[2] == WAIT
        for i in (0, 1):
            assert moves[i] == env_action(simple, aecs[i], step.observation[i], step.action_mask[i])
            aecs[i].step(int(moves[i]))
        step = venv.step(moves)
        for i in (0, 1):
            check_step(step, i, aecs[i])
            if step.terminated[i]:
                aecs[i].reset()
            check_row(step, i, aecs[i])
        check_row(step, 2, aecs[2])


def test_wait_rows_do_not_move():
    venv = ConquianVectorEnv(2, k_plays=K, episode="hand")
    step = venv.reset(seed=4)
    before = venv.game_state(1)
    first = int(np.flatnonzero(step.action_mask[0])[0])
    after = venv.step(np.array([first, WAIT]))
    assert venv.game_state(1) == before
    assert after.rewards[1].tolist() == [0.0, 0.0] and after.info.num_auto_actions[1] == 0
    np.testing.assert_array_equal(after.observation[1], step.observation[1])
    np.testing.assert_array_equal(after.action_mask[1], step.action_mask[1])


def test_an_illegal_action_names_its_row_and_moves_nothing():
    venv = ConquianVectorEnv(2, k_plays=K)
    step = venv.reset(seed=0)
    states = [venv.game_state(g) for g in range(2)]
    illegal = int(np.flatnonzero(step.action_mask[1] == 0)[0])
    legal = int(np.flatnonzero(step.action_mask[0])[0])
    with pytest.raises(IllegalAction, match=f"game 1: action {illegal}"):
        venv.step(np.array([legal, illegal]))
    with pytest.raises(IllegalAction, match="game 0: action 99"):
        venv.step(np.array([99, WAIT]))
    assert [venv.game_state(g) for g in range(2)] == states


def test_reset_rows_before_any_reset_deals_only_those_rows():
    venv = ConquianVectorEnv(3, k_plays=K, preset="foster")
    step = venv.reset_rows([1], [42])
    env = raw_env(k_plays=K, preset="foster")
    env.reset(seed=42)
    check_row(step, 1, env)
    assert step.info.seeds[1] == 42
    for g in (0, 2):  # undealt rows wait, over, with empty masks
        assert not step.action_mask[g].any() and step.to_play[g] == 0
    with pytest.raises(IllegalAction, match=r"game 0: .*none \(the episode is over\)"):
        venv.step(np.array([0, WAIT, WAIT]))


def test_compile_ahead_steps_one_env():
    ConquianVectorEnv.compile_ahead(k_plays=K, preset="bicycle")


@pytest.mark.parametrize(
    ("key", "config"),
    [
        ("num_players", {"num_players": 3}),
        ("k_plays", {"k_plays": 0}),
        ("preset", {"preset": "nope"}),
        ("episode", {"episode": "round"}),
        ("rearrange", {"rearrange": "some"}),
        ("render_mode", {"render_mode": "ansi"}),
        ("num_envs", {"num_envs": 0}),
        ("autoreset", {"autoreset": "yes"}),
        ("colour", {"colour": "red"}),
    ],
)
def test_a_bad_config_names_the_key(key, config):
    config = {"num_envs": 2, **config}
    with pytest.raises(ConquianEnvConfigError) as raised:
        ConquianVectorEnv(**config)
    assert raised.value.key == key
