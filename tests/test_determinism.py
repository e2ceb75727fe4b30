"""The same seed and actions give the same trajectory everywhere: in another process with
another string-hash seed (``PYTHONHASHSEED``), and in training with 0, 1 or 2 rollout
workers (spawned processes, each with its own hash seed)."""

from __future__ import annotations

import csv
import hashlib
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

import carousel_env
from training import checkpoint
from training.config import load_config
from training.logger import TIMING_METRICS
from training.ppo import train

ROOT = Path(__file__).resolve().parent.parent
# Whole games of both variants and the round-bonus option (one game each keeps it quick).
GAMES = (
    {"variant": "carousel", "num_players": 3},
    {"variant": "carousel", "num_players": 2, "round_bonus": "everyone"},
    {"variant": "manipulation_rummy", "num_players": 4},
)
SEED = 7


def trajectory_digest(seed: int = SEED) -> str:
    """SHA-256 of every step of ``GAMES`` played with seeded random legal actions: each
    agent's observation and mask, and the acting agent's reward, flags and info."""
    digest = hashlib.sha256()
    for config in GAMES:
        env = carousel_env.env(episode="game", **config)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for agent in env.agent_iter():
            observation, reward, termination, truncation, info = env.last()
            digest.update(repr((agent, reward, termination, truncation, sorted(info.items()))).encode())
            for other in env.possible_agents:
                seen = env.observe(other)
                digest.update(seen["observation"].tobytes())
                digest.update(seen["action_mask"].tobytes())
            if termination or truncation:
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
        env.close()
    return digest.hexdigest()


def _in_subprocess(hash_seed: int) -> subprocess.Popen:
    code = "from tests.test_determinism import trajectory_digest; print(hash('carousel'), trajectory_digest())"
    env = {**os.environ, "PYTHONHASHSEED": str(hash_seed)}
    return subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)


@pytest.mark.xdist_group("cores")
def test_trajectories_do_not_depend_on_the_process_or_its_hash_seed():
    runs = [_in_subprocess(1), _in_subprocess(2)]  # both at once: one per core
    here = trajectory_digest()
    answers = []
    for run in runs:
        out, _ = run.communicate(timeout=300)
        assert run.returncode == 0, f"the subprocess failed with exit status {run.returncode}"
        answers.append(out.split())
    (hash1, digest1), (hash2, digest2) = answers
    assert hash1 != hash2, "PYTHONHASHSEED did not change string hashing: the test proves nothing"
    assert digest1 == digest2 == here


def _params(run_dir: Path) -> torch.Tensor:
    data = checkpoint.load(run_dir / "latest.pt")
    return torch.cat([v.flatten().float() for v in data["model"].values()])


def _metrics(run_dir: Path) -> list[tuple[str, str, str]]:
    timing = TIMING_METRICS  # wall-clock figures differ by nature
    with (run_dir / "metrics.csv").open() as f:
        return [(r["step"], r["name"], r["value"]) for r in csv.DictReader(f) if r["name"] not in timing]


@pytest.mark.training
@pytest.mark.xdist_group("cores")
def test_training_on_the_real_env_does_not_depend_on_the_number_of_workers(tmp_path):
    """Two tiny updates on the real environment (network, pool and scripted seats)."""
    runs = {}
    for workers in (0, 1, 2):
        overrides = ["total_timesteps=128", "num_envs=4", "num_steps=16", "eval_games=0", f"num_workers={workers}"]
        config = load_config(ROOT / "configs" / "smoke.yaml", overrides)
        assert config.env_factory == "carousel_env:env" and config.num_updates == 2
        runs[workers] = train(config, tmp_path / f"workers_{workers}")
    params = {w: _params(run) for w, run in runs.items()}
    metrics = {w: _metrics(run) for w, run in runs.items()}
    assert any(name == "charts/episodic_return" for _, name, _ in metrics[0])  # episodes finished
    for workers in (1, 2):
        assert torch.equal(params[0], params[workers]), f"{workers} workers trained other weights"
        assert metrics[0] == metrics[workers], f"{workers} workers logged other metrics"
