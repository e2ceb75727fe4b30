"""``carousel train --backend rllib``: RLlib PPO self-play, on one machine or a Ray cluster.

:func:`algorithm_config` turns an :class:`~training.rllib.config.RllibConfig` into RLlib's
``PPOConfig``: the env adapter (``carousel_env.integrations.rllib``), our network as the
module of every seat (``training.rllib.module``, masked), self-play against a pool of
frozen snapshots (``training.rllib.selfplay``), sampling on ``num_env_runners`` Ray actors
that Ray places on any node with a free CPU, and the learner in the driver process.

:func:`train` runs it. It connects to the Ray cluster at ``address`` (``"auto"``: the one
started on this machine with ``ray start``), uses the Ray instance the calling process
already runs (``ray.init`` called before, as in a notebook; left running after), or starts
a local Ray instance (shut down at the end); it prints a line per iteration, and every
``checkpoint_interval`` iterations writes into the run directory

* ``rllib/``: RLlib's checkpoint of the whole algorithm (modules, optimiser, env runner
  and connector states, counters), which ``resume=True`` continues from;
* ``latest.pt``: the learner's network as a checkpoint of ours, which ``carousel eval``,
  ``tournament`` and ``play`` read (``--checkpoint RUN_DIR``);

then plays ``eval_games`` against ``eval_opponent``. ``config.yaml`` holds the resolved
config and ``progress.csv`` one row per iteration.

What Ray and RLlib (2.60) would print besides our lines, and what becomes of it:

* PettingZoo's ``[WARNING]: Illegal move made``: from RLlib's env checker, which steps
  random actions blind to the action mask; the checker is off (``disable_env_checking``).
* Ray's and RLlib's notices at WARNING level (token authentication on by default, "You are
  running PPO on the new API stack!", RLlib's own deprecated ``RLModuleConfig``, "Install
  gputil"): about Ray itself, hidden (``logging_level=ERROR`` on the ``ray`` logger; the
  env runners' output is not forwarded, ``log_to_driver=False``). Errors still show.
* Ray's error-level line "... has constructor arguments in the object store and
  max_restarts > 0": only on a cluster (``address``), where env runners are restartable,
  and harmless there (:data:`RESTARTS_NOTE`, printed before it); a local run does not
  restart env runners, so Ray has nothing to say.
"""

from __future__ import annotations

import csv
import logging
import math
import os
import shutil
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import ray
import torch
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec

from carousel_env.core.text import plural
from carousel_env.integrations.rllib import CarouselMultiAgentEnv
from training import checkpoint
from training.checkpoint_names import checkpoint_file
from training.config import card_actions_of, save_config
from training.device import describe, resolve_device
from training.envs import EnvShape, shape_of
from training.network import Agent
from training.policies import load_start_network
from training.rllib.config import RllibConfig, from_dict
from training.rllib.module import export_module, module_spec, module_state
from training.rllib.selfplay import MAIN, SeatMapping, SelfPlayCallback, copy_main_into, module_ids

RLLIB_DIR = "rllib"  # RLlib's checkpoint, inside the run directory
EXPORTED = "latest.pt"  # ours

# What train() prints on a cluster, where env runners are restartable actors: Ray (2.60,
# src/ray/core_worker/core_worker.cc, CoreWorker::CreateActor) then logs an error-level
# line for any actor with max_restarts > 0 and a constructor argument in the object store.
# RLlib passes every env runner its config so (ray.put); the driver owns that object and
# holds it for the whole run, so restarts do work (ray-project/ray#53727 is about arguments
# that go out of scope or are lost with their node).
RESTARTS_NOTE = (
    "note: Ray's error line below about 'constructor arguments in the object store and max_restarts > 0' "
    "is harmless here: the env runners' argument (RLlib's config) lives as long as this driver"
)


def env_shape(config: RllibConfig) -> EnvShape:
    """The shape of the config's game env: what the module is built for."""
    env = CarouselMultiAgentEnv(config.env_config())
    try:
        return shape_of(env.env)
    finally:
        env.close()


