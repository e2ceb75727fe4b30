"""The stored agent positions (tests/data/agent_positions.jsonl): legal, and the solver meets their MILP optima.

They are the benchmark's headline set (``benchmarks.bench_solver``): the positions the env
asked the solver in the shipped agents' self-play, written by
``tests.data.generate_agent_positions``.
"""

from __future__ import annotations

import pytest

from carousel_env.core.cards import JOKER
from carousel_env.games.carousel import solver
from carousel_env.games.carousel.engine.manipulation import check_play
from carousel_env.games.carousel.engine.positions import check_position
from carousel_env.games.carousel.solver import solve
from tests.support.budgets import UNHURRIED_S
from tests.support.stored import AGENT_POSITIONS, StoredPosition, agent_positions

SETS = {"agent-2p": 2, "agent-3p": 3, "agent-4p": 4, "agent-5p": 5}  # set -> players
SAMPLE_PER_SET = 15


@pytest.fixture(scope="module")
def positions() -> tuple[StoredPosition, ...]:
    found = agent_positions()
    if not found:
        pytest.skip(f"{AGENT_POSITIONS.name} not generated yet (python -m tests.data.generate_agent_positions)")
    return found


def by_set(positions: tuple[StoredPosition, ...]) -> dict[str, list[StoredPosition]]:
    sets: dict[str, list[StoredPosition]] = {}
    for p in positions:
        sets.setdefault(p.set_name, []).append(p)
    return sets


def test_sets_load_with_their_rules(positions):
    sets = by_set(positions)
    assert set(sets) == set(SETS)
    assert len(sets["agent-2p"]) == 1200
    assert all(len(sets[name]) == 600 for name in ("agent-3p", "agent-4p", "agent-5p"))
    for name, players in SETS.items():
        for p in sets[name]:
            assert p.rules.num_players == players
            assert p.decks == p.rules.decks == (1 if players == 2 else 2)
    # deduplicated, and real play reaches the large hands the synthetic sets stop short of
    assert len({(p.table, p.hand, p.rules.num_players) for p in positions}) == len(positions)
    assert max(len(p.hand) for p in positions) >= 25


def test_positions_are_legal(positions):
    for p in positions:
        check_position(p.table, p.hand, p.rules)


def test_solver_meets_stored_milp_optima(positions):
    sample = []
    for items in by_set(positions).values():
        step = len(items) // SAMPLE_PER_SET
        sample += items[::step][:SAMPLE_PER_SET]
    sample += sorted(positions, key=lambda p: len(p.hand))[-5:]  # the largest hands
    bad = []
    for p in sample:
        result = solve(p.table, p.hand, p.rules)
        if (result.best_points, result.best_cards) != (p.best_points, p.best_cards):
            bad.append((p.line, result.best_points, result.best_cards))
    assert not bad, bad[:5]


def _entries(result: solver.SolveResult) -> tuple:
    """What a solve answers, but the plays themselves (two routes may pick different cards
    of the same entry and points, and rebuild them into different legal tables)."""
    picks = tuple((s.reason, s.cards, s.jokers_used, s.points, s.hand_after_points) for s in result.suggestions)
    return result.best_points, result.best_cards, picks


@pytest.mark.reference
def test_heaviest_hands_agree_with_the_integer_programs(positions, monkeypatch):
    # The hands with both jokers and 30+ cards: the 4-player agent's worst (30 cards
    # against 16 melds) finishes the unpruned sweep only past 250,000 states, where the
    # integer programs take over at a lower budget; both routes must give the same answer.
    heavy = [p for p in positions if p.hand.count(JOKER) == 2 and len(p.hand) >= 30]
    assert len(heavy) >= 10
    unpruned = [solve(p.table, p.hand, p.rules, time_budget=UNHURRIED_S) for p in heavy]
    monkeypatch.setattr(solver, "FULL_SWEEP_STATES", 0)  # every solve by the integer programs
    monkeypatch.setattr(solver, "WITNESS_BUDGET", 0)  # and no witness settles it first
    for p, first in zip(heavy, unpruned, strict=True):
        programs = solve(p.table, p.hand, p.rules, time_budget=UNHURRIED_S)
        assert programs.exact
        assert _entries(first) == _entries(programs), p.line
        assert (first.best_points, first.best_cards) == (p.best_points, p.best_cards), p.line
        for s in (*first.suggestions, *programs.suggestions):
            check_play(p.table, p.hand, s.play, p.rules)
