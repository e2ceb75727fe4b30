"""A fingerprint of seeded games through the Carousel AEC env: one hash of every
observation, mask, reward and info of every step, so that two source trees can be shown to
play the same games, step for step.

    PYTHONPATH=<tree> .venv/bin/python benchmarks/fingerprint_env.py [--games 30]

Uses only ``carousel_env.env(**config)``, which every version has. Prints one line per
table (config) and its hash.
"""

from __future__ import annotations

import argparse
import hashlib

import numpy as np

TABLES = (
    {"num_players": 2},
    {"num_players": 4},
    {"num_players": 3, "variant": "manipulation_rummy"},
    {"num_players": 2, "episode": "round", "reward": "game_result"},
)


def fingerprint(config: dict, games: int) -> str:
    import carousel_env

    digest = hashlib.sha256()
    env = carousel_env.env(**config)
    for seed in range(games):
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for agent in env.agent_iter():
            obs, reward, termination, truncation, info = env.last()
            digest.update(agent.encode())
            digest.update(obs["observation"].tobytes())
            digest.update(obs["action_mask"].tobytes())
            digest.update(np.float64(reward).tobytes())
            for key in sorted(info):
                digest.update(key.encode() + np.asarray(info[key]).tobytes())
            action = None if termination or truncation else int(rng.choice(np.flatnonzero(obs["action_mask"])))
            env.step(action)
    return digest.hexdigest()[:16]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=30)
    args = parser.parse_args()
    for config in TABLES:
        print(f"{config}: {fingerprint(config, args.games)}", flush=True)


if __name__ == "__main__":
    main()
