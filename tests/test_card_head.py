"""The network's card head (config key ``card_head``): each game's discards scored card by card
from the observation's card channels, kept in checkpoints, refused where a game has no discards."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from carousel_cli.main import main
from carousel_env.envkit.layout import CardActions, ObservationLayout, card_actions
from training import checkpoint
from training.config import ConfigError, from_dict, load_config
from training.envs import EnvSpec, make_env, shape_for
from training.games import training_game
from training.network import Agent
from training.ppo import train

CARD_GAMES = ("gin_rummy", "carioca", "kaluki", "conquian")


@pytest.mark.parametrize("game", CARD_GAMES)
def test_a_legal_discard_is_a_card_of_the_hand_channel(game):
    """The card actions line up with the card channels: wherever discarding card ``c`` is legal,
    the first card channel (every game's own hand) holds ``c``."""
    cards = training_game(game).card_actions
    layout, fixed = shape_for(EnvSpec.of(2, game=game))
    assert cards.first_action + cards.num_cards <= fixed
    assert all(s >= 0 and s + cards.num_cards <= layout.global_size for s in cards.channel_starts)
    env = make_env(EnvSpec.of(2, game=game))
    env.reset(seed=5)
    rng = np.random.default_rng(5)
    seen = 0
    for agent in env.agent_iter(max_iter=400):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        for action in legal[(legal >= cards.first_action) & (legal < cards.first_action + cards.num_cards)]:
            card = action - cards.first_action
            assert obs["observation"][cards.channel_starts[0] + card] > 0, (game, agent, card)
            seen += 1
        env.step(int(rng.choice(legal)))
    assert seen > 20


def test_card_channels_are_those_as_wide_as_the_deck_and_a_bad_width_is_named():
    channels = (("hand", 4), ("seats", 3), ("pile", 4))
    assert card_actions(channels, 2, 4) == CardActions(2, 4, (0, 7))
    assert CardActions.from_dict(CardActions(2, 4, (0, 7)).as_dict()) == CardActions(2, 4, (0, 7))
    with pytest.raises(ValueError, match="5 cards wide"):
        card_actions(channels, 2, 5)
    layout = ObservationLayout(11, 2, 3)
    with pytest.raises(ValueError, match="among the 5 fixed actions"):
        Agent(layout, 8, 8, 5, card_actions=CardActions(2, 4, (0, 7)))
    with pytest.raises(ValueError, match="global block"):
        Agent(layout, 8, 8, 6, card_actions=CardActions(2, 4, (0, 8)))


def test_one_rule_scores_every_card_alike():
    """With the shared features held fixed, swapping two cards' channel values and their
    learned vectors swaps their logits, and leaves every other action's logit as it was."""
    torch.manual_seed(0)
    cards = CardActions(1, 6, (0, 6))
    agent = Agent(ObservationLayout(14, 2, 3), 16, 8, 8, card_actions=cards)
    for p in agent.global_encoder.parameters():
        p.data.zero_()  # the shared features no longer depend on the observation
    obs = torch.rand(3, 14 + 2 * 3)
    swapped = obs.clone()
    for start in cards.channel_starts:
        swapped[:, [start + 1, start + 4]] = obs[:, [start + 4, start + 1]]
    before = agent.logits(obs)
    with torch.no_grad():
        agent.card_embedding[[1, 4]] = agent.card_embedding[[4, 1]].clone()
    after = agent.logits(swapped)
    torch.testing.assert_close(after[:, 1 + 1], before[:, 1 + 4])
    torch.testing.assert_close(after[:, 1 + 4], before[:, 1 + 1])
    others = [0, 1, 3, 4, 6, 7, 8, 9]  # the fixed actions, the other cards, the slots
    torch.testing.assert_close(after[:, others], before[:, others])


def _fit(agent: Agent, obs: torch.Tensor, targets: torch.Tensor, steps: int) -> None:
    optimizer = torch.optim.Adam(agent.parameters(), lr=3e-3)
    for _ in range(steps):
        loss = torch.nn.functional.cross_entropy(agent.logits(obs)[:, :12], targets)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def test_a_rule_of_the_cards_is_learnt_from_fewer_examples():
    """The teacher discards the card with the highest value in a channel. From 200 examples the
    card head learns the rule for every card; the trunk's separate outputs, one per card, each
    learnt from the few examples whose answer is that card, do far worse."""
    rng = np.random.default_rng(0)
    layout = ObservationLayout(24, 1, 2)

    def examples(count: int) -> tuple[torch.Tensor, torch.Tensor]:
        obs = np.zeros((count, layout.size), np.float32)
        values = rng.random((count, 12))
        obs[:, :12] = 1.0  # every card in hand
        obs[:, 12:24] = values
        return torch.from_numpy(obs), torch.from_numpy(values.argmax(axis=1))

    train, test = examples(200), examples(500)
    accuracy = {}
    for head in (True, False):
        torch.manual_seed(1)
        agent = Agent(layout, 32, 16, 12, card_actions=CardActions(0, 12, (0, 12)) if head else None)
        _fit(agent, *train, steps=300)
        with torch.no_grad():
            accuracy[head] = (agent.logits(test[0])[:, :12].argmax(-1) == test[1]).float().mean().item()
    assert accuracy[True] > 0.75 and accuracy[False] < 0.55, accuracy


def test_a_card_head_is_refused_where_a_game_has_no_discards():
    assert from_dict({"game": "conquian", "card_head": True}).card_head
    with pytest.raises(ConfigError, match="'card_head': carousel has no card actions"):
        from_dict({"game": "carousel", "card_head": True})
    from training.rllib.config import from_dict as rllib_from_dict

    with pytest.raises(ConfigError, match="'card_head': carousel has no card actions"):
        rllib_from_dict({"game": "carousel", "card_head": True})


@pytest.mark.training
def test_imitation_with_a_card_head_saves_it_and_init_keeps_it(tmp_path, capsys):
    argv = ["imitate", "--game", "conquian", "--teacher", "simple", "--decisions", "300", "--epochs", "1"]
    assert main([*argv, "--card-head", "--out", str(tmp_path / "first")]) == 0
    first = checkpoint.load(tmp_path / "first" / "latest.pt")
    assert first["config"]["card_head"] is True
    agent = checkpoint.build_agent(first, tmp_path / "first" / "latest.pt")
    assert agent.card_actions == training_game("conquian").card_actions
    argv = ["imitate", "--teacher", "simple", "--decisions", "100", "--epochs", "0"]
    assert main([*argv, "--init", str(tmp_path / "first"), "--out", str(tmp_path / "again")]) == 0
    again = checkpoint.load(tmp_path / "again" / "latest.pt")
    assert again["config"]["card_head"] is True
    torch.testing.assert_close(again["model"]["card_embedding"], first["model"]["card_embedding"])


@pytest.mark.training
def test_a_ppo_run_with_a_card_head_trains_and_resumes_only_with_it(tmp_path):
    base = ["game=carioca", "env.episode=round", "num_envs=4", "num_steps=16", "total_timesteps=128"]
    base += ["eval_games=0", "hidden_size=32", "slot_hidden_size=16", "checkpoint_interval=1"]
    train(load_config(None, [*base, "card_head=true"]), tmp_path, max_updates=1)
    saved = checkpoint.load(tmp_path / "latest.pt")
    assert CardActions.from_dict(saved["spec"]["card_actions"]) == training_game("carioca").card_actions
    with pytest.raises(checkpoint.CheckpointError, match="keeps its network's card head"):
        train(load_config(None, base), tmp_path, resume=True)
    train(load_config(None, [*base, "card_head=true"]), tmp_path, resume=True)
    assert checkpoint.load(tmp_path / "latest.pt")["counters"] != saved["counters"]


@pytest.mark.training
def test_a_network_with_a_card_head_starts_only_a_run_that_keeps_it(tmp_path):
    from training.exploit import exploit_config

    base = ["game=carioca", "env.episode=round", "num_envs=4", "num_steps=16", "total_timesteps=64", "eval_games=0"]
    base += ["hidden_size=32", "slot_hidden_size=16"]
    train(load_config(None, [*base, "card_head=true"]), tmp_path / "headed")
    start = f"init_checkpoint={tmp_path / 'headed'}"
    with pytest.raises(checkpoint.CheckpointError, match=r"'card_head': .* set card_head: true"):
        train(load_config(None, [*base, start]), tmp_path / "plain")
    train(load_config(None, [*base, start, "card_head=true"]), tmp_path / "kept")
    # A head would replace the discards a network without one learnt in its trunk: refused too.
    train(load_config(None, base), tmp_path / "headless")
    headless = f"init_checkpoint={tmp_path / 'headless'}"
    with pytest.raises(checkpoint.CheckpointError, match=r"'card_head': .* has no card head; set card_head: false"):
        train(load_config(None, [*base, headless, "card_head=true"]), tmp_path / "headed_from_headless")
    kept, headed = (checkpoint.load(tmp_path / name / "latest.pt") for name in ("kept", "headed"))
    assert kept["spec"]["card_actions"] == headed["spec"]["card_actions"]
    # A best response warm-started from it is that network, head and all.
    assert exploit_config(str(tmp_path / "headed"), 1000, warm_start=True).card_head
    assert not exploit_config(str(tmp_path / "headed"), 1000).card_head