def algorithm_config(config: RllibConfig, *, restart_env_runners: bool = False, gpu: bool = False) -> PPOConfig:
    """RLlib's PPO config for ``config`` (see the module docstring). ``restart_env_runners``:
    Ray restarts an env runner that dies (see :data:`RESTARTS_NOTE`), which :func:`train` asks
    for on a cluster, where a node can leave; on one machine a runner that dies has hit a bug
    or run out of memory, which a restart would repeat, so the run fails at once instead.
    ``gpu``: the learner (in the driver) takes one GPU, RLlib's ``num_gpus_per_learner``."""
    ids = module_ids(config.pool_size)
    spec = module_spec(config.hidden_size, config.slot_hidden_size, env_shape(config), card_actions_of(config))
    return (
        PPOConfig()
        # RLlib's env checker steps random actions, blind to the action mask: "Illegal move made".
        .environment(CarouselMultiAgentEnv, env_config=config.env_config(), disable_env_checking=True)
        .env_runners(
            num_env_runners=config.num_env_runners,
            num_envs_per_env_runner=config.num_envs_per_env_runner,
            num_cpus_per_env_runner=config.num_cpus_per_env_runner,
            rollout_fragment_length="auto",
            # Wait for every runner's batch, however loaded the machine: RLlib's default
            # timeout (60 s) drops a late runner's whole batch and can leave iterations empty.
            sample_timeout_s=None,
        )
        .fault_tolerance(restart_failed_env_runners=restart_env_runners)
        .learners(num_learners=0, num_gpus_per_learner=1 if gpu else 0)
        .multi_agent(
            policies=set(ids),
            policy_mapping_fn=SeatMapping(config.num_players, config.pool_size),
            policies_to_train=[MAIN],
        )
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=dict.fromkeys(ids, spec)))
        .training(
            train_batch_size_per_learner=config.train_batch_size,
            minibatch_size=config.minibatch_size,
            num_epochs=config.num_epochs,
            lr=config.learning_rate,
            gamma=config.gamma,
            lambda_=config.gae_lambda,
            clip_param=config.clip_param,
            vf_clip_param=config.vf_clip_param,
            entropy_coeff=config.entropy_coeff,
            vf_loss_coeff=config.vf_loss_coeff,
            use_kl_loss=False,
            grad_clip=config.grad_clip,
        )
        .callbacks(partial(SelfPlayCallback, pool_size=config.pool_size, snapshot_interval=config.snapshot_interval))
        .debugging(seed=config.seed, log_level="ERROR")
    )


def env_runner_nodes(algorithm: Any) -> list[str]:
    """The Ray node id of each remote env runner (empty when sampling in the driver)."""
    return list(algorithm.env_runner_group.foreach_env_runner(_node_id, local_env_runner=False))


def _node_id(_env_runner: Any) -> str:
    return ray.get_runtime_context().get_node_id()


@dataclass
class RunSummary:
    """What a call of :func:`train` did."""

    run_dir: Path
    iteration: int = 0
    env_steps: int = 0
    runner_nodes: list[str] = field(default_factory=list)
    last_eval: dict[str, float] = field(default_factory=dict)


class RayAddressError(ValueError):
    """``address`` given while this process already runs Ray: which one to use is ambiguous."""


def _start_ray(address: str | None, config: RllibConfig, log: Callable[[str], None]) -> bool:
    """Connect to the cluster at ``address``, use the Ray instance this process already runs
    (a notebook's, a test session's), or start a local one; returns whether it started one
    (which :func:`train` then shuts down)."""
    needed = config.num_env_runners * config.num_cpus_per_env_runner
    quiet = {"logging_level": logging.ERROR, "log_to_driver": False}
    started = not ray.is_initialized()
    if not started:
        log("using the Ray instance this process already runs")
    elif address:
        log(f"connecting to the Ray cluster at {address}")
        ray.init(address=address, **quiet)
    else:
        cpus = max(os.cpu_count() or 1, math.ceil(needed))
        log(f"starting a local Ray instance ({cpus} CPUs)")
        ray.init(num_cpus=cpus, include_dashboard=False, **quiet)
    nodes = [n for n in ray.nodes() if n.get("Alive")]
    have = ray.cluster_resources().get("CPU", 0.0)
    log(f"Ray: {len(nodes)} node(s), {have:g} CPUs; {config.num_env_runners} env runner(s) need {needed:g}")
    if have < needed:
        log("warning: the cluster has too few CPUs; env runners wait until nodes with free CPUs join")
    return started


def _save(algorithm: Any, config: RllibConfig, run_dir: Path, counters: dict[str, int]) -> None:
    """RLlib's checkpoint (written beside the old one, then swapped in) and ours."""
    final, tmp, old = run_dir / RLLIB_DIR, run_dir / (RLLIB_DIR + ".tmp"), run_dir / (RLLIB_DIR + ".old")
    shutil.rmtree(tmp, ignore_errors=True)
    algorithm.save_to_path(str(tmp.resolve()))
    shutil.rmtree(old, ignore_errors=True)
    if final.exists():
        final.rename(old)
    tmp.rename(final)
    shutil.rmtree(old, ignore_errors=True)
    export_module(algorithm, run_dir / EXPORTED, MAIN, counters=counters, rllib_config=asdict(config))


