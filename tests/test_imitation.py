"""``carousel imitate``: a network taught a scripted player's moves, saved as a checkpoint
that evaluation and training take like any other."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from carousel_cli.main import main
from training import checkpoint
from training.config import ConfigError
from training.envs import EnvSpec, shape_for
from training.evaluate import evaluate
from training.imitation import Student, accuracy, collect, imitate
from training.network import Agent


def test_demonstrations_are_the_teachers_legal_moves_at_real_decisions():
    data = collect(EnvSpec.of(2, game="gin_rummy", preset="openspiel"), "simple", 500, seed=3)
    assert len(data) >= 500 and data.observations.shape[0] == data.masks.shape[0] == len(data)
    assert all(data.masks[i, a] for i, a in enumerate(data.actions))  # every recorded move was legal
    assert (data.masks.sum(axis=1) > 1).all()  # the env's own (single-choice) moves are not recorded
    # Each decision carries its seat's whole-hand return: zero-sum, so the two seats' differ in sign.
    assert data.returns.dtype == np.float32 and (data.returns != 0).mean() > 0.5
    for row in np.unique(data.rows)[:5]:
        first_hand = np.unique(data.returns[data.rows == row][:10])  # a hand is dozens of decisions
        assert (len(first_hand) == 2 and first_hand.sum() == 0) or (first_hand == 0).all()
    again = collect(EnvSpec.of(2, game="gin_rummy", preset="openspiel"), "simple", 500, seed=3)
    np.testing.assert_array_equal(again.actions, data.actions)  # seeded


@pytest.mark.training
def test_the_network_learns_the_teachers_moves_and_plays_in_its_game(tmp_path):
    heard = []
    keys = {"game": "gin_rummy", "variant": "openspiel"}
    result = imitate("simple", tmp_path, keys, decisions=6000, epochs=3, report=heard.append)
    # Progress while recording (about every tenth), then each epoch: never silent for long.
    recorded = [line for line in heard if line.startswith("recorded ") and " of 6,000 " in line]
    assert 5 <= len(recorded) <= 10, heard
    assert [line.split(":")[0] for line in heard if line.startswith("epoch")] == [f"epoch {e} of 3" for e in (1, 2, 3)]
    # A uniformly random legal move matches the teacher's about a tenth of the time.
    assert result.held_out_accuracy > 0.5 and result.decisions >= 6000
    saved = checkpoint.load(tmp_path / "latest.pt")
    assert saved["teacher"] == "simple" and saved["config"]["game"] == "gin_rummy"
    assert evaluate(str(tmp_path), "greedy", games=2).games == 2  # its own game and rules, from its config


@pytest.mark.training
def test_carousel_agents_imitate_too_and_errors_are_named(tmp_path, capsys):
    assert main(["imitate", "--teacher", "greedy", "--decisions", "300", "--epochs", "1", "--out", str(tmp_path)]) == 0
    printed = capsys.readouterr().out
    assert "imitated " in printed and "  epoch 1 of 1: " in printed and (tmp_path / "latest.pt").is_file()
    assert main(["imitate", "--teacher", "simple", "--decisions", "10", "--out", str(tmp_path / "x")]) == 2
    assert "'simple' is neither a scripted policy" in capsys.readouterr().err  # Carousel has no `simple`


def test_the_fit_runs_on_the_configs_torch_threads(tmp_path, capsys):
    """One thread unless told (the trainer's default): more would fight other jobs for the cores."""
    before = torch.get_num_threads()
    try:
        imitate("greedy", tmp_path / "two", {"torch_threads": 2}, decisions=50, epochs=0)
        assert torch.get_num_threads() == 2
        argv = ["imitate", "--teacher", "greedy", "--decisions", "50", "--epochs", "0"]
        assert main([*argv, "--out", str(tmp_path / "default")]) == 0
        assert torch.get_num_threads() == 1
        assert main([*argv, "--torch-threads", "0", "--out", str(tmp_path / "bad")]) == 2
        assert "torch_threads" in capsys.readouterr().err and not (tmp_path / "bad" / "latest.pt").exists()
    finally:
        torch.set_num_threads(before)


@pytest.mark.parametrize("teacher", ["checkpoints/ppo_2p", "nobody"])
def test_the_teacher_is_a_scripted_player(teacher, tmp_path):
    with pytest.raises(ConfigError, match="scripted"):
        imitate(teacher, tmp_path, decisions=10)


@pytest.mark.training
def test_init_starts_from_a_checkpoints_network_in_its_game(tmp_path, capsys):
    """Expert iteration's start: ``--init`` takes a network (and its game) instead of a new one."""
    shipped = checkpoint.load(checkpoint.find_checkpoint("checkpoints/ppo_2p"))
    imitate("greedy", tmp_path / "same", decisions=50, epochs=0, init="checkpoints/ppo_2p")
    kept = checkpoint.load(tmp_path / "same" / "latest.pt")
    assert all(np.array_equal(kept["model"][k], shipped["model"][k]) for k in shipped["model"])  # no epoch: unchanged
    assert kept["config"]["init_checkpoint"] == "checkpoints/ppo_2p"
    argv = ["imitate", "--teacher", "greedy", "--init", "checkpoints/ppo_2p", "--decisions", "50", "--epochs", "1"]
    assert main([*argv, "--out", str(tmp_path / "cli")]) == 0
    assert checkpoint.load(tmp_path / "cli" / "latest.pt")["config"]["game"] == "carousel"
    assert main([*argv[:-4], "--init", "runs/nowhere", "--out", str(tmp_path / "bad")]) == 2
    assert "runs/nowhere" in capsys.readouterr().err and not (tmp_path / "bad" / "latest.pt").exists()


@pytest.mark.training
def test_one_network_learns_several_table_sizes(tmp_path, capsys):
    heard = []
    result = imitate(
        "simple", tmp_path, {"game": "carioca"}, decisions=400, epochs=1, report=heard.append, tables=(2, 3)
    )
    assert [line for line in heard if line.startswith("at ")] == [
        "at 2 players: 200 decisions",
        "at 3 players: 200 decisions",
    ]
    assert result.decisions >= 400
    saved = checkpoint.load(tmp_path / "latest.pt")
    assert saved["tables"] == [2, 3] and saved["config"]["num_players"] == 2
    exported = checkpoint.export_policy(tmp_path, tmp_path / "model.pt")  # what a shipped agent keeps
    assert exported["tables"] == [2, 3] and exported["teacher"] == "simple"
    assert evaluate(str(tmp_path), "simple", games=3, num_players=3).games == 3  # and it plays at either table
    argv = ["imitate", "--teacher", "simple", "--game", "carioca", "--decisions", "40", "--epochs", "0"]
    assert main([*argv, "--players", "2,4", "--out", str(tmp_path / "cli")]) == 0
    assert checkpoint.load(tmp_path / "cli" / "latest.pt")["tables"] == [2, 4]
    capsys.readouterr()


@pytest.mark.parametrize(
    ("players", "message"),
    [
        ("2,x", "--players takes table sizes separated by commas"),
        ("2,3,2", "--players names a table size twice"),
        ("2,6", "num_players"),
    ],
)
def test_bad_table_sizes_are_named(players, message, tmp_path, capsys):
    argv = ["imitate", "--teacher", "simple", "--game", "carioca", "--decisions", "40", "--players", players]
    assert main([*argv, "--out", str(tmp_path / "bad")]) == 2
    assert message in capsys.readouterr().err and not (tmp_path / "bad" / "latest.pt").exists()


def test_a_heads_up_game_refuses_a_larger_table(tmp_path):
    with pytest.raises(ConfigError, match="num_players"):
        imitate("simple", tmp_path, {"game": "gin_rummy"}, decisions=40, tables=(2, 3))


def test_the_fit_is_scored_in_batches_with_the_same_answer():
    """Scoring every row at once held all their logits: 480,000 rows ran a 24 GiB machine out of memory."""
    spec = EnvSpec.of(2, game="carioca")
    data = collect(spec, "simple", 300, seed=2)
    layout, fixed = shape_for(spec)
    agent = Agent(layout, 32, 16, fixed)
    rows = np.arange(len(data))
    whole = accuracy(agent, data, rows, batch=len(data))
    assert accuracy(agent, data, rows, batch=7) == pytest.approx(whole) and 0 <= whole <= 1
    assert np.isnan(accuracy(agent, data, rows[:0]))


@pytest.mark.training
@pytest.mark.xdist_group("cores")
def test_workers_record_shares_with_seeds_of_their_own(tmp_path, capfd):
    from training.imitation import collect_parallel, worker_seed

    spec = EnvSpec.of(2, game="gin_rummy", preset="openspiel")
    assert worker_seed(3, 0, 1) == 3 and len({worker_seed(3, w, 2) for w in range(2)}) == 2
    data = collect_parallel(spec, "simple", 600, seed=3, workers=2)
    parts = [collect(spec, "simple", 300, worker_seed(3, w, 2)) for w in range(2)]
    np.testing.assert_array_equal(data.actions, np.concatenate([p.actions for p in parts]))
    np.testing.assert_array_equal(data.rows, np.concatenate([p.rows for p in parts]))  # held-out rows stay held out
    assert "[worker 1] recorded " in capfd.readouterr().out  # workers report as they record
    with pytest.raises(ConfigError, match="workers must be an int >= 1"):
        imitate("simple", tmp_path, {"game": "gin_rummy"}, decisions=10, workers=0)


def test_a_student_plays_its_share_while_the_teachers_moves_are_recorded():
    """DAgger: the same deals, the student's moves played, the teacher's recorded."""
    spec = EnvSpec.of(2, game="conquian")
    taught = collect(spec, "simple", 300, seed=5)
    student = Student("checkpoints/conquian", 1.0)
    reached = collect(spec, "simple", 300, seed=5, student=student)
    np.testing.assert_array_equal(reached.observations[0], taught.observations[0])  # the same first deal
    assert not np.array_equal(reached.actions[:300], taught.actions[:300])  # the student's games, not the teacher's
    assert all(reached.masks[i, a] for i, a in enumerate(reached.actions))  # the teacher's moves, legal there
    again = collect(spec, "simple", 300, seed=5, student=student)
    np.testing.assert_array_equal(again.actions, reached.actions)  # seeded, the student's samples too
    half = collect(spec, "simple", 300, seed=5, student=Student("checkpoints/conquian", 0.5))
    assert not np.array_equal(half.actions[:300], reached.actions[:300])


@pytest.mark.parametrize(
    ("student", "share", "error", "message"),
    [
        ("checkpoints/conquian", 0.0, ConfigError, "student_share must be a number in"),
        ("checkpoints/conquian", 1.5, ConfigError, "student_share must be a number in"),
        ("checkpoints/conquian", True, ConfigError, "student_share must be a number in"),
        ("checkpoints/gin_2p", 1.0, ConfigError, "plays gin_rummy, not conquian"),
        ("runs/nowhere", 1.0, checkpoint.CheckpointError, "runs/nowhere"),
    ],
)
def test_a_bad_student_is_named_before_any_game(student, share, error, message, tmp_path):
    with pytest.raises(error, match=message):
        imitate("simple", tmp_path, {"game": "conquian"}, decisions=10, student=student, student_share=share)
    assert not (tmp_path / "latest.pt").exists()


@pytest.mark.training
def test_imitate_with_a_student_from_the_command_line(tmp_path, capsys):
    argv = ["imitate", "--game", "conquian", "--teacher", "simple", "--decisions", "200", "--epochs", "1"]
    argv += ["--student", "checkpoints/conquian", "--student-share", "0.5", "--out", str(tmp_path)]
    assert main(argv) == 0
    saved = checkpoint.load(tmp_path / "latest.pt")
    assert saved["student"] == "checkpoints/conquian" and saved["student_share"] == 0.5 and saved["teacher"] == "simple"
