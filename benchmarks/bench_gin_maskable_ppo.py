"""Reference for bench_train.py: sb3-contrib's MaskablePPO learning PettingZoo's gin_rummy_v4.

The training-throughput target of this project is stated against MaskablePPO on gin
rummy, so this measures that on the same machine. gin_rummy_v4 was removed from PettingZoo
after 1.26.1, so this runs in its own virtual environment, the gin venv of ``bench_env``
with the CPU torch wheel and sb3-contrib added (it imports nothing from this repository):

    python3 -m venv /tmp/ginvenv && /tmp/ginvenv/bin/pip install torch==2.13.0 \
        pettingzoo==1.26.1 rlcard pygame sb3-contrib
    /tmp/ginvenv/bin/python benchmarks/bench_gin_maskable_ppo.py

One MaskablePPO policy (defaults: MlpPolicy, n_steps 2048, batch 64, 10 epochs) plays every
seat through a single-agent view of the AEC env, as PettingZoo's SB3 action-mask tutorial
does. Prints env steps per second, learning included (every seat's step counts, as in
bench_train.py), after a warm-up rollout that is not counted.
"""

from __future__ import annotations

import argparse
import sys
import time


def make_env():
    import gymnasium
    import numpy as np
    from pettingzoo.classic import gin_rummy_v4

    class SelfPlayGin(gymnasium.Env):
        """Every seat's decision, in turn, as one single-agent episode."""

        def __init__(self) -> None:
            self.aec = gin_rummy_v4.env()
            self.aec.reset(seed=0)
            agent = self.aec.possible_agents[0]
            self.observation_space = self.aec.observation_space(agent)["observation"]
            self.action_space = self.aec.action_space(agent)
            self.mask = np.ones(self.action_space.n, dtype=bool)

        def _observe(self):
            obs = self.aec.observe(self.aec.agent_selection)
            self.mask = obs["action_mask"].astype(bool)
            return obs["observation"].astype(np.float32)

        def reset(self, seed=None, options=None):
            self.aec.reset(seed=seed)
            return self._observe(), {}

        def step(self, action):
            actor = self.aec.agent_selection
            self.aec.step(int(action))
            reward = float(self.aec.rewards[actor])
            if all(self.aec.terminations.values()) or all(self.aec.truncations.values()):
                return np.zeros(self.observation_space.shape, np.float32), reward, True, False, {}
            while self.aec.terminations[self.aec.agent_selection] or self.aec.truncations[self.aec.agent_selection]:
                self.aec.step(None)
            return self._observe(), reward, False, False, {}

        def action_masks(self):
            return self.mask

    return SelfPlayGin()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--timesteps", type=int, default=3 * 2048, help="counted env steps (default 6144)")
    args = parser.parse_args()
    from sb3_contrib import MaskablePPO

    model = MaskablePPO("MlpPolicy", make_env(), seed=0, verbose=0, device="cpu")
    model.learn(total_timesteps=2048)  # warm-up rollout and update, not counted
    start = time.perf_counter()
    model.learn(total_timesteps=args.timesteps, reset_num_timesteps=False)
    elapsed = time.perf_counter() - start
    print(f"MaskablePPO on gin_rummy_v4: {args.timesteps / elapsed:.0f} env steps/s (learning included)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