def _progress_line(config: RllibConfig, result: dict, seconds: float) -> tuple[str, dict[str, float]]:
    runners = result.get("env_runners", {})
    row = {
        "iteration": int(result["training_iteration"]),
        "env_steps": int(runners.get("num_env_steps_sampled_lifetime", 0)),
        "learner_decisions": int(runners.get("num_module_steps_sampled_lifetime", {}).get(MAIN, 0)),
        "episodes": int(runners.get("num_episodes_lifetime", 0)),
        "main_return": runners.get("module_episode_returns_mean", {}).get(MAIN, float("nan")),
        "main_win_rate": runners.get("main_win_rate", float("nan")),
        "env_steps_per_s": runners.get("num_env_steps_sampled", 0) / seconds if seconds > 0 else 0.0,
    }
    # An iteration in which no episode ended (long Gin matches) has no return or win rate to show.
    versus = (
        f"main vs pool: return {row['main_return']:+.3f}, win rate {row['main_win_rate']:.2f}"
        if math.isfinite(row["main_return"]) and math.isfinite(row["main_win_rate"])
        else "main vs pool: no episode ended in this iteration yet"
    )
    line = (
        f"iter {row['iteration']}/{config.iterations}: {row['env_steps']:,} env steps, "
        f"{row['episodes']:,} episodes, {versus}; {row['env_steps_per_s']:.0f} steps/s"
        + (f"; snapshot into {result['snapshot']}" if "snapshot" in result else "")
    )
    return line, row


