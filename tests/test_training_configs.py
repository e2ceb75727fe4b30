"""Every config in configs/ trains, at a tiny budget, in the game and variant it names: the
in-house trainer's configs here and RLlib's beside them, each through the real env, the
evaluation included (every registered game and variant has one of each)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from carousel_env.core.registry import GAMES
from training import checkpoint
from training.config import load_config
from training.evaluate import evaluate
from training.ppo import train

CONFIGS = Path(__file__).resolve().parent.parent / "configs"
INHOUSE = ["default", "four_player", "manipulation_rummy", "gin", "carioca", "kaluki", "rummy", "conquian"]
RLLIB = [
    "rllib_2p",
    "rllib_manipulation_rummy",
    "rllib_gin",
    "rllib_carioca",
    "rllib_kaluki",
    "rllib_rummy",
    "rllib_conquian",
]
TINY = ["total_timesteps=48", "num_envs=2", "num_steps=16", "eval_games=2", "progress_bar=false"]
# configs/rllib_smoke.yaml's budget, over each RLlib config.
RLLIB_TINY = [
    "num_env_runners=0",
    "num_envs_per_env_runner=1",
    "iterations=1",
    "train_batch_size=200",
    "minibatch_size=64",
    "num_epochs=1",
    "hidden_size=16",
    "slot_hidden_size=8",
    "pool_size=2",
    "snapshot_interval=1",
    "eval_games=2",
]


def _game_and_variant(config) -> tuple[str, str | None]:
    variant_key = config.family().variant_key
    return config.game, None if variant_key is None else config.resolved_env()[variant_key]  # None: no variants


def test_every_game_and_variant_has_a_config_for_each_trainer():
    covered = {_game_and_variant(load_config(CONFIGS / f"{name}.yaml")) for name in INHOUSE}
    from training.rllib.config import load_config as load_rllib_config

    covered_rllib = {_game_and_variant(load_rllib_config(CONFIGS / f"{name}.yaml")) for name in RLLIB}
    every = {(name, variant) for name, spec in GAMES.items() for variant in spec.variants or [None]}
    # Gin Rummy's presets are one game's rules: one config of the family's presets covers it;
    # Kaluki's UK presets are Kaluki's too, and its preset rummy is plain Rummy, a game of its own.
    # Conquian's presets are one game's rules too.
    one_config = {"gin_rummy": {"openspiel"}, "kaluki": {"book", "rummy"}, "conquian": {"book"}}
    expected = {(g, v) for g, v in every if v in one_config.get(g, {v})}
    assert expected <= covered and expected <= covered_rllib


@pytest.mark.training
@pytest.mark.parametrize("name", INHOUSE)
def test_each_in_house_config_trains_and_evaluates_in_its_game(name, tmp_path):
    config = load_config(CONFIGS / f"{name}.yaml", TINY)
    run = train(config, tmp_path / name)
    data = checkpoint.load(run / "latest.pt")
    assert data["config"]["game"] == config.game and data["counters"]["update"] >= 1
    # The checkpoint is evaluated in the env it learned, against one of its game's players.
    opponent = config.evaluation_opponent()
    result = evaluate(str(run), opponent, games=config.num_players, num_players=config.num_players)
    assert result.games == config.num_players and 0.0 <= result.win_rate <= 1.0


@pytest.mark.integration
@pytest.mark.training
@pytest.mark.xdist_group("ray")
@pytest.mark.parametrize("name", RLLIB)
def test_each_rllib_config_trains_and_evaluates_in_its_game(name, tmp_path, shared_ray):
    from training.rllib.config import load_config as load_rllib_config
    from training.rllib.train import train as train_rllib

    config = load_rllib_config(CONFIGS / f"{name}.yaml", RLLIB_TINY)
    lines: list[str] = []
    summary = train_rllib(config, tmp_path / name, log=lines.append)
    assert summary.iteration == 1 and summary.last_eval is not None
    # On the Ray instance already running, which it leaves running: it is the caller's.
    assert "using the Ray instance this process already runs" in lines and shared_ray.is_initialized()
    assert checkpoint.load(tmp_path / name / "latest.pt")["rllib_config"]["game"] == config.game


@pytest.mark.integration
@pytest.mark.training
def test_a_gin_checkpoint_is_evaluated_in_its_game_and_inside_openspiel(tmp_path, capsys):
    from carousel_cli.main import main

    run = train(load_config(CONFIGS / "gin.yaml", TINY), tmp_path / "gin")
    capsys.readouterr()
    # Its own game and rules, read from the checkpoint: Gin Rummy under OpenSpiel's preset.
    assert main(["eval", "--checkpoint", str(run), "--opponents", "simple,greedy", "--games", "4", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["games"] == 4 and set(result["by_opponent"]) == {"simple", "greedy"}
    # OpenSpiel's own bot, in OpenSpiel's game, the network acting through our env.
    assert main(["eval", "--checkpoint", str(run), "--opponents", "openspiel:simple", "--games", "2", "--json"]) == 0
    [match] = json.loads(capsys.readouterr().out)["matches"]
    assert match["agent"] == str(run) and match["opponent"] == "openspiel:simple"
    assert [hand["seat"] for hand in match["hands"]] == [0, 1]  # one deal, from both seats
    # Carousel's players are not Gin's, and Carousel's rules are not a Gin checkpoint's.
    assert main(["eval", "--checkpoint", str(run), "--opponents", "smart", "--games", "2"]) == 2
    assert "unknown Gin Rummy policy 'smart'" in capsys.readouterr().err
    assert main(["eval", "--checkpoint", str(run), "--game", "carousel", "--games", "2"]) == 2
    assert "was trained on gin_rummy at 2 players (preset='openspiel'" in capsys.readouterr().err
