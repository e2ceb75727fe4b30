"""The integer programs behind the sweeps (``solver.milp``), and the time budget of a solve.

When the sweeps give up (past ``solver.FULL_SWEEP_STATES`` states or the memory cap), one
integer program per suggestion slot answers. With the budget and the cap at 0 (and no
witness) every solve with a play goes that way, so these tests hold the programs to the
sweeps' answers: the same optima, and for every suggestion the same reason, cards, jokers,
points and points left in hand (the cards played may differ where two plays of the entry
tie, and the table they are rebuilt into: both are legal, which ``check_play`` confirms).
The time budget: a solve that runs out of it answers with the best it found, says so, and
the game goes on legally.
"""

from __future__ import annotations

import time

import numpy as np
import pytest

import carousel_env
from carousel_env.core import compiled as _cache
from carousel_env.core.cards import JOKER, parse_hand, parse_table
from carousel_env.games.carousel import solver
from carousel_env.games.carousel.engine.manipulation import check_play
from carousel_env.games.carousel.engine.rules import carousel
from carousel_env.games.carousel.envs.config import EnvConfig, EnvConfigError
from carousel_env.games.carousel.solver import _position_arrays, milp, pipeline
from carousel_env.games.carousel.vector import CarouselVectorEnv, kernel
from tests.support.budgets import UNHURRIED_S
from tests.support.stored import STALLED_HAND, STALLED_TABLE, agent_positions


def _entries(result: solver.SolveResult) -> tuple:
    picks = tuple((s.reason, s.cards, s.jokers_used, s.points, s.hand_after_points) for s in result.suggestions)
    return result.best_points, result.best_cards, picks


@pytest.fixture
def programs_only(monkeypatch):
    """``route(True)``: every solve with a play answered by the integer programs; yields
    ``(route, calls)``, ``calls`` the programs' answers."""
    calls = []
    real = solver.answer_by_programs

    def counted(*args):
        calls.append(args)
        return real(*args)

    monkeypatch.setattr(solver, "answer_by_programs", counted)
    defaults = {name: getattr(solver, name) for name in ("MEMORY_CAP_BYTES", "WITNESS_BUDGET", "FULL_SWEEP_STATES")}

    def route(on: bool) -> None:
        for name, default in defaults.items():
            monkeypatch.setattr(solver, name, 0 if on else default)

    return route, calls


def _agree(positions, programs_only) -> int:
    route, calls = programs_only
    for p in positions:
        route(False)
        swept = solver.solve(p.table, p.hand, p.rules, time_budget=UNHURRIED_S)
        route(True)
        programs = solver.solve(p.table, p.hand, p.rules, time_budget=UNHURRIED_S)
        assert programs.exact
        assert _entries(programs) == _entries(swept), p.line
        assert (programs.best_points, programs.best_cards) == (p.best_points, p.best_cards), p.line
        for s in programs.suggestions:
            check_play(p.table, p.hand, s.play, p.rules)
    return len(calls)


SAMPLE_SLICES = 4  # the stored sample in slices that pytest-xdist's workers share


@pytest.mark.reference
@pytest.mark.parametrize("part", range(SAMPLE_SLICES))
def test_programs_agree_with_the_sweeps_on_stored_positions(stored, programs_only, part):
    sample = [p for p in stored[::9] if p.hand][part::SAMPLE_SLICES]
    assert _agree(sample, programs_only) >= len(sample) // 2  # the rest have no live card to play


@pytest.mark.reference
def test_programs_agree_on_the_agents_positions(programs_only):
    positions = agent_positions()
    if not positions:
        pytest.skip("tests/data/agent_positions.jsonl not generated")
    by_hand = sorted(positions, key=lambda p: (p.hand.count(JOKER), len(p.hand)))
    sample = [*positions[::60], *by_hand[-3:]]  # every table size, and the hands with most jokers and cards
    assert _agree(sample, programs_only) >= len(sample) // 2


def test_has_play_past_the_cap(stored, monkeypatch):
    sample = [p for p in stored[::40] if p.hand]
    expected = [solver.has_play(p.table, p.hand, p.rules) for p in sample]
    assert any(expected) and not all(expected)
    monkeypatch.setattr(solver, "MEMORY_CAP_BYTES", 0)
    monkeypatch.setattr(solver, "_lays_off", lambda *_: False)  # the optima pass, not the shortcut
    before = solver.solve_counts()
    assert [solver.has_play(p.table, p.hand, p.rules) for p in sample] == expected
    assert solver.solve_counts().programs - before.programs >= len(sample) // 4  # the rest: no live card
    assert solver.solve_counts().inexact == before.inexact


def test_the_stalled_position_is_solved_exactly_and_fast():
    table, hand = parse_table(STALLED_TABLE), parse_hand(STALLED_HAND)
    rules = carousel(3)
    units, hand_cards = _position_arrays(table, hand)
    budget, level, cap = np.int64(solver.FULL_SWEEP_STATES), np.int64(solver.FIRST_SWEEP_LEVEL), np.int64(1 << 29)
    packed = pipeline.solve_packed(units, hand_cards, True, True, 8, 5, budget, budget, cap)
    assert packed.tolist() == [pipeline.GAVE_UP]  # past the sweep's budget
    assert level < budget
    before = solver.solve_counts()
    result = solver.solve(table, hand, rules)
    assert result.exact and (result.best_points, result.best_cards) == (336, 45)  # the MILP's optima
    assert len(result.suggestions) == 8
    for s in result.suggestions:
        check_play(table, hand, s.play, rules)
    assert solver.solve_counts().programs == before.programs + 1


