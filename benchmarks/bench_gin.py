"""Gin Rummy's speed beside OpenSpiel's, on the same game: uniform random legal play, one
process, agent-steps/s (a decision of the player to act), alternated in rounds so that the
machine's drift hits each the same.

    .venv/bin/python -m benchmarks.bench_gin [--seconds 10] [--rounds 3] [--num-envs 64]

* ``aec``: ``carousel_env.env(game="gin_rummy", preset="openspiel")``, the action read from
  the mask in the observation, as a learner would (``benchmarks.random_play``).
* ``vector``: ``GinVectorEnv(num_envs, preset="openspiel")``, every row's action drawn from its mask.
* ``openspiel``: pyspiel's ``gin_rummy`` with its observation tensor and legal actions read
  at each decision and chance outcomes sampled (``pip install -e ".[openspiel]"``). Our env
  takes single-choice decisions itself and lays a knock's melds in one action, where
  OpenSpiel asks for each: its decisions per hand are more, each one cheaper.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from benchmarks import random_play


def aec(seconds: float) -> float:
    import carousel_env

    return random_play.measure(lambda: carousel_env.env(game="gin_rummy", preset="openspiel"), seconds)[0]


def vector(seconds: float, num_envs: int) -> float:
    from carousel_env.games.gin_rummy.vector import GinVectorEnv

    venv = GinVectorEnv(num_envs, preset="openspiel")
    rng = np.random.default_rng(0)
    step = venv.reset(seed=0)
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        choice = np.argmax(rng.random(step.action_mask.shape) * step.action_mask, axis=1)
        step = venv.step(choice)
        steps += num_envs
    return steps / (time.perf_counter() - start)


def openspiel(seconds: float) -> float:
    import pyspiel

    game = pyspiel.load_game("gin_rummy")
    rng = np.random.default_rng(0)
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[int(rng.integers(len(outcomes)))][0])
                continue
            player = state.current_player()
            state.observation_tensor(player)
            legal = state.legal_actions(player)
            state.apply_action(legal[int(rng.integers(len(legal)))])
            steps += 1
    return steps / (time.perf_counter() - start)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--num-envs", type=int, default=64)
    args = parser.parse_args(argv)
    vector(1.0, args.num_envs)  # compiles (or loads) the kernel first: not measured
    runs = {
        "aec": lambda: aec(args.seconds),
        "vector": lambda: vector(args.seconds, args.num_envs),
        "openspiel": lambda: openspiel(args.seconds),
    }
    figures: dict[str, list[float]] = {name: [] for name in runs}
    for r in range(args.rounds):
        for name, run in runs.items():
            figures[name].append(run())
            print(f"round {r + 1} {name:<10} {figures[name][-1]:10.0f} agent-steps/s", flush=True)
    medians = {name: statistics.median(values) for name, values in figures.items()}
    for name, value in medians.items():
        print(f"{name:<10} median {value:10.0f} agent-steps/s  ({value / medians['openspiel']:.2f}x OpenSpiel)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
