"""Time to strength: the wall-clock time and the env steps each trainer needs to reach a fixed
strength, which is what users compare trainers by (env steps per second alone is not).

Each trainer runs `carousel train` from scratch in a subprocess, as a user would, with the
game's shipped config and ``stop_win_rate`` (both trainers' config key): it stops at the
first evaluation whose win rate against the yardstick reaches the target. The clock runs
from the command's start to its exit: startup, compiles, rollouts, updates and the
evaluations themselves. Both trainers evaluate every ``--eval-every`` learner decisions, on
the same number of mirror-paired games, so neither is favoured by a finer cadence.

    .venv/bin/python -m benchmarks.bench_time_to_strength                         # Carousel: 0.90 vs greedy
    .venv/bin/python -m benchmarks.bench_time_to_strength --trainers inhouse --budget 200000
    .venv/bin/python -m benchmarks.bench_time_to_strength --game gin_rummy        # Gin: 0.60 vs simple

Trainers: ``inhouse`` (``training/ppo.py``), ``rllib1`` and ``rllib2`` (``--backend rllib``
with 1 and 2 env runners on a local Ray instance). The runs take turns, one at a time; a
run that has not reached the target within ``--budget`` learner decisions is reported as
not reached, with its last evaluation. The machine's load average is printed beside each.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import re
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TRAINERS = ("inhouse", "rllib1", "rllib2")


@dataclass(frozen=True)
class Target:
    """A strength to reach: the win rate against a yardstick, and the configs that train the game."""

    config: str
    rllib_config: str
    opponent: str
    win_rate: float


TARGETS = {
    "carousel": Target("configs/default.yaml", "configs/rllib_2p.yaml", "greedy", 0.90),
    "gin_rummy": Target("configs/gin.yaml", "configs/rllib_gin.yaml", "simple", 0.60),
}


@dataclass(frozen=True)
class Reach:
    """One trainer's run: whether it reached the target, when, and its last evaluation."""

    trainer: str
    reached: bool
    wall_s: float
    learner_decisions: int
    env_steps: int
    evaluations: int
    last_win_rate: float | None
    load_average: float


RLLIB_EVAL = re.compile(r"eval vs \S+: .*?win rate (\d\.\d+)")  # the RLlib trainer's evaluation line


def _command(trainer: str, target: Target, args: argparse.Namespace, out: Path) -> list[str]:
    carousel = Path(sys.executable).parent / "carousel"  # the command a user runs
    base = [str(carousel), "train", "--out", str(out), "--overwrite"]
    common = [
        f"eval_opponent={target.opponent}",
        f"eval_games={args.eval_games}",
        f"stop_win_rate={target.win_rate}",
        f"seed={args.seed}",
    ]
    if trainer == "inhouse":
        from training.config import load_config

        config = load_config(ROOT / target.config)
        interval = max(1, round(args.eval_every / config.batch_target))
        sets = [*common, f"eval_interval={interval}", "progress_bar=false", "checkpoint_interval=1000000"]
        # The config's own schedule (its total_timesteps anneals the learning rate); the budget stops it.
        updates = math.ceil(args.budget / config.batch_target)
        cmd = [*base, "--config", str(ROOT / target.config), "--max-updates", str(updates)]
    else:
        from training.rllib.config import load_config as load_rllib

        config = load_rllib(ROOT / target.rllib_config)
        # An iteration samples train_batch_size env steps, the learner's share 1/num_players of them.
        decisions_per_iteration = config.train_batch_size / config.num_players
        interval = max(1, round(args.eval_every / decisions_per_iteration))
        iterations = math.ceil(args.budget / decisions_per_iteration)
        sets = [*common, f"checkpoint_interval={interval}", f"num_env_runners={1 if trainer == 'rllib1' else 2}"]
        cmd = [*base, "--backend", "rllib", "--config", str(ROOT / target.rllib_config)]
        cmd += ["--max-updates", str(iterations)]
    for pair in sets:
        cmd += ["--set", pair]
    return cmd


