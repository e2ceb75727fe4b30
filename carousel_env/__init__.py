"""The rummy family as rules engines, exact solvers, PettingZoo environments and players:
Carousel (the default) with its Manipulation Rummy variant, and Gin Rummy.

The layers, lowest first, each importing only the ones before it (``lint-imports``):

* ``carousel_env.core``: what belongs to no game: cards and notation, the shared errors,
  the registry of games.
* ``carousel_env.envkit``: what every game's env shares: wrappers, seats, seeds, drawing.
* ``carousel_env.games``: a folder per game, none importing another:
  ``games.carousel`` (engine, solver, envs, agents, vector) and ``games.gin_rummy``
  (rules, melds, engine, observation, env).
* ``carousel_env.single_agent`` and ``carousel_env.integrations``: one learning seat as a
  Gymnasium env, and the RL libraries' adapters.

``carousel_env.env(game=...)`` and ``carousel_env.raw_env(game=...)`` are the environments'
entry points (Carousel by default; the PettingZoo ids are ``carousel/<game>_v0``).
"""

__version__ = "0.3.0"

__all__ = ["env", "raw_env", "vector_env"]


def env(game: str = "carousel", **config: object):
    """The AEC env of ``game`` (see ``carousel_env.core.registry.GAMES``), wrapped like
    PettingZoo's classic games; ``config`` is the game env's keyword arguments."""
    from carousel_env.core.registry import env_module

    return env_module(game).env(**config)


def raw_env(game: str = "carousel", **config: object):
    """The bare AEC env of ``game`` (the env's errors are raised, not turned into rewards)."""
    from carousel_env.core.registry import env_module

    return env_module(game).raw_env(**config)


def vector_env(game: str = "carousel", num_envs: int = 1, **config: object):
    """The compiled vector env of ``game``: ``num_envs`` games stepped together, with the AEC
    env's actions, observations, masks and rewards (``config`` as ``env``'s, no rendering)."""
    from carousel_env.core.registry import vector_env_class

    return vector_env_class(game)(num_envs, **config)
