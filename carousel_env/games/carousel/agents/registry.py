"""The scripted policies by name: the one list of names that the command line, the
single-agent env and training's opponents all read.

``get_policy(name, seed=...)`` builds a fresh policy; the seed feeds its random parts
(``random``, ``search``) and is ignored by the deterministic ones, so callers can seed every
seat alike. An unknown name raises :class:`UnknownPolicyError`, which names it and the known
ones.

``policy_names()`` lists the scripted observation policies (``random``, ``greedy``,
``smart``): cheap, and callable on an observation anywhere. The search player
(:mod:`carousel_env.games.carousel.agents.search`) is in the registry too, outside that list: it decides
from its seat's view (the match runner gives it one) and costs many rollouts a decision.
Its names: ``search`` (the default budget, ``search.DEFAULT_SAMPLES`` determinizations per
action) and ``search@N`` (``N`` determinizations per action), e.g. ``search@16``; options:
``get_policy("search", samples=8, max_ms=50)``. ``is_policy_name`` accepts every name
``get_policy`` does (what the command line and training check names with).
"""

from __future__ import annotations

from collections.abc import Callable

from carousel_env.core.errors import CarouselError
from carousel_env.games.carousel.agents.baselines import Policy, RandomPolicy, SmartPolicy, greedy
from carousel_env.games.carousel.agents.search import DEFAULT_SAMPLES, SearchPlayer, is_view_policy

# name -> factory(seed, **options): a new policy each call (``random`` keeps an RNG).
_FACTORIES: dict[str, Callable[..., Policy]] = {
    "random": lambda seed=None: RandomPolicy(seed),
    "greedy": lambda seed=None: greedy,
    "smart": lambda seed=None, **options: SmartPolicy(**options),
}


SEARCH = "search"
_BUDGET_MARK = "@"


def policy_names() -> tuple[str, ...]:
    """The scripted observation policies' names, in registry order (not ``search``: see
    the module docstring)."""
    return tuple(_FACTORIES)


def _search_samples(name: str) -> int | None:
    """``N`` of a ``search@N`` name; None for any other name (``search`` included)."""
    base, mark, budget = name.partition(_BUDGET_MARK)
    if base != SEARCH or not mark:
        return None
    if "+" in budget:
        raise ValueError(
            f"{name!r} is a guided search player, which needs its network: build it with "
            "training.policies.guided_search_player (the command line and training take the name as it is)"
        )
    if not (budget.isascii() and budget.isdigit()) or int(budget) < 1:
        raise ValueError(f"search option samples must be an int >= 1: {name!r} (write search@N, e.g. search@16)")
    return int(budget)


def search_samples(name: str) -> int:
    """The determinizations per action that a ``search`` or ``search@N`` name asks for; a
    ValueError for a bad budget or another name."""
    if name == SEARCH:
        return DEFAULT_SAMPLES
    samples = _search_samples(name)
    if samples is None:
        raise ValueError(f"{name!r} is not a search player's name (search, search@N)")
    return samples


def is_policy_name(name: object) -> bool:
    """Whether ``get_policy`` knows ``name``: a scripted policy, ``search`` or ``search@N``."""
    if not isinstance(name, str):
        return False
    if name in _FACTORIES or name == SEARCH:
        return True
    try:
        return _search_samples(name) is not None
    except ValueError:
        return False


class UnknownPolicyError(CarouselError):
    """A name that is no scripted policy. ``also_not`` says what else was tried, where a
    name may also be something else (training: a checkpoint file or run directory)."""

    def __init__(self, name: str, also_not: str = "") -> None:
        self.name = name
        self.known = policy_names()
        tried = f"not {also_not}, and " if also_not else ""
        super().__init__(
            f"unknown policy {name!r}: {tried}not a scripted policy ({', '.join(self.known)}, "
            f"{SEARCH}, {SEARCH}{_BUDGET_MARK}<samples>)"
        )


def get_policy(name: str, seed: int | None = None, **options: object) -> Policy:
    """A new scripted policy by name; ``seed`` seeds its random parts, ``options`` go to
    its constructor (``smart``'s thresholds; ``search``'s ``samples`` and ``max_ms``). A bad
    search budget raises ValueError naming the option."""
    if name == SEARCH or name.startswith(SEARCH + _BUDGET_MARK):
        samples = _search_samples(name)
        if samples is not None:
            if "samples" in options:
                raise ValueError(f"search option samples given twice: by the name {name!r} and as an option")
            options = {**options, "samples": samples}
        return SearchPlayer(seed=seed, **options)  # type: ignore[arg-type]
    try:
        factory = _FACTORIES[name]
    except KeyError:
        raise UnknownPolicyError(name) from None
    return factory(seed=seed, **options)


def resolve_policy(spec: str | Policy, seed: int | None = None) -> Policy:
    """A policy from a name (built with ``seed``), or a callable or view policy (returned as
    it is)."""
    if isinstance(spec, str):
        return get_policy(spec, seed=seed)
    if callable(spec) or is_view_policy(spec):
        return spec
    raise TypeError(
        "a policy is a scripted policy's name, a callable (observation, mask) -> action or a view policy "
        f"(decides_from_view = True, decide(view, mask) -> action), got {spec!r}"
    )
