"""The rummy family as rules engines, exact solvers, PettingZoo environments and players:
Carousel (the default) with its Manipulation Rummy variant, Gin Rummy and Carioca.

The layers, lowest first, each importing only the ones before it (``lint-imports``):

* ``carousel_env.core``: what belongs to no game: cards and notation, the shared errors,
  the registry of games.
* ``carousel_env.envkit``: what every game's env shares: wrappers, seats, seeds, drawing,
  the AEC and vector plumbing, documented options, and the family contract every game fills
  (``envkit.family``).
* ``carousel_env.games``: a folder per game, none importing another (``docs/architecture.md``).
* ``carousel_env.integrations``: the RL libraries' adapters.

``carousel_env.env(game=...)`` and ``carousel_env.raw_env(game=...)`` are the environments'
entry points (Carousel by default). Importing the package registers every game with
PettingZoo's registry (1.27 on) and its single-agent forms with Gymnasium's, without
importing any game: ``pettingzoo.make("aec", "carousel/gin_rummy_v0")``,
``gymnasium.make("GinRummy-v0")``.
"""

__version__ = "0.5.0"  # CHANGELOG.md says what changed

__all__ = ["env", "options", "raw_env", "vector_env"]

OPTIONS_NOTE = """
    Options (``**config``): the game's own, by its names, each with its default and meaning
    in ``carousel_env.options(game)`` (read from the game's env config class), e.g.
    ``carousel_env.options("gin_rummy")``.
"""


def options(game: str = "carousel") -> str:
    """The env options of ``game``, one a line: ``name=default: meaning``, read from the
    game's env config class (its family contract's ``options_doc``)."""
    from carousel_env.envkit.family import family_game
    from carousel_env.envkit.options import format_options

    return format_options(family_game(game).options_doc, indent="")


def env(game: str = "carousel", **config: object):
    """The AEC env of ``game`` (a name of ``carousel_env.core.registry.GAMES``), wrapped
    like PettingZoo's classic games: an illegal action ends the episode with reward -1."""
    from carousel_env.core.registry import env_module

    return env_module(game).env(**config)


def raw_env(game: str = "carousel", **config: object):
    """The bare AEC env of ``game`` (the env's errors are raised, not turned into rewards)."""
    from carousel_env.core.registry import env_module

    return env_module(game).raw_env(**config)


def vector_env(game: str = "carousel", num_envs: int = 1, **config: object):
    """The compiled vector env of ``game``: ``num_envs`` games stepped together, with the AEC
    env's actions, observations, masks and rewards (the same options, without rendering)."""
    from carousel_env.core.registry import vector_env_class

    return vector_env_class(game)(num_envs, **config)


for _entry in (env, raw_env, vector_env):
    _entry.__doc__ += "\n" + OPTIONS_NOTE


def _register() -> None:
    """Every game into PettingZoo's registry and its single-agent forms into Gymnasium's."""
    from carousel_env.core.registry import GAMES
    from carousel_env.envkit.gym_env import register_gymnasium
    from carousel_env.envkit.seats import register

    for spec in GAMES.values():
        register(spec.pettingzoo_id, f"{spec.env_module}:env")
    register_gymnasium()


_register()
