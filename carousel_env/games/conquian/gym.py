"""Conquian as single-agent Gymnasium environments: one seat learns, the
other is played by a given policy; one game (:class:`ConquianSingleAgentEnv`) or ``N`` games
stepped by the vector env (:class:`ConquianGymVectorEnv`, a Gymnasium ``VectorEnv``).

.. code-block:: python

    import gymnasium
    from carousel_env.games.conquian.gym import ConquianGymVectorEnv, ConquianSingleAgentEnv

    env = ConquianSingleAgentEnv(opponents="simple", preset="foster")
    obs, info = env.reset(seed=0)                     # obs: float32 (size,); info["action_mask"]
    envs = ConquianGymVectorEnv(num_envs=16, opponents="simple", learner_seat="random")
    envs = gymnasium.make_vec("Conquian-v0", num_envs=16, vectorization_mode="vector_entry_point")

Importing this module (or any game's Gymnasium module) registers ``Conquian-v0``.

Options (both forms): ``opponents`` ("random"): a scripted player's name (``random``,
``simple``: :mod:`carousel_env.games.conquian.players`), a callable ``(observation,
action_mask) -> action``, or a list of those, one per other seat
(:mod:`carousel_env.games.conquian.policies`); ``learner_seat`` (0): a seat or ``"random"``;
``illegal_reward`` (-1); every other keyword is the AEC env's configuration
(:mod:`carousel_env.games.conquian.env`; the vector form does not render).

Spaces: the AEC observation vector, ``Box(0, 1, (size,), float32)``, and ``Discrete(42 +
K)``; the mask is ``action_masks()`` and ``info["action_mask"]``. Semantics: the family's
shared forms (:mod:`carousel_env.envkit.gym_env`, :mod:`carousel_env.envkit.gym_vector`).
"""

from __future__ import annotations

from carousel_env.envkit.gym_env import SingleAgentEnv, register_gymnasium
from carousel_env.envkit.gym_vector import GymVectorEnv, info_keys_of
from carousel_env.games.conquian.env import INFO_KEYS, action_name, raw_env
from carousel_env.games.conquian.policies import resolve_policy
from carousel_env.games.conquian.vector import ConquianVectorEnv


class ConquianSingleAgentEnv(SingleAgentEnv):
    """One learning seat of Conquian against policies (see the module docstring)."""

    aec_env = raw_env
    resolve_opponent = staticmethod(resolve_policy)


class ConquianGymVectorEnv(GymVectorEnv):
    """``num_envs`` single-agent Conquian games as one Gymnasium ``VectorEnv`` (see the module
    docstring)."""

    info_keys = info_keys_of(INFO_KEYS)
    vector_env = ConquianVectorEnv
    resolve_opponent = staticmethod(resolve_policy)
    action_name = staticmethod(action_name)


register_gymnasium()

__all__ = ["ConquianGymVectorEnv", "ConquianSingleAgentEnv"]
