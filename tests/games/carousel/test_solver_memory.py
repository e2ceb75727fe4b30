"""The per-solve memory measure (``tests.support.solver_memory``) and the stress set.

The measure must see the arrays numba allocates (``tracemalloc`` does not): a light
position's solve grows the resident set by almost nothing, a heavy stored one (within the
sweep's budget: its unpruned sweep has about 120,000 states, 1.2 million slot
pairs and 6 million vector entries, about 80 MiB of arrays by their sizes) by tens of MiB.
The stress set (``tests/data/solver_stress_positions.jsonl``, adversarial positions built
for the state count, see ``tests/data/generate_stress_positions``) is checked against its
stored MILP optima in the ``slow`` run: without the memory cap (``solver.MEMORY_CAP_BYTES``)
its solves took up to 10-20 s and 2.4 GiB; with it and the integer programs past the
sweep's budget (``solver.milp``), a few MiB beyond the sweeps that give up.
"""

from __future__ import annotations

import json

import pytest

from carousel_env.core.cards import parse_hand, parse_table
from carousel_env.games.carousel.solver import solve
from tests.data.generate_stress_positions import OUT as STRESS
from tests.support.solver_memory import measure
from tests.support.stored import rules_of

LIGHT = {"table": "3C 4C 5C 6C | 3D 4D 5D 6D", "hand": "6H 7C", "decks": 1, "variant": "carousel"}


def _heavy_stored_line(stored) -> str:
    heavy = [p for p in stored if p.set_name == "synthetic 2 deck(s) carousel"]
    return heavy[320].line  # 80 MiB of arrays in 0.1 s (see the module docstring)


def test_measure_sees_the_solver_arrays(stored):
    light, heavy = measure([json.dumps(LIGHT), _heavy_stored_line(stored)], batch=2, timeout=300)
    assert light["peak_kib"] < 4 * 1024
    assert 40 * 1024 < heavy["peak_kib"] < 160 * 1024


def test_measure_takes_agent_lines_and_a_budget():
    # an agent line names its players; budget 0 sends every solve to the integer programs
    rows = measure([json.dumps(LIGHT), _first_agent_line()], batch=2, timeout=300, full_sweep_states=0)
    assert [r["i"] for r in rows] == [0, 1]
    assert all(r["peak_kib"] >= 0 and r["seconds"] > 0 for r in rows)


def _first_agent_line() -> str:
    from tests.support.stored import agent_positions

    four = [p for p in agent_positions() if p.set_name == "agent-4p" and p.table]
    if not four:
        pytest.skip("tests/data/agent_positions.jsonl not generated")
    return four[0].line


def _stress() -> list[dict]:
    return [json.loads(line) for line in STRESS.read_text().splitlines() if line.strip()]


def test_stress_set_says_how_it_was_built():
    items = _stress()
    assert len(items) >= 20
    for item in items:
        assert item["source"] == "stress" and item["how"].startswith("seed ")
        assert "best_points" in item and "best_cards" in item


@pytest.mark.slow
def test_stress_set_optima():
    bad = []
    for item in _stress():
        rules = rules_of(item["variant"], item["decks"])
        result = solve(parse_table(item["table"]), parse_hand(item["hand"]), rules)
        if (result.best_points, result.best_cards) != (item["best_points"], item["best_cards"]):
            bad.append((item["how"], result.best_points, result.best_cards))
    assert not bad, bad[:5]