def _counts(trainer: str, out: Path) -> tuple[int, int]:
    """(learner decisions, env steps) the run had made when it stopped."""
    from training.checkpoint import load

    counters = load(out / "latest.pt").get("counters", {})
    decisions = int(counters.get("global_step", 0))
    if trainer == "inhouse":
        return decisions, int(counters.get("env_steps", 0))
    with open(out / "progress.csv") as f:
        rows = list(csv.DictReader(f))
    return decisions, int(float(rows[-1]["env_steps"])) if rows else 0


def run(trainer: str, target: Target, args: argparse.Namespace) -> Reach:
    out = Path(args.out) / trainer
    cmd = _command(trainer, target, args, out)
    print(f"[{trainer}] carousel {' '.join(cmd[1:])}  (output: {Path(args.out) / trainer}.log)", flush=True)
    load = os.getloadavg()[0]
    start = time.perf_counter()
    log = Path(args.out) / f"{trainer}.log"  # written as the run goes: tail -f it
    with open(log, "w") as f:
        code = subprocess.run(
            cmd, cwd=ROOT, stdout=f, stderr=subprocess.STDOUT, env={**os.environ, "PYTHONUNBUFFERED": "1"}
        ).returncode
    wall = time.perf_counter() - start
    if code != 0:
        raise SystemExit(f"[{trainer}] failed (exit {code}); its output: {log}")
    output = log.read_text()
    if trainer == "inhouse":
        from training.logger import read_metrics

        evals = [value for _, value in read_metrics(out / "metrics.csv").get("eval/win_rate", [])]
    else:
        evals = [float(rate) for rate in RLLIB_EVAL.findall(output)]
    decisions, env_steps = _counts(trainer, out)
    reached = "reached stop_win_rate" in output
    return Reach(trainer, reached, wall, decisions, env_steps, len(evals), evals[-1] if evals else None, load)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--game", choices=sorted(TARGETS), default="carousel")
    p.add_argument("--trainers", default=",".join(TRAINERS), help=f"comma-separated, of {', '.join(TRAINERS)}")
    p.add_argument("--budget", type=int, default=400_000, help="learner decisions at most per run")
    p.add_argument("--eval-every", type=int, default=10_000, help="learner decisions between evaluations")
    p.add_argument("--eval-games", type=int, default=200, help="mirror-paired games per evaluation")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", default="runs/time_to_strength", help="run directories and logs")
    args = p.parse_args()
    trainers = [t for t in args.trainers.split(",") if t]
    unknown = [t for t in trainers if t not in TRAINERS]
    if unknown:
        raise SystemExit(f"--trainers: unknown {', '.join(unknown)} (known: {', '.join(TRAINERS)})")
    target = TARGETS[args.game]
    Path(args.out).mkdir(parents=True, exist_ok=True)
    print(
        f"time to {target.win_rate:.2f} against {target.opponent} in {args.game}: evaluations every "
        f"{args.eval_every:,} learner decisions on {args.eval_games} games, at most {args.budget:,} decisions a run",
        flush=True,
    )
    results = []
    for trainer in trainers:
        reach = run(trainer, target, args)
        results.append(reach)
        print(f"[{trainer}] {reach}", flush=True)
    print()
    print("| trainer | reached | wall-clock s | learner decisions | env steps | evaluations | last win rate | load |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in results:
        last = "" if r.last_win_rate is None else f"{r.last_win_rate:.3f}"
        print(
            f"| {r.trainer} | {'yes' if r.reached else 'no'} | {r.wall_s:.0f} | {r.learner_decisions:,} "
            f"| {r.env_steps:,} | {r.evaluations} | {last} | {r.load_average:.1f} |"
        )
    (Path(args.out) / "time_to_strength.json").write_text(json.dumps([asdict(r) for r in results], indent=1))


if __name__ == "__main__":
    main()
