"""Carioca's vector env against its AEC env, step for step, and its compiled distance
against the solver's."""

from __future__ import annotations

import random

import numpy as np
import pytest

from carousel_env.core.cards import JOKER, make_card, make_deck
from carousel_env.core.cards import counts as count_vector
from carousel_env.core.errors import IllegalAction
from carousel_env.games.carioca import distance, solver
from carousel_env.games.carioca.env import raw_env
from carousel_env.games.carioca.policies import env_action, resolve_policy
from carousel_env.games.carioca.rules import CONTRACTS
from carousel_env.games.carioca.vector import CariocaVectorEnv


def lockstep(players: int, n: int, seed: int, steps: int, choose, **config) -> int:
    """Seeded games through the vector env and one AEC env per row, the same actions: the
    same observations, masks, seats, rewards and ends at every step. Returns the episodes ended."""
    venv = CariocaVectorEnv(n, num_players=players, **config)
    aecs = [raw_env(num_players=players, **config) for _ in range(n)]
    step = venv.reset(seed=seed)
    for i, env in enumerate(aecs):
        env.reset(seed=seed + i)
    ended = 0
    for _ in range(steps):
        for i, env in enumerate(aecs):
            obs = env.observe(env.agent_selection)
            assert env.possible_agents[step.to_play[i]] == env.agent_selection
            np.testing.assert_array_equal(step.action_mask[i], obs["action_mask"])
            np.testing.assert_array_equal(step.observation[i], obs["observation"])
        actions = np.array([choose(i, m, env) for i, (m, env) in enumerate(zip(step.action_mask, aecs))])
        step = venv.step(actions)
        for i, env in enumerate(aecs):
            env.step(int(actions[i]))
            assert step.rewards[i].tolist() == pytest.approx([env.rewards[a] for a in env.possible_agents])
            assert step.info.num_auto_actions[i] == len(env.auto_actions)
            assert step.terminated[i] == all(env.terminations.values())
            if step.terminated[i]:
                ended += 1
                (finished,) = [f for f in step.info.finished if f.env == i]
                for seat, agent in enumerate(env.possible_agents):
                    np.testing.assert_array_equal(finished.observations[seat], env.observe(agent)["observation"])
                env.reset()
    return ended


def random_choice(rng):
    return lambda i, mask, env: int(rng.choice(np.flatnonzero(mask)))


def eager_choice(rng):
    """Goes down and lays off whenever it may (so that the rare moves come often)."""

    def choose(i, mask, env):
        legal = np.flatnonzero(mask)
        eager = legal[legal >= 2 + 53]
        return int(rng.choice(eager if len(eager) and rng.random() < 0.9 else legal))

    return choose


@pytest.mark.parametrize("players", [2, 3, 5])
def test_the_vector_env_agrees_with_the_aec_env_at_every_step(players):
    rng = np.random.default_rng(players)
    assert lockstep(players, 3, seed=10 * players, steps=300, choose=eager_choice(rng), episode="round") > 0


def simple_choice(i, mask, env):
    """The simple player's move at the AEC env's decision (whole games end in a few hundred steps)."""
    return env_action(resolve_policy("simple"), env, None, mask)


def test_whole_games_agree_with_result_rewards():
    assert lockstep(3, 2, seed=3, steps=700, choose=simple_choice, reward="result") > 0


def test_random_play_agrees():
    rng = np.random.default_rng(1)
    lockstep(2, 2, seed=5, steps=300, choose=random_choice(rng), episode="round")


def test_an_illegal_action_names_its_row_and_moves_nothing():
    venv = CariocaVectorEnv(2, num_players=2)
    step = venv.reset(seed=0)
    before = venv.game_state(1)
    with pytest.raises(IllegalAction, match="game 1: action 2"):
        venv.step(np.array([0, 2]))
    assert venv.game_state(1) == before
    assert np.array_equal(venv.step(np.array([0, 1])).to_play, step.to_play)  # both drew: same seats


def rich(rng: random.Random, size: int) -> tuple:
    suits = rng.sample(range(4), 2)
    low = rng.choice([1, 2, 8, 10])
    pool = [make_card(r, s) for r in range(low, min(low + 6, 14)) for s in suits] * 2 + [JOKER] * 4
    return tuple(sorted(rng.sample(pool, size)))


def test_the_compiled_distance_is_the_reference():
    rng = random.Random(0)
    deck = make_deck(2, 4)
    for contract in CONTRACTS:
        hands = [tuple(sorted(rng.sample(deck, rng.choice([11, 12])))) for _ in range(60)]
        hands += [rich(rng, rng.choice([4, 8, 11, 12])) for _ in range(40)]
        for hand in hands:
            counts = np.array(count_vector(hand), np.int64)
            expected = solver.reference_distance(hand, contract)
            assert distance.distance(counts, contract.trios, contract.escaleras) == expected
