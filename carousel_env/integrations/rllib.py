"""Any game of the family as an RLlib multi-agent env (new API stack, ray 2.60+).

.. code-block:: python

    from ray.rllib.algorithms.ppo import PPOConfig
    from carousel_env.integrations.rllib import CarouselMultiAgentEnv

    config = PPOConfig().environment(CarouselMultiAgentEnv, env_config={"num_players": 2})

or, by name, after ``register()`` (``PPOConfig().environment("carousel", env_config=...)``).

What the adapter does over the PettingZoo AEC env (``carousel_env.env``, wrapped as usual):

* **Observations** are ``{"observations": float32 vector, "action_mask": int8 vector}``:
  the env's ``observation`` key is renamed to the name RLlib's action-masking convention
  (and its ``ActionMaskingTorchRLModule`` example) reads. Only the seat to act gets an
  observation at each step, as in RLlib's own turn-based envs.
* **Spaces** are per agent (``observation_spaces`` / ``action_spaces``, keyed
  ``player_0`` .. ``player_{n-1}``), every seat with the same spaces.
* **Rewards** keep PettingZoo's accounting: a seat's reward is what it earned since it
  last acted, delivered with its next observation, and at the end of the episode every
  seat gets its last observation and its outstanding reward (so a round that ends on
  another seat's move is still credited to every seat). Summed over an episode, the
  rewards RLlib records for a seat are its true return; the test suite checks this over
  whole games against the engine's scores.
* **Infos** are the env's, passed through for the seat that gets the observation.
* **Illegal actions** end the episode with -1 for their author (the wrapped env's rule);
  with the mask applied they never happen.
* **Shaping** (``env_config`` keys ``shaping_coef`` and ``shaping_gamma``, off by default): a
  seat's reward gains ``coef * (gamma * phi(new) - phi(previous))`` with each observation
  after its first, and ``-coef * phi(previous)`` with its last, ``phi`` the game's measure of
  progress read from the observation (``FamilyGame.progress``: Gin's deadwood, Carioca's
  distance to the contract). It is potential-based, as the in-house trainer's
  (``training/rewards.py``): the best policy is unchanged, and evaluation plays unshaped.

``env_config`` keys are ``carousel_env.env``'s: ``game`` (Carousel by default) and the game
env's keyword arguments (``carousel_env.options(game)`` lists them), plus ``seed``: the seed of the first reset when
RLlib passes none (``config.debugging(seed=...)`` unset). Later resets draw their deals
from the env's own generator, so a seeded run deals the same games again. An env that
RLlib builds (its config is an ``EnvContext``) mixes its runner's ``worker_index`` and its
rank among the envs of its process into the seed: RLlib seeds sub-env ``i`` of runner
``w`` with ``seed + w + i``, which would give two copies the same games. An env built by
hand plays ``reset(seed=s)`` as ``carousel_env.env().reset(seed=s)`` does.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
from gymnasium import spaces
from ray.rllib.env.env_context import EnvContext
from ray.rllib.env.multi_agent_env import MultiAgentEnv
from ray.tune.registry import register_env

import carousel_env
from carousel_env.core.registry import DEFAULT_GAME
from carousel_env.envkit.family import family_game

ENV_NAME = "carousel"
OBS_KEY = "observations"  # the env's "observation", renamed for RLlib's masking convention
MASK_KEY = "action_mask"

_instances = itertools.count()  # envs built in this process, to tell seeded copies apart


class CarouselMultiAgentEnv(MultiAgentEnv):
    """A game's AEC env (Carousel's by default) as an RLlib ``MultiAgentEnv`` (see the module docstring)."""

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        super().__init__()
        env_config = dict(config or {})
        self._first_seed: int | None = env_config.pop("seed", None)
        self._shaping = float(env_config.pop("shaping_coef", 0.0))
        self._shaping_gamma = float(env_config.pop("shaping_gamma", 1.0))
        self._progress = family_game(env_config.get("game", DEFAULT_GAME)).progress if self._shaping else None
        if self._shaping and self._progress is None:
            raise ValueError(f"shaping_coef: {env_config.get('game', DEFAULT_GAME)} declares no measure of progress")
        # An EnvContext knows its runner; the envs of one runner share that context.
        self._salt = (config.worker_index or 0, next(_instances)) if isinstance(config, EnvContext) else None
        self.env = carousel_env.env(**env_config)
        raw = self.env.unwrapped
        self.observation_layout = raw.observation_layout
        self.possible_agents = list(raw.possible_agents)
        self.agents = list(self.possible_agents)  # every seat plays to the end of the episode
        inner = raw.observation_space(self.possible_agents[0])
        observation_space = spaces.Dict({OBS_KEY: inner["observation"], MASK_KEY: inner["action_mask"]})
        self.observation_spaces = dict.fromkeys(self.possible_agents, observation_space)
        self.action_spaces = {agent: raw.action_space(agent) for agent in self.possible_agents}
        self.observation_space = spaces.Dict(self.observation_spaces)
        self.action_space = spaces.Dict(self.action_spaces)
        self._carry: dict[str, float] = {}
        self._potential: dict[str, float] = {}  # each seat's shaping potential at its last observation

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        if seed is None:
            seed = self._first_seed
        self._first_seed = None
        if seed is not None and self._salt is not None:
            seed = int(np.random.SeedSequence([int(seed), *self._salt]).generate_state(1)[0])
        self.env.reset(seed=seed, options=options)
        while not self.env.agents or all(self.env.terminations.values()):
            self.env.reset()  # a deal whose round played itself out: nothing to learn from it
        agent = self.env.agent_selection
        obs, reward, _, _, info = self.env.last()
        # A round that resolved itself during the deal pays before anyone acts; the seat to
        # act would lose its share when it acts (PettingZoo zeroes it), so carry it over.
        self._carry = {agent: float(reward)} if reward else {}
        self._potential = {}
        self._shape(agent, obs, reward=0.0, last=False)
        return {agent: _convert(obs)}, {agent: info}

    def step(self, action_dict: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        agent = self.env.agent_selection
        self.env.step(int(action_dict[agent]))
        obs, rewards, terminateds, truncateds, infos = {}, {}, {}, {}, {}
        # Report the seat to act next; at the end, every seat in turn (their dead steps).
        while self.env.agents:
            agent = self.env.agent_selection
            observation, reward, terminated, truncated, info = self.env.last()
            obs[agent] = _convert(observation)
            rewards[agent] = self._shape(
                agent, observation, float(reward) + self._carry.pop(agent, 0.0), terminated or truncated
            )
            terminateds[agent], truncateds[agent], infos[agent] = terminated, truncated, info
            if not (terminated or truncated):
                break
            self.env.step(None)
        done = not self.env.agents
        terminateds["__all__"] = done and all(terminateds.values())
        truncateds["__all__"] = done and not terminateds["__all__"]
        return obs, rewards, terminateds, truncateds, infos

    def _shape(self, agent: str, observation: dict, reward: float, last: bool) -> float:
        """``reward`` with the shaping term of ``agent``'s new observation (its last: potential 0)."""
        if self._progress is None:
            return reward
        now = 0.0 if last else float(self._progress(observation["observation"][None])[0])
        if agent in self._potential:
            reward += self._shaping * (self._shaping_gamma * now - self._potential[agent])
        self._potential[agent] = now
        return reward

    def render(self) -> Any:
        return self.env.render()

    def close(self) -> None:
        self.env.close()


def _convert(observation: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    # The env shares one read-only mask array between decisions; RLlib gets its own copy.
    return {OBS_KEY: observation["observation"], MASK_KEY: np.array(observation["action_mask"])}


def register(name: str = ENV_NAME) -> str:
    """Register the env with Ray Tune's registry under ``name`` (for ``environment(name)``)."""
    register_env(name, CarouselMultiAgentEnv)
    return name
