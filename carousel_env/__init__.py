"""Carousel: a manipulation-rummy card game as a rules engine, an exact play solver, a
PettingZoo environment and scripted players.

The layers, each importing only the ones before it (checked by ``lint-imports``):

* ``carousel_env.core``: what belongs to no game: cards and notation, errors, the registry
  of games.
* ``carousel_env.envkit``: what every game's env shares: wrappers, seats, seeds, drawing.
* ``carousel_env.games``: a folder per game beyond Carousel (``gin_rummy``), each with its
  rules, engine, exact meld solver, observation and env.
* ``carousel_env.engine``: Carousel's melds, the manipulation check, scoring, rules, the game.
* ``carousel_env.solver``: the exact rearrangement solver (``solve``, ``has_play``).
* ``carousel_env.envs``: the PettingZoo AEC env, its wrappers, observation encoding and
  the renderers.
* ``carousel_env.agents``: scripted players, the policy registry and the match runner.
* ``carousel_env.single_agent``: one learning seat against agents, as a Gymnasium env.

``carousel_env.env(game=...)`` and ``carousel_env.raw_env(game=...)`` are the environments'
entry points (Carousel by default; the PettingZoo ids are ``carousel/<game>_v0``).
"""

__version__ = "0.3.0"

__all__ = ["env", "raw_env"]


def env(game: str = "carousel", **config: object):
    """The AEC env of ``game`` (see ``carousel_env.core.registry.GAMES``), wrapped like
    PettingZoo's classic games; ``config`` is the game env's keyword arguments."""
    from carousel_env.core.registry import env_module

    return env_module(game).env(**config)


def raw_env(game: str = "carousel", **config: object):
    """The bare AEC env of ``game`` (the env's errors are raised, not turned into rewards)."""
    from carousel_env.core.registry import env_module

    return env_module(game).raw_env(**config)
