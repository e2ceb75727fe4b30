"""The ``carousel`` command: one subcommand per feature.

Each feature module exposes ``register(subparsers)``, which adds its subcommand and sets
``func`` (taking the parsed args, returning an exit code). Modules whose dependencies are
missing (training needs torch) are skipped with a note instead of breaking the others.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from carousel_env import __version__
from carousel_env.core.errors import CarouselError
from carousel_env.core.registry import GAMES

COMMAND_MODULES = (
    "carousel_cli.demo",
    "carousel_cli.solve",
    "carousel_cli.training",
    "carousel_cli.strength",
    "carousel_cli.serve",
)


class DefaultsHelpFormatter(argparse.HelpFormatter):
    """Every option's help ends with its default, unless it has none (None, off, empty) or the
    help already says it."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if not action.option_strings or "default" in text or action.default in (None, False, "", [], argparse.SUPPRESS):
            return text
        return f"{text} (default: %(default)s)"


def build_parser() -> tuple[argparse.ArgumentParser, list[str]]:
    parser = argparse.ArgumentParser(
        prog="carousel",
        description=f"The rummy family ({', '.join(s.title for s in GAMES.values())}): engines, solvers, RL tools",
    )
    parser.add_argument("--version", action="version", version=f"carousel-rl {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    unavailable = []
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ImportError as exc:  # e.g. torch not installed: the other commands still work
            unavailable.append(f"{name} ({exc})")
            continue
        module.register(subparsers)
    for command in subparsers.choices.values():
        command.formatter_class = DefaultsHelpFormatter
    return parser, unavailable


def main(argv: list[str] | None = None) -> int:
    parser, unavailable = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        for note in unavailable:
            print(f"note: commands from {note} are unavailable", file=sys.stderr)
        return 2
    try:
        return int(args.func(args) or 0)
    except CarouselError as exc:
        print(f"carousel {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
