"""Gin Rummy as single-agent Gymnasium environments: one seat learns, the other is played by
a given policy; one game (:class:`GinSingleAgentEnv`) or ``N`` games stepped by the compiled
vector env (:class:`GinGymVectorEnv`, a Gymnasium ``VectorEnv``).

.. code-block:: python

    import gymnasium
    import numpy as np
    from carousel_env.games.gin_rummy.gym import GinGymVectorEnv, GinSingleAgentEnv

    env = GinSingleAgentEnv(opponents="greedy", preset="openspiel")
    obs, info = env.reset(seed=0)                     # obs: float32 (size,); info["action_mask"]
    obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(env.action_masks())[0]))

    envs = GinGymVectorEnv(num_envs=64, opponents="greedy", learner_seat="random")
    obs, infos = envs.reset(seed=0)                   # rows seeded 0..63, as env.reset(seed=i)
    envs = gymnasium.make_vec("GinRummy-v0", num_envs=64, vectorization_mode="vector_entry_point")

Importing this module (or any game's Gymnasium module) registers ``GinRummy-v0``:
``gymnasium.make("GinRummy-v0", opponents="random", episode="hand")`` builds the single env,
``gymnasium.make_vec(..., vectorization_mode="vector_entry_point")`` the vector form.

Options (both forms):

* ``opponents`` ("random"): a scripted player's name (``random``, ``greedy``, ``simple``, ``search@N``: see
  :mod:`carousel_env.games.gin_rummy.players`), a callable ``(observation, action_mask) ->
  action``, or a list of one of those (Gin is heads-up). How they play at the env's
  decisions: :mod:`carousel_env.games.gin_rummy.policies`.
* ``learner_seat`` (0): 0, 1, or ``"random"``: drawn at each reset from the reset's seed.
* ``illegal_reward`` (-1): an illegal action ends the episode with this reward; ``None``
  raises ``IllegalAction`` instead (the vector form names the row), before anything moves.
* Every other keyword is the AEC env's configuration (:mod:`carousel_env.games.gin_rummy.env`:
  ``preset``, any rules option, ``k_knocks``, ``episode`` ("hand" or "match"), ``reward``,
  ``reward_scale``; the vector form does not render).

Spaces: the observation is the AEC observation vector, ``Box(0, 1, (size,), float32)``; the
action space is ``Discrete(55 + K)``, the AEC env's actions. The mask is ``action_masks()``
(booleans, for sb3-contrib's MaskablePPO) and ``info["action_mask"]``.

Semantics: the family's shared forms, the same as Carousel's (seeds, the learner's reward
since its last decision, episodes that end before the learner decides skipped, autoreset
``NEXT_STEP``, Gymnasium's vector infos with ``_key`` arrays, ``reset_mask``):
:mod:`carousel_env.envkit.gym_env` and :mod:`carousel_env.envkit.gym_vector`. Row ``i`` of
the vector form reset with seed ``s`` plays what ``GinSingleAgentEnv.reset(seed=s + i)`` and
its later ``reset()`` calls play, step for step (``tests/games/gin_rummy/test_gin_gym.py``). The
vector form's infos hold the AEC info keys (``num_auto_actions``, ``hands_ended``,
``hand_points`` (N, 2), ``game_over``) summed since the learner's last action, beside
``action_mask``, ``learner_seat`` and, in rows that made one, ``illegal_action``.
"""

from __future__ import annotations

from carousel_env.envkit.gym_env import SingleAgentEnv, register_gymnasium
from carousel_env.envkit.gym_vector import GymVectorEnv, info_keys_of
from carousel_env.games.gin_rummy.env import INFO_KEYS, action_name, raw_env
from carousel_env.games.gin_rummy.policies import resolve_policy
from carousel_env.games.gin_rummy.vector import GinVectorEnv


class GinSingleAgentEnv(SingleAgentEnv):
    """One learning seat of Gin Rummy against a policy (see the module docstring)."""

    aec_env = raw_env
    resolve_opponent = staticmethod(resolve_policy)


class GinGymVectorEnv(GymVectorEnv):
    """``num_envs`` single-agent Gin Rummy games as one Gymnasium ``VectorEnv`` (see the
    module docstring)."""

    info_keys = info_keys_of(INFO_KEYS)
    vector_env = GinVectorEnv
    resolve_opponent = staticmethod(resolve_policy)
    action_name = staticmethod(action_name)


register_gymnasium()

__all__ = ["GinGymVectorEnv", "GinSingleAgentEnv"]
