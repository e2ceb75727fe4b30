"""Config key ``device``: where the learner trains. The CPU path runs everywhere; the GPU
tests run where torch sees a GPU (``benchmarks/bench_device.py --check`` runs them on a
GPU machine) and are skipped elsewhere."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from carousel_cli.main import main
from training import checkpoint
from training.config import load_config
from training.device import DeviceError, resolve_device
from training.ppo import train

FAKE = "tests.support.fake_env:env"
CONFIGS = Path(__file__).resolve().parent.parent / "configs"
GPU = torch.cuda.is_available()
needs_gpu = pytest.mark.skipif(not GPU, reason="torch sees no CUDA GPU here (the GPU path runs on a GPU machine)")


def _config(*extra: str):
    base = [f"env_factory={FAKE}", "k_suggestions=4", "baselines=random", "eval_opponent=random", "eval_games=2"]
    return load_config(CONFIGS / "smoke.yaml", [*base, "num_envs=3", "num_steps=16", "total_timesteps=96", *extra])


@pytest.mark.parametrize("value", ["gpu", "cuda:x", "cuda:-1", "CPU", "tpu", ""])
def test_a_malformed_device_is_refused_when_the_config_is_resolved(value, capsys):
    assert main(["train", "--set", f"device={value}", "--print-config"]) == 2
    assert "config key 'device': must be auto, cpu, cuda or cuda:N" in capsys.readouterr().err


def test_both_trainers_take_the_key_with_auto_as_the_default(capsys):
    for backend in ("inhouse", "rllib"):
        assert main(["train", "--backend", backend, "--print-config"]) == 0
        assert "\ndevice: auto" in capsys.readouterr().out


def test_auto_takes_the_gpu_torch_sees_and_the_cpu_otherwise():
    assert resolve_device("auto").type == ("cuda" if GPU else "cpu")
    assert resolve_device("cpu") == torch.device("cpu")


@pytest.mark.skipif(GPU, reason="this machine has a GPU")
@pytest.mark.parametrize("value", ["cuda", "cuda:1"])
def test_a_gpu_torch_cannot_see_is_an_error_naming_the_key(value):
    with pytest.raises(DeviceError, match=f"config key 'device': {value} asked, but torch .* sees no GPU"):
        resolve_device(value)


@pytest.mark.training
def test_the_run_says_where_its_learner_trains(tmp_path, capsys):
    train(_config("device=cpu"), tmp_path / "run")
    assert "carousel train: learner on cpu, game copies and rollouts on the CPU" in capsys.readouterr().out


@pytest.mark.training
@needs_gpu
def test_a_gpu_run_trains_there_and_its_checkpoint_resumes_on_the_cpu(tmp_path, capsys, monkeypatch):
    seen: list[torch.device] = []
    import training.ppo as ppo

    update = ppo.update_policy

    def recording(agent, *args):
        seen.append(next(agent.parameters()).device)
        return update(agent, *args)

    monkeypatch.setattr(ppo, "update_policy", recording)
    train(_config("device=cuda", "total_timesteps=48"), tmp_path / "run")
    assert "learner on cuda:0 (" in capsys.readouterr().out
    assert seen and all(d.type == "cuda" for d in seen)
    data = checkpoint.load(tmp_path / "run" / "latest.pt")  # read onto the CPU
    assert all(t.device.type == "cpu" for t in data["model"].values())
    seen.clear()
    resumed = _config("device=cpu", "total_timesteps=96")
    train(resumed, tmp_path / "run", resume=True)  # the GPU run goes on on the CPU
    assert seen and all(d.type == "cpu" for d in seen)


@pytest.mark.training
@needs_gpu
def test_a_cpu_run_resumes_on_the_gpu(tmp_path):
    train(_config("device=cpu", "total_timesteps=48"), tmp_path / "run")
    train(_config("device=cuda", "total_timesteps=96"), tmp_path / "run", resume=True)
    assert checkpoint.load(tmp_path / "run" / "latest.pt")["counters"]["global_step"] >= 96
