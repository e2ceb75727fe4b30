"""examples/rllib_selfplay.py runs (at its tiny budget) without an alarm from Ray, RLlib or
PettingZoo in its output, and its agent loads for eval."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("ray")

from training.policies import load_network_policy

pytestmark = [pytest.mark.integration, pytest.mark.training, pytest.mark.xdist_group("ray")]

ROOT = Path(__file__).resolve().parent.parent

# A warning- or error-level line of Python's logging (Ray's format: "... WARNING file.py:N --"),
# of Ray's C++ core ("[date time E pid tid] file.cc:N: ..."), or of PettingZoo ("[WARNING]: ...").
ALARM = re.compile(r"\b(WARNING|ERROR|CRITICAL)\b|DeprecationWarning|^\[[^]]* [EWF] \d+ \d+\]", re.MULTILINE)


def test_rllib_selfplay_example(no_ray, tmp_path):
    out = tmp_path / "agent.pt"
    command = [sys.executable, "examples/rllib_selfplay.py", "--tiny", "--out", str(out)]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "iteration 2:" in done.stdout and f"wrote {out}" in done.stdout
    output = done.stdout + done.stderr
    assert "Illegal move" not in output and "max_restarts" not in output, output
    assert ALARM.search(output) is None, output
    assert load_network_policy(str(out)).agent.hidden_size == 16
