"""The games of the package: one entry each, read by ``carousel_env.env(game=...)``, the
command line (``--game``), the training configs and the Gymnasium registration
(``carousel_env.envkit.gym_env.register_gymnasium``).

An entry names its env module by path, so reading the registry imports no game (nor
PettingZoo): the module is loaded when an env is made.
"""

from __future__ import annotations

import importlib
from typing import NamedTuple

from carousel_env.core.errors import CarouselError

DEFAULT_GAME = "carousel"


class GymnasiumForms(NamedTuple):
    """A game's single-agent Gymnasium forms, registered with Gymnasium as ``id``: ``env`` (one
    learning seat) and ``vector_env`` (its ``vector_entry_point``), each as ``module:Class``."""

    id: str
    env: str
    vector_env: str


class GameSpec(NamedTuple):
    """A registered game: ``env_module`` defines ``raw_env`` and ``env``; ``vector_env`` names
    its vector env class as ``module:Class`` (``num_envs`` first, then the env's config);
    ``gymnasium`` its single-agent Gymnasium forms; ``family`` its family contract
    (``carousel_env.envkit.family.FamilyGame``) as ``module:NAME``."""

    name: str
    title: str
    env_module: str
    vector_env: str
    gymnasium: GymnasiumForms
    family: str
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
            gymnasium=GymnasiumForms(
                id="Carousel-v0",
                env="carousel_env.games.carousel.gym:CarouselSingleAgentEnv",
                vector_env="carousel_env.games.carousel.vector.gym:CarouselGymVectorEnv",
            ),
            family="carousel_env.games.carousel.family:FAMILY",
            min_players=2,
            max_players=5,
            variants=("carousel", "manipulation_rummy"),
        ),
        GameSpec(
            name="gin_rummy",
            title="Gin Rummy",
            env_module="carousel_env.games.gin_rummy.env",
            vector_env="carousel_env.games.gin_rummy.vector:GinVectorEnv",
            gymnasium=GymnasiumForms(
                id="GinRummy-v0",
                env="carousel_env.games.gin_rummy.gym:GinSingleAgentEnv",
                vector_env="carousel_env.games.gin_rummy.gym:GinGymVectorEnv",
            ),
            family="carousel_env.games.gin_rummy.family:FAMILY",
            min_players=2,
            max_players=2,
            variants=("book", "openspiel", "eaai"),
        ),
        GameSpec(
            name="carioca",
            title="Carioca",
            env_module="carousel_env.games.carioca.env",
            vector_env="carousel_env.games.carioca.vector:CariocaVectorEnv",
            gymnasium=GymnasiumForms(
                id="Carioca-v0",
                env="carousel_env.games.carioca.gym:CariocaSingleAgentEnv",
                vector_env="carousel_env.games.carioca.gym:CariocaGymVectorEnv",
            ),
            family="carousel_env.games.carioca.family:FAMILY",
            min_players=2,
            max_players=5,
        ),
        GameSpec(
            name="kaluki",
            title="Kaluki (and plain Rummy)",
            env_module="carousel_env.games.kaluki.env",
            vector_env="carousel_env.games.kaluki.vector:KalukiVectorEnv",
            gymnasium=GymnasiumForms(
                id="Kaluki-v0",
                env="carousel_env.games.kaluki.gym:KalukiSingleAgentEnv",
                vector_env="carousel_env.games.kaluki.gym:KalukiGymVectorEnv",
            ),
            family="carousel_env.games.kaluki.family:FAMILY",
            min_players=2,
            max_players=6,
            variants=("book", "uk40", "uk51", "rummy"),
        ),
        GameSpec(
            name="conquian",
            title="Conquian",
            env_module="carousel_env.games.conquian.env",
            vector_env="carousel_env.games.conquian.vector:ConquianVectorEnv",
            gymnasium=GymnasiumForms(
                id="Conquian-v0",
                env="carousel_env.games.conquian.gym:ConquianSingleAgentEnv",
                vector_env="carousel_env.games.conquian.gym:ConquianGymVectorEnv",
            ),
            family="carousel_env.games.conquian.family:FAMILY",
            min_players=2,
            max_players=2,
            variants=("book", "bicycle", "foster"),
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


def variants_text() -> str:
    """The games' variants for a command's help: ``carousel: carousel or manipulation_rummy; ...``."""
    listed = []
    for spec in GAMES.values():
        if spec.variants:
            *most, last = spec.variants
            listed.append(f"{spec.name}: {', '.join(most)} or {last}" if most else f"{spec.name}: {last}")
    return "; ".join(listed)


def env_module(name: str):
    """The env module of game ``name`` (imported now: it registers with PettingZoo)."""
    return importlib.import_module(game_spec(name).env_module)


def load_named(path: str) -> object:
    """The object a ``module:NAME`` path names (its module imported now)."""
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


def vector_env_class(name: str) -> type:
    """The vector env class of game ``name`` (imported now)."""
    return load_named(game_spec(name).vector_env)