def _drop_rows_after(path: Path, iteration: int) -> None:
    """Forget the progress rows of iterations a resumed run repeats (after its checkpoint)."""
    if not path.exists():
        return
    with path.open(newline="") as f:
        rows = list(csv.DictReader(f))
    if rows and int(rows[-1]["iteration"]) > iteration:
        with path.open("w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(r for r in rows if int(r["iteration"]) <= iteration)


def _append_csv(path: Path, row: dict[str, float]) -> None:
    new = not path.exists()
    with path.open("a", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(row))
        if new:
            writer.writeheader()
        writer.writerow(row)


def _evaluate(config: RllibConfig, run_dir: Path, log: Callable[[str], None]) -> dict[str, float]:
    from training.evaluate import evaluate

    res = evaluate(
        str(run_dir / EXPORTED),
        config.evaluation_opponent(),
        games=config.eval_games,
        num_players=config.num_players,
    )
    lo, hi = res.win_rate_ci
    log(
        f"  eval vs {config.evaluation_opponent()}: {plural(res.games, 'game')}, win rate {res.win_rate:.3f} "
        f"(95% CI {lo:.3f}-{hi:.3f}), mean {config.family().unit}-score difference {res.mean_round_score_diff:+.2f}"
    )
    return {"win_rate": res.win_rate, "win_rate_ci_low": lo, "win_rate_ci_high": hi}


def _rllib_checkpoint(run_dir: Path) -> Path | None:
    """The run's RLlib checkpoint; the previous one if a save died between its two renames."""
    for name in (RLLIB_DIR, RLLIB_DIR + ".old"):
        if (run_dir / name / "rllib_checkpoint.json").is_file():
            return run_dir / name
    return None


def restore_run(algorithm: Any, run_dir: str | Path) -> None:
    """Restore the run's RLlib checkpoint into ``algorithm`` (built from the run's config),
    then send the learner's weights of every module to every env runner and wait for them.

    ``Algorithm.restore_from_path`` alone leaves remote env runners with stale modules in
    ray 2.60: its weight sync does not wait, and the env runner states it sends afterwards
    (from the driver's own, never-trained env runner) overwrite the weights. ``main`` heals
    after the first update, the frozen pool modules only when their slot is snapshotted again.
    """
    path = _rllib_checkpoint(Path(run_dir))
    if path is None:
        raise checkpoint.CheckpointError(f"{run_dir} holds no RLlib checkpoint ({RLLIB_DIR}/)")
    algorithm.restore_from_path(str(path.resolve()))
    algorithm.env_runner_group.sync_weights(
        from_worker_or_learner_group=algorithm.learner_group, inference_only=True, timeout_seconds=300
    )


def load_run_config(run_dir: str | Path) -> RllibConfig:
    """The resolved config a run directory was started with (for ``--resume``)."""
    import yaml

    path = Path(run_dir) / "config.yaml"
    if _rllib_checkpoint(Path(run_dir)) is None or not path.is_file():
        raise checkpoint.CheckpointError(f"{run_dir} holds no RLlib run to resume ({RLLIB_DIR}/ and config.yaml)")
    return from_dict(yaml.safe_load(path.read_text()) or {})


def train(
    config: RllibConfig,
    run_dir: str | Path,
    *,
    resume: bool = False,
    address: str | None = None,
    max_iterations: int | None = None,
    log: Callable[[str], None] | None = None,
) -> RunSummary:
    """Train (or with ``resume`` continue) the run in ``run_dir`` up to ``config.iterations``
    iterations, at most ``max_iterations`` of them in this call. ``log`` (default: print)
    receives the progress lines."""
    log = log or partial(print, flush=True)
    if address and ray.is_initialized():  # before anything is written
        raise RayAddressError(
            f"address {address!r}: this process already runs Ray (ray.init was called); "
            "call ray.shutdown() first, or leave the address out to train on that instance"
        )
    run_dir = Path(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    if not resume:
        save_config(config, run_dir / "config.yaml")
    torch.set_num_threads(config.torch_threads)
    logging.getLogger("ray.rllib").setLevel(logging.ERROR)  # e.g. "You are running PPO on the new API stack!"
    summary = RunSummary(run_dir)
    device = resolve_device(config.device)  # before Ray starts: a GPU that is not there fails at once
    started_ray = _start_ray(address, config, log)
    algorithm = None
    try:
        log(
            f"building RLlib PPO: {config.num_env_runners} env runner(s) x {config.num_envs_per_env_runner} "
            f"game(s), learner in this process on {describe(device)}, pool of {config.pool_size} snapshots"
        )
        restart_env_runners = bool(address)
        if restart_env_runners and config.num_env_runners:
            log(RESTARTS_NOTE)
        algorithm = algorithm_config(
            config, restart_env_runners=restart_env_runners, gpu=device.type == "cuda"
        ).build_algo()
        if resume:
            restore_run(algorithm, run_dir)
            _drop_rows_after(run_dir / "progress.csv", algorithm.iteration)
            log(f"resumed {run_dir} at iteration {algorithm.iteration}")
        else:
            if config.init_checkpoint:
                layout = env_shape(config).layout
                source = load_start_network(
                    config.init_checkpoint, layout, config.hidden_size, config.slot_hidden_size, config.card_head
                )
                # RLlib's module has the plain critic: a state critic or auxiliary head of the source stays behind.
                agent = Agent(
                    layout,
                    config.hidden_size,
                    config.slot_hidden_size,
                    source.num_fixed_actions,
                    card_actions=card_actions_of(config),
                )
                agent.load_shared(source)
                algorithm.set_state({"learner_group": {"learner": {"rl_module": {MAIN: module_state(agent)}}}})
                log(f"learner and pool start from {checkpoint_file(config.init_checkpoint)}")
            copy_main_into(algorithm, module_ids(config.pool_size)[1:])
        summary.runner_nodes = env_runner_nodes(algorithm)
        if summary.runner_nodes:
            log(f"env runners on {len(set(summary.runner_nodes))} node(s): {', '.join(summary.runner_nodes)}")
        stop = (
            config.iterations
            if max_iterations is None
            else min(config.iterations, algorithm.iteration + max_iterations)
        )
        while algorithm.iteration < stop:
            started = time.perf_counter()
            result = algorithm.train()
            line, row = _progress_line(config, result, time.perf_counter() - started)
            log(line)
            _append_csv(run_dir / "progress.csv", row)
            summary.iteration, summary.env_steps = algorithm.iteration, int(row["env_steps"])
            if algorithm.iteration % config.checkpoint_interval == 0 or algorithm.iteration == stop:
                counters = {"global_step": int(row["learner_decisions"]), "update": algorithm.iteration}
                _save(algorithm, config, run_dir, counters)
                log(f"  saved {run_dir / RLLIB_DIR} (RLlib, for --resume) and {run_dir / EXPORTED}")
                if config.eval_games:
                    summary.last_eval = _evaluate(config, run_dir, log)
                    if config.stop_win_rate is not None and summary.last_eval["win_rate"] >= config.stop_win_rate:
                        log(f"  win rate reached stop_win_rate {config.stop_win_rate:g}; stopping")
                        break
        return summary
    finally:
        if algorithm is not None:
            algorithm.stop()
        if started_ray:  # a Ray instance the caller started is the caller's to stop
            ray.shutdown()