def test_a_program_that_runs_out_of_time_says_so(monkeypatch):
    table, hand = parse_table(STALLED_TABLE), parse_hand(STALLED_HAND)
    rules = carousel(3)
    # HiGHS stopped at once, with the first play it found: the best found, not proven.
    monkeypatch.setattr(milp, "MIN_PROGRAM_SECONDS", 1e-4)
    before = solver.solve_counts()
    result = solver.solve(table, hand, rules, time_budget=1e-4)
    assert not result.exact
    assert solver.solve_counts().inexact == before.inexact + 1
    for s in result.suggestions:  # whatever it offers is legal
        check_play(table, hand, s.play, rules)


@pytest.mark.parametrize("budget", [0, -1.0, True, "1", float("nan")])
def test_a_bad_time_budget_is_named(budget):
    with pytest.raises(ValueError, match="time_budget"):
        solver.solve(parse_table("3C 4C 5C"), parse_hand("6C"), carousel(2), time_budget=budget)


def test_the_vector_env_calls_back_the_programs():
    table = parse_table("3C 4C 5C | 7D 8D 9D")
    hand = parse_hand("6C 10D JK 2S")
    units, hand_cards = _position_arrays(table, hand)
    called = kernel._rest_of_solve(units, hand_cards, True, False, 8, 5, True, 1_000_000, 0)
    direct = solver.answer_by_programs(units, hand_cards, True, False, 8, 5, 1.0)
    assert called.tolist() == direct.packed.tolist()
    assert called[1] == 3  # 6C, 10D and the joker


@pytest.fixture
def unproven(monkeypatch):
    """Every program's answer taken as HiGHS gives it when its time runs out: the best
    play found, not proven best (the real programs, so the plays are real)."""
    real = milp.best_play

    def out_of_time(*args):
        outcome = real(*args)
        return milp.Outcome(outcome.found, False)

    monkeypatch.setattr(milp, "best_play", out_of_time)


def test_the_aec_env_flags_an_inexact_step_and_the_game_goes_on(monkeypatch, unproven):
    for name in ("MEMORY_CAP_BYTES", "WITNESS_BUDGET", "FULL_SWEEP_STATES"):
        monkeypatch.setattr(solver, name, 0)  # every solve by the programs
    env = carousel_env.env(num_players=2, solve_time_budget=0.5)
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    flagged = steps = 0
    for agent in env.agent_iter(max_iter=400):
        _, _, termination, truncation, info = env.last()
        flagged += info["solver_inexact"] > 0
        steps += 1
        if termination or truncation:
            env.step(None)
            continue
        mask = env.observe(agent)["action_mask"]
        plays = np.flatnonzero(mask[3:]) + 3  # play when able: the plays are the programs' (checked by the engine)
        env.step(int(plays[0]) if len(plays) else int(rng.choice(np.flatnonzero(mask))))
    assert steps > 20 and flagged > 0


def test_the_vector_env_counts_inexact_solves(monkeypatch, unproven):
    # crowded tables' solves (the witness rounds' callback) answered by the programs instead
    monkeypatch.setattr(kernel, "witness_rounds", solver.answer_by_programs)
    venv = CarouselVectorEnv(num_envs=4, num_players=3)
    step = venv.reset(seed=11)
    rng = np.random.default_rng(0)
    seen = 0
    for _ in range(600):
        legal = step.action_mask.astype(bool)
        plays = legal.copy()
        plays[:, :3] = False
        actions = [
            int(np.flatnonzero(p)[0]) if p.any() else int(rng.choice(np.flatnonzero(m))) for p, m in zip(plays, legal)
        ]
        step = venv.step(np.array(actions))
        seen += int(step.info.solver_inexact.sum())
        if venv.solver_inexact >= 1:
            break
    assert venv.solver_inexact >= 1 and seen == venv.solver_inexact
    assert step.info.solver_inexact.shape == (4,)


@pytest.mark.parametrize("budget", [0, 1e-4, -1, True, "1", 10_000])
def test_a_bad_solve_time_budget_names_the_key(budget):
    with pytest.raises(EnvConfigError, match="solve_time_budget"):
        EnvConfig(solve_time_budget=budget)


def test_the_env_config_defaults_to_the_solvers_budget():
    assert EnvConfig().solve_time_budget == solver.TIME_BUDGET_S


@pytest.mark.parametrize("k", [0, 1, 3])
def test_programs_give_the_optima_for_any_k(k):
    table, hand = parse_table("3C 4C 5C | 7D 8D 9D"), parse_hand("6C 10D JK 2S KD QD")
    units, hand_cards = _position_arrays(table, hand)
    swept = solver.solve(table, hand, carousel(2), k=k)
    found = milp.solve_by_programs(units, hand_cards, True, True, k, 5, 1.0)
    assert found.exact and found.packed[:2].tolist() == [swept.best_points, swept.best_cards]
    assert found.packed[2] == len(swept.suggestions) <= k


def test_a_first_calls_compile_is_not_counted_in_the_budget(monkeypatch):
    # A cold cache compiles the witness search inside the first crowded solve (up to 15 s):
    # stood in for by a first call that takes longer than the whole budget.
    table, hand = parse_table(STALLED_TABLE), parse_hand(STALLED_HAND)
    real = solver.witness.witnessed
    monkeypatch.setattr(_cache, "_first_calls_done", _cache._first_calls_done - {real})

    calls = []

    def slow_first(*args):
        if not calls:
            time.sleep(1.5)
        calls.append(args)
        return real(*args)

    monkeypatch.setattr(solver.witness, "witnessed", slow_first)
    result = solver.solve(table, hand, carousel(3), time_budget=1.0)
    assert result.exact and (result.best_points, result.best_cards) == (336, 45)
