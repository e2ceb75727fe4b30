"""The random-legal-play loop that ``bench_env`` times, for Carousel and for gin_rummy_v4, and
the timer of the games' ``--speed`` benchmarks (:func:`random_steps`).

It imports nothing from this repository, so the very same loop also runs in the separate
virtual environment that still has PettingZoo's gin_rummy_v4 (removed after 1.26.1):

    GIN_PYTHON benchmarks/random_play.py SECONDS   # prints one JSON line
"""

from __future__ import annotations

import json
import sys
import time

import numpy as np


def random_steps(step_env, seconds: float) -> float:
    """Agent-steps a second of ``step_env(rng) -> steps`` (a game's envs stepped with uniform
    random legal actions), called until ``seconds`` pass."""
    rng, steps = np.random.default_rng(0), 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        steps += step_env(rng)
    return steps / (time.perf_counter() - start)


def measure(make_env, seconds: float, seed: int = 0) -> tuple[float, float, int, int]:
    """Agent-steps/s, games/s, steps and games of uniform random legal play for ``seconds``
    (the random player reads the action mask from the observation, as a learner would)."""
    env = make_env()
    rng = np.random.default_rng(seed)
    steps = games = 0
    env.reset(seed=seed)
    start = time.perf_counter()
    while True:
        for _agent in env.agent_iter():
            obs, _reward, term, trunc, _info = env.last()
            if term or trunc:
                action = None
            else:
                legal = np.flatnonzero(obs["action_mask"])
                action = int(legal[rng.integers(len(legal))])  # as bench_gin_peers draws RLCard's
                steps += 1
            env.step(action)
        games += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return steps / elapsed, games / elapsed, steps, games
        env.reset(seed=seed + games)


def _measure_gin(seconds: float) -> None:
    from pettingzoo.classic import gin_rummy_v4

    steps_s, games_s, steps, games = measure(lambda: gin_rummy_v4.env(), seconds)
    print(json.dumps({"steps_per_s": steps_s, "games_per_s": games_s, "steps": steps, "games": games}))


if __name__ == "__main__":
    _measure_gin(float(sys.argv[1]))
