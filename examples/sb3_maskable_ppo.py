"""Stable-Baselines3 on Carousel: sb3-contrib's MaskablePPO as one seat against scripted players.

    pip install -e ".[dev]"      # sb3-contrib
    python examples/sb3_maskable_ppo.py --timesteps 20000

``CarouselSingleAgentEnv`` is a Gymnasium env (one learning seat; the other seats are
played by the named agents) with ``action_masks()``, which MaskablePPO reads as it is.
"""

from __future__ import annotations

import argparse

from sb3_contrib import MaskablePPO

from carousel_env.games.carousel.agents.match import play_match
from carousel_env.games.carousel.gym import CarouselSingleAgentEnv


def main(timesteps: int = 20_000, eval_games: int = 20, seed: int = 0) -> float:
    env = CarouselSingleAgentEnv(opponents="greedy", num_players=2, episode="round")
    model = MaskablePPO("MlpPolicy", env, n_steps=512, batch_size=128, seed=seed, verbose=0)
    model.learn(timesteps)

    def learner(observation, action_mask):
        action, _ = model.predict(observation, action_masks=action_mask, deterministic=True)
        return int(action)

    result = play_match([learner, "greedy"], games=eval_games, seed=seed)
    win_rate = result.win_rate(0)
    print(f"after {timesteps} steps: win rate {win_rate:.2f} against greedy over {eval_games} games")
    return win_rate


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timesteps", type=int, default=20_000)
    parser.add_argument("--eval-games", type=int, default=20)
    args = parser.parse_args()
    main(args.timesteps, args.eval_games)
