"""Stable-Baselines3 on any game of the family: sb3-contrib's MaskablePPO as one seat against
a scripted player.

    pip install -e ".[dev]"      # sb3-contrib
    python examples/sb3_maskable_ppo.py --timesteps 20000
    python examples/sb3_maskable_ppo.py --game gin_rummy --opponent simple

Each game's single-agent form (``gymnasium.make("Carousel-v0")``, ``"GinRummy-v0"``,
``"Carioca-v0"``) is a Gymnasium env (one learning seat; the other seats are played by the
named agents) with ``action_masks()``, which MaskablePPO reads as it is. The episodes are the
game's scoring unit (a round or a hand), and the evaluation plays them too: a win is an
episode the learner ends ahead (its return above 0), a tie half.
"""

from __future__ import annotations

import argparse

import gymnasium
from sb3_contrib import MaskablePPO

import carousel_env  # noqa: F401  (registers every game's Gymnasium id)
from carousel_env.core.registry import DEFAULT_GAME, GAMES
from carousel_env.envkit.family import family_game


def main(
    timesteps: int = 20_000, eval_games: int = 20, seed: int = 0, game: str = DEFAULT_GAME, opponent=None
) -> float:
    family = family_game(game)
    opponent = opponent or family.yardsticks[0]
    env = gymnasium.make(GAMES[game].gymnasium.id, opponents=opponent, episode=family.unit)
    model = MaskablePPO("MlpPolicy", env, n_steps=512, batch_size=128, seed=seed, verbose=0)
    model.learn(timesteps)
    wins = 0.0
    for episode in range(eval_games):
        observation, info = env.reset(seed=seed + 10_000 + episode)
        done, ret = False, 0.0
        while not done:
            action, _ = model.predict(observation, action_masks=info["action_mask"], deterministic=True)
            observation, reward, terminated, truncated, info = env.step(int(action))
            ret += float(reward)
            done = terminated or truncated
        wins += 1.0 if ret > 0 else 0.5 if ret == 0 else 0.0
    win_rate = wins / eval_games
    print(
        f"{game}, after {timesteps} steps: win rate {win_rate:.2f} against {opponent} over {eval_games} {family.unit}s"
    )
    return win_rate


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default=DEFAULT_GAME, choices=sorted(GAMES))
    parser.add_argument("--opponent", default=None, help="a scripted player of the game (default: its first yardstick)")
    parser.add_argument("--timesteps", type=int, default=20_000)
    parser.add_argument("--eval-games", type=int, default=20)
    args = parser.parse_args()
    main(args.timesteps, args.eval_games, game=args.game, opponent=args.opponent)
