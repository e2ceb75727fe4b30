"""Evaluation in the unit the game scores (issue 54, item 1): points a unit for each side, the
decided units won and the event rates, each with its interval, from concrete Gin hands."""

from __future__ import annotations

import pytest

from carousel_env.core.stats import mean_interval, wilson_interval
from carousel_env.envkit.episodes import EpisodeResult
from carousel_env.games.gin_rummy.engine import HandEnd, HandResult
from training.evaluate import EvalGame, summarise
from training.policies import Controller

ME, SIMPLE = Controller.network("candidate"), Controller.scripted("simple", game="gin_rummy")


def _game(seed: int, my_seat: int, hands: list[HandResult]) -> EpisodeResult:
    seats = (ME, SIMPLE) if my_seat == 0 else (SIMPLE, ME)
    return EpisodeResult(EvalGame(seed, seats, opponent=SIMPLE), (0.0, 0.0), tuple(hands), (0, 0), my_seat)


def test_points_decided_hands_and_rates_in_hands():
    results = [
        _game(1, 0, [HandResult(HandEnd.GIN, (31, 0), knocker=0), HandResult(HandEnd.DEAD, (0, 0))]),
        _game(
            1,
            1,
            [
                HandResult(HandEnd.KNOCK, (12, 0), knocker=0),
                HandResult(HandEnd.KNOCK, (0, 25), knocker=0, undercut=True),
            ],
        ),
    ]
    res = summarise(
        results, ME, {SIMPLE: "simple"}, candidate_name="me", opponents=["simple"], players=2, seed=1, game="gin_rummy"
    )
    # In seat 0 it won 31 by gin, then a dead hand; in seat 1 simple knocked for 12, then it undercut simple for 25.
    mine, theirs = [31, 0, 0, 25], [0, 0, 12, 0]
    assert res.points_per_unit == pytest.approx(14.0) and res.opponents_points_per_unit == pytest.approx(3.0)
    assert res.points_per_unit_ci == pytest.approx(mean_interval(mine))
    assert res.opponents_points_per_unit_ci == pytest.approx(mean_interval(theirs))
    assert res.mean_round_score_diff == pytest.approx(11.0)
    assert res.mean_round_score_diff_ci == pytest.approx(mean_interval([31, 0, -12, 25]))
    assert res.units_decided == 3 and res.decided_won_rate == pytest.approx(2 / 3)
    assert res.decided_won_ci == pytest.approx(wilson_interval(2, 3))
    assert (res.knock_rate, res.go_out_rate) == (pytest.approx(0.25), pytest.approx(0.25))  # its one knock: a gin
    assert res.knock_rate_ci == pytest.approx(wilson_interval(1, 4)) and res.undercut_rate == 0.0
    assert {"points_per_unit", "decided_won_ci", "undercut_rate_ci"} <= set(res.as_json())


@pytest.mark.parametrize(
    ("variant", "names"), [(None, ["knock", "go-out", "undercut"]), ("manipulation_rummy", ["go-out"])]
)
def test_the_report_names_only_the_events_a_variant_has(variant, names, capsys):
    """Manipulation Rummy has no knocking (RULES.md): its report names no knock rate."""
    from carousel_cli.main import main

    players = ["--players", "3"] if variant else []
    rules = ["--variant", variant] if variant else []
    assert main(["eval", "--checkpoint", "greedy", "--opponents", "random", "--games", "3", *players, *rules]) == 0
    rates = capsys.readouterr().out.splitlines()[-2]
    assert [part.split(" rate")[0].strip() for part in rates.split("), ")] == names
