"""The soak benchmark's CI slice (complete games, every invariant checked after every
action) and proof that its checks do catch what they look for."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from carousel_env.core.cards import parse_table
from carousel_env.games.carousel.engine.game import GameState
from tests.support import soak, soak_checks

# 1,000 complete games over both variants, 2-5 players and the three scripted players (games
# 0-999), in four slices of 250 that pytest-xdist's workers share; the first slice plays on two
# worker processes of its own (run_soak's pool), the others in the test's process (python -m
# benchmarks.soak prints the rate).
SOAK_GAMES = 1000
SOAK_SLICES = 4
SOAK_SEED = 0


@pytest.mark.soak
@pytest.mark.parametrize("part", [pytest.param(0, marks=pytest.mark.xdist_group("cores")), *range(1, SOAK_SLICES)])
def test_soak_games_break_no_invariant(part):
    games = SOAK_GAMES // SOAK_SLICES
    workers = 2 if part == 0 else 0
    report = soak.run_soak(games, workers=workers, seed=SOAK_SEED + part * games)
    assert not report.violations, "\n".join(map(str, report.violations[:20]))
    assert report.games == games
    # Every kind of table was played (the seeds draw them; each slice's draw them all).
    variants = {table.split()[0] for table in report.tables}
    assert variants == {"carousel/losers", "carousel/everyone", "manipulation_rummy"}
    assert {int(table.split()[1][0]) for table in report.tables} == {2, 3, 4, 5}


def test_a_game_replays_from_its_seed_alone():
    assert soak.GameSpec.of(17) == soak.GameSpec.of(17)
    first, again = soak.play_game(17), soak.play_game(17)
    assert (first.decisions, first.auto_actions, first.rounds) == (again.decisions, again.auto_actions, again.rounds)


@pytest.fixture(scope="module")
def finished_game() -> tuple[soak_checks.CheckedEnv, list[GameState]]:
    """A Carousel game played to its end, with the final state of every round."""
    seed = next(s for s in range(100) if soak.GameSpec.of(s).variant == "carousel")
    assert not soak.play_game(seed).violations
    env = soak._env_for(soak.GameSpec.of(seed))
    return env, list(env.finished_rounds)


def test_lost_or_invented_cards_are_found(finished_game):
    env, rounds = finished_game
    state = rounds[0]
    deck = soak_checks.GameChecker(env).deck
    assert soak_checks.card_problems(state, deck) == []
    problems = soak_checks.card_problems(replace(state, stock=state.stock[:-1]), deck)
    assert len(problems) == 1 and "missing [" in problems[0] and "extra []" in problems[0]


def test_invalid_melds_are_found(finished_game):
    state = finished_game[1][0]
    broken = replace(state, table=parse_table("3C 4D 5C"))
    assert soak_checks.meld_problems(broken) == ["invalid meld on the table: 3C 4D 5C"]


def test_wrong_round_scores_are_found(finished_game):
    state = finished_game[1][0]
    assert soak_checks.round_problems(state) == []
    result = state.last_round
    wrong = replace(result, points=tuple(p + 1 for p in result.points))
    problems = soak_checks.round_problems(replace(state, round_scores=(*state.round_scores[:-1], wrong)))
    assert len(problems) == 1 and "RULES.md gives" in problems[0]


def test_wrong_game_results_are_found(finished_game):
    final = finished_game[1][-1]
    scores, won = final.game_result.totals_before_bonus, final.game_result.rounds_won
    assert soak_checks.game_problems(final, scores, won) == []
    wrong = replace(final.game_result, bonuses=tuple(b + 25 for b in final.game_result.bonuses))
    assert "RULES.md gives" in soak_checks.game_problems(replace(final, game_result=wrong), scores, won)[0]
    assert "did not end" in soak_checks.game_problems(replace(final, phase=final.phase.ROUND_OVER), scores, won)[0]


def test_observations_outside_their_space_are_found():
    env = soak_checks.CheckedEnv(num_players=3)
    env.reset(seed=2)
    checker = soak_checks.GameChecker(env)
    assert checker.problems(None) == []
    bystander = next(a for a in env.agents if a != env.agent_selection)
    env.observe(bystander)["observation"][0] = np.float32(99.0)  # the env hands out its cached array
    problems = checker.problems(None)
    assert problems == [
        f"{bystander}'s observation is outside the observation space: observation[0] = 99.0"
        " outside [0.0, 2.0] (1 values out)"
    ]


def test_a_violation_names_the_game_and_the_step(monkeypatch):
    monkeypatch.setattr(soak_checks, "hand_value", lambda hand: 0)  # a wrong reading of the rules
    seed = 5
    report = soak.play_game(seed)
    assert report.violations, "a broken score check found nothing"
    violation = report.violations[0]
    assert violation.seed == seed and violation.step == report.decisions > 0
    assert "round hand values" in violation.what
    assert f"--games 1 --seed {seed} --workers 0" in str(violation)
