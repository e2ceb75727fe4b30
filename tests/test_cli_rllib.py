"""``carousel train --backend rllib``: train, checkpoint, resume, and the agent in eval,
tournament and export, on a local Ray instance (configs/rllib_smoke.yaml)."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest

ray = pytest.importorskip("ray")
torch = pytest.importorskip("torch")

from carousel_cli.main import main  # noqa: E402
from training import checkpoint  # noqa: E402

pytestmark = pytest.mark.integration  # RLlib and Ray

SMOKE = str(Path(__file__).resolve().parent.parent / "configs" / "rllib_smoke.yaml")
# A warning- or error-level line of Python's logging (Ray's format: "... WARNING file.py:N --"),
# of Ray's C++ core ("[date time E pid tid] file.cc:N: ..."), or of PettingZoo ("[WARNING]: ...").
ALARM = re.compile(r"\b(WARNING|ERROR|CRITICAL)\b|DeprecationWarning|^\[[^]]* [EWF] \d+ \d+\]", re.MULTILINE)


def _rows(run: Path) -> list[dict[str, str]]:
    with (run / "progress.csv").open() as f:
        return list(csv.DictReader(f))


@pytest.mark.training
@pytest.mark.xdist_group("ray")
def test_rllib_backend_trains_checkpoints_resumes_and_its_agent_plays(no_ray, tmp_path, capfd):
    capsys = capfd  # the terminal's file descriptors: Ray's C++ core writes there too
    run = tmp_path / "run"
    assert main(["train", "--backend", "rllib", "--config", SMOKE, "--out", str(run), "--max-updates", "1"]) == 0
    out, err = capsys.readouterr()
    assert "starting a local Ray instance" in out and "iter 1/2:" in out and "eval vs greedy: 2 games" in out
    assert ALARM.search(out + err) is None, out + err  # nothing from Ray, RLlib or PettingZoo
    assert not ray.is_initialized()
    for name in ("config.yaml", "progress.csv", "latest.pt", "rllib/rllib_checkpoint.json"):
        assert (run / name).exists(), name
    exported = checkpoint.load(run / "latest.pt")
    assert exported["counters"]["update"] == 1

    # (What --resume restores is checked in test_integration_rllib.py.)
    assert main(["train", "--backend", "rllib", "--out", str(run), "--resume"]) == 0
    out, err = capsys.readouterr()
    assert "at iteration 1" in out and "iter 2/2:" in out and "iter 1/2" not in out
    assert ALARM.search(out + err) is None, out + err
    first, second = _rows(run)
    assert (first["iteration"], second["iteration"]) == ("1", "2")
    assert int(second["env_steps"]) >= 2 * int(first["env_steps"])  # counters carry on
    assert int(second["episodes"]) > int(first["episodes"])
    assert checkpoint.load(run / "latest.pt")["counters"]["update"] == 2
    capsys.readouterr()

    # The run directory is an agent for eval, tournament and export, unchanged.
    assert main(["eval", "--checkpoint", str(run), "--opponents", "random", "--games", "2", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["games"] == 2
    assert main(["tournament", "--agents", f"{run},random", "--games", "2"]) == 0
    assert main(["export", "--checkpoint", str(run), "--out", str(tmp_path / "model.pt")]) == 0
    assert "2 updates" in capsys.readouterr().out


def test_rllib_backend_config_and_argument_errors(tmp_path, capsys):
    assert main(["train", "--backend", "rllib", "--config", SMOKE, "--print-config"]) == 0
    out = capsys.readouterr().out
    assert "num_env_runners: 0  # default: 1" in out and "# Ray actors sampling games" in out
    assert main(["train", "--backend", "rllib", "--config", SMOKE, "--set", "nope=1", "--out", str(tmp_path)]) == 2
    assert main(["train", "--backend", "rllib", "--resume", "--out", str(tmp_path / "none")]) == 2
    assert main(["train", "--config", SMOKE, "--address", "auto"]) == 2  # --address needs --backend rllib
    (tmp_path / "r" / "rllib").mkdir(parents=True)
    assert main(["train", "--resume", "--out", str(tmp_path / "r")]) == 2  # an rllib run, resumed in-house
    err = capsys.readouterr().err
    assert "nope" in err and "holds no RLlib run" in err and "--backend rllib" in err
