"""Carousel as a single-agent Gymnasium vector environment: ``N`` games, one learning seat in
each, the other seats played by given policies, every game stepped by the compiled vector
env (:class:`~carousel_env.games.carousel.vector.env.CarouselVectorEnv`).

.. code-block:: python

    import numpy as np
    from carousel_env.games.carousel.vector.gym import CarouselGymVectorEnv

    envs = CarouselGymVectorEnv(num_envs=64, opponents="greedy", num_players=2)
    obs, infos = envs.reset(seed=0)                   # (64, 809) float32: rows seeded 0..63
    rng = np.random.default_rng(0)
    for _ in range(1000):
        masks = envs.action_masks()                   # (64, 3 + K) bool, empty where an episode just ended
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])
        obs, rewards, terminated, truncated, infos = envs.step(actions)

Each row is the single-agent env (:mod:`carousel_env.games.carousel.gym`) with the same options:

* ``opponents`` ("random"): a scripted policy's name (:mod:`carousel_env.games.carousel.agents.registry`,
  ``search@N`` included), a callable ``(observation, action_mask) -> action``, a view policy,
  or a list of those, one per other seat in seat order after the learner. Every row builds
  its own named policies (their random state is the row's); a callable or view policy
  object is shared by all rows.
* ``learner_seat`` (0): a seat, or ``"random"``: drawn at each of the row's resets.
* ``illegal_reward`` (-1): an illegal action ends the row's episode with this reward;
  ``None`` makes ``step`` raise ``IllegalAction`` (naming the row) before any row moves.
* Every other keyword is the AEC env's configuration (:mod:`carousel_env.games.carousel.envs.aec`), as
  the vector env takes it (both variants; no rendering).

Spaces: ``single_observation_space`` is the AEC observation ``Box``, ``single_action_space``
``Discrete(3 + K)``; ``observation_space`` and ``action_space`` are their batches.

Semantics, row by row the single-agent env's (``tests/games/carousel/test_vector_gym.py`` steps both and
compares every observation, mask, reward and termination), are the family's shared form's
(:class:`carousel_env.envkit.gym_vector.GymVectorEnv`, Gin Rummy's too: seeds, the
learner's reward, skipped episodes, ``NEXT_STEP`` autoreset, ``reset_mask``, illegal
actions, the vector infos). Here ``reset(seed=s)`` makes row ``i`` what
``CarouselSingleAgentEnv.reset(seed=s + i)`` makes that env, the infos hold Carousel's AEC
info keys (``num_auto_actions``, ``rounds_ended``, ``round_points`` (N, players),
``game_over``, ``solver_inexact``) beside ``action_mask`` (N, 3 + K), and
``action_masks()`` gives (N, 3 + K) booleans. This module gives the shared form Carousel:
its vector env, policies, info keys, action names and observation bounds.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from carousel_env.envkit.gym_vector import GymVectorEnv, info_keys_of
from carousel_env.games.carousel.agents.registry import resolve_policy
from carousel_env.games.carousel.envs.aec import INFO_KEYS, action_name
from carousel_env.games.carousel.envs.observation import upper_bounds
from carousel_env.games.carousel.vector.env import CarouselVectorEnv


class CarouselGymVectorEnv(GymVectorEnv):
    """``num_envs`` single-agent Carousel games as one Gymnasium ``VectorEnv`` (see the
    module docstring)."""

    info_keys = info_keys_of(INFO_KEYS)
    vector_env = CarouselVectorEnv
    resolve_opponent = staticmethod(resolve_policy)
    action_name = staticmethod(action_name)

    def _single_observation_space(self) -> spaces.Box:
        return spaces.Box(0.0, upper_bounds(self.venv.k), dtype=np.float32)
