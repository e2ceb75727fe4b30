"""How training reaches a game's environment: construction and shape.

Kept in one small module so the rest of the training code depends only on the PettingZoo
AEC API (``reset``, ``agent_selection``, ``last``, ``step``, ``rewards``, ``agents``) plus
the facts gathered here: the game and the env's options (``EnvSpec``), and the shape of
its observations and actions (``EnvShape``); what differs between games beyond that is in
``training.games``. ``training.runners.VectorRunner`` steps a game's copies through its
compiled vector env when ``EnvSpec.vector`` says so. Tests swap in a fake environment
through ``env_factory`` ("module:function"), which also works in spawned worker processes
because it is a name, not an object.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, NamedTuple

from carousel_env.core.registry import DEFAULT_GAME
from carousel_env.envkit.layout import ObservationLayout

DEFAULT_ENV_FACTORY = "carousel_env:env"


@dataclass(frozen=True)
class EnvSpec:
    """Everything needed to build an environment copy (picklable, sent to workers): the
    players, the env's other keyword arguments (``options``, as the training config's
    ``EnvKeys`` give them; a key left out takes the env's own default), the factory, whether
    the copies are stepped by the game's compiled vector env, and the game."""

    num_players: int
    options: tuple[tuple[str, Any], ...] = ()
    factory: str = DEFAULT_ENV_FACTORY
    # Step the copies with the game's compiled vector env (``training.runners.VectorRunner``);
    # False: one AEC env per copy. Any other factory is always stepped as AEC envs. The
    # training config's ``vector_env`` takes its default from here.
    vector: bool = True
    game: str = DEFAULT_GAME

    @classmethod
    def of(
        cls,
        num_players: int,
        factory: str = DEFAULT_ENV_FACTORY,
        vector: bool = True,
        game: str = DEFAULT_GAME,
        **options: Any,
    ) -> EnvSpec:
        """The spec with these env options (None: the env's default)."""
        kept = tuple(sorted((key, value) for key, value in options.items() if value is not None))
        return cls(num_players, kept, factory, vector, game)

    def with_options(self, **options: Any) -> EnvSpec:
        """The same spec with ``options`` changed (None removes one)."""
        merged = {**dict(self.options), **options}
        return EnvSpec.of(self.num_players, self.factory, self.vector, self.game, **merged)

    def option(self, key: str, default: Any = None) -> Any:
        return dict(self.options).get(key, default)

    def kwargs(self) -> dict[str, Any]:
        return {"num_players": self.num_players, **dict(self.options)}


def _resolve(name: str):
    module, _, attr = name.partition(":")
    return getattr(importlib.import_module(module), attr)


def make_env(spec: EnvSpec, **extra: Any) -> Any:
    """A new environment copy (an AEC env, wrapped as the factory wraps it; the package's
    own factory is told the game)."""
    game = {"game": spec.game} if spec.factory == DEFAULT_ENV_FACTORY else {}
    return _resolve(spec.factory)(**game, **spec.kwargs(), **extra)


class EnvShape(NamedTuple):
    """What a network must fit: the observation's layout and the fixed actions before the slots."""

    layout: ObservationLayout
    num_fixed_actions: int


def layout_of(env: Any) -> ObservationLayout:
    """The observation layout of an environment, as sizes (Carousel's also names its channels)."""
    return ObservationLayout.of(env.unwrapped.observation_layout)


def shape_of(env: Any) -> EnvShape:
    layout = layout_of(env)
    return EnvShape(layout, int(env.action_space(env.possible_agents[0]).n) - layout.num_slots)


def shape_for(spec: EnvSpec) -> EnvShape:
    env = make_env(spec)
    try:
        return shape_of(env)
    finally:
        env.close()


def layout_for(spec: EnvSpec) -> ObservationLayout:
    return shape_for(spec).layout
