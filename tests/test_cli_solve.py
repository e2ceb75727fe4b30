"""``carousel solve`` through ``carousel_cli.solve``."""

from __future__ import annotations

import argparse
import io
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from carousel_cli import solve as cli
from carousel_env.core.errors import CarouselError


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
    assert json.loads(capsys.readouterr().out) == {
        "best_points": None,
        "best_cards": None,
        "exact": True,
        "suggestions": [],
    }
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


# ---------------------------------------------------------------- variant, players, decks


def test_manipulation_rummy_position(capsys):
    # Aces are high only in Manipulation Rummy: A-2-3 is no run there, Q-K-A is.
    args = _parser().parse_args(["solve", "--variant", "manipulation_rummy", "--hand", "AC 2C 3C", "--json"])
    assert args.func(args) == 0
    assert json.loads(capsys.readouterr().out)["best_points"] is None
    args = _parser().parse_args(["solve", "--variant", "manipulation_rummy", "--players", "5", "--hand", "QC KC AC"])
    assert args.func(args) == 0
    assert "best points 21, best cards 3" in capsys.readouterr().out
    args = _parser().parse_args(["solve", "--variant", "carousel", "--hand", "AC 2C 3C", "--json"])
    assert args.func(args) == 0
    assert json.loads(capsys.readouterr().out)["best_points"] == 6


@pytest.mark.parametrize(
    ("variant", "players", "decks", "expected"),
    [
        ("carousel", None, None, ("carousel", 2, 1)),
        ("carousel", None, 1, ("carousel", 2, 1)),
        ("carousel", None, 2, ("carousel", 3, 2)),
        ("carousel", 2, None, ("carousel", 2, 1)),
        ("carousel", 4, None, ("carousel", 4, 2)),
        ("carousel", 5, 2, ("carousel", 5, 2)),
        ("manipulation_rummy", None, None, ("manipulation_rummy", 4, 2)),
        ("manipulation_rummy", 3, None, ("manipulation_rummy", 3, 2)),
        ("manipulation_rummy", 5, 2, ("manipulation_rummy", 5, 2)),
    ],
)
def test_rules_follow_from_the_options_given(variant, players, decks, expected):
    rules = cli.rules_for(variant, players, decks)
    assert (rules.variant.value, rules.num_players, rules.decks) == expected


@pytest.mark.parametrize(
    ("options", "named"),
    [
        (["--players", "2", "--decks", "2"], ("--decks 2", "--players 2")),
        (["--players", "4", "--decks", "1"], ("--decks 1", "--players 4")),
        (["--variant", "manipulation_rummy", "--players", "2"], ("--players 2", "--variant manipulation_rummy")),
        (["--variant", "manipulation_rummy", "--decks", "1"], ("--decks 1", "--variant manipulation_rummy")),
        (["--batch", "-", "--hand", "3C"], ("--hand", "--batch")),
        (["--batch", "-", "--variant", "carousel"], ("--variant", "--batch")),
        (["--batch", "-", "--players", "3"], ("--players", "--batch")),
        (["--batch", "-", "--table", ""], ("--table", "--batch")),
    ],
)
def test_contradictory_options_are_refused_naming_both(capsys, options, named):
    hand = [] if "--batch" in options else ["--hand", "3C 4C 5C"]
    args = _parser().parse_args(["solve", *options, *hand])
    assert args.func(args) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert all(name in captured.err for name in named), captured.err


@pytest.mark.parametrize(
    ("options", "bad"),
    [(["--players", "6"], "--players"), (["--decks", "3"], "--decks"), (["--variant", "gin"], "--variant")],
)
def test_out_of_range_options_are_refused_by_the_parser(capsys, options, bad):
    with pytest.raises(SystemExit) as exit_:
        _parser().parse_args(["solve", "--hand", "3C", *options])
    assert exit_.value.code == 2
    assert bad in capsys.readouterr().err


def test_batch_lines_choose_variant_and_players():
    lines = [
        {"hand": "AC 2C 3C", "variant": "manipulation_rummy"},
        {"hand": "QC KC AC", "variant": "manipulation_rummy", "players": 3, "decks": 2},
        {"hand": "AC 2C 3C", "variant": "carousel", "players": 4},
        {"hand": "3C", "variant": "manipulation_rummy", "decks": 1},
        {"hand": "3C", "players": 2, "decks": 2},
        {"hand": "3C", "variant": "manipulation_rummy", "players": 2},
        {"hand": "3C", "players": True},
        {"hand": "3C", "players": "3"},
        {"hand": "3C", "variant": "gin"},
        {"hand": "3C", "varaint": "manipulation_rummy"},
        {"table": "3C 4C 5C"},
        {"hand": "3C 4C|5C"},
        {"hand": "6C", "table": "3C 4C 5C", "players": 5},
    ]
    sink = io.StringIO()
    assert cli.run_batch(io.StringIO("".join(json.dumps(x) + "\n" for x in lines)), sink) == 0
    out = [json.loads(x) for x in sink.getvalue().splitlines()]
    assert len(out) == len(lines)
    assert out[0]["best_points"] is None and out[1]["best_points"] == 21 and out[2]["best_points"] == 6
    errors = [x["error"] for x in out[3:12]]
    assert all(set(x) == {"error"} for x in out[3:12])
    assert '"decks": 1 contradicts "variant": "manipulation_rummy"' in errors[0]
    assert '"decks": 2 contradicts "players": 2' in errors[1]
    assert '"players": 2 contradicts "variant": "manipulation_rummy"' in errors[2]
    assert '"players": true' in errors[3] and '"players": "3"' in errors[4]
    assert '"variant": "gin"' in errors[5] and "carousel, manipulation_rummy" in errors[5]
    assert 'unknown key "varaint"' in errors[6]
    assert 'missing "hand"' in errors[7]
    assert "'4C|5C'" in errors[8]
    assert out[12]["best_points"] == 6


