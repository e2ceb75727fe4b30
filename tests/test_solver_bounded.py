"""The memory cap of a solve, and the exact solve in bounded memory behind it (``solver.bounded``).

A pass of the sweeps that would keep more than ``solver.MEMORY_CAP_BYTES`` of arrays gives
up, and ``bounded.solve_bounded`` answers instead. With the cap at 0 (and no witness, and
no unpruned sweep) every solve with a play goes that way, so these tests hold it to the
sweeps' answers: the same optima, and for every suggestion the same reason, cards, jokers,
points and points left in hand (the cards played may differ where two plays of the entry tie,
and the table they are rebuilt into: both are legal, which ``check_play`` confirms).
"""

from __future__ import annotations

import numpy as np
import pytest

from carousel_env import solver
from carousel_env.engine.cards import JOKER, parse_hand, parse_table
from carousel_env.engine.manipulation import check_play
from carousel_env.solver import _position_arrays, pipeline, prepare, sweep
from carousel_env.vector import kernel
from tests.support.stored import agent_positions

HEAVY_AGENT_LINE = 2049  # the 4-player agent's worst hand: 30 cards, both jokers, 16 melds; 248 MiB


def _entries(result: solver.SolveResult) -> tuple:
    picks = tuple((s.reason, s.cards, s.jokers_used, s.points, s.hand_after_points) for s in result.suggestions)
    return result.best_points, result.best_cards, picks


@pytest.fixture
def bounded_only(monkeypatch):
    """Every solve with a play answered by ``bounded.solve_bounded``; yields its call count."""
    calls = []
    real = solver.solve_in_bounded_memory

    def counted(*args):
        calls.append(args)
        return real(*args)

    monkeypatch.setattr(solver, "solve_in_bounded_memory", counted)

    defaults = {name: getattr(solver, name) for name in ("MEMORY_CAP_BYTES", "WITNESS_BUDGET", "FULL_SWEEP_STATES")}

    def route(on: bool) -> None:
        for name, default in defaults.items():
            monkeypatch.setattr(solver, name, 0 if on else default)

    return route, calls


def _agree(positions, bounded_only) -> int:
    route, calls = bounded_only
    for p in positions:
        route(False)
        swept = solver.solve(p.table, p.hand, p.rules)
        route(True)
        bounded = solver.solve(p.table, p.hand, p.rules)
        assert _entries(bounded) == _entries(swept), p.line
        assert (bounded.best_points, bounded.best_cards) == (p.best_points, p.best_cards), p.line
        for s in bounded.suggestions:
            check_play(p.table, p.hand, s.play, p.rules)
    return len(calls)


def test_bounded_solve_agrees_with_the_sweeps_on_stored_positions(stored, bounded_only):
    sample = [p for p in stored[::9] if p.hand]
    assert _agree(sample, bounded_only) >= len(sample) // 2  # the rest have no play


def test_bounded_solve_agrees_on_the_agents_positions(bounded_only):
    positions = agent_positions()
    if not positions:
        pytest.skip("tests/data/agent_positions.jsonl not generated")
    by_hand = sorted(positions, key=lambda p: (p.hand.count(JOKER), len(p.hand)))
    sample = [*positions[::60], *by_hand[-3:]]  # every table size, and the hands with most jokers and cards
    assert _agree(sample, bounded_only) >= len(sample) // 2


def test_has_play_in_bounded_memory(stored, monkeypatch):
    sample = [p for p in stored[::40] if p.hand]
    expected = [solver.has_play(p.table, p.hand, p.rules) for p in sample]
    assert any(expected) and not all(expected)
    monkeypatch.setattr(solver, "MEMORY_CAP_BYTES", 0)
    monkeypatch.setattr(solver, "_lays_off", lambda *_: False)  # the optima pass, not the shortcut
    assert [solver.has_play(p.table, p.hand, p.rules) for p in sample] == expected


def test_passes_give_up_at_the_cap():
    positions = agent_positions()
    if len(positions) <= HEAVY_AGENT_LINE:
        pytest.skip("tests/data/agent_positions.jsonl not generated")
    p = positions[HEAVY_AGENT_LINE]
    assert p.hand.count(JOKER) == 2 and len(p.hand) == 30
    units, hand_cards = _position_arrays(p.table, p.hand)
    low, high, limit = p.rules.ace_low, p.rules.ace_high, p.rules.knock_limit
    limit = -1 if limit is None else limit
    lay = prepare.layout(units, hand_cards, low, high)
    zero, none, budget, mib = np.int64(0), pipeline._no_targets(), np.int64(500_000), 1 << 20
    _, _, bounds, *_ = sweep.explore(lay.cells, lay.hand_jokers, zero, zero, none, budget, np.int64(mib))
    assert bounds.shape[0] == 1  # the sweep gives up at 1 MiB
    _, _, bounds, *_ = sweep.explore(lay.cells, lay.hand_jokers, zero, zero, none, budget, np.int64(300 * mib))
    assert bounds.shape[0] > 1  # and finishes within 300
    assert sweep.optima(lay.cells, lay.hand_jokers, zero, np.int64(mib))[1] == -1
    packed = pipeline.solve_packed(units, hand_cards, low, high, 8, limit, budget, budget, np.int64(mib))
    assert packed.tolist() == [pipeline.OVER_MEMORY]
    full = pipeline.solve_packed(units, hand_cards, low, high, 8, limit, budget, budget, np.int64(1 << 40))
    bounded = solver.solve_in_bounded_memory(units, hand_cards, low, high, 8, limit)
    assert bounded[:3].tolist() == full[:3].tolist()
    assert bounded[:2].tolist() == [p.best_points, p.best_cards]


def test_the_vector_env_calls_back_the_bounded_solve():
    table = parse_table("3C 4C 5C | 7D 8D 9D")
    hand = parse_hand("6C 10D JK 2S")
    units, hand_cards = _position_arrays(table, hand)
    called = kernel._rest_of_solve(units, hand_cards, True, False, 8, 5, True)
    direct = solver.solve_in_bounded_memory(units, hand_cards, True, False, 8, 5)
    assert called.tolist() == direct.tolist()
    assert called[1] == 3  # 6C, 10D and the joker
