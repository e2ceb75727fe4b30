"""examples/rllib_selfplay.py runs (at its tiny budget) and its agent loads for eval."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("ray")

from training.policies import load_network_policy

ROOT = Path(__file__).resolve().parent.parent


def test_rllib_selfplay_example(tmp_path):
    out = tmp_path / "agent.pt"
    command = [sys.executable, "examples/rllib_selfplay.py", "--tiny", "--out", str(out)]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "iteration 2:" in done.stdout and f"wrote {out}" in done.stdout
    assert load_network_policy(str(out)).agent.hidden_size == 16
