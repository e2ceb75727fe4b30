"""Every registered game through the same checks: PettingZoo's api, seed and render tests,
its registrations, its vector env, and a slice of random games whose observations, masks and
rewards are checked."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

import carousel_env
from carousel_env.core.errors import IllegalAction
from carousel_env.core.registry import GAMES, UnknownGame, game_spec
from carousel_env.envkit.family import family_game
from training.diagnostics import action_rates

# A short episode per game keeps these quick; each game's own tests cover the long ones.
QUICK = {
    "carousel": {"num_players": 3, "episode": "round"},
    "gin_rummy": {"episode": "hand"},
    "carioca": {"num_players": 3, "episode": "round"},
    "kaluki": {"num_players": 3, "episode": "hand", "k_plays": 4},
    "conquian": {"episode": "hand", "k_plays": 4},
}
AEC_GAMES = sorted(GAMES)
# Steps of random play in the vector env's check: enough for an episode to end somewhere
# (random players rarely go out in Carioca: a round runs to the stock's second end).
VECTOR_STEPS = {"carioca": 700}


def make_env(game: str, raw: bool = False, **config):
    """Game ``game``'s AEC env (``raw``: unwrapped) with its quick config and ``config``."""
    return (carousel_env.raw_env if raw else carousel_env.env)(game=game, **{**QUICK[game], **config})


def test_every_registered_game_has_a_quick_config():
    assert set(QUICK) == set(GAMES)


@pytest.mark.parametrize("game", AEC_GAMES)
def test_api(game):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Dict observation spaces draw advisory warnings
        api_test(make_env(game), num_cycles=25)
        api_test(make_env(game, raw=True), num_cycles=25)


@pytest.mark.parametrize("game", AEC_GAMES)
def test_seed(game):
    seed_test(lambda: make_env(game), num_cycles=20)


@pytest.mark.parametrize("game", AEC_GAMES)
def test_render(game, capsys):
    def is_picture(image):
        return image.shape[0] > 100 and image.shape[1] > 100

    render_test(
        lambda render_mode=None: make_env(game, render_mode=render_mode),
        custom_tests={"ansi": lambda text: "player" in text.lower(), "rgb_array": is_picture},
    )
    assert capsys.readouterr().out  # "human" printed


@pytest.mark.parametrize("game", sorted(GAMES))
def test_registered_with_pettingzoo(game):
    import pettingzoo

    carousel_env.env(game=game, **QUICK[game])  # importing the env registers it
    env = pettingzoo.make("aec", game_spec(game).pettingzoo_id, **QUICK[game])
    env.reset(seed=0)
    assert env.unwrapped.metadata["name"] == f"{game}_v0"


@pytest.mark.parametrize("game", sorted(GAMES))
def test_registered_with_gymnasium(game):
    """Every game's single-agent forms under its Gymnasium id: the env, and the compiled vector
    form as the vector entry point, whose row 0 reset with seed 0 is the env reset with 0."""
    import gymnasium

    import carousel_env.single_agent  # noqa: F401  (registers every game's id)

    forms = game_spec(game).gymnasium
    env = gymnasium.make(forms.id, **QUICK[game])
    assert f"{type(env.unwrapped).__module__}:{type(env.unwrapped).__name__}" == forms.env
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs) and info["action_mask"].any()
    envs = gymnasium.make_vec(forms.id, num_envs=2, vectorization_mode="vector_entry_point", **QUICK[game])
    assert f"{type(envs.unwrapped).__module__}:{type(envs.unwrapped).__name__}" == forms.vector_env
    vector_obs, _ = envs.reset(seed=0)
    np.testing.assert_array_equal(vector_obs[0], obs)
    envs.close()
    env.close()


