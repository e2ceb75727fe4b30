"""``carousel solve`` through ``carousel_cli.solve``."""

from __future__ import annotations

import argparse
import io
import json

from carousel_cli import solve as cli


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="carousel")
    cli.register(parser.add_subparsers(dest="command"))
    return parser


def test_single_position_json(capsys):
    args = _parser().parse_args(["solve", "--table", "8H 9H JK=10H", "--hand", "7H 10H 10S", "--json"])
    assert args.func(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["best_points"] == 27 and out["best_cards"] == 3
    assert out["suggestions"][0] == {
        "played": "7H 10H 10S",
        "table": "JK=10C 10H 10S | 7H 8H 9H",
        "points": 27,
        "cards": 3,
    }


def test_single_position_text(capsys):
    args = _parser().parse_args(["solve", "--table", "3C 4C 5C 6C | 3D 4D 5D 6D", "--hand", "6H"])
    assert args.func(args) == 0
    out = capsys.readouterr().out
    assert "best points 6, best cards 1" in out and "6C 6D 6H | 3C 4C 5C | 3D 4D 5D" in out


def test_no_play_and_bad_input(capsys):
    args = _parser().parse_args(["solve", "--table", "8H 9H JK=10H", "--hand", "6H", "--json"])
    assert args.func(args) == 0
    assert json.loads(capsys.readouterr().out) == {"best_points": None, "best_cards": None, "suggestions": []}
    args = _parser().parse_args(["solve", "--hand", "ZZ"])
    assert args.func(args) == 2
    assert "ZZ" in capsys.readouterr().err


def test_batch_keeps_order_and_survives_errors():
    lines = [
        json.dumps({"table": "5H 6H 7H | 5H 6H 7H", "hand": "8H 8H", "decks": 2}),
        "not json",
        json.dumps({"table": "5C 6C 7C", "hand": "XX", "decks": 1}),
        json.dumps({"table": "", "hand": "AH 2H 3H", "decks": 3}),
        json.dumps({"table": "", "hand": "AH 2H 3H"}),
    ]
    sink = io.StringIO()
    assert cli.run_batch(io.StringIO("\n".join(lines) + "\n"), sink) == 0
    out = [json.loads(x) for x in sink.getvalue().splitlines()]
    assert len(out) == 5
    assert out[0]["best_cards"] == 2 and out[0]["best_points"] == 16
    assert set(out[1]) == {"error"} and set(out[2]) == {"error"} and set(out[3]) == {"error"}
    assert "XX" in out[2]["error"]
    assert out[4]["best_points"] == 6


def test_batch_file(tmp_path, capsys):
    path = tmp_path / "in.jsonl"
    path.write_text(json.dumps({"table": "", "hand": "QH KH AH", "decks": 1}) + "\n")
    args = _parser().parse_args(["solve", "--batch", str(path)])
    assert args.func(args) == 0
    assert json.loads(capsys.readouterr().out)["best_points"] == 21
