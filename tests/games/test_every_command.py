"""Every command of the command line, for every registered game, at a tiny budget: one tiny
in-house training run per game, then ``eval``, ``tournament``, ``exploit``, ``leaderboard``,
``imitate``, ``export``, ``demo`` and ``play`` on it. (Both trainers on every game's configs:
``tests/test_training_configs.py``; a whole game played at the terminal: each game's
``test_cli_play_*``.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from carousel_cli.main import main
from carousel_env.core.registry import GAMES
from carousel_env.envkit.family import family_game

# Every test starts from a tiny training run (the trained fixture, one per game): one worker
# runs them all, so that each game trains once.
pytestmark = [pytest.mark.training, pytest.mark.xdist_group("every_command")]

CONFIGS = Path(__file__).resolve().parents[2] / "configs"
TINY = ["--set", "total_timesteps=64", "--set", "num_envs=2", "--set", "eval_games=0"]


@pytest.fixture(scope="module", params=sorted(GAMES))
def trained(request, tmp_path_factory) -> tuple[str, Path]:
    """A game and a tiny run of it."""
    game = request.param
    run = tmp_path_factory.mktemp(f"run_{game}")
    assert main(["train", "--config", str(CONFIGS / "smoke.yaml"), "--game", game, "--out", str(run), *TINY]) == 0
    return game, run


def test_eval_tournament_and_export(trained, tmp_path, capsys):
    game, run = trained
    yardstick = family_game(game).yardsticks[0]
    assert main(["eval", "--checkpoint", str(run), "--opponents", yardstick, "--games", "2", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["games"] == 2 and result["game"] == game
    out = tmp_path / "tournament"
    assert main(["tournament", "--agents", f"{run},{yardstick}", "--games", "2", "--out", str(out)]) == 0
    assert json.loads((out / "tournament.json").read_text())
    slim = tmp_path / "slim" / "model.pt"
    assert main(["export", "--checkpoint", str(run), "--out", str(slim)]) == 0
    capsys.readouterr()
    assert main(["eval", "--checkpoint", str(slim.parent), "--opponents", yardstick, "--games", "2", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["game"] == game
    # The report names each event by the game's own word, and only the events the game has.
    assert main(["eval", "--checkpoint", str(run), "--opponents", yardstick, "--games", "2"]) == 0
    report = capsys.readouterr().out
    names = [name for name in family_game(game).event_names if name]
    assert all(f"{name} rate" in report for name in names) and "  rate" not in report and "( " not in report


def test_exploit(trained, tmp_path):
    game, run = trained
    out = tmp_path / "exploit"
    argv = ["exploit", "--checkpoint", str(run), "--budget", "64", "--eval-games", "2", "--evaluations", "1"]
    assert main([*argv, "--out", str(out)]) == 0
    report = json.loads((out / "exploit.json").read_text())
    assert report["game"] == game and report["env"]["episode"] == family_game(game).unit


def test_leaderboard(trained, tmp_path):
    game, run = trained
    page = tmp_path / "lb.md"
    agents = f"{run},{family_game(game).yardsticks[0]}"
    argv = ["leaderboard", "--game", game, "--agents", agents, "--heads-up-games", "2", "--four-player-games", "0"]
    assert main([*argv, "--out", str(page), "--no-readme"]) == 0
    assert "Heads-up" in page.read_text()


def test_imitate(trained, tmp_path):
    game, _ = trained
    teacher = family_game(game).yardsticks[-1]
    out = tmp_path / "imitate"
    argv = ["imitate", "--game", game, "--teacher", teacher, "--decisions", "200", "--epochs", "1"]
    assert main([*argv, "--out", str(out)]) == 0
    assert (out / "latest.pt").is_file()


def test_demo_and_play(trained, monkeypatch, capsys):
    game, run = trained
    assert main(["demo", "--game", game, "--seed", "1"]) == 0
    assert "Game over" in capsys.readouterr().out
    answers = iter(["not a key", "q"])
    monkeypatch.setattr("builtins.input", lambda prompt: next(answers))
    assert main(["play", "--checkpoint", str(run), "--seed", "1"]) == 0  # the game is the checkpoint's
    out = capsys.readouterr().out
    assert f"{GAMES[game].title}." in out and "Your choices:" in out and "not a choice here" in out
