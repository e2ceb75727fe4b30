"""Gin Rummy's speed against its peers on the same game (issue 32, item 5): random legal
play, agent-steps/s (the acting player's decisions only), each side in its own process
pinned to one core, all sides in turn within each round so that the machine's drift hits
each the same; then the vector env on two cores; and, with ``--cold``, the cold start.

    .venv/bin/python -m benchmarks.bench_gin_peers --setup     # once: the peers' venv, .venv-peers/
    .venv/bin/python -m benchmarks.bench_gin_peers [--seconds 8] [--rounds 3] [--num-envs 64]
    .venv/bin/python -m benchmarks.bench_gin_peers --cold [--rounds 2]

The sides (``bench_gin``'s loops, ``random_play``'s for PettingZoo):

* ``vector``: ``GinVectorEnv(num_envs, preset="openspiel")``, a uniform legal action per row
  drawn from the masks in numpy, as a vectorized learner would.
* ``aec``: ``carousel_env.env(game="gin_rummy", preset="openspiel")``, the action read from
  the mask in the observation (``benchmarks.random_play``).
* ``openspiel``: pyspiel's ``gin_rummy`` (this project's venv, ``.[openspiel]``), its
  observation tensor and legal actions read at each decision, chance outcomes sampled.
* ``gin_rummy_v4``: PettingZoo 1.26.1's (``random_play.py`` in the peers' venv, the loop
  ``bench_vector_env`` times).
* ``rlcard``: RLCard's ``gin-rummy`` env (which ``gin_rummy_v4`` wraps), in the peers' venv:
  ``env.step`` returns the next player's state, its observation and legal actions.

Counting: every decision a side's env asks of a player. Our envs take single-choice
decisions themselves and a knock in one action (OpenSpiel asks for each meld; RLCard and
``gin_rummy_v4`` ask each player to take its one "score" action at the end of a hand), so a
hand here has fewer decisions than in the peers, each one more of the game.

On two cores: the vector env's rows split over two processes (``num_envs // 2`` rows each,
or ``--two-core-rows``), pinned to cores 0 and 1, their agent-steps summed, measured last in
each round (``--no-two-cores`` skips it).

``--cold``: in a fresh interpreter with an empty numba cache (a new ``NUMBA_CACHE_DIR``),
``import carousel_env``, building the env and its ``reset(seed=0)``, and its first step, for
the vector env and then the AEC env, each followed by the same run warm (the cache now
filled); prints what the child wrote on stderr (the compile notice a new user sees).

The peers' venv (made by the first run, or ``--setup``; ``--peer-python`` names another): ``.venv-peers/`` (git-ignored)
with torch 2.13.0 (CPU), pettingzoo 1.26.1, rlcard, pygame and sb3-contrib, which also
serves ``bench_train --gin-python .venv-peers/bin/python`` (``bench_gin_maskable_ppo.py``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PEERS = ROOT / ".venv-peers"
PEER_PACKAGES = ["torch==2.13.0", "pettingzoo==1.26.1", "rlcard==1.2.0", "pygame", "sb3-contrib"]
SIDES = ("vector", "openspiel", "gin_rummy_v4", "rlcard", "aec")


def setup(where: Path = PEERS) -> None:
    """Create the peers' venv (torch first, so that pip never pulls a CUDA build)."""
    python = where / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(where)], check=True)
    subprocess.run([str(python), "-m", "pip", "install", *PEER_PACKAGES], check=True)


# The measurements, run in the pinned child (``--measure SIDE``); each prints one JSON line.


def _vector(seconds: float, num_envs: int) -> dict:
    from benchmarks import bench_gin

    bench_gin.vector(1.0, num_envs)  # loads the compiled code first: not measured
    return {"steps_per_s": bench_gin.vector(seconds, num_envs)}


def _aec(seconds: float) -> dict:
    from benchmarks import bench_gin

    bench_gin.aec(1.0)  # loads the compiled code first: not measured
    return {"steps_per_s": bench_gin.aec(seconds)}


