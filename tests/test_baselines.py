"""Baseline players: legal actions from the observation and mask alone, lookup by name,
and a short match between them."""

from __future__ import annotations

import numpy as np
import pytest

from carousel_env.aec import DRAW_AGAIN, FIRST_SUGGESTION, KNOCK, raw_env
from carousel_env.baselines import get_policy, greedy, play_match, policy_names, resolve_policy, round_robin


def decisions(n=2, seed=0, count=25):
    """(observation, mask, suggestions) of successive decisions under random play."""
    e = raw_env(num_players=n)
    e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        agent = e.agent_selection
        if e.terminations[agent]:
            e.reset(seed=seed + len(out))
            continue
        obs = e.observe(agent)
        out.append((obs["observation"].copy(), obs["action_mask"].copy(), e.suggestions))
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return out


@pytest.mark.parametrize("name", ["random", "greedy", "smart"])
def test_policies_choose_legal_actions(name):
    policy = get_policy(name)
    for obs, mask, _ in decisions(n=3, seed=2):
        action = policy(obs, mask)
        assert isinstance(action, int) and mask[action]


def test_greedy_knocks_first_then_plays_most_points():
    for obs, mask, suggestions in decisions(seed=5, count=60):
        action = greedy(obs, mask)
        if mask[KNOCK]:
            assert action == KNOCK
        elif suggestions:
            assert action >= FIRST_SUGGESTION
            assert suggestions[action - FIRST_SUGGESTION].points == max(s.points for s in suggestions)
        elif mask[DRAW_AGAIN]:
            assert action == DRAW_AGAIN


def test_registry():
    assert set(policy_names()) == {"random", "greedy", "smart"}
    with pytest.raises(ValueError, match="unknown baseline"):
        get_policy("perfect")
    assert resolve_policy(greedy) is greedy
    with pytest.raises(TypeError):
        resolve_policy(3)
    a, b = get_policy("random", seed=1), get_policy("random", seed=1)
    mask = np.array([1, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0], np.int8)
    assert [a(None, mask) for _ in range(10)] == [b(None, mask) for _ in range(10)]


def test_short_match_and_round_robin():
    totals = play_match(["greedy", "random"], games=1, seed=3, episode="game")
    assert totals["games"] == [1, 1] and sum(totals["wins"]) == 1
    rows = round_robin(["greedy", "smart"], games=1, seed=1)
    assert len(rows) == 1 and rows[0]["games"] == 1
