"""A game env's options, each documented where it is declared.

A game's env config class (a frozen dataclass) declares every option with
:func:`documented`, its default and its one-line documentation side by side;
:func:`option_docs` reads them back, for ``help``, the command line's ``--print-config``,
the docs pages and the training configs, which pass a game's options through whole.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import MISSING, field, fields, replace
from enum import Enum
from typing import Any, NamedTuple, TypeVar

Rules = TypeVar("Rules")
OptionError = Callable[[str, str], Exception]  # (option, message) -> the game's error naming it


class OptionDoc(NamedTuple):
    """One env option: its keyword, its default and what it means."""

    key: str
    default: Any
    doc: str


def documented(default: Any, doc: str) -> Any:
    """A config field whose (immutable) default and documentation are written together, once."""
    return field(default=default, metadata={"doc": doc})


def option_docs(config_class: type, skip: tuple[str, ...] = ()) -> tuple[OptionDoc, ...]:
    """The documented options of ``config_class`` in declaration order (``skip``: left out)."""
    docs = []
    for f in fields(config_class):
        if not f.init or f.name in skip or "doc" not in f.metadata:
            continue
        default = f.default if f.default is not MISSING else f.default_factory()  # type: ignore[misc]
        if isinstance(default, Enum):  # as a config or a keyword argument writes it
            default = default.value
        docs.append(OptionDoc(f.name, default, f.metadata["doc"]))
    return tuple(docs)


RENDER_MODES = ("human", "ansi", "rgb_array")


def checked_reward_scale(reward_scale: object, default: float, error: type[Exception]) -> float:
    """Option ``reward_scale``: a positive number, or None for the reward's ``default``;
    ``error(key, message)`` otherwise."""
    if reward_scale is None:
        return default
    if isinstance(reward_scale, bool) or not isinstance(reward_scale, (int, float)) or not reward_scale > 0:
        raise error("reward_scale", f"must be a positive number, got {reward_scale!r}")
    return float(reward_scale)


def check_render(render_mode: object, render_observer: object, num_players: int, error: type[Exception]) -> None:
    """Options ``render_mode`` (None or one of :data:`RENDER_MODES`) and ``render_observer``
    (None or a seat); ``error(key, message)`` otherwise."""
    if render_mode is not None and render_mode not in RENDER_MODES:
        raise error("render_mode", f"must be None or one of {RENDER_MODES}, got {render_mode!r}")
    seat = isinstance(render_observer, int) and not isinstance(render_observer, bool)
    if render_observer is not None and not (seat and 0 <= render_observer < num_players):
        raise error("render_observer", f"must be None or a seat 0..{num_players - 1}, got {render_observer!r}")


def format_options(docs: tuple[OptionDoc, ...], indent: str = "    ") -> str:
    """The options as ``help`` shows them: ``key=default``, then the documentation."""
    return "\n".join(f"{indent}{d.key}={d.default!r}: {d.doc}" for d in docs)


def preset_with(presets: Mapping[str, Rules], preset: str, options: Mapping[str, object], error: OptionError) -> Rules:
    """The rules of ``preset`` (a frozen dataclass) with ``options`` changed, by field name; an
    unknown preset or option is ``error(option, message)``, naming the known ones."""
    if preset not in presets:
        raise error("preset", f"unknown preset {preset!r} (presets: {', '.join(presets)})")
    base = presets[preset]
    known = {f.name for f in fields(base)}
    for name in options:
        if name not in known:
            raise error(name, f"unknown option (options: {', '.join(sorted(known))})")
    return replace(base, **options)


def enum_option(enum: type[Enum], option: str, value: object, error: OptionError) -> Enum:
    """``value`` as a member of ``enum`` (by value), else ``error(option, message)`` naming the choices."""
    try:
        return enum(value)
    except ValueError:
        choices = ", ".join(repr(m.value) for m in enum)
        raise error(option, f"must be one of {choices}, got {value!r}") from None
