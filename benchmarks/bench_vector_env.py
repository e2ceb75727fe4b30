"""Throughput of random legal play through the vector env, against PettingZoo's
gin_rummy_v4 and Carousel's own AEC env, measured in alternation on pinned cores.

    .venv/bin/python -m benchmarks.bench_vector_env [--seconds 10] [--rounds 3] [--num-envs 64]
        [--players 2] [--gin-python /tmp/ginvenv/bin/python]
    .venv/bin/python -m benchmarks.bench_vector_env --breakdown [--seconds 10]

Each round runs, one after the other, each in its own process pinned to one core: the
vector env (``num_envs`` games, 2 players), gin_rummy_v4 (``benchmarks/random_play.py``
in a pettingzoo 1.26.1 venv, as ``bench_env`` does) and the wrapped AEC env; then the
vector env on two cores (two processes, one per core, their agent-steps summed). The
ratios are taken within a round, so the machine's drift cancels. Agent-steps count the
decisions of acting seats (the env's own forced actions are not counted, as in
``bench_env``). The random player draws a uniform legal action per row from the masks,
batched in numpy, as a vectorized learner would.

``--breakdown`` says where a step's time goes instead, in this process: the vector env's
compiled call, its observation encoding and the rest (Python) per agent-step; then, in
the AEC env (whose games are the same), the solver's calls per agent-step and their
median time with and without a legal play (the compiled calls, timed one by one).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

from benchmarks import random_play


def vector_play(num_envs: int, players: int, seconds: float, seed: int = 0) -> dict:
    """Agent-steps/s and games/s of uniform random legal play in a vector env."""
    import numpy as np

    from carousel_env.games.carousel.vector import CarouselVectorEnv

    venv = CarouselVectorEnv(num_envs, num_players=players)
    rng = np.random.default_rng(seed)
    step = venv.reset(seed=seed)
    for _ in range(20):  # warm-up: the first steps load compiled code
        step = venv.step(np.argmax(rng.random(step.action_mask.shape) * step.action_mask, axis=1))
    steps = games = 0
    start = time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        # A uniform legal action per row: the largest of uniform draws over the legal actions.
        step = venv.step(np.argmax(rng.random(step.action_mask.shape) * step.action_mask, axis=1))
        steps += num_envs
        games += int(step.terminated.sum())
    return {"steps_per_s": steps / elapsed, "games_per_s": games / elapsed, "steps": steps, "games": games}


def breakdown(num_envs: int, players: int, seconds: float) -> None:
    """Print where a step's time goes (see the module docstring)."""
    import numpy as np

    import carousel_env
    from carousel_env.core import compiled as _cache
    from carousel_env.games.carousel.vector import encode, kernel

    spent = {"kernel": 0.0, "encode": 0.0}

    def timed(name, function):
        def call(*args):
            start = time.perf_counter()
            try:
                return function(*args)
            finally:
                spent[name] += time.perf_counter() - start

        return call

    vector_play(num_envs, players, 1.0)  # loads the compiled code
    kernel_entry, encode_entry = kernel.step_games, encode.encode_rows
    kernel.step_games, encode.encode_rows = timed("kernel", kernel_entry), timed("encode", encode_entry)
    try:
        result = vector_play(num_envs, players, seconds)
    finally:
        kernel.step_games, encode.encode_rows = kernel_entry, encode_entry
    steps, wall = result["steps"], result["steps"] / result["steps_per_s"]
    per = {name: 1e6 * t / steps for name, t in spent.items()}
    print(
        f"vector env, {num_envs} games: {1e6 * wall / steps:.1f} us per agent-step: compiled call "
        f"{per['kernel']:.1f}, observations {per['encode']:.1f}, the rest {1e6 * wall / steps - sum(per.values()):.1f}"
    )

    calls: list[tuple[float, bool]] = []  # (seconds, the answer has a play) per compiled solver call
    first_call = _cache.first_call

    def counted(entry, *args):
        start = time.perf_counter()
        answer = first_call(entry, *args)
        calls.append((time.perf_counter() - start, answer.shape[0] > 3))
        return answer

    _cache.first_call = counted
    try:
        steps_s, _, steps, _ = random_play.measure(lambda: carousel_env.env(num_players=players), seconds)
    finally:
        _cache.first_call = first_call
    with_play = [t for t, play in calls if play]
    without = [t for t, play in calls if not play]
    print(
        f"AEC env (the same games): {len(calls) / steps:.2f} compiled solver calls per agent-step; median "
        f"{1e6 * float(np.median(with_play)):.1f} us with a play ({len(with_play)}), "
        f"{1e6 * float(np.median(without)):.1f} us without ({len(without)}); solver "
        f"{1e6 * sum(t for t, _ in calls) / steps:.1f} us of {1e6 / steps_s:.1f} us per agent-step"
    )


