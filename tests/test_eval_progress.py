"""A long evaluation says how far it is: ``carousel eval`` prints every tenth of its games
(on stderr, so that ``--json`` stays one object), and a short one prints nothing."""

from __future__ import annotations

import pytest

from carousel_cli.main import main
from carousel_cli.options import GamesProgress
from training.evaluate import evaluate


def test_evaluation_reports_each_game_as_it_ends():
    heard = []
    result = evaluate("greedy", "random", games=6, seed=3, progress=lambda done, total: heard.append((done, total)))
    assert heard == [(done, 6) for done in range(1, 7)] and result.games == 6


@pytest.mark.parametrize(("total", "lines"), [(400, [40, 80, 120, 160, 200, 240, 280, 320, 360]), (3, [1, 2])])
def test_a_line_at_each_tenth_but_none_at_the_end(total, lines, capsys):
    progress = GamesProgress("carousel eval", quiet_s=0)
    for done in range(1, total + 1):
        progress(done, total)
    printed = capsys.readouterr().err.splitlines()
    assert [int(line.split()[2].replace(",", "")) for line in printed] == lines  # the summary says the last
    assert printed[0].startswith(f"carousel eval: {lines[0]} of {total} games played (")


def test_a_short_evaluation_prints_no_progress(capsys):
    progress = GamesProgress("carousel eval")  # ten quiet seconds first
    for done in range(1, 101):
        progress(done, 100)
    assert capsys.readouterr().err == ""
    assert main(["eval", "--checkpoint", "greedy", "--opponents", "random", "--games", "4", "--json"]) == 0
    assert "played" not in capsys.readouterr().err
