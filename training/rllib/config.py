"""The configuration of ``carousel train --backend rllib``: one flat, documented dataclass.

As for the in-house trainer (``training.config``), every key is declared once with its
default and its documentation, YAML files hold only the keys that differ, and loading is
strict: an unknown key, a value of the wrong type or out of range is a ``ConfigError``
naming the key. ``carousel train --backend rllib --print-config`` prints the resolved
config with each key's documentation.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from training.config import (  # the same strict loading as TrainConfig's (saving, printing: there too)
    AT_LEAST_0,
    CARD_HEAD_DOC,
    POSITIVE,
    SHAPING_DOC,
    STOP_WIN_RATE_DOC,
    UNIT,
    ConfigError,
    EnvKeys,
    _documented,
    build_config,
    card_actions_of,
    check_bounds,
    check_env_keys,
    check_shaping,
    check_stop_win_rate,
    parse_overrides,
    read_config_file,
)
from training.device import DEVICE_DEFAULT, DEVICE_DOC, check_device_name


@dataclass
class RllibConfig(EnvKeys):
    # ---- experiment
    exp_name: str = _documented("rllib_ppo", "name of the run; the run directory defaults to runs/<exp_name>")
    seed: int = _documented(1, "seed of RLlib (modules, env runners) and of the deals")
    torch_threads: int = _documented(1, "torch threads of the learner, which runs in the driver process")
    device: str = _documented(DEVICE_DEFAULT, DEVICE_DOC + " (RLlib's learner: num_gpus_per_learner 1 on a GPU)")

    # ---- environment: the keys of training.config.EnvKeys

    # ---- sampling on Ray
    num_env_runners: int = _documented(
        1, "Ray actors sampling games, placed on any node with a free CPU (0: sample in the driver)"
    )
    num_envs_per_env_runner: int = _documented(
        8, "game copies each env runner steps, their decisions batched through the network"
    )
    num_cpus_per_env_runner: float = _documented(1.0, "CPUs Ray reserves for each env runner")

    # ---- self-play
    pool_size: int = _documented(
        4, "frozen snapshots of the learner kept as opponents; every opponent seat plays one of them"
    )
    snapshot_interval: int = _documented(
        5, "iterations between copying the learner into the pool (replacing the oldest snapshot)"
    )
    init_checkpoint: str | None = _documented(
        None, "checkpoint of ours (file or run directory) whose network starts the learner and the pool"
    )

    # ---- network (training.network.Agent)
    hidden_size: int = _documented(128, "width of the global encoder and of the value/action trunk")
    slot_hidden_size: int = _documented(64, "width of the shared per-suggestion-slot MLP")
    card_head: bool = _documented(False, CARD_HEAD_DOC)

    # ---- PPO (RLlib's names where they differ from training.config's)
    iterations: int = _documented(100, "training iterations (each samples train_batch_size env steps, then updates)")
    train_batch_size: int = _documented(
        4000, "env steps (all seats) sampled per iteration; the learner's share is about 1/num_players"
    )
    minibatch_size: int = _documented(256, "learner decisions per SGD minibatch")
    num_epochs: int = _documented(4, "passes over each iteration's batch")
    learning_rate: float = _documented(3e-4, "Adam learning rate")
    gamma: float = _documented(0.995, "discount factor (per decision of a seat)")
    gae_lambda: float = _documented(0.95, "lambda of generalised advantage estimation")
    clip_param: float = _documented(0.2, "PPO surrogate clipping coefficient")
    vf_clip_param: float = _documented(10.0, "clip of the value loss (returns are in units of 100 points)")
    entropy_coeff: float = _documented(0.01, "entropy bonus coefficient (entropy over legal actions only)")
    vf_loss_coeff: float = _documented(0.5, "value loss coefficient")
    grad_clip: float = _documented(0.5, "global gradient-norm clip")
    shaping_coef: float = _documented(0.0, SHAPING_DOC + "; applied by the env adapter, gamma this config's")

    # ---- checkpoints and evaluation
    checkpoint_interval: int = _documented(
        5, "iterations between checkpoints (RLlib's, for --resume, and ours in latest.pt); the last one always saves"
    )
    eval_games: int = _documented(20, "games against eval_opponent after each checkpoint (0: none)")
    eval_opponent: str | None = _documented(
        None, "who the evaluation plays against (null: the game's first yardstick, as the in-house trainer's)"
    )
    stop_win_rate: float | None = _documented(None, STOP_WIN_RATE_DOC)

    def env_config(self) -> dict[str, Any]:
        """The ``env_config`` of ``CarouselMultiAgentEnv``."""
        shaping = {"shaping_coef": self.shaping_coef, "shaping_gamma": self.gamma} if self.shaping_coef else {}
        return {"game": self.game, **self.env_options(), "seed": self.seed, **shaping}


_POSITIVE = (
    "torch_threads",
    "num_envs_per_env_runner",
    "pool_size",
    "snapshot_interval",
    "hidden_size",
    "slot_hidden_size",
    "iterations",
    "train_batch_size",
    "minibatch_size",
    "num_epochs",
    "checkpoint_interval",
)


_BOUNDS = {
    "learning_rate": POSITIVE,
    "gamma": UNIT,
    "gae_lambda": UNIT,
    "clip_param": POSITIVE,
    "vf_clip_param": POSITIVE,
    "entropy_coeff": AT_LEAST_0,
    "vf_loss_coeff": AT_LEAST_0,
    "grad_clip": POSITIVE,
}


def _validate(config: RllibConfig) -> None:
    check_env_keys(config)
    card_actions_of(config)
    check_device_name(config.device)
    for key in _POSITIVE:
        if getattr(config, key) < 1:
            raise ConfigError(f"config key {key!r}: must be at least 1, got {getattr(config, key)}")
    for key in ("num_env_runners", "eval_games"):
        if getattr(config, key) < 0:
            raise ConfigError(f"config key {key!r}: must be at least 0, got {getattr(config, key)}")
    if not config.num_cpus_per_env_runner > 0:
        raise ConfigError(
            f"config key 'num_cpus_per_env_runner': must be positive, got {config.num_cpus_per_env_runner}"
        )
    check_bounds(config, _BOUNDS)
    check_stop_win_rate(config.stop_win_rate, config.eval_games)
    check_shaping(config)
    if config.minibatch_size > config.train_batch_size:
        raise ConfigError("config key 'minibatch_size': must not exceed train_batch_size")


def from_dict(values: dict[str, Any], base: RllibConfig | None = None) -> RllibConfig:
    """A validated config: ``base`` (defaults if None) with ``values`` replacing fields."""
    return build_config(
        RllibConfig, values, base, _validate, where=" (the rllib backend's keys: training/rllib/config.py)"
    )


def load_config(path: str | Path | None, overrides: list[str] | None = None) -> RllibConfig:
    """Read a YAML config (None: the defaults) and apply ``key=value`` overrides."""
    config = from_dict(read_config_file(path))
    if overrides:
        config = from_dict(parse_overrides(overrides), base=config)
    return config
