"""Gin Rummy's vector env against its AEC env: seeded games stepped through both with the
same actions agree at every step (observations, masks, the seat to play, rewards, infos,
terminations and the final observations), under every preset and in matches; and the
driver's checks."""

from __future__ import annotations

import numpy as np
import pytest

from carousel_env.core.cards import make_card
from carousel_env.core.errors import IllegalAction
from carousel_env.games.gin_rummy import melds as gm
from carousel_env.games.gin_rummy.config import GinEnvConfigError
from carousel_env.games.gin_rummy.env import INFO_KEYS, GinAction, raw_env
from carousel_env.games.gin_rummy.kernel import deadwood, deadwood_after_discard
from carousel_env.games.gin_rummy.vector import WAIT, GinVectorEnv

CONFIGS = [
    {"preset": "openspiel"},
    {"preset": "book", "episode": "hand"},
    {"preset": "book", "target": 25},  # short matches: hands dealt inside the episode
    {"preset": "eaai", "target": 25, "reward": "result"},
    {"preset": "book", "k_knocks": 2, "knock_limit": 4, "episode": "hand"},
]


def _choose(mask: np.ndarray, rng: np.random.Generator) -> int:
    legal = np.flatnonzero(mask)
    knocks = legal[legal >= GinAction.FIRST_KNOCK]
    if len(knocks) and rng.random() < 0.5:
        return int(rng.choice(knocks))
    return int(rng.choice(legal))


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items()))
def test_vector_and_aec_agree_at_every_step(config):
    n, steps, seed = 4, 700, 11
    venv = GinVectorEnv(n, **config)
    aecs = [raw_env(**config) for _ in range(n)]
    step = venv.reset(seed=seed)
    for i, env in enumerate(aecs):
        env.reset(seed=seed + i)
    rng = np.random.default_rng(seed)
    episodes = 0
    for t in range(steps):
        for i, env in enumerate(aecs):
            agent = env.agent_selection
            assert step.to_play[i] == int(agent[-1]), (t, i)
            obs = env.observe(agent)
            assert np.array_equal(step.action_mask[i], obs["action_mask"]), (t, i)
            assert np.array_equal(step.observation[i], obs["observation"]), (t, i)
        actions = np.array([_choose(step.action_mask[i], rng) for i in range(n)])
        step = venv.step(actions)
        for i, env in enumerate(aecs):
            env.step(int(actions[i]))
            assert step.rewards[i].tolist() == pytest.approx([env.rewards[a] for a in env.possible_agents]), (t, i)
            info = env.infos["player_0"]
            for key in INFO_KEYS:
                assert np.array_equal(getattr(step.info, key)[i], info[key]), (t, i, key)
            ended = all(env.terminations.values())
            assert step.terminated[i] == ended, (t, i)
            if ended:
                (finished,) = [f for f in step.info.finished if f.env == i]
                for seat, agent in enumerate(env.possible_agents):
                    assert np.array_equal(finished.observations[seat], env.observe(agent)["observation"])
                assert finished.scores == env.game_state.scores
                episodes += 1
                env.reset()
    assert episodes >= 2, episodes


def test_compiled_deadwood_is_the_engines():
    rng = np.random.default_rng(3)
    dense = [make_card(rank, suit) for rank in range(1, 7) for suit in range(4)]  # thick with melds
    for t in range(600):
        pool = dense if t % 2 else range(52)
        cards = rng.choice(pool, size=int(rng.integers(9, 12)), replace=False)
        mask = gm.mask_of(int(c) for c in cards)
        assert deadwood(np.int64(mask)) == gm.deadwood(mask)
        assert deadwood_after_discard(np.int64(mask), np.int64(0)) == gm.deadwood_after_discard(mask)


def test_illegal_actions_name_the_row_and_move_nothing():
    venv = GinVectorEnv(3)
    step = venv.reset(seed=0)
    before = [venv.game_state(g) for g in range(3)]
    actions = np.array([int(np.flatnonzero(m)[0]) for m in step.action_mask])
    actions[1] = GinAction.FIRST_KNOCK + 7
    with pytest.raises(IllegalAction, match="game 1: action 62 \\(KNOCK_7\\) is not legal now"):
        venv.step(actions)
    assert [venv.game_state(g) for g in range(3)] == before
    with pytest.raises(IllegalAction, match="actions must be 3 ints"):
        venv.step([0, 1])


def test_wait_rows_do_not_move():
    venv = GinVectorEnv(2)
    step = venv.reset(seed=5)
    before = venv.game_state(1)
    actions = np.array([int(np.flatnonzero(step.action_mask[0])[0]), WAIT])
    step = venv.step(actions)
    assert venv.game_state(1) == before and step.rewards[1].tolist() == [0.0, 0.0]


def test_without_autoreset_a_finished_row_waits_until_reset_rows():
    venv = GinVectorEnv(1, autoreset=False, preset="openspiel")
    step = venv.reset(seed=2)
    rng = np.random.default_rng(0)
    while not step.terminated[0]:
        step = venv.step(np.array([_choose(step.action_mask[0], rng)]))
    assert not step.action_mask.any()
    with pytest.raises(IllegalAction, match="none \\(the episode is over\\)"):
        venv.step(np.array([0]))
    step = venv.reset_rows([0], [99])
    assert step.action_mask.any() and step.info.seeds[0] == 99


@pytest.mark.parametrize(("config", "key"), [({"num_envs": 0}, "num_envs"), ({"render_mode": "ansi"}, "render_mode")])
def test_bad_arguments_are_named(config, key):
    num_envs = config.pop("num_envs", 2)
    with pytest.raises(GinEnvConfigError) as error:
        GinVectorEnv(num_envs, **config)
    assert error.value.key == key
