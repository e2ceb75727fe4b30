"""Kaluki's vector env against its AEC env, step for step over seeded games, and the shared
driver's rows: autoreset or not, ``reset_rows``, ``WAIT``, illegal actions, policies, config."""

from __future__ import annotations

import numpy as np
import pytest

from carousel_env.core.errors import IllegalAction
from carousel_env.games.kaluki.config import KalukiEnvConfigError
from carousel_env.games.kaluki.env import raw_env
from carousel_env.games.kaluki.policies import env_action, resolve_policy
from carousel_env.games.kaluki.vector import WAIT, KalukiVectorEnv

K = 4  # few offer slots: the solver's plays are the step's cost


def check_row(step, i: int, env: raw_env) -> None:
    """Row ``i`` of the vector step shows what the AEC ``env`` shows."""
    obs = env.observe(env.agent_selection)
    assert env.possible_agents[step.to_play[i]] == env.agent_selection
    np.testing.assert_array_equal(step.action_mask[i], obs["action_mask"])
    np.testing.assert_array_equal(step.observation[i], obs["observation"])


def check_step(step, i: int, env: raw_env) -> None:
    """Row ``i``'s rewards, infos and end are the AEC env's after the same action."""
    assert step.rewards[i].tolist() == pytest.approx([env.rewards[a] for a in env.possible_agents])
    infos = env.infos[env.possible_agents[0]]
    assert step.info.num_auto_actions[i] == infos["num_auto_actions"] == len(env.auto_actions)
    assert step.info.hands_ended[i] == infos["hands_ended"]
    assert step.info.hand_points[i].tolist() == infos["hand_points"].tolist()
    assert step.info.game_over[i] == infos["game_over"]
    assert step.terminated[i] == all(env.terminations.values())
    if step.terminated[i]:
        (finished,) = [f for f in step.info.finished if f.env == i]
        state = env.game_state
        assert (finished.seed, finished.hands, finished.scores) == (env.game_seed, state.results, state.totals)
        assert finished.result == state.game_result
        for seat, agent in enumerate(env.possible_agents):
            np.testing.assert_array_equal(finished.observations[seat], env.observe(agent)["observation"])


def lockstep(n: int, seed: int, steps: int, choose, autoreset: bool = True, **config) -> int:
    """Seeded games through the vector env and one AEC env per row, the same actions: the
    same observations, masks, seats, rewards, infos and ends at every step. Without
    autoreset a finished row waits a step (``WAIT``) and is dealt again with ``reset_rows``.
    Returns the episodes ended."""
    venv = KalukiVectorEnv(n, autoreset=autoreset, k_plays=K, **config)
    aecs = [raw_env(k_plays=K, **config) for _ in range(n)]
    step = venv.reset(seed=seed)
    for i, env in enumerate(aecs):
        env.reset(seed=seed + i)
        check_row(step, i, env)
    ended, waiting = 0, []
    for _ in range(steps):
        actions = np.array(
            [WAIT if i in waiting else choose(i, step.action_mask[i], env) for i, env in enumerate(aecs)]
        )
        step = venv.step(actions)
        for i, env in enumerate(aecs):
            if i in waiting:
                assert not step.rewards[i].any() and not step.terminated[i]
                continue
            env.step(int(actions[i]))
            check_step(step, i, env)
        done = np.flatnonzero(step.terminated).tolist()
        ended += len(done)
        if waiting:  # dealt again with fresh seeds, as the AEC env's reset(seed=...)
            fresh = [10_000 + ended + i for i in waiting]
            step = venv.reset_rows(waiting, fresh)
            for i, s in zip(waiting, fresh):
                aecs[i].reset(seed=s)
        if autoreset:
            for i in done:
                aecs[i].reset()  # its next seed, as the vector env's autoreset draws it
        else:
            waiting = done  # they show seat 0's final view, with an empty mask
        for i, env in enumerate(aecs):
            check_row(step, i, env)
    return ended


def random_choice(seed: int):
    rng = np.random.default_rng(seed)
    return lambda i, mask, env: int(rng.choice(np.flatnonzero(mask)))


