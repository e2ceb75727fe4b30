"""How training reaches the Carousel environment: construction, layout, engine state.

Kept in one small module so the rest of the training code depends only on the PettingZoo
AEC API (``reset``, ``agent_selection``, ``last``, ``step``, ``rewards``, ``agents``) plus
the few Carousel-specific facts gathered here: the env's options (``EnvSpec``), its
observation layout and the engine state an episode's result is read from. The one
exception is ``training.runners.VectorRunner``, which steps Carousel's own games through
the vector env (``carousel_env.games.carousel.vector``) when ``EnvSpec.vector`` says so. Tests swap in
a fake environment through ``env_factory`` ("module:function"), which also works in
spawned worker processes because it is a name, not an object.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

from carousel_env.games.carousel.engine.game import GameState
from carousel_env.games.carousel.envs.observation import ObservationLayout

DEFAULT_ENV_FACTORY = "carousel_env:env"


@dataclass(frozen=True)
class EnvSpec:
    """Everything needed to build an environment copy (picklable, sent to workers): the
    players, the env's other keyword arguments (``options``, as the training config's
    ``EnvKeys`` give them; a key left out takes the env's own default), the factory, and
    whether Carousel's copies are stepped by its compiled vector env."""

    num_players: int
    options: tuple[tuple[str, Any], ...] = ()
    factory: str = DEFAULT_ENV_FACTORY
    # Step Carousel's copies with the compiled vector env (``training.runners.VectorRunner``);
    # False: one AEC env per copy. Any other factory is always stepped as AEC envs. The
    # training config's ``vector_env`` takes its default from here.
    vector: bool = True

    @classmethod
    def of(cls, num_players: int, factory: str = DEFAULT_ENV_FACTORY, vector: bool = True, **options: Any) -> EnvSpec:
        """The spec with these env options (None: the env's default)."""
        kept = tuple(sorted((key, value) for key, value in options.items() if value is not None))
        return cls(num_players, kept, factory, vector)

    def with_options(self, **options: Any) -> EnvSpec:
        """The same spec with ``options`` changed (None removes one)."""
        merged = {**dict(self.options), **options}
        return EnvSpec.of(self.num_players, self.factory, self.vector, **merged)

    def option(self, key: str, default: Any = None) -> Any:
        return dict(self.options).get(key, default)

    def kwargs(self) -> dict[str, Any]:
        return {"num_players": self.num_players, **dict(self.options)}


def _resolve(name: str):
    module, _, attr = name.partition(":")
    return getattr(importlib.import_module(module), attr)


def make_env(spec: EnvSpec, **extra: Any) -> Any:
    """A new environment copy (an AEC env, wrapped as the factory wraps it)."""
    return _resolve(spec.factory)(**spec.kwargs(), **extra)


def layout_of(env: Any) -> ObservationLayout:
    """The observation layout of an environment (Carousel's names its channels; any
    other environment's gives at least the sizes)."""
    return env.unwrapped.observation_layout


def layout_for(spec: EnvSpec) -> ObservationLayout:
    env = make_env(spec)
    try:
        return layout_of(env)
    finally:
        env.close()


def game_state(env: Any) -> GameState | None:
    """The engine state behind an environment (None if it exposes none): what an episode's
    result reads its rounds, totals and winner from."""
    try:
        return env.unwrapped.game_state
    except (AttributeError, AssertionError):  # a fake env, or one never reset
        return None
