"""The solver against the stored MILP optima of tests/data/solver_positions.jsonl.

Each check compares both objectives exactly and runs check_play on every suggestion of
every 5th position. The default run checks 2,176 of the 2,360 stored positions; the 184
synthetic two-deck positions with hands of 15+ cards (``StoredPosition.heavy``) are the
``slow`` test: the solver's slowest tail, where witnesses settle most solves but not all.
A sample is also solved by the integer programs that take over from the unpruned sweep past
its state budget.
"""

from __future__ import annotations

import pytest

from carousel_env.games.carousel import solver
from carousel_env.games.carousel.engine.manipulation import check_play
from carousel_env.games.carousel.solver import solve
from tests.support.stored import StoredPosition


def _check(positions: list[StoredPosition]) -> None:
    bad = []
    for i, p in enumerate(positions):
        result = solve(p.table, p.hand, p.rules)
        if (result.best_points, result.best_cards) != (p.best_points, p.best_cards):
            bad.append((p.line, result.best_points, result.best_cards))
        if i % 5 == 0:
            for s in result.suggestions:
                check_play(p.table, p.hand, s.play, p.rules)
    assert not bad, bad[:5]


def test_stored_optima(stored):
    positions = [p for p in stored if not p.heavy]
    assert len(positions) >= 2000
    _check(positions)


@pytest.mark.slow
def test_heavy_stored_optima(stored):
    _check([p for p in stored if p.heavy])


@pytest.mark.reference
def test_integer_programs_on_a_sample(monkeypatch, stored):
    monkeypatch.setattr(solver, "FULL_SWEEP_STATES", 0)  # every solve by the integer programs
    monkeypatch.setattr(solver, "WITNESS_BUDGET", 0)  # and no witness settles it first
    _check(list(stored[::25]))