def aec_play(players: int, seconds: float) -> dict:
    import carousel_env

    steps_s, games_s, steps, games = random_play.measure(lambda: carousel_env.env(num_players=players), seconds)
    return {"steps_per_s": steps_s, "games_per_s": games_s, "steps": steps, "games": games}


def _pinned(command: list[str], cpu: int) -> subprocess.Popen:
    return subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: os.sched_setaffinity(0, {cpu}),
        env={**os.environ, "PYGAME_HIDE_SUPPORT_PROMPT": "1", "OMP_NUM_THREADS": "1"},
    )


def _collect(proc: subprocess.Popen) -> dict | str:
    out, err = proc.communicate()
    if proc.returncode != 0:
        return (err.strip().splitlines() or [f"exit {proc.returncode}"])[-1]
    return json.loads(out.strip().splitlines()[-1])


def _self(kind: str, args: argparse.Namespace) -> list[str]:
    return [sys.executable, "-m", "benchmarks.bench_vector_env", "--measure", kind, "--seconds", str(args.seconds),
            "--num-envs", str(args.num_envs), "--players", str(args.players)]  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="time per measurement (default 10)")
    parser.add_argument("--rounds", type=int, default=3, help="alternated rounds (default 3)")
    parser.add_argument("--num-envs", type=int, default=64, help="games in the vector env (default 64)")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--gin-python", default="/tmp/ginvenv/bin/python", help="python of a pettingzoo 1.26.1 venv")
    parser.add_argument("--breakdown", action="store_true", help="where a step's time goes, instead")
    parser.add_argument("--measure", choices=("vector", "aec"), help=argparse.SUPPRESS)  # one measurement, as JSON
    args = parser.parse_args(argv)
    if args.breakdown:
        breakdown(args.num_envs, args.players, args.seconds)
        return 0
    if args.measure == "vector":
        print(json.dumps(vector_play(args.num_envs, args.players, args.seconds)))
        return 0
    if args.measure == "aec":
        print(json.dumps(aec_play(args.players, args.seconds)))
        return 0

    print(f"vector env: {args.num_envs} games, {args.players} players; {args.seconds:g} s per measurement")
    have_gin = os.path.exists(args.gin_python)
    if not have_gin:
        print(f"gin_rummy_v4: no python at {args.gin_python!r} (pip install pettingzoo==1.26.1 rlcard in a venv)")
    ratios, aec_ratios, two_core = [], [], []
    for r in range(args.rounds):
        vector = _collect(_pinned(_self("vector", args), 0))
        gin = _collect(_pinned([args.gin_python, random_play.__file__, str(args.seconds)], 0)) if have_gin else None
        aec = _collect(_pinned(_self("aec", args), 0))
        pair = [_pinned(_self("vector", args), cpu) for cpu in (0, 1)]
        both = [_collect(p) for p in pair]
        line = f"round {r + 1}: vector 1 core {vector['steps_per_s']:8.0f}"
        if isinstance(gin, dict):
            ratios.append(vector["steps_per_s"] / gin["steps_per_s"])
            line += f" | gin_rummy_v4 {gin['steps_per_s']:7.0f} ({ratios[-1]:.2f}x)"
        elif gin is not None:
            line += f" | gin_rummy_v4 failed: {gin}"
        aec_ratios.append(vector["steps_per_s"] / aec["steps_per_s"])
        line += f" | AEC env {aec['steps_per_s']:7.0f} ({aec_ratios[-1]:.2f}x)"
        if all(isinstance(b, dict) for b in both):
            two_core.append(sum(b["steps_per_s"] for b in both))
            line += f" | vector 2 cores {two_core[-1]:8.0f} ({two_core[-1] / vector['steps_per_s']:.2f}x one core)"
        print(line + "  agent-steps/s", flush=True)
    if ratios:
        print(f"vector env / gin_rummy_v4, one core: median {statistics.median(ratios):.2f}x over {len(ratios)} rounds")
    print(f"vector env / AEC env, one core: median {statistics.median(aec_ratios):.2f}x")
    if two_core:
        print(f"vector env on two cores: median {statistics.median(two_core):.0f} agent-steps/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
