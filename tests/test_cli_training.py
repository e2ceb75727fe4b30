"""End to end on the real environment, through the ``carousel`` command line."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import numpy as np
import pytest

from carousel_cli.main import main
from carousel_cli.play import play
from carousel_env.games.carousel.agents.search import SearchPlayer
from carousel_env.games.carousel.terminal import TYPED
from training.checkpoint import load

CONFIGS = Path(__file__).resolve().parent.parent / "configs"


@pytest.mark.training
def test_smoke_train_then_eval_and_errors(tmp_path, capsys):
    run = tmp_path / "run"
    code = main(
        [
            "train",
            "--config",
            str(CONFIGS / "smoke.yaml"),
            "--out",
            str(run),
            "--set",
            "eval_games=0",
            "--set",
            "total_timesteps=64",
            "--set",
            "num_envs=2",
        ]
    )
    assert code == 0
    for name in ("latest.pt", "config.yaml", "metrics.csv", "learning_curves.png"):
        assert (run / name).exists(), name
    assert "charts/SPS" in (run / "metrics.csv").read_text()
    # the run's last lines: what was trained, how strong it is, what to do next
    out = capsys.readouterr().out
    assert "trained: Carousel, 2 players, self-play PPO for " in out
    assert "no evaluation in this run (eval_games=0)" in out
    assert f"carousel eval --checkpoint {run}" in out and f"carousel play --checkpoint {run}" in out
    assert f"carousel train --resume --out {run} --set total_timesteps=128" in out
    assert (
        main(["eval", "--checkpoint", str(run / "latest.pt"), "--opponents", "random", "--games", "2", "--json"]) == 0
    )
    result = json.loads(capsys.readouterr().out)
    assert result["games"] == 2 and 0.0 <= result["win_rate"] <= 1.0
    lo, hi = result["win_rate_ci"]
    assert 0.0 <= lo <= result["win_rate"] <= hi <= 1.0
    for key in ("mean_round_score_diff", "knock_rate", "go_out_rate", "undercut_rate", "win_rate_ci_deals"):
        assert key in result
    assert result["fair_share"] == 0.5 and result["deals"] == 1
    # export: a smaller file holding only the network, which eval reads like the full one
    slim = tmp_path / "shipped" / "model.pt"
    assert main(["export", "--checkpoint", str(run), "--out", str(slim)]) == 0
    assert slim.stat().st_size < (run / "latest.pt").stat().st_size
    umask = os.umask(0)
    os.umask(umask)
    assert slim.stat().st_mode & 0o777 == 0o666 & ~umask  # a plain file's mode, not mkstemp's 0600
    capsys.readouterr()
    assert main(["eval", "--checkpoint", str(slim), "--opponents", "random", "--games", "2", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["win_rate"] == result["win_rate"]
    # a shipped agent's folder (model.pt, no latest.pt) names its model
    assert main(["eval", "--checkpoint", str(slim.parent), "--opponents", "random", "--games", "2", "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["win_rate"] == result["win_rate"]
    # 1 deal: the interval over deals is flagged (on stderr, so --json stays one object)
    assert "1 deal is too few to trust the interval over deals" in captured.err
    assert main(["export", "--checkpoint", str(tmp_path / "missing.pt"), "--out", str(tmp_path / "x.pt")]) == 2
    assert not (tmp_path / "x.pt").exists()
    # errors are reported, not raised: bad config key, corrupt checkpoint, unknown agent
    assert main(["train", "--config", str(CONFIGS / "smoke.yaml"), "--set", "nope=1", "--out", str(tmp_path)]) == 2
    (tmp_path / "bad.pt").write_bytes(b"junk")
    assert main(["eval", "--checkpoint", str(tmp_path / "bad.pt"), "--games", "2"]) == 2
    assert main(["eval", "--checkpoint", "no_such_agent", "--games", "2"]) == 2
    err = capsys.readouterr().err
    assert "nope" in err and "corrupt" in err and "no_such_agent" in err


def test_parse_choice_only_accepts_legal_actions():
    mask = np.array([1, 0, 1, 1, 0], np.int8)
    assert TYPED.parse("d", mask) == 0 and TYPED.parse(" E ", mask) == 2 and TYPED.parse("1", mask) == 3
    for bad in ("k", "2", "0", "99", "x", "", "-1"):
        assert TYPED.parse(bad, mask) is None


def test_play_survives_bad_input_and_exits_on_eof():
    answers = iter(["hello", "42", "", "d", "e", "1"])
    out = io.StringIO()

    def fake_input(prompt):
        try:
            return next(answers)
        except StopIteration:
            raise EOFError from None

    assert play(["random"], num_players=2, seat=0, seed=1, input_fn=fake_input, out=out) == 0
    text = out.getvalue()
    assert "Your choices" in text and "not a choice here" in text and "bye" in text


def test_play_against_the_search_player_hands_it_its_seat_view(monkeypatch):
    seats = []
    decide = SearchPlayer.decide

    def recording_decide(self, view, mask):
        seats.append(view.seat)
        return decide(self, view, mask)

    monkeypatch.setattr(SearchPlayer, "decide", recording_decide)
    answers = iter(["d"] * 30)  # draw whenever asked; quits (end of input) after 30 answers

    def draw_then_quit(prompt):
        try:
            return next(answers)
        except StopIteration:
            raise EOFError from None

    out = io.StringIO()
    assert play(["search@1"], num_players=2, seat=0, seed=3, input_fn=draw_then_quit, out=out) == 0
    assert "player 1 = search@1" in out.getvalue()
    assert seats and set(seats) == {1}


def test_eval_and_tournament_take_the_search_player(capsys, tmp_path):
    shipped = Path(__file__).resolve().parent.parent / "checkpoints" / "ppo_2p"
    assert main(["eval", "--checkpoint", str(shipped), "--opponents", "search@1", "--games", "2", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["games"] == 2 and result["opponents"] == ["search@1"]
    assert main(["tournament", "--agents", "smart,search@1", "--games", "2", "--out", str(tmp_path)]) == 0
    rows = json.loads((tmp_path / "tournament.json").read_text())
    assert {r["agent"]: r["games"] for r in rows} == {"smart": 2, "search@1": 2}


@pytest.mark.parametrize("command", [["tournament", "--agents", "greedy,random", "--games", "2"]])
def test_tournament_table(command, capsys, tmp_path):
    assert main([*command, "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "greedy" in out and "ordinal" in out
    rows = json.loads((tmp_path / "tournament.json").read_text())
    assert {r["agent"] for r in rows} == {"greedy", "random"}
    # Each pair's match in the game's unit, with intervals: Carousel scores rounds.
    assert "points a round" in out and "greedy vs random" in out
    [pair] = json.loads((tmp_path / "tournament_pairs.json").read_text())
    assert (pair["candidate"], pair["opponents"], pair["games"]) == ("greedy", ["random"], 2)
    assert pair["points_per_unit_ci"][0] <= pair["points_per_unit"] <= pair["points_per_unit_ci"][1]


def test_a_gin_tournament_reports_matches_and_hands(capsys, tmp_path):
    argv = ["tournament", "--game", "gin_rummy", "--variant", "eaai", "--agents", "simple,greedy", "--games", "2"]
    assert main([*argv, "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    header = next(line for line in out.splitlines() if line.startswith("pair"))
    assert "points a hand" in header and "gin rate" in header and "undercut rate (of knocks)" in header
    [pair] = json.loads((tmp_path / "tournament_pairs.json").read_text())
    assert pair["game"] == "gin_rummy" and pair["games"] == 2 and pair["rounds"] > 2  # matches of several hands
    assert "greedy vs" not in out and "simple vs greedy" in (tmp_path / "tournament.txt").read_text()


@pytest.mark.parametrize("players", [3, 5])
def test_the_shipped_multi_player_agent_plays_a_rotated_deal(players, capsys):
    shipped = Path(__file__).resolve().parent.parent / "checkpoints" / "ppo_4p"
    args = ["eval", "--checkpoint", str(shipped), "--opponents", "smart", "--players", str(players)]
    assert main([*args, "--games", "1", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    # One deal, played once from every seat.
    assert (result["games"], result["deals"], result["players"]) == (players, 1, players)
    assert result["fair_share"] == pytest.approx(1 / players)


@pytest.mark.parametrize("seat", ["3", "2", "-1"])
def test_play_refuses_a_seat_the_game_does_not_have(seat, capsys):
    # Before, --seat 3 in a heads-up game printed "You are player 3" and let the agents play alone.
    assert main(["play", "--checkpoint", "random", "--players", "2", "--seat", seat]) == 2
    err = capsys.readouterr().err
    assert f"--seat must be a seat from 0 to 1 with 2 players, got {seat}" in err


@pytest.mark.training
def test_the_in_house_trainer_trains_manipulation_rummy(tmp_path):
    """The env keys both trainers embed (``training.config.EnvKeys``) reach the env: a tiny
    run on the Manipulation Rummy variant at 3 players."""
    run = tmp_path / "mr"
    overrides = ["variant=manipulation_rummy", "num_players=3", "eval_games=0", "total_timesteps=48", "num_envs=2"]
    argv = ["train", "--config", str(CONFIGS / "smoke.yaml"), "--out", str(run)]
    for override in overrides:
        argv += ["--set", override]
    assert main(argv) == 0
    saved = (run / "config.yaml").read_text()
    assert "variant: manipulation_rummy" in saved and "num_players: 3" in saved


@pytest.mark.training
def test_a_run_stops_at_the_first_evaluation_that_reaches_stop_win_rate(tmp_path, capsys):
    run = tmp_path / "stop"
    overrides = ["total_timesteps=100000", "eval_interval=1", "eval_opponent=random", "eval_games=20"]
    argv = ["train", "--config", str(CONFIGS / "smoke.yaml"), "--out", str(run), "--set", "stop_win_rate=0.05"]
    for override in overrides:
        argv += ["--set", override]
    assert main(argv) == 0
    assert "reached stop_win_rate 0.05 after" in capsys.readouterr().out
    counters = load(run / "latest.pt")["counters"]
    assert counters["update"] == 1  # of the 100,000 decisions' schedule: the first evaluation stopped it


def test_without_the_progress_bar_each_evaluation_is_a_line(tmp_path, capsys):
    argv = ["train", "--config", str(CONFIGS / "smoke.yaml"), "--out", str(tmp_path / "run")]
    for override in ("progress_bar=false", "total_timesteps=64", "num_envs=2", "eval_interval=1", "eval_games=2"):
        argv += ["--set", override]
    assert main(argv) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("update ")]
    assert lines and lines[0].startswith("update 1 of ") and "learner decisions, win rate" in lines[0]


@pytest.mark.training
def test_a_new_run_never_overwrites_an_old_one_without_a_word(tmp_path, capsys):
    run = tmp_path / "run"
    base = ["train", "--config", str(CONFIGS / "smoke.yaml"), "--out", str(run), "--set", "eval_games=0"]
    base += ["--set", "total_timesteps=32", "--set", "num_envs=2"]
    assert main(base) == 0
    first = sorted(p.name for p in run.iterdir())
    capsys.readouterr()
    assert main(base) == 2  # refused: the run is left as it was
    err = capsys.readouterr().err
    assert "already holds a run" in err and "--resume" in err and "--overwrite" in err
    assert sorted(p.name for p in run.iterdir()) == first
    assert main([*base, "--overwrite"]) == 0
    assert "deleting the run" in capsys.readouterr().out
    assert len(list((run / "tb").glob("events.*")) if (run / "tb").is_dir() else []) <= 1
    assert main([*base, "--overwrite", "--resume"]) == 2


@pytest.mark.parametrize(
    ("override", "key"),
    [
        ("eval_opponent=greddy", "eval_opponent"),
        ("eval_opponent=random,no/such/run", "eval_opponent"),
        ("baselines=greedy,smrat", "baselines"),
        ("init_checkpoint=no/such/checkpoint.pt", "init_checkpoint"),
    ],
)
def test_every_name_in_a_config_is_checked_when_it_is_resolved(override, key, capsys, tmp_path):
    argv = ["train", "--config", str(CONFIGS / "smoke.yaml"), "--set", override, "--out", str(tmp_path / "r")]
    assert main([*argv, "--print-config"]) == 2  # before any training, --print-config too
    assert f"config key '{key}'" in capsys.readouterr().err
    assert main(argv) == 2 and not (tmp_path / "r").exists()


@pytest.mark.parametrize(
    "command",
    [
        ["eval", "--checkpoint", "{missing}", "--games", "2"],
        ["eval", "--checkpoint", "greedy", "--opponents", "{missing}", "--games", "2"],
        ["play", "--checkpoint", "{missing}"],
        ["tournament", "--agents", "{missing},greedy", "--games", "2"],
        ["export", "--checkpoint", "{missing}", "--out", "{tmp}/x.pt"],
        ["leaderboard", "--agents", "{missing},greedy", "--out", "{tmp}/lb.md", "--no-readme"],
        ["train", "--set", "init_checkpoint={missing}", "--print-config"],
        ["train", "--set", "eval_opponent={missing}", "--print-config"],
    ],
    ids=lambda c: " ".join(c[:2]) if c[0] != "train" else c[2].split("=")[0],
)
def test_a_missing_checkpoint_is_named_the_same_way_by_every_command(command, tmp_path, capsys):
    missing = tmp_path / "runs" / "nothing_here"
    args = [a.replace("{missing}", str(missing)).replace("{tmp}", str(tmp_path)) for a in command]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert f"no checkpoint at '{missing}' (a .pt file, a run directory or a shipped agent's folder" in err, err


def test_resume_names_a_run_directory_without_a_run(tmp_path, capsys):
    assert main(["train", "--resume", "--out", str(tmp_path)]) == 2
    assert f"--resume: no run to continue in '{tmp_path}' (it has no latest.pt)" in capsys.readouterr().err


def test_play_refuses_opponents_it_would_not_seat(capsys):
    assert main(["play", "--checkpoint", "greedy", "--opponents", "smart,random", "--players", "3"]) == 2
    err = capsys.readouterr().err
    assert "a 3-player game seats 2 opponents: random would not play" in err
    assert main(["play", "--checkpoint", "greedy", "--opponents", "smrt", "--players", "3"]) == 2
    assert "unknown policy 'smrt'" in capsys.readouterr().err


def test_play_narrates_the_other_seats_and_the_automatic_decisions():
    # Draw until the first decision is past, then quit: the opponent's turns come in between.
    answers = iter(["d", "d", "d", "d", "q"])
    out = io.StringIO()
    assert play(["greedy"], num_players=2, seat=0, seed=2, input_fn=lambda _: next(answers), out=out) == 0
    text = out.getvalue()
    assert "player 1 plays AS QS KS -> table QS KS AS" in text  # cards and the table they made
    assert "player 1 draws 2 more cards (only choice)" in text  # draws as counts, hidden cards unnamed
    assert "player 1 ends the turn" in text
    assert "player 0 (you) draws 1 more card" in text  # your own moves too, and in the singular
    assert "player 0 (you) ends the turn (only choice)" in text


def test_tournament_plays_at_the_table_size_asked(capsys):
    assert main(["tournament", "--agents", "greedy,random", "--games", "3", "--players", "3"]) == 0
    table = capsys.readouterr().out.split("\n\n")[0]  # the ratings, then the pairs
    rows = {line.split()[1]: line.split() for line in table.splitlines()[1:]}
    assert rows["greedy"][5] == "3" and rows["random"][5] == "3"  # 3 games: one deal from each seat


@pytest.mark.parametrize(
    ("rate", "low", "high", "verdict"),
    [
        (0.8, 0.62, 0.91, "it beats greedy"),
        (0.2, 0.08, 0.42, "it loses to greedy so far: a longer run helps"),
        (0.55, 0.35, 0.73, "no clear edge over greedy yet"),
    ],
)
def test_a_runs_last_lines_say_whether_the_agent_beats_its_opponent(tmp_path, capsys, rate, low, high, verdict):
    from carousel_cli.training import _print_last_eval

    rows = [("eval/win_rate", rate), ("eval/win_rate_ci_low", low), ("eval/win_rate_ci_high", high)]
    (tmp_path / "metrics.csv").write_text("step,name,value\n" + "".join(f"64,{n},{v}\n" for n, v in rows))
    _print_last_eval(tmp_path / "metrics.csv", "greedy", 0.5, "hand")
    out = capsys.readouterr().out
    assert f"win rate {rate:.3f} (fair share 0.500; 95% CI {low:.3f}-{high:.3f})" in out and verdict in out
    assert "mean hand-score difference" in out  # the game's own unit


def test_train_and_tournament_take_the_game(capsys):
    assert main(["train", "--game", "gin_rummy", "--print-config"]) == 0
    assert "\ngame: gin_rummy  # default: carousel" in capsys.readouterr().out
    assert main(["train", "--game", "gin_rummy", "--set", "round_bonus=losers", "--print-config"]) == 2
    assert "config key 'round_bonus': Gin Rummy has no such option" in capsys.readouterr().err
    argv = ["tournament", "--agents", "simple,greedy", "--game", "gin_rummy", "--variant", "openspiel", "--games", "2"]
    assert main(argv) == 0
    ratings = capsys.readouterr().out.split("\n\n")[0]
    rows = {line.split()[1]: line.split() for line in ratings.splitlines()[1:]}
    assert set(rows) == {"simple", "greedy"} and rows["simple"][5] == "2"
    assert main(["tournament", "--agents", "simple,greedy", "--games", "2"]) == 2  # Carousel has no `simple`
    assert "unknown policy 'simple'" in capsys.readouterr().err


def test_every_option_of_every_command_says_what_it_takes_and_its_default():
    import argparse

    from carousel_cli.main import build_parser

    parser, _ = build_parser()
    subparsers = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name, sub in subparsers.choices.items():
        text = " ".join(sub.format_help().split())  # argparse wraps lines
        for action in sub._actions:
            if not action.option_strings or action.dest == "help":
                continue
            assert action.help, f"carousel {name} {action.option_strings[0]} has no help"
            if action.default not in (None, False, "", []) and "default" not in action.help:
                assert f"(default: {action.default})" in text, f"carousel {name} {action.option_strings[0]}"
    # Defaults are values, not the names of Python constants.
    leaderboard = " ".join(subparsers.choices["leaderboard"].format_help().split())
    assert "training.leaderboard." not in leaderboard and "(default: 60)" in leaderboard


def test_eval_with_a_variant_alone_keeps_the_checkpoints_game(capsys):
    argv = ["eval", "--checkpoint", "checkpoints/gin_2p", "--opponents", "simple", "--games", "2", "--json"]
    assert main([*argv, "--variant", "openspiel"]) == 0
    assert json.loads(capsys.readouterr().out)["game"] == "gin_rummy"
    assert main([*argv, "--variant", "manipulation_rummy"]) == 2
    assert "--variant: " in (err := capsys.readouterr().err) and "unknown preset 'manipulation_rummy'" in err
