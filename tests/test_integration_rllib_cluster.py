"""RLlib self-play on a two-node Ray cluster started on this machine, the way docs/RAY.md
tells users to start one: ``ray start --head`` (the head node), ``ray start
--address=HEAD`` (a second node), each with one CPU, then ``carousel train --backend rllib
--address auto`` with two env runners, which Ray must place one on each node. The cluster
is torn down afterwards, whatever happens (``tests/support/ray_cluster.py``)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("ray")

from tests.support.ray_cluster import TwoNodeCluster
from training import checkpoint
from training.rllib.train import RESTARTS_NOTE

pytestmark = [pytest.mark.integration, pytest.mark.training, pytest.mark.xdist_group("ray")]

ROOT = Path(__file__).resolve().parent.parent
CAROUSEL = Path(sys.executable).with_name("carousel")
# A warning- or error-level line of Python's logging (Ray's format: "... WARNING file.py:N --"),
# of Ray's C++ core ("[date time E pid tid] file.cc:N: ..."), or of PettingZoo ("[WARNING]: ...").
ALARM = re.compile(r"\b(WARNING|ERROR|CRITICAL)\b|DeprecationWarning|^\[[^]]* [EWF] \d+ \d+\]")


@pytest.fixture
def cluster():
    started = TwoNodeCluster.start(num_cpus=1)
    try:
        yield started
    finally:
        started.stop()


def test_self_play_samples_on_both_nodes_of_a_two_node_cluster(no_ray, cluster, tmp_path):
    nodes = cluster.node_ids()
    assert len(nodes) == 2
    run = tmp_path / "run"
    command = [str(CAROUSEL), "train", "--backend", "rllib", "--config", "configs/rllib_smoke.yaml"]
    command += ["--out", str(run), "--address", "auto", "--set", "num_env_runners=2", "--set", "iterations=1"]
    done = subprocess.run(command, cwd=ROOT, env=cluster.env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Ray: 2 node(s), 2 CPUs" in done.stdout
    placed = re.search(r"env runners on (\d+) node\(s\): (.+)", done.stdout)
    assert placed is not None, done.stdout
    assert placed.group(1) == "2" and set(placed.group(2).split(", ")) == nodes
    assert "iter 1/1:" in done.stdout and "eval vs greedy" in done.stdout
    assert checkpoint.load(run / "latest.pt")["counters"]["update"] == 1
    assert (run / "rllib" / "rllib_checkpoint.json").exists()
    # On a cluster env runners are restartable, and Ray's error line about that is explained
    # (before it); no other alarm reaches the terminal.
    assert RESTARTS_NOTE in done.stdout
    alarms = [line for line in (done.stdout + done.stderr).splitlines() if ALARM.search(line)]
    assert all("max_restarts > 0" in line for line in alarms), alarms
