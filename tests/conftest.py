"""Shared test setup. The tests import their support code as ``tests.support.<module>``
(``tests`` is a package, so pytest puts the repository root on the path)."""

from __future__ import annotations

import pytest

from tests.support.stored import StoredPosition, stored_positions


@pytest.fixture
def stored() -> tuple[StoredPosition, ...]:
    """Every stored solver position with its MILP optima; skips when none are generated."""
    positions = stored_positions()
    if not positions:
        pytest.skip("tests/data/solver_positions.jsonl not generated yet")
    return positions
