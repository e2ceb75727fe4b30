"""``carousel demo``: a whole printed game, its policy names and its errors."""

from __future__ import annotations

import pytest

from carousel_cli.main import main


def test_demo_plays_a_whole_game_with_a_search_player(capsys):
    assert main(["demo", "--players", "2", "--seed", "3", "--policy", "search@1", "smart"]) == 0
    out = capsys.readouterr().out
    assert "player 0: plays" in out and "player 1: plays" in out
    assert "game over" in out.lower()


def test_demo_names_an_unknown_policy_and_the_known_ones(capsys):
    with pytest.raises(SystemExit):
        main(["demo", "--policy", "cleverest"])
    err = capsys.readouterr().err
    assert "unknown policy 'cleverest'" in err and "smart" in err and "search@N" in err


def test_demo_wants_one_policy_or_one_per_player():
    with pytest.raises(SystemExit, match=r"one per player \(3\), got 2"):
        main(["demo", "--players", "3", "--policy", "greedy", "smart"])


def test_demo_plays_gin_rummy(capsys):
    assert main(["demo", "--game", "gin_rummy", "--preset", "openspiel", "--policy", "greedy", "random"]) == 0
    out = capsys.readouterr().out
    assert "Gin Rummy, hand 1" in out and "Game over" in out and "player 0: " in out


def test_demo_plays_carioca(capsys):
    assert main(["demo", "--game", "carioca", "--players", "3", "--policy", "simple", "simple", "random"]) == 0
    out = capsys.readouterr().out
    assert "Round 1: 2 trios" in out and "Round 6 over" in out and "Game over: totals" in out and "go down" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--game", "carioca", "--players", "6"], "2 to 5 players"),
        (["--game", "carioca", "--policy", "smart"], "unknown Carioca player 'smart'"),
        (["--game", "carioca", "--variant", "carousel"], "--variant is not a Carioca option"),
        (["--game", "carioca", "--policy", "simple", "random", "random"], "one name or one per player (2), got 3"),
        (["--game", "gin_rummy", "--players", "3"], "--players is a Carousel option"),
        (["--game", "gin_rummy", "--policy", "smart"], "unknown Gin Rummy player 'smart'"),
        (["--game", "gin_rummy", "--policy", "greedy", "greedy", "random"], "one name or two"),
        (["--preset", "openspiel"], "--preset is a Gin Rummy option"),
    ],
)
def test_demo_options_belong_to_their_game(argv, message, capsys):
    try:
        code = main(["demo", *argv])
    except SystemExit as exc:
        code, text = exc.code, str(exc)
    else:
        text = capsys.readouterr().err
    assert code != 0 and message in text + capsys.readouterr().err
