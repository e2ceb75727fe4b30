"""The games of the package: one entry each, read by ``carousel_env.env(game=...)``, the
command line (``--game``) and the training configs.

An entry names its env module by path, so reading the registry imports no game (nor
PettingZoo): the module is loaded when an env is made.
"""

from __future__ import annotations

import importlib
from typing import NamedTuple

from carousel_env.core.errors import CarouselError

DEFAULT_GAME = "carousel"


class GameSpec(NamedTuple):
    """A registered game: ``env_module`` defines ``raw_env`` and ``env``; ``vector_env`` names
    its vector env class as ``module:Class`` (``num_envs`` first, then the env's config)."""

    name: str
    title: str
    env_module: str
    vector_env: str
    min_players: int
    max_players: int
    variants: tuple[str, ...] = ()  # rules configurations selectable by name (a config key)

    @property
    def pettingzoo_id(self) -> str:
        return f"carousel/{self.name}_v0"


GAMES: dict[str, GameSpec] = {
    spec.name: spec
    for spec in (
        GameSpec(
            name="carousel",
            title="Carousel (and Manipulation Rummy)",
            env_module="carousel_env.games.carousel.envs.aec",
            vector_env="carousel_env.games.carousel.vector:CarouselVectorEnv",
            min_players=2,
            max_players=5,
            variants=("carousel", "manipulation_rummy"),
        ),
        GameSpec(
            name="gin_rummy",
            title="Gin Rummy",
            env_module="carousel_env.games.gin_rummy.env",
            vector_env="carousel_env.games.gin_rummy.vector:GinVectorEnv",
            min_players=2,
            max_players=2,
            variants=("book", "openspiel", "eaai"),
        ),
    )
}


class UnknownGame(CarouselError):
    def __init__(self, name: object) -> None:
        super().__init__(f"unknown game {name!r} (games: {', '.join(GAMES)})")
        self.name = name


def game_spec(name: str) -> GameSpec:
    """The registered game ``name``; :class:`UnknownGame` names the choices otherwise."""
    spec = GAMES.get(name) if isinstance(name, str) else None
    if spec is None:
        raise UnknownGame(name)
    return spec


def env_module(name: str):
    """The env module of game ``name`` (imported now: it registers with PettingZoo)."""
    return importlib.import_module(game_spec(name).env_module)


def vector_env_class(name: str) -> type:
    """The vector env class of game ``name`` (imported now)."""
    module, _, cls = game_spec(name).vector_env.partition(":")
    return getattr(importlib.import_module(module), cls)
