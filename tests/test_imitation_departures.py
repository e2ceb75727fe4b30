"""``benchmarks/imitation_departures.py``: which of a scripted player's decisions a network
departs from, by the kind of the player's move."""

from __future__ import annotations

import pytest

from benchmarks.imitation_departures import kind_of, main
from carousel_env.games.kaluki.env import KalukiAction


def test_kinds_are_the_games_own():
    assert kind_of(KalukiAction.DRAW_STOCK, "kaluki") == "other"
    assert kind_of(KalukiAction.TAKE_DISCARD, "kaluki") == "take_discard"
    assert kind_of(KalukiAction.FIRST_DISCARD + 52, "kaluki") == "discard"  # the joker, the last card
    assert kind_of(KalukiAction.FIRST_OFFER + 3, "kaluki") == "lay"


def test_a_shipped_network_measured_on_its_teachers_decisions(capsys):
    main(["checkpoints/kaluki", "--decisions", "150", "--seed", "3"])
    printed = capsys.readouterr().out
    assert "decisions of simple in kaluki at 2 players, seed 3" in printed
    rows = [line.split(" | ") for line in printed.splitlines() if line.startswith("| ") and "---" not in line][1:]
    assert {row[0].strip("| ") for row in rows} >= {"discard", "other"}
    assert sum(int(row[1].replace(",", "")) for row in rows) >= 150  # every decision has its kind
    with pytest.raises(SystemExit, match="checkpoints/conquian"):  # another game's network is refused
        main(["checkpoints/kaluki", "checkpoints/conquian", "--decisions", "50"])
