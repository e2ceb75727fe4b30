"""Checkpoints: everything needed to continue a run exactly, written atomically.

A checkpoint holds the model, the optimiser, the step counters, the RNG states (python,
numpy, torch), the resolved config and the opponent-pool manifest. It is written to a
temporary file in the same directory and moved into place with ``os.replace`` (atomic on
POSIX), so a crash mid-write leaves the previous checkpoint intact, never a torn one.

Files load with ``weights_only=True``: a checkpoint is data, and loading one must not run
code from it.
"""

from __future__ import annotations

import random
from dataclasses import fields
from pathlib import Path
from typing import Any

import numpy as np
import torch

from carousel_env.envkit.layout import ObservationLayout
from training.checkpoint_names import CheckpointError, find_checkpoint, missing_checkpoint
from training.config import LEGACY_ENV_KEYS, EnvKeys, build_config
from training.files import write_atomic

FORMAT = "carousel-ppo"
VERSION = 1


def atomic_torch_save(obj: Any, path: str | Path) -> None:
    write_atomic(path, lambda f: torch.save(obj, f))


def rng_state(np_rng: np.random.Generator) -> dict[str, Any]:
    return {"python": random.getstate(), "numpy": np_rng.bit_generator.state, "torch": torch.get_rng_state()}


def restore_rng(state: dict[str, Any], np_rng: np.random.Generator) -> None:
    random.setstate(state["python"])
    np_rng.bit_generator.state = state["numpy"]
    torch.set_rng_state(state["torch"])


def load(path: str | Path) -> dict[str, Any]:
    """Read a checkpoint and check it is one of ours, or raise CheckpointError."""
    path = Path(path)
    if not path.is_file():
        raise missing_checkpoint(path)
    try:
        data = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # torch raises many types for a bad file; all mean "corrupt"
        raise CheckpointError(f"checkpoint {path} is corrupt or not a checkpoint ({type(exc).__name__})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise CheckpointError(f"checkpoint {path} is not a {FORMAT} checkpoint")
    if data.get("version") != VERSION:
        raise CheckpointError(f"checkpoint {path} has format version {data.get('version')}; this code reads {VERSION}")
    for key in ("model", "spec"):
        if key not in data:
            raise CheckpointError(f"checkpoint {path} is incomplete: no {key!r}")
    return data


def saved_env_keys(name: str | Path) -> EnvKeys:
    """The env keys of the config a checkpoint was trained with: the in-house trainer's
    ``config`` or RLlib's ``rllib_config`` (the defaults for a checkpoint without one). A
    checkpoint from before the family has no ``game`` key: it is Carousel's; one from before
    0.5 has its env options as keys of their own, read into ``env``."""
    return trained_env_keys(load(find_checkpoint(name)))


def trained_env_keys(data: dict[str, Any]) -> EnvKeys:
    """The env keys of a loaded checkpoint's config (:func:`saved_env_keys`)."""
    saved = data.get("config") or data.get("rllib_config") or {}
    known = {f.name for f in fields(EnvKeys)} | set(LEGACY_ENV_KEYS)
    return build_config(EnvKeys, {k: v for k, v in saved.items() if k in known}, None, lambda keys: None)


def make(model: torch.nn.Module, spec: dict, **extra: Any) -> dict[str, Any]:
    return {"format": FORMAT, "version": VERSION, "model": model.state_dict(), "spec": spec, **extra}


def load_model_state(model: torch.nn.Module, data: dict[str, Any], path: str | Path = "checkpoint") -> None:
    """Load weights, turning a shape/key mismatch into a CheckpointError."""
    try:
        model.load_state_dict(data["model"])
    except (RuntimeError, KeyError) as exc:
        first = str(exc).strip().splitlines()[0]
        raise CheckpointError(f"checkpoint {path} does not fit this network: {first}") from None


def build_agent(data: dict[str, Any], path: str | Path = "checkpoint", expect_layout: ObservationLayout | None = None):
    """The network stored in a checkpoint (frozen copy for play/eval); ``expect_layout``,
    if given, is the observation layout it must have been trained on."""
    from training.network import Agent

    spec = data["spec"]
    try:
        # Building a network draws initial weights; fork_rng keeps that off the global torch
        # RNG, so loading opponents (a resumed run loads them all anew) cannot shift sampling.
        with torch.random.fork_rng(devices=[]):
            agent = Agent.from_spec(spec)
    except (KeyError, TypeError, ValueError) as exc:
        raise CheckpointError(f"checkpoint {path} has a malformed network spec ({exc})") from None
    if expect_layout is not None and agent.layout != expect_layout:
        keys = trained_env_keys(data)
        options = ", ".join(f"{key}={value!r}" for key, value in keys.env.items()) or "its defaults"
        raise CheckpointError(
            f"checkpoint {path} was trained on {keys.game} at {keys.num_players} players ({options}), whose "
            f"observations this environment's do not match ({agent.layout.size} values against "
            f"{expect_layout.size}, or another layout): play it in its own game and rules, which eval, play and "
            "tournament take from the checkpoint when --game and --variant are left out"
        )
    load_model_state(agent, data, path)
    agent.eval()
    return agent


def export_policy(source: str | Path, target: str | Path) -> dict[str, Any]:
    """Write the network of checkpoint ``source`` (a file or a run directory) to ``target``
    as a small checkpoint that eval, tournament and play read: the model, its spec, the
    config it was trained with and its step counters (an imitation's teacher and table sizes
    too), without optimiser, RNG states or pool. Returns what was written. Raises CheckpointError for a bad source."""
    source = find_checkpoint(source)
    data = load(source)
    build_agent(data, source)  # fail now, not at first use, if the network does not load
    kept = ("format", "version", "model", "spec", "config", "rllib_config", "counters", "teacher", "tables")
    slim = {key: data[key] for key in kept if key in data}
    atomic_torch_save(slim, target)
    return slim
