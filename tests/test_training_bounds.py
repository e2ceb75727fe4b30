"""Training never loops forever, and says what total_timesteps trains (issue 57): a policy that
always takes the discard pile's top card ends its episodes (the games bound them), an
episode past the rollout's cap raises an error naming the game and the cap, and a tiny run
prints how far its rollouts go past their target."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
import torch

from carousel_env.envkit.episodes import Episode
from carousel_env.games.carioca.env import CariocaAction
from carousel_env.games.carioca.rules import NUM_ROUNDS, PILE_DRAW_LIMIT
from carousel_env.games.gin_rummy.engine import HandEnd
from carousel_env.games.gin_rummy.env import GinAction
from carousel_env.games.gin_rummy.rules import UPCARD_DRAW_LIMIT
from training import checkpoint, rollout
from training.config import load_config
from training.envs import EnvSpec
from training.policies import LEARNER
from training.ppo import train
from training.rollout import EpisodeCapError, collect_rollout
from training.runners import Driver

CONFIGS = Path(__file__).resolve().parent.parent / "configs"


class TakeTheTop:
    """A learner that takes the pile's top whenever it may, else makes its lowest discard:
    it never knocks, goes down or draws from the stock."""

    def __init__(self, take: int, first_discard: int, last_discard: int) -> None:
        self.take, self.first, self.last = take, first_discard, last_discard

    def choose(self, mask: np.ndarray) -> int:
        if mask[self.take]:
            return self.take
        return self.first + int(np.flatnonzero(mask[self.first : self.last])[0])

    def get_action_and_value(self, obs: torch.Tensor, masks: torch.Tensor):
        actions = torch.tensor([self.choose(m) for m in masks.numpy()])
        zeros = torch.zeros(len(actions))
        return actions, zeros, zeros, zeros


def _rollout(spec: EnvSpec, agent, target: int = 1):
    driver = Driver(spec, num_envs=1)
    seeds = iter(range(40, 50))
    try:
        return collect_rollout(driver, agent, {}, lambda: Episode(next(seeds), (LEARNER, LEARNER)), target=target)
    finally:
        driver.close()


def test_a_gin_hand_of_upcard_draws_ends_in_a_rollout():
    agent = TakeTheTop(GinAction.TAKE_UPCARD, GinAction.FIRST_DISCARD, GinAction.FIRST_KNOCK)
    done = _rollout(EnvSpec.of(2, game="gin_rummy", preset="book", episode="hand"), agent)
    ((hand,),) = [r.rounds for r in done.results]
    assert hand.end is HandEnd.UPCARD_LIMIT and hand.points == (0, 0)
    assert done.decisions == 2 * UPCARD_DRAW_LIMIT + 1


def test_a_carioca_game_of_pile_draws_ends_in_a_rollout():
    agent = TakeTheTop(CariocaAction.TAKE_DISCARD, CariocaAction.FIRST_DISCARD, CariocaAction.FIRST_LAY_OFF)
    done = _rollout(EnvSpec.of(2, game="carioca", episode="game"), agent)
    (result,) = done.results
    assert len(result.rounds) == NUM_ROUNDS
    assert done.decisions == NUM_ROUNDS * 2 * PILE_DRAW_LIMIT  # every turn a take and a discard


def test_an_episode_past_the_cap_raises_naming_the_game_and_the_cap(monkeypatch):
    monkeypatch.setattr(rollout, "MAX_EPISODE_ENV_STEPS", 50)
    agent = TakeTheTop(GinAction.TAKE_UPCARD, GinAction.FIRST_DISCARD, GinAction.FIRST_KNOCK)
    named = r"an episode of gin_rummy \(game copy 0, seed 40\).*cap of 50 "
    with pytest.raises(EpisodeCapError, match=named) as caught:
        _rollout(EnvSpec.of(2, game="gin_rummy", preset="book"), agent)
    assert caught.value.steps == 51


def test_a_tiny_run_prints_how_far_its_rollouts_go_past_total_timesteps(tmp_path, capsys):
    # A Gin episode takes tens of learner decisions: each copy finishes one, far past 2 x 4.
    config = load_config(
        CONFIGS / "smoke.yaml",
        ["game=gin_rummy", "num_envs=2", "num_steps=4", "total_timesteps=16", "eval_games=0", "baselines=random"],
    )
    assert (config.batch_target, config.num_updates) == (8, 2)
    train(config, tmp_path / "run")
    out = capsys.readouterr().out
    trained = checkpoint.load(tmp_path / "run" / "latest.pt")["counters"]["global_step"]
    assert trained > 2 * config.total_timesteps
    note = re.search(
        r"the rollout trained ([\d,]+) learner decisions for a target of 8 \(num_envs 2 x num_steps 4\)", out
    )
    first = int(note.group(1).replace(",", ""))
    assert f"so total_timesteps 16 (2 updates) will train about {2 * first:,} (" in out
    assert f"carousel train: {trained:,} learner decisions trained in 2 updates (total_timesteps 16" in out
