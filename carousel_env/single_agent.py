"""Carousel as a single-agent Gymnasium environment: one seat learns, the others are
played by given policies.

.. code-block:: python

    from carousel_env.single_agent import CarouselSingleAgentEnv
    from sb3_contrib import MaskablePPO

    env = CarouselSingleAgentEnv(opponents="greedy", num_players=2)
    model = MaskablePPO("MlpPolicy", env).learn(10_000)  # reads env.action_masks()

Or ``gymnasium.make("carousel_env.single_agent:Carousel-v0", opponents="smart")``; many
games at once: ``gymnasium.make_vec("carousel_env.single_agent:Carousel-v0", num_envs=64,
vectorization_mode="vector_entry_point")`` (:mod:`carousel_env.games.carousel.vector.gym`).

* ``opponents``: a scripted policy's name (:mod:`carousel_env.games.carousel.agents.registry`, the
  ``search@N`` player included), a callable ``(observation, action_mask) -> action``, a view
  policy (:class:`carousel_env.games.carousel.agents.search.ViewPolicy`, handed its seat's view), or a list
  of those, one per other seat in seat order after the learner.
* ``learner_seat``: a seat number, or ``"random"`` (drawn at each reset from the reset's
  seed) so the learner plays from every position.
* ``illegal_reward`` (-1): an illegal action ends the episode with this reward (like the
  wrapped AEC env); ``None`` makes it raise ``IllegalAction`` instead.
* Every other keyword is the AEC env's configuration (:mod:`carousel_env.games.carousel.envs.aec`).

Observation: the AEC observation vector (a ``Box``); the action mask is
``action_masks()`` and ``info["action_mask"]``. Actions: as in the AEC env. Reward: the
learner's AEC reward accumulated over its step and the opponents' moves up to its next
decision. An episode that ends before the learner ever decides (rare: every decision it
had was forced) is skipped at reset and the next game is dealt.
"""

from __future__ import annotations

from collections.abc import Sequence

import gymnasium as gym
import numpy as np

from carousel_env.games.carousel.agents.baselines import Policy
from carousel_env.games.carousel.agents.match import policy_action
from carousel_env.games.carousel.agents.registry import resolve_policy
from carousel_env.games.carousel.envs.aec import raw_env


class CarouselSingleAgentEnv(gym.Env):
    metadata = {"render_modes": ["human", "ansi", "rgb_array"], "render_fps": 2}  # noqa: RUF012

    def __init__(
        self,
        opponents: str | Policy | Sequence[str | Policy] = "random",
        learner_seat: int | str = 0,
        illegal_reward: float | None = -1.0,
        render_mode: str | None = None,
        **config: object,
    ) -> None:
        self.aec = raw_env(render_mode=render_mode, **config)
        self.render_mode = render_mode
        n = self.aec.config.num_players
        if learner_seat != "random" and not (isinstance(learner_seat, int) and 0 <= learner_seat < n):
            raise ValueError(f"learner_seat must be 'random' or a seat 0..{n - 1}, got {learner_seat!r}")
        self.learner_seat = learner_seat
        specs = list(opponents) if isinstance(opponents, (list, tuple)) else [opponents] * (n - 1)
        if len(specs) != n - 1:
            raise ValueError(f"opponents: expected {n - 1} policies for {n} players, got {len(specs)}")
        self._opponent_specs = specs
        self.opponents = [resolve_policy(spec) for spec in specs]
        agent0 = self.aec.possible_agents[0]
        self.observation_space = self.aec.observation_space(agent0)["observation"]
        self.action_space = self.aec.action_space(agent0)
        self._learner = agent0
        self._mask = np.zeros(self.action_space.n, np.int8)
        self.illegal_reward = illegal_reward
        self._done = True

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if seed is not None:
            # Opponents with randomness follow the episode seed, so a seeded reset replays.
            self.opponents = [resolve_policy(spec, seed=seed + i + 1) for i, spec in enumerate(self._opponent_specs)]
        n = self.aec.config.num_players
        seat = int(self.np_random.integers(n)) if self.learner_seat == "random" else self.learner_seat
        self._learner = self.aec.possible_agents[seat]
        game_seed = int(self.np_random.integers(2**62))
        while True:
            self.aec.reset(seed=game_seed)
            _, done = self._advance()
            if not done:
                break
            game_seed = int(self.np_random.integers(2**62))
        self._done = False
        return self._observation(), self._info()

    def step(self, action: int):
        if self._done:  # stepping a finished episode (Gymnasium leaves it undefined): stay done
            return self._final_observation.copy(), 0.0, True, False, self._info()
        action = int(action)
        if self.illegal_reward is not None and not (0 <= action < len(self._mask) and self._mask[action]):
            # Like PettingZoo's TerminateIllegalWrapper: the episode ends, the learner pays.
            self._done = True
            self._final_observation = self._observation()
            self._mask = np.zeros(self.action_space.n, np.int8)
            info = self._info()
            info["illegal_action"] = action
            return self._final_observation.copy(), float(self.illegal_reward), True, False, info
        self.aec.step(action)
        reward, done = self._advance()
        self._done = done
        obs = self._observation() if not done else self._final_observation.copy()
        return obs, reward, done, False, self._info()

    def action_masks(self) -> np.ndarray:
        """Legal actions as booleans (what sb3-contrib's MaskablePPO asks for)."""
        return self._mask.astype(bool)

    def render(self):
        return self.aec.render()

    def close(self) -> None:
        self.aec.close()

    # ------------------------------------------------------------ internals

    def _advance(self) -> tuple[float, bool]:
        """Play the opponents until the learner decides or the episode ends; returns the
        learner's reward since its last decision and whether the episode ended."""
        aec = self.aec
        n = aec.config.num_players
        learner_seat = aec.possible_agents.index(self._learner)
        while True:
            agent = aec.agent_selection
            done = aec.terminations[agent] or aec.truncations[agent]
            if done or agent == self._learner:
                break
            obs = aec.observe(agent)
            seat = aec.possible_agents.index(agent)
            opponent = self.opponents[(seat - learner_seat - 1) % n]
            aec.step(policy_action(opponent, aec, seat, obs["observation"], obs["action_mask"]))
        # The AEC env accumulates each agent's rewards until that agent acts again: exactly
        # the learner's reward for its last action. Collect it and clear it, as last() would.
        reward = float(aec._cumulative_rewards[self._learner])
        aec._cumulative_rewards[self._learner] = 0.0
        self._last_infos = dict(aec.infos[self._learner])
        if done:
            self._final_observation = aec.observe(self._learner)["observation"]
            self._mask = np.zeros(self.action_space.n, np.int8)
        else:
            self._mask = aec.observe(self._learner)["action_mask"]
        return reward, done

    def _observation(self) -> np.ndarray:
        # A copy: the AEC env hands the same array to every caller within a step.
        return self.aec.observe(self._learner)["observation"].copy()

    def _info(self) -> dict:
        info = dict(self._last_infos)
        info["action_mask"] = self._mask.copy()
        info["learner"] = self._learner
        return info


def _register() -> None:
    if "Carousel-v0" not in gym.registry:
        gym.register(
            id="Carousel-v0",
            entry_point="carousel_env.single_agent:CarouselSingleAgentEnv",
            # gym.make_vec("Carousel-v0", num_envs=N, vectorization_mode="vector_entry_point"):
            # the compiled vector env's Gymnasium form, not N copies of this one.
            vector_entry_point="carousel_env.games.carousel.vector.gym:CarouselGymVectorEnv",
        )


_register()
