"""The scripted policies by name: the one list of names that the command line, the
single-agent env and training's opponents all read.

``get_policy(name, seed=...)`` builds a fresh policy; the seed feeds its random parts
(``random``) and is ignored by the deterministic ones, so callers can seed every seat
alike. An unknown name raises :class:`UnknownPolicyError`, which names it and the known
ones.
"""

from __future__ import annotations

from collections.abc import Callable

from carousel_env.agents.baselines import Policy, RandomPolicy, SmartPolicy, greedy
from carousel_env.engine.errors import CarouselError

# name -> factory(seed, **options): a new policy each call (``random`` keeps an RNG).
_FACTORIES: dict[str, Callable[..., Policy]] = {
    "random": lambda seed=None: RandomPolicy(seed),
    "greedy": lambda seed=None: greedy,
    "smart": lambda seed=None, **options: SmartPolicy(**options),
}


def policy_names() -> tuple[str, ...]:
    """The scripted policies' names, in registry order."""
    return tuple(_FACTORIES)


class UnknownPolicyError(CarouselError):
    """A name that is no scripted policy. ``also_not`` says what else was tried, where a
    name may also be something else (training: a checkpoint file or run directory)."""

    def __init__(self, name: str, also_not: str = "") -> None:
        self.name = name
        self.known = policy_names()
        tried = f"not {also_not}, and " if also_not else ""
        super().__init__(f"unknown policy {name!r}: {tried}not a scripted policy ({', '.join(self.known)})")


def get_policy(name: str, seed: int | None = None, **options: object) -> Policy:
    """A new scripted policy by name; ``seed`` seeds its random parts, ``options`` go to
    its constructor (``smart``'s thresholds)."""
    try:
        factory = _FACTORIES[name]
    except KeyError:
        raise UnknownPolicyError(name) from None
    return factory(seed=seed, **options)


def resolve_policy(spec: str | Policy, seed: int | None = None) -> Policy:
    """A policy from a name (built with ``seed``) or a callable (returned as it is)."""
    if isinstance(spec, str):
        return get_policy(spec, seed=seed)
    if callable(spec):
        return spec
    raise TypeError(f"a policy is a scripted policy's name or a callable (observation, mask) -> action, got {spec!r}")