def _openspiel(seconds: float) -> dict:
    from benchmarks import bench_gin

    bench_gin.openspiel(0.5)
    return {"steps_per_s": bench_gin.openspiel(seconds)}


def _rlcard(seconds: float, seed: int = 0) -> dict:
    """RLCard's gin-rummy, uniform random legal play (runs in the peers' venv: no repository import)."""
    import numpy as np
    import rlcard

    env = rlcard.make("gin-rummy", config={"seed": seed})
    rng = np.random.default_rng(seed)
    steps = games = 0
    start = time.perf_counter()
    while True:
        state, _player = env.reset()
        while not env.is_over():
            legal = list(state["legal_actions"])
            state, _player = env.step(legal[int(rng.integers(len(legal)))])
            steps += 1
        games += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return {"steps_per_s": steps / elapsed, "games_per_s": games / elapsed, "steps": steps, "games": games}


# The parent: pinned children, in turn.


def _command(side: str, args: argparse.Namespace, num_envs: int | None = None) -> list[str]:
    if side == "gin_rummy_v4":
        return [args.peer_python, str(ROOT / "benchmarks" / "random_play.py"), str(args.seconds)]
    if side == "rlcard":
        return [args.peer_python, str(Path(__file__).resolve()), "--measure", "rlcard", "--seconds", str(args.seconds)]
    return [sys.executable, "-m", "benchmarks.bench_gin_peers", "--measure", side, "--seconds", str(args.seconds),
            "--num-envs", str(num_envs or args.num_envs)]  # fmt: skip


def play(args: argparse.Namespace) -> int:
    from benchmarks.bench_vector_env import _collect, _pinned

    if not Path(args.peer_python).exists() and Path(args.peer_python) == PEERS / "bin" / "python":
        print(f"creating the peers' venv {PEERS} (about a minute): {' '.join(PEER_PACKAGES)}", flush=True)
        setup()
    have_peers = Path(args.peer_python).exists()
    sides = [s for s in SIDES if have_peers or s not in ("gin_rummy_v4", "rlcard")]
    if not have_peers:
        print(f"no peers' python at {args.peer_python}: run --setup first; measuring our envs and OpenSpiel only")
    print(f"{args.seconds:g} s per measurement, vector env {args.num_envs} games; load average {os.getloadavg()}")
    figures: dict[str, list[float]] = {s: [] for s in [*sides, "vector_2cores"]}
    for r in range(args.rounds):
        line = []
        for side in sides:
            got = _collect(_pinned(_command(side, args), 0))
            if not isinstance(got, dict):
                raise SystemExit(f"{side} failed: {got}")
            figures[side].append(got["steps_per_s"])
            line.append(f"{side} {got['steps_per_s']:.0f}")
        if args.two_cores:
            half = args.two_core_rows or max(1, args.num_envs // 2)
            pair = [_pinned(_command("vector", args, half), cpu) for cpu in (0, 1)]
            both = [_collect(p) for p in pair]
            if all(isinstance(b, dict) for b in both):
                figures["vector_2cores"].append(sum(b["steps_per_s"] for b in both))
                line.append(f"vector 2 cores ({half}+{half} rows) {figures['vector_2cores'][-1]:.0f}")
        print(f"round {r + 1}: " + " | ".join(line) + f"  agent-steps/s; load average {os.getloadavg()}", flush=True)

    def ratio(a: str, b: str) -> str:
        if not figures.get(a) or not figures.get(b):
            return "-"
        per_round = [x / y for x, y in zip(figures[a], figures[b])]
        return f"{statistics.median(per_round):.2f}x (rounds {', '.join(f'{x:.2f}' for x in per_round)})"

    for side, values in figures.items():
        if values:
            print(f"{side:<14} median {statistics.median(values):9.0f} agent-steps/s")
    print(f"vector / openspiel, one core:     {ratio('vector', 'openspiel')}  (target >= 4x, aim 10x)")
    print(f"vector / gin_rummy_v4, one core:  {ratio('vector', 'gin_rummy_v4')}  (target >= 20x)")
    print(f"vector 2 cores / vector 1 core:   {ratio('vector_2cores', 'vector')}")
    print(f"vector 2 cores / openspiel:       {ratio('vector_2cores', 'openspiel')}")
    print(f"aec / gin_rummy_v4, one core:     {ratio('aec', 'gin_rummy_v4')}  (target >= 3x)")
    print(f"aec / rlcard, one core:           {ratio('aec', 'rlcard')}  (target >= 1x)")
    print(f"load average after: {os.getloadavg()}")
    return 0


# Cold start.


def _cold_child(kind: str) -> None:
    """In the fresh interpreter: import, build and reset, first step; one JSON line."""
    t0 = time.perf_counter()
    import numpy as np

    import carousel_env

    if kind == "vector":
        from carousel_env.games.gin_rummy.vector import GinVectorEnv

        t1 = time.perf_counter()
        venv = GinVectorEnv(16, preset="openspiel")
        step = venv.reset(seed=0)
        t2 = time.perf_counter()
        venv.step(np.array([np.flatnonzero(m)[-1] for m in step.action_mask]))
    else:
        make_env = carousel_env.env
        t1 = time.perf_counter()
        env = make_env(game="gin_rummy", preset="openspiel")
        env.reset(seed=0)
        t2 = time.perf_counter()
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[-1]))
    t3 = time.perf_counter()
    print(json.dumps({"import": t1 - t0, "reset": t2 - t1, "step": t3 - t2, "total": t3 - t0}))


