"""``training/departures.py``: which of a scripted player's decisions a network departs
from, by the kind of the player's move."""

from __future__ import annotations

import pytest

from carousel_env.games.kaluki.env import KalukiAction
from training.checkpoint_names import CheckpointError
from training.departures import departures, kind_of
from training.evaluate import checkpoint_env_spec
from training.imitation import collect


def test_kinds_are_the_games_own():
    assert kind_of(KalukiAction.DRAW_STOCK, "kaluki") == "other"
    assert kind_of(KalukiAction.TAKE_DISCARD, "kaluki") == "take_discard"
    assert kind_of(KalukiAction.FIRST_DISCARD + 52, "kaluki") == "discard"  # the joker, the last card
    assert kind_of(KalukiAction.FIRST_OFFER + 3, "kaluki") == "lay"


def test_a_shipped_network_measured_on_its_teachers_decisions():
    spec = checkpoint_env_spec("checkpoints/kaluki", 2)
    data = collect(spec, "simple", 150, seed=3)
    agreement, rows = departures("checkpoints/kaluki", spec, data)
    assert sum(row.decisions for row in rows) == len(data) >= 150  # every decision has its kind
    assert {row.kind for row in rows} >= {"discard", "other"}
    departed = sum(row.departed for row in rows)
    assert agreement == pytest.approx(1 - departed / len(data))
    assert all(sum(n for _, n in row.instead) == row.departed for row in rows)
    with pytest.raises(CheckpointError, match="checkpoints/conquian"):  # another game's network is refused
        departures("checkpoints/conquian", spec, data)
