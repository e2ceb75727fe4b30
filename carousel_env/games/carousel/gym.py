"""Carousel as a single-agent Gymnasium environment: one seat learns, the others are
played by given policies.

.. code-block:: python

    from carousel_env.games.carousel.gym import CarouselSingleAgentEnv
    from sb3_contrib import MaskablePPO

    env = CarouselSingleAgentEnv(opponents="greedy", num_players=2)
    model = MaskablePPO("MlpPolicy", env).learn(10_000)  # reads env.action_masks()

Or ``gymnasium.make("Carousel-v0", opponents="smart")`` after ``import carousel_env``; many
games at once: ``gymnasium.make_vec("Carousel-v0", num_envs=64,
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

All of this is the family's shared single-agent env
(:class:`carousel_env.envkit.gym_env.SingleAgentEnv`, Gin Rummy's ``GinRummy-v0`` too); this
module gives it Carousel's AEC env and policies. Importing it registers every game's
Gymnasium id (``Carousel-v0``, ``GinRummy-v0``, ``Carioca-v0``).
"""

from __future__ import annotations

import numpy as np

from carousel_env.envkit.gym_env import SingleAgentEnv, register_gymnasium
from carousel_env.games.carousel.agents.baselines import Policy
from carousel_env.games.carousel.agents.match import policy_action
from carousel_env.games.carousel.agents.registry import resolve_policy
from carousel_env.games.carousel.envs.aec import raw_env


class CarouselSingleAgentEnv(SingleAgentEnv):
    """One learning seat of Carousel against policies (see the module docstring)."""

    aec_env = raw_env
    resolve_opponent = staticmethod(resolve_policy)

    def _opponent_action(self, policy: Policy, seat: int, observation: np.ndarray, mask: np.ndarray) -> int:
        return policy_action(policy, self.aec, seat, observation, mask)


register_gymnasium()
