"""``carousel demo``: a whole printed game, its policy names and its errors."""

from __future__ import annotations

import pytest

from carousel_cli.main import main


def test_demo_plays_a_whole_game_with_a_search_player(capsys):
    assert main(["demo", "--players", "2", "--seed", "3", "--policy", "search@1", "smart"]) == 0
    out = capsys.readouterr().out
    assert "player 0 plays" in out and "player 1 plays" in out
    assert "game over" in out.lower()


def test_demo_names_an_unknown_policy_and_the_known_ones(capsys):
    assert main(["demo", "--policy", "cleverest"]) == 2
    err = capsys.readouterr().err
    assert "unknown policy 'cleverest'" in err and "smart" in err and "search@" in err


def test_demo_wants_one_policy_or_one_per_player(capsys):
    assert main(["demo", "--players", "3", "--policy", "greedy", "smart"]) == 2
    assert "one per player (3), got 2" in capsys.readouterr().err


def test_demo_plays_gin_rummy(capsys):
    assert main(["demo", "--game", "gin_rummy", "--variant", "openspiel", "--policy", "greedy", "random"]) == 0
    out = capsys.readouterr().out
    assert "Gin Rummy, hand 1" in out and "Game over" in out and "player 0 " in out


def test_demo_reads_gins_older_preset_flag(capsys):
    assert main(["demo", "--game", "gin_rummy", "--preset", "openspiel", "--policy", "random"]) == 0
    assert "hand over" in capsys.readouterr().out


def test_demo_plays_carioca(capsys):
    assert main(["demo", "--game", "carioca", "--players", "3", "--policy", "simple", "simple", "random"]) == 0
    out = capsys.readouterr().out
    assert "Round 1: 2 trios" in out and "round 6 over" in out and "Game over: " in out and "goes down" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--game", "carioca", "--players", "6"], "Carioca is played by 2 to 5 players, got 6"),
        (["--game", "carioca", "--policy", "smart"], "unknown Carioca policy 'smart'"),
        (["--game", "carioca", "--variant", "carousel"], "--variant: Carioca has no variants"),
        (["--game", "carioca", "--policy", "simple", "random", "random"], "one name or one per player (2), got 3"),
        (["--game", "gin_rummy", "--players", "3"], "Gin Rummy is played by 2 players, got 3"),
        (["--game", "gin_rummy", "--policy", "smart"], "unknown Gin Rummy policy 'smart'"),
        (["--game", "gin_rummy", "--round-bonus", "everyone"], "--round-bonus: Gin Rummy has no such option"),
        (["--game", "gin_rummy", "--policy", "greedy", "greedy", "random"], "one name or one per player (2), got 3"),
        (["--preset", "openspiel"], "--variant: carousel env config 'variant': unknown variant 'openspiel'"),
    ],
)
def test_demo_options_belong_to_their_game(argv, message, capsys):
    assert main(["demo", *argv]) == 2
    assert message in capsys.readouterr().err
