"""What a run logs beside PPO's losses (training/diagnostics.py), from concrete decisions, and
the panels of its plot (training/logger.py)."""

from __future__ import annotations

import numpy as np
import pytest

from carousel_env.envkit.family import ActionKind
from training.diagnostics import action_rates, episode_figures
from training.logger import PLOTTED, panel_series, plot_learning_curves, plot_runs, running_mean, seconds_at

KNOCK = ActionKind("knock", 3)  # the offer-like slots 3.. of a 6-action space
TAKE = ActionKind("take", 1, 2)
NEVER = ActionKind("never", 2, 3)


def test_a_rate_is_taken_over_the_decisions_where_the_kind_was_legal():
    masks = np.array(
        [
            [1, 1, 0, 1, 1, 0],  # knock legal, taken (4)
            [1, 1, 0, 1, 0, 0],  # knock legal, not taken
            [1, 0, 0, 0, 0, 0],  # neither legal
            [1, 1, 0, 0, 0, 1],  # knock legal (slot 5), not taken; take taken
        ],
        np.int8,
    )
    actions = np.array([4, 0, 0, 1])
    rates = action_rates(masks, actions, (KNOCK, TAKE, NEVER))
    assert rates == pytest.approx({"actions/knock": 1 / 3, "actions/take": 1 / 3})  # "never" was legal nowhere


def test_a_kinds_span_ends_at_the_action_space():
    assert KNOCK.actions(6) == range(3, 6)
    assert ActionKind("wide", 1, 99).actions(6) == range(1, 6)


def test_malformed_decisions_are_named():
    with pytest.raises(ValueError, match="masks must be"):
        action_rates(np.ones((3, 6)), np.zeros(2, np.int64), (KNOCK,))
    with pytest.raises(ValueError, match="masks must be"):
        action_rates(np.ones(6), np.zeros(1, np.int64), (KNOCK,))


def test_episode_figures():
    figures = episode_figures([1.0, -3.0], [10, 20], env_steps=90, episodes=3)
    assert figures == pytest.approx(
        {
            "charts/return_std": 2.0,
            "charts/return_abs_mean": 2.0,
            "charts/episode_decisions": 15.0,
            "charts/episode_env_steps": 30.0,
        }
    )
    assert episode_figures([], [], 0, 0) == {}


def test_a_prefix_panel_draws_every_metric_under_it():
    series = {"actions/knock": [(1, 0.5)], "actions/take": [(1, 0.2)], "losses/entropy": [(1, 2.0)], "actions/x": []}
    assert list(panel_series(series, "actions/")) == ["actions/knock", "actions/take"]
    assert panel_series(series, "losses/entropy") == {"losses/entropy": [(1, 2.0)]}
    assert panel_series(series, "eval/win_rate") == {}


def test_the_plot_draws_a_run_with_some_panels_empty(tmp_path):
    csv = tmp_path / "metrics.csv"
    rows = ["step,name,value", "10,actions/knock,0.1", "20,actions/knock,0.3", "20,losses/entropy,1.5"]
    rows += ["20,eval/win_rate,0.4", "20,eval/win_rate_ci_low,0.3", "20,eval/win_rate_ci_high,0.5"]
    csv.write_text("\n".join(rows) + "\n")
    plot_learning_curves(csv, tmp_path / "curves.png")
    assert (tmp_path / "curves.png").stat().st_size > 10_000
    assert "actions/" in PLOTTED and "losses/explained_variance" in PLOTTED


def test_a_runs_levels_are_its_first_evaluations_to_reach_them(tmp_path):
    from training.logger import Reached, levels_reached, read_metrics

    rows = ["step,name,value", "10,eval/score_diff,-40", "10,charts/wall_s,5.0", "20,eval/score_diff,-25"]
    rows += ["20,charts/wall_s,9.5", "30,eval/score_diff,-30", "30,charts/wall_s,14.0"]
    (tmp_path / "metrics.csv").write_text("\n".join(rows) + "\n")
    series = read_metrics(tmp_path / "metrics.csv")
    assert levels_reached(series, "eval/score_diff", [-35, -20]) == [
        Reached(-35, 20, 9.5),
        Reached(-20, None, None),
    ]
    assert levels_reached(series, "eval/score_diff", [-35], lower=True) == [Reached(-35, 10, 5.0)]


def test_the_running_mean_covers_the_window_before_each_point():
    points = [(10, 0.0), (20, 1.0), (30, 0.5), (40, 1.5)]
    assert running_mean(points, 2) == [(10, 0.0), (20, 0.5), (30, 0.75), (40, 1.0)]
    assert running_mean(points, 1) == points
    with pytest.raises(ValueError, match="window must be at least 1"):
        running_mean(points, 0)


def test_an_evaluation_is_timed_by_the_last_wall_clock_at_or_before_it():
    series = {"charts/wall_s": [(10, 5.0), (20, 9.0)]}
    assert seconds_at(series, [5, 10, 15, 25]) == [None, 5.0, 5.0, 9.0]
    assert seconds_at({}, [10]) == [None]


def test_several_runs_are_drawn_side_by_side_and_a_run_without_the_metric_is_named(tmp_path):
    run_a = {"eval/win_rate": [(10, 0.1), (20, 0.3)], "charts/wall_s": [(10, 4.0), (20, 8.0)]}
    run_b = {"eval/win_rate": [(10, 0.2)]}  # no wall clock: drawn by decisions only
    plot_runs({"a": run_a, "b": run_b}, "eval/win_rate", tmp_path / "runs.png", window=2, levels=(0.5,))
    assert (tmp_path / "runs.png").stat().st_size > 10_000
    with pytest.raises(ValueError, match="no 'eval/win_rate' logged in: c"):
        plot_runs({"a": run_a, "c": {}}, "eval/win_rate", tmp_path / "none.png")