@pytest.mark.parametrize("preset", ["book", "uk40", "rummy"])
@pytest.mark.parametrize("players", [2, 4, 6])
def test_random_hands_agree_with_the_aec_env_at_every_step(preset, players):
    config = {"num_players": players, "preset": preset, "episode": "hand"}
    # Random hands end (out, or the stock spent) within about 300 steps.
    assert lockstep(2, seed=7 * players, steps=320, choose=random_choice(players), **config) > 0


@pytest.mark.parametrize("preset", ["book", "rummy"])
def test_without_autoreset_finished_rows_wait_until_dealt_again(preset):
    choose = random_choice(3)
    config = {"num_players": 3, "preset": preset, "episode": "hand"}
    assert lockstep(2, seed=1, steps=400, choose=choose, autoreset=False, **config) > 1


def simple_choice(i, mask, env):
    """The simple player's move at the AEC env's decision (it goes out, so hands end soon)."""
    return env_action(resolve_policy("simple"), env, None, mask)


@pytest.mark.parametrize(("preset", "short", "steps"), [("book", {"target": 30}, 150), ("uk40", {"limit": 40}, 330)])
def test_whole_matches_agree_with_result_rewards(preset, short, steps):
    # A low target (book: a 3-hand match by step 136) or limit (uk40: seats eliminated over 8 hands) ends it soon.
    config = {"num_players": 3, "preset": preset, "episode": "match", "reward": "result", **short}
    assert lockstep(2, seed=3, steps=steps, choose=simple_choice, **config) > 0


def test_policy_moves_are_the_scripted_players_moves():
    venv = KalukiVectorEnv(3, num_players=3, k_plays=K, episode="hand")
    aecs = [raw_env(num_players=3, k_plays=K, episode="hand") for _ in range(3)]
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
    venv = KalukiVectorEnv(2, num_players=2, k_plays=K, episode="hand")
    step = venv.reset(seed=4)
    before = venv.game_state(1)
    first = int(np.flatnonzero(step.action_mask[0])[0])
    after = venv.step(np.array([first, WAIT]))
    assert venv.game_state(1) == before
    assert after.rewards[1].tolist() == [0.0, 0.0] and after.info.num_auto_actions[1] == 0
    np.testing.assert_array_equal(after.observation[1], step.observation[1])
    np.testing.assert_array_equal(after.action_mask[1], step.action_mask[1])


def test_an_illegal_action_names_its_row_and_moves_nothing():
    venv = KalukiVectorEnv(2, num_players=2, k_plays=K)
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
    venv = KalukiVectorEnv(3, num_players=4, k_plays=K, preset="rummy")
    step = venv.reset_rows([1], [42])
    env = raw_env(num_players=4, k_plays=K, preset="rummy")
    env.reset(seed=42)
    check_row(step, 1, env)
    assert step.info.seeds[1] == 42
    for g in (0, 2):  # undealt rows wait, over, with empty masks
        assert not step.action_mask[g].any() and step.to_play[g] == 0
    with pytest.raises(IllegalAction, match=r"game 0: .*none \(the episode is over\)"):
        venv.step(np.array([0, WAIT, WAIT]))


def test_compile_ahead_steps_one_env():
    KalukiVectorEnv.compile_ahead(num_players=3, k_plays=K, preset="uk40")


@pytest.mark.parametrize(
    ("key", "config"),
    [
        ("num_players", {"num_players": 7}),
        ("k_plays", {"k_plays": 0}),
        ("preset", {"preset": "nope"}),
        ("episode", {"episode": "round"}),
        ("render_mode", {"render_mode": "ansi"}),
        ("num_envs", {"num_envs": 0}),
        ("autoreset", {"autoreset": "yes"}),
        ("colour", {"colour": "red"}),
    ],
)
def test_a_bad_config_names_the_key(key, config):
    config = {"num_envs": 2, **config}
    with pytest.raises(KalukiEnvConfigError) as raised:
        KalukiVectorEnv(**config)
    assert raised.value.key == key