VALID_RULES = [("carousel", n, 1 if n == 2 else 2) for n in range(2, 6)] + [
    ("manipulation_rummy", n, 2) for n in range(3, 6)
]


@given(
    variant=st.one_of(st.sampled_from(cli.VARIANTS), st.text(max_size=3), st.none(), st.integers()),
    players=st.one_of(st.none(), st.integers(-1, 7), st.booleans(), st.text(max_size=2)),
    decks=st.one_of(st.none(), st.integers(-1, 4), st.booleans(), st.floats(0, 3)),
)
def test_rules_for_agrees_with_every_option_given_or_names_one(variant, players, decks):
    matches = [
        r
        for r in VALID_RULES
        if isinstance(variant, str)
        and r[0] == variant
        and (players is None or (type(players) is int and r[1] == players))
        and (decks is None or (type(decks) is int and r[2] == decks))
    ]
    try:
        rules = cli.rules_for(variant, players, decks)
    except CarouselError as err:  # never another exception
        assert not matches
        given_names = ["--variant"] + [f"--{n}" for n, v in (("players", players), ("decks", decks)) if v is not None]
        assert any(name in str(err) for name in given_names)
        return
    assert (rules.variant.value, rules.num_players, rules.decks) in matches


def test_batch_lines_that_are_not_json_or_not_utf8_are_error_lines(tmp_path, capsys):
    path = tmp_path / "in.jsonl"
    good = json.dumps({"hand": "QH KH AH"}).encode()
    path.write_bytes(good + b"\n{not json\n" + b'{"hand": "\xff"}\n' + b"[1, 2]\n" + good + b"\n")
    args = _parser().parse_args(["solve", "--batch", str(path)])
    assert args.func(args) == 0
    out = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [x.get("best_points") for x in out] == [21, None, None, None, 21]
    assert "not JSON" in out[1]["error"] and "not UTF-8" in out[2]["error"]
    assert "JSON object, not list" in out[3]["error"]


def test_batch_from_stdin(monkeypatch, capsys):
    lines = json.dumps({"hand": "QC KC AC", "variant": "manipulation_rummy"}) + "\n"
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(lines.encode())))
    args = _parser().parse_args(["solve", "--batch", "-"])
    assert args.func(args) == 0
    assert json.loads(capsys.readouterr().out)["best_points"] == 21


def test_missing_batch_file_is_refused(tmp_path, capsys):
    args = _parser().parse_args(["solve", "--batch", str(tmp_path / "absent.jsonl")])
    assert args.func(args) == 2
    assert "cannot read --batch" in capsys.readouterr().err


BATCH_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-1, 6),
    st.text(max_size=6),
    st.sampled_from(["", "3C 4C 5C", "6C", "AC 2C 3C", *cli.VARIANTS]),
)


@given(
    st.one_of(
        st.text(),
        st.dictionaries(st.sampled_from([*cli.BATCH_KEYS, "deck"]), BATCH_VALUES).map(json.dumps),
    )
)
def test_any_batch_line_gets_an_answer_or_one_error(line):
    answer = cli.solve_line(line)  # never raises
    if "error" in answer:
        assert set(answer) == {"error"} and answer["error"]
    else:
        assert set(answer) == {"best_points", "best_cards", "exact", "suggestions"}


def _main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    return args.func(args)


def test_a_solve_that_runs_out_of_its_time_budget_says_so(capsys):
    from tests.support.stored import STALLED_HAND, STALLED_TABLE

    args = ["solve", "--players", "3", "--table", STALLED_TABLE, "--hand", STALLED_HAND]
    assert _main([*args, "--time-budget", "0.0001", "--json"]) == 0  # spent before the integer programs start
    assert json.loads(capsys.readouterr().out)["exact"] is False
    assert _main([*args, "--time-budget", "0.0001"]) == 0
    assert "not proven exact: the solver's time budget ran out" in capsys.readouterr().out
    assert _main([*args, "--time-budget", "120", "--json"]) == 0  # unhurried, however loaded the machine
    out = json.loads(capsys.readouterr().out)
    assert out["exact"] is True and (out["best_points"], out["best_cards"]) == (336, 45)


@pytest.mark.parametrize("budget", ["0", "-1", "nan"])
def test_a_bad_time_budget_is_refused(budget, capsys):
    assert _main(["solve", "--hand", "6C", "--time-budget", budget]) == 2
    assert "--time-budget must be a positive number" in capsys.readouterr().err


def test_the_time_budget_does_not_go_with_batch(capsys):
    assert _main(["solve", "--batch", "-", "--time-budget", "1"]) == 2
    assert "--time-budget does not go with --batch" in capsys.readouterr().err


def test_the_helps_example_is_a_position_of_the_default_rules(capsys):
    from carousel_cli.main import main
    from carousel_cli.solve import EXAMPLE_HAND, EXAMPLE_TABLE

    with pytest.raises(SystemExit):
        main(["solve", "--help"])
    example = capsys.readouterr().out.split("example: carousel ", 1)[1].strip()
    assert example == f"solve --table '{EXAMPLE_TABLE}' --hand '{EXAMPLE_HAND}'"
    assert main(["solve", "--table", EXAMPLE_TABLE, "--hand", EXAMPLE_HAND]) == 0
    assert "6C 7C" in capsys.readouterr().out
