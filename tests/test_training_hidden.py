"""What a seat cannot see, for training only (issue 53): each game's hidden cards, carried by
both runners alike, the network's state critic and auxiliary head, and runs that use them."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import carousel_env
from carousel_env.envkit.family import HIDDEN_WIDTH, family_game, others_cards
from carousel_env.games.carousel.agents.match import Episode
from training import checkpoint
from training.config import ConfigError, from_dict, load_config
from training.envs import EnvSpec, shape_for
from training.network import Agent
from training.policies import LEARNER, Controller, load_network_policy, network_value
from training.ppo import hidden_loss, train
from training.rollout import collect_rollout
from training.runners import Driver, Runner, VectorRunner

GAMES = ("carousel", "gin_rummy", "carioca", "kaluki", "conquian")
EPISODE = {
    "carousel": {"episode": "round", "k_suggestions": 4},
    "carioca": {"episode": "round"},
    "kaluki": {"episode": "hand", "k_plays": 4},
}


def test_others_cards_counts_every_other_hand_in_unit_range():
    hidden = others_cards([[0, 0, 52], [5], [13, 52]], seat=1)
    assert hidden.shape == (HIDDEN_WIDTH,) and hidden.dtype == np.float32
    assert hidden[0] == 1.0 and hidden[13] == 0.5 and hidden[52] == 0.5 and hidden[5] == 0.0
    assert hidden.sum() == pytest.approx(1.0 + 0.5 + 0.5)


@pytest.mark.parametrize("game", GAMES)
def test_a_games_hidden_cards_are_the_other_hands(game):
    env = carousel_env.raw_env(game=game, **EPISODE.get(game, {}))
    env.reset(seed=5)
    state = env.game_state
    seat = state.current
    hidden = family_game(game).hidden_cards(state, seat)
    others = sum(
        len(hand) if not isinstance(hand, int) else bin(hand).count("1")
        for s, hand in enumerate(state.hands)
        if s != seat
    )
    decks = np.where(np.arange(HIDDEN_WIDTH) < 52, 2.0, 4.0)
    assert (hidden * decks).sum() == pytest.approx(others)


def _rollout(runner_class, spec: EnvSpec, opponent: Controller):
    driver = Driver(spec, num_envs=3, hidden=True)
    driver.local = runner_class(spec, list(range(3)), hidden=True)
    torch.manual_seed(0)
    lay, fixed = shape_for(spec)
    agent = Agent(lay, 32, 16, fixed, hidden_width=HIDDEN_WIDTH, state_critic=True, predicts_hidden=True)
    seeds = iter(range(700, 800))
    try:
        return collect_rollout(driver, agent, {}, lambda: Episode(next(seeds), (LEARNER, opponent)), target=60)
    finally:
        driver.close()


@pytest.mark.parametrize("game", GAMES)
def test_both_runners_carry_the_same_hidden_cards(game):
    spec = EnvSpec.of(2, game=game, **EPISODE.get(game, {}))
    opponent = Controller.scripted("greedy" if game == "carousel" else "simple", game=game)
    aec, vec = _rollout(Runner, spec, opponent), _rollout(VectorRunner, spec, opponent)
    assert vec.decisions == aec.decisions and aec.decisions >= 60
    for a, v in zip(aec.trajectories, vec.trajectories, strict=True):
        assert len(a.hidden) == len(a.actions) and a.actions == v.actions
        np.testing.assert_array_equal(np.stack(a.hidden), np.stack(v.hidden))
        assert np.stack(a.hidden).sum(axis=1).max() > 0  # cards the learner cannot see (a hand may be all melded)


LAYOUT_SPEC = EnvSpec.of(2, game="gin_rummy")


def _agent(**heads) -> Agent:
    torch.manual_seed(0)
    lay, fixed = shape_for(LAYOUT_SPEC)
    return Agent(lay, 32, 16, fixed, hidden_width=HIDDEN_WIDTH, **heads)


def test_the_state_critic_reads_the_hidden_cards_and_the_policy_does_not():
    agent = _agent(state_critic=True)
    obs = torch.rand(4, agent.layout.size)
    one, other = torch.zeros(4, HIDDEN_WIDTH), torch.rand(4, HIDDEN_WIDTH)
    assert not torch.allclose(agent.get_value(obs, one), agent.get_value(obs, other))
    assert torch.equal(agent.logits(obs), _agent(state_critic=True).logits(obs))
    with pytest.raises(ValueError, match="critic reads the hidden cards"):
        agent.get_value(obs)
    plain = _agent()
    assert plain.hidden_width == 0 and plain.spec()["state_critic"] is False
    with pytest.raises(ValueError, match="needs the hidden cards' width"):
        Agent(agent.layout, 32, 16, agent.num_fixed_actions, hidden_width=0, predicts_hidden=True)


def test_heads_survive_the_spec_and_old_specs_build_plain_networks():
    agent = _agent(state_critic=True, predicts_hidden=True)
    rebuilt = Agent.from_spec(agent.spec())
    assert (rebuilt.hidden_width, rebuilt.state_critic, rebuilt.predicts_hidden) == (HIDDEN_WIDTH, True, True)
    old = {k: v for k, v in agent.spec().items() if k not in ("hidden_width", "state_critic", "predicts_hidden")}
    assert not Agent.from_spec(old).state_critic


def test_a_network_with_heads_starts_from_one_without():
    plain, heads = _agent(), _agent(state_critic=True, predicts_hidden=True)
    fresh = heads.load_shared(plain)
    assert "value_head.weight" in fresh and any(k.startswith("hidden_head") for k in fresh)
    assert torch.equal(heads.trunk[0].weight, plain.trunk[0].weight)


def test_the_hidden_loss_is_the_summed_cross_entropy():
    hidden = torch.tensor([[1.0, 0.0, 0.5]])
    confident = torch.tensor([[20.0, -20.0, 0.0]])
    assert hidden_loss(confident, hidden).item() == pytest.approx(np.log(2), abs=1e-6)  # only the 0.5 entry is left
    assert hidden_loss(torch.zeros(1, 3), hidden).item() == pytest.approx(3 * np.log(2))


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"critic": "oracle"}, "config key 'critic': must be one of observation, state"),
        ({"hidden_coef": -0.5}, "config key 'hidden_coef': must be a finite number >= 0"),
    ],
)
def test_bad_keys_are_named(values, message):
    with pytest.raises(ConfigError, match=message):
        from_dict(values)


def _gin(*extra: str):
    base = ["game=gin_rummy", "env.preset=openspiel", "num_envs=4", "num_steps=16", "total_timesteps=256"]
    base += ["eval_games=0", "hidden_size=32", "slot_hidden_size=16", "critic=state", "hidden_coef=0.5"]
    return load_config(None, [*base, *extra])


@pytest.mark.training
def test_a_run_with_both_heads_trains_logs_and_resumes_exactly(tmp_path):
    config = _gin("checkpoint_interval=1")
    train(config, tmp_path / "straight")
    train(config, tmp_path / "pieces", max_updates=2)
    train(config, tmp_path / "pieces", resume=True)
    straight = checkpoint.load(tmp_path / "straight" / "latest.pt")
    pieces = checkpoint.load(tmp_path / "pieces" / "latest.pt")
    assert all(torch.equal(straight["model"][k], pieces["model"][k]) for k in straight["model"])
    assert straight["spec"]["state_critic"] and straight["spec"]["predicts_hidden"]
    assert "losses/hidden_loss" in (tmp_path / "straight" / "metrics.csv").read_text()
    with pytest.raises(checkpoint.CheckpointError, match="keeps its network's heads"):
        train(_gin("critic=observation"), tmp_path / "pieces", resume=True)
    # It plays as any network (its policy reads the observation), but offers a search no value.
    policy = load_network_policy(str(tmp_path / "straight"), shape_for(LAYOUT_SPEC)[0], greedy=True)
    obs = np.zeros((1, policy.agent.layout.size), np.float32)
    mask = np.zeros((1, policy.agent.num_fixed_actions + policy.agent.layout.num_slots), np.int8)
    mask[0, 3] = 1
    assert policy.act(obs, mask).tolist() == [3]
    with pytest.raises(checkpoint.CheckpointError, match="critic reads the other hands"):
        network_value(str(tmp_path / "straight"))
