"""The solver against the stored MILP optima of tests/data/solver_positions.jsonl.

Each check compares both objectives exactly and runs check_play on every suggestion of
every 5th line. The default run checks 2,176 of the 2,360 stored positions; the 184
synthetic two-deck positions with hands of 15+ cards are the ``slow`` test (about 4 s in
all, up to 0.5 s each: the solver's slowest tail, where witnesses settle most solves but
not all). A sample is also solved with the pruned passes that take over from the
unpruned sweep past its state budget.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from carousel_env import solver
from carousel_env.engine.cards import parse_hand, parse_table
from carousel_env.engine.manipulation import check_play
from carousel_env.engine.rules import carousel, manipulation_rummy
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


def _heavy(item: dict) -> bool:
    return item["source"] == "synthetic" and item["decks"] == 2 and len(item["hand"].split()) >= 15


def test_stored_optima():
    items = [item for item in _lines() if not _heavy(item)]
    assert len(items) >= 2000
    _check(items)


@pytest.mark.slow
def test_heavy_stored_optima():
    _check([item for item in _lines() if _heavy(item)])


def test_pruned_passes_on_a_sample(monkeypatch):
    monkeypatch.setattr(solver, "FULL_SWEEP_STATES", 0)  # every solve takes the pruned passes
    monkeypatch.setattr(solver, "WITNESS_BUDGET", 0)  # and no witness settles it first
    _check(_lines()[::25])