@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_gymnasium_vector_form_refuses_steps_before_reset_and_bad_resets(game):
    import gymnasium

    forms = game_spec(game).gymnasium
    venv = gymnasium.make_vec(forms.id, num_envs=2, vectorization_mode="vector_entry_point").unwrapped
    with pytest.raises(IllegalAction, match="reset"):
        venv.step(np.array([0, 0]))
    with pytest.raises(ValueError, match="seed"):
        venv.reset(seed=[1])
    with pytest.raises(ValueError, match="first reset"):
        venv.reset(options={"reset_mask": np.array([True, False])})


@pytest.mark.parametrize("game", AEC_GAMES)
def test_soak_slice(game):
    """Random games: observations in their space, masks non-empty for the agent to act and
    empty for the others, rewards summing to zero."""
    env = make_env(game)
    rng = np.random.default_rng(0)
    for seed in range(20):
        env.reset(seed=seed)
        total = dict.fromkeys(env.possible_agents, 0.0)
        for agent in env.agent_iter():
            observation, reward, termination, truncation, _ = env.last()
            total[agent] += reward
            assert env.observation_space(agent).contains(observation)
            for other in env.agents:
                if other != agent:
                    assert not env.observe(other)["action_mask"].any()
            if termination or truncation:
                env.step(None)
                continue
            legal = np.flatnonzero(observation["action_mask"])
            assert len(legal) >= 2  # a single legal action is taken by the env
            env.step(int(rng.choice(legal)))
        assert sum(total.values()) == pytest.approx(0, abs=1e-9)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_vector_env_agrees_with_the_aec_env(game):
    """Seeded games stepped through the vector env and through one AEC env per row, with the
    same random legal actions: the same observations, masks, seats, rewards and ends."""
    n, seed = 3, 7
    venv = carousel_env.vector_env(game=game, num_envs=n, **QUICK[game])
    aecs = [carousel_env.raw_env(game=game, **QUICK[game]) for _ in range(n)]
    step = venv.reset(seed=seed)
    for i, env in enumerate(aecs):
        env.reset(seed=seed + i)
    rng = np.random.default_rng(seed)
    ended = 0
    for _ in range(VECTOR_STEPS.get(game, 150)):
        for i, env in enumerate(aecs):
            obs = env.observe(env.agent_selection)
            assert env.possible_agents[step.to_play[i]] == env.agent_selection
            assert np.array_equal(step.action_mask[i], obs["action_mask"])
            assert np.array_equal(step.observation[i], obs["observation"])
        actions = np.array([int(rng.choice(np.flatnonzero(m))) for m in step.action_mask])
        step = venv.step(actions)
        for i, env in enumerate(aecs):
            env.step(int(actions[i]))
            assert step.rewards[i].tolist() == pytest.approx([env.rewards[a] for a in env.possible_agents])
            assert step.terminated[i] == all(env.terminations.values())
            if step.terminated[i]:
                ended += 1
                env.reset()
    assert ended > 0


@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_action_kinds_training_counts_are_actions_of_the_env(game):
    """Each kind a game names for training's ``actions/`` rates is a nonempty span of its
    env's actions, apart from the others', and random play's masks give it a rate in [0, 1]."""
    kinds = family_game(game).action_kinds
    assert kinds and len({k.name for k in kinds}) == len(kinds)
    env = make_env(game)
    env.reset(seed=3)
    num_actions = env.action_space(env.agent_selection).n
    spans = [set(k.actions(num_actions)) for k in kinds]
    assert all(spans) and sum(map(len, spans)) == len(set().union(*spans))
    rng = np.random.default_rng(3)
    masks, actions = [], []
    for _ in env.agent_iter(max_iter=300):
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        masks.append(obs["action_mask"])
        actions.append(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        env.step(actions[-1])
    rates = action_rates(np.array(masks), np.array(actions), kinds)
    assert set(rates) <= {f"actions/{k.name}" for k in kinds}
    assert all(0.0 <= r <= 1.0 for r in rates.values())


def test_unknown_game_is_named():
    games = "carousel, gin_rummy, carioca, kaluki, conquian"
    with pytest.raises(UnknownGame, match=f"unknown game 'gin' \\(games: {games}\\)"):
        carousel_env.env(game="gin")