def cold(args: argparse.Namespace) -> int:
    print(f"load average before: {os.getloadavg()}")
    for r in range(args.rounds):
        for kind in ("vector", "aec"):
            with tempfile.TemporaryDirectory(prefix="numba-cold-gin-") as cache:
                for state in ("cold", "warm"):
                    env = {**os.environ, "NUMBA_CACHE_DIR": cache}
                    cmd = [sys.executable, "-m", "benchmarks.bench_gin_peers", "--cold-child", kind]
                    done = subprocess.run(cmd, env=env, cwd=ROOT, capture_output=True, text=True, check=True)
                    f = json.loads(done.stdout.strip().splitlines()[-1])
                    print(
                        f"round {r + 1} {kind} {state}: import {f['import']:.2f} s, reset {f['reset']:.2f} s, "
                        f"step {f['step']:.2f} s, total {f['total']:.2f} s; load average {os.getloadavg()}",
                        flush=True,
                    )
                    for said in done.stderr.strip().splitlines():
                        print(f"  stderr: {said}")
    print(f"load average after: {os.getloadavg()}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=8.0, help="time per measurement (default 8)")
    parser.add_argument("--rounds", type=int, default=3, help="alternated rounds (default 3)")
    parser.add_argument("--num-envs", type=int, default=64, help="games in the vector env (default 64)")
    parser.add_argument("--no-two-cores", dest="two_cores", action="store_false", help="skip the 2-core figure")
    parser.add_argument("--two-core-rows", type=int, default=0, help="rows per process on two cores (num_envs // 2)")
    parser.add_argument("--peer-python", default=str(PEERS / "bin" / "python"), help="python of the peers' venv")
    parser.add_argument("--setup", action="store_true", help="create the peers' venv (.venv-peers/) and exit")
    parser.add_argument("--cold", action="store_true", help="the cold start instead")
    parser.add_argument("--measure", choices=(*SIDES, "rlcard"), help=argparse.SUPPRESS)
    parser.add_argument("--cold-child", choices=("vector", "aec"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.setup:
        setup()
        return 0
    if args.cold_child:
        _cold_child(args.cold_child)
        return 0
    if args.measure:
        run = {
            "vector": lambda: _vector(args.seconds, args.num_envs),
            "aec": lambda: _aec(args.seconds),
            "openspiel": lambda: _openspiel(args.seconds),
            "rlcard": lambda: _rlcard(args.seconds),
        }[args.measure]
        print(json.dumps(run()))
        return 0
    return cold(args) if args.cold else play(args)


if __name__ == "__main__":
    sys.exit(main())
