"""Carousel: a manipulation-rummy card game as a rules engine, an exact play solver, a
PettingZoo environment and scripted players.

The layers, each importing only the ones before it (checked by ``lint-imports``):

* ``carousel_env.engine``: cards, melds, the manipulation check, scoring, rules, the game.
* ``carousel_env.solver``: the exact rearrangement solver (``solve``, ``has_play``).
* ``carousel_env.envs``: the PettingZoo AEC env, its wrappers, observation encoding and
  the renderers.
* ``carousel_env.agents``: scripted players, the policy registry and the match runner.
* ``carousel_env.single_agent``: one learning seat against agents, as a Gymnasium env.

``carousel_env.env()`` and ``carousel_env.raw_env()`` are the environment's entry points.
"""

__version__ = "0.3.0"

__all__ = ["env", "raw_env"]


def __getattr__(name: str):
    # The environments pull in PettingZoo and Gymnasium; load them only when asked so that
    # the engine and the command line stay light.
    if name in ("env", "raw_env"):
        from carousel_env.envs import aec

        return getattr(aec, name)
    raise AttributeError(f"module 'carousel_env' has no attribute {name!r}")
