"""The solver against the stored MILP optima of tests/data/solver_positions.jsonl.

The full file (every line) is the ``slow`` test; the default run checks every 10th line.
Both compare both objectives exactly and check_play every suggestion of every 5th checked line.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from carousel_env.cards import parse_hand, parse_table
from carousel_env.manipulation import check_play
from carousel_env.rules import carousel, manipulation_rummy
from carousel_env.solver import solve

DATA = Path(__file__).resolve().parent / "data" / "solver_positions.jsonl"


def _lines() -> list[dict]:
    if not DATA.exists():
        pytest.skip("tests/data/solver_positions.jsonl not generated yet")
    return [json.loads(line) for line in DATA.read_text().splitlines() if line.strip()]


def _check(items: list[dict]) -> None:
    bad = []
    for i, item in enumerate(items):
        rules = manipulation_rummy(4) if item["variant"] == "manipulation_rummy" else carousel(item["decks"] + 1)
        table, hand = parse_table(item["table"]), parse_hand(item["hand"])
        result = solve(table, hand, rules)
        if (result.best_points, result.best_cards) != (item["best_points"], item["best_cards"]):
            bad.append((item, result.best_points, result.best_cards))
        if i % 5 == 0:
            for s in result.suggestions:
                check_play(table, hand, s.play, rules)
    assert not bad, bad[:5]


def test_sample_of_stored_optima():
    _check(_lines()[::10])


@pytest.mark.slow
def test_every_stored_optimum():
    _check(_lines())
