"""Many games at once: Carousel's compiled vector env, every seat's rewards batched, and its
single-agent Gymnasium ``VectorEnv`` form under Gymnasium's own vector wrappers.

    python examples/vector_env.py --num-envs 64 --steps 500

Random legal play stands in for a policy: it draws a uniform legal action per row from
the batched masks, as a vectorized learner would sample its batched distribution.
"""

from __future__ import annotations

import argparse

import numpy as np
from gymnasium.wrappers.vector import RecordEpisodeStatistics

from carousel_env.core.text import plural
from carousel_env.games.carousel.vector import CarouselVectorEnv
from carousel_env.games.carousel.vector.gym import CarouselGymVectorEnv


def random_legal(rng: np.random.Generator, masks: np.ndarray) -> np.ndarray:
    """A uniform legal action per row (0 in a row with no legal action)."""
    return np.argmax(rng.random(masks.shape) * masks, axis=1)


def every_seat(num_envs: int, steps: int, seed: int = 0) -> np.ndarray:
    """3-player games: each step moves every game by its acting seat's decision; rewards
    reach all seats. Returns each finished game's per-seat return."""
    venv = CarouselVectorEnv(num_envs, num_players=3)
    rng = np.random.default_rng(seed)
    step = venv.reset(seed=seed)
    running = np.zeros((num_envs, venv.num_players))
    finished = []
    for _ in range(steps):
        step = venv.step(random_legal(rng, step.action_mask))
        running += step.rewards
        for game in step.info.finished:  # the row already plays its next game
            finished.append(running[game.env].copy())
            running[game.env] = 0.0
    return np.array(finished).reshape(-1, venv.num_players)


def one_learner(num_envs: int, steps: int, seed: int = 0) -> list[float]:
    """One learning seat per row against the greedy player, one round per episode, through
    Gymnasium's episode statistics wrapper. Returns the learner's episode returns."""
    envs = RecordEpisodeStatistics(CarouselGymVectorEnv(num_envs, opponents="greedy", episode="round"))
    rng = np.random.default_rng(seed)
    envs.reset(seed=seed)
    returns = []
    for _ in range(steps):
        _, _, _, _, info = envs.step(random_legal(rng, envs.unwrapped.action_masks()))
        if "episode" in info:
            returns.extend(info["episode"]["r"][info["_episode"]].tolist())
    envs.close()
    return returns


def main(num_envs: int = 64, steps: int = 500, seed: int = 0) -> tuple[np.ndarray, list[float]]:
    games = every_seat(num_envs, steps, seed)
    if len(games):
        print(
            f"every seat: {plural(len(games), 'game')} finished; mean return per seat {np.round(games.mean(axis=0), 3)}"
        )
    else:  # a mean of no games is nan: say so instead (more --steps finish some)
        print(f"every seat: no game finished in {plural(steps, 'step')}")
    learner = one_learner(num_envs, steps, seed)
    if learner:
        print(f"one learner vs greedy: {plural(len(learner), 'round')}; mean return {np.mean(learner):+.3f}")
    else:
        print(f"one learner vs greedy: no round finished in {plural(steps, 'step')}")
    return games, learner


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--num-envs", type=int, default=64)
    parser.add_argument("--steps", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    main(args.num_envs, args.steps, args.seed)
