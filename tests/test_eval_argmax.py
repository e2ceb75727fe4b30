"""``carousel eval --argmax``: networks play their policy's most likely action instead of a
sample, in our envs and inside OpenSpiel's Gin Rummy."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from carousel_cli.main import main
from carousel_env.envkit.layout import ObservationLayout
from carousel_env.games.gin_rummy.env import raw_env
from carousel_env.games.gin_rummy.observation import layout
from carousel_env.integrations.openspiel_gin import K_KNOCKS
from training.envs import EnvSpec
from training.evaluate import evaluate
from training.policies import NetworkPolicy, load_network_policy, network_callable

GIN_NET = "checkpoints/gin_2p"  # the shipped Gin network (trained under preset eaai; played here under openspiel)
OPENSPIEL = EnvSpec.of(2, game="gin_rummy", preset="openspiel")


def _decisions(count: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Observations and masks of real Gin decisions (uniformly random play, seeded)."""
    env, rng, seen = raw_env(preset="openspiel"), np.random.default_rng(0), []
    env.reset(seed=0)
    while len(seen) < count:
        if any(env.terminations.values()) or any(env.truncations.values()):
            env.reset(seed=len(seen))
        obs = env.observe(env.agent_selection)
        seen.append((obs["observation"], obs["action_mask"]))
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return seen


def test_an_argmax_network_plays_its_most_likely_legal_action_whatever_its_seed():
    gin = ObservationLayout.of(layout(K_KNOCKS))
    argmax = [network_callable(GIN_NET, gin, seed, argmax=True) for seed in (1, 2)]
    sampled = network_callable(GIN_NET, gin, 1)
    agent = load_network_policy(GIN_NET, gin).agent
    differs = 0
    for observation, mask in _decisions(60):
        logits = agent.distribution(torch.as_tensor(observation[None]), torch.as_tensor(mask[None])).logits[0].detach()
        best = int(np.flatnonzero(mask)[logits.numpy()[mask.astype(bool)].argmax()])
        assert argmax[0](observation, mask) == argmax[1](observation, mask) == best
        differs += sampled(observation, mask) != best
    assert argmax[0].__name__ == f"{GIN_NET} (argmax)" and sampled.__name__ == GIN_NET
    assert differs > 0  # sampling does leave the mode sometimes: the option changes play


@pytest.mark.integration
def test_eval_argmax_plays_the_networks_mode_and_says_so(capsys):
    by_name = evaluate(GIN_NET, "simple", games=4, seed=3, env_spec=OPENSPIEL, argmax=True)
    greedy = NetworkPolicy(load_network_policy(GIN_NET).agent, greedy=True)
    by_policy = evaluate(greedy, "simple", games=4, seed=3, env_spec=OPENSPIEL)
    assert by_name.argmax and not by_policy.argmax and by_name.per_game == by_policy.per_game
    assert json.loads(json.dumps(by_name.as_json()))["argmax"] is True
    argv = ["eval", "--checkpoint", GIN_NET, "--opponents", "simple", "--games", "2"]
    assert main([*argv, "--argmax"]) == 0
    assert f"{GIN_NET} (argmax) vs simple: 2 games" in capsys.readouterr().out
    assert main([*argv, "--game", "gin_rummy", "--opponents", "openspiel:simple", "--argmax", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["matches"][0]["agent"] == f"{GIN_NET} (argmax)"
