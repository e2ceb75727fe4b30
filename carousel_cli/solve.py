"""The ``carousel solve`` subcommand.

``carousel solve --table "..." --hand "..." [--variant carousel|manipulation_rummy]
[--players 2-5] [--decks 1|2] [--json]`` prints the suggestions of one position;
``carousel solve --batch FILE`` reads JSON lines ``{"table": str, "hand": str, "variant":
str, "players": int, "decks": int}`` (only ``hand`` required) and writes one JSON line per
input line, in order; a malformed line yields ``{"error": "..."}`` and the batch goes on.

A position no game could reach (a table meld that is no set or run, more copies of a card
than the decks hold, a joker the rules do not deal) is refused like malformed input, with
the solver's ``ImpossiblePosition`` message: exit code 2 for one position, an error line
in a batch.

The rules follow from variant, players and decks as in ``engine/rules.py``: Carousel deals
one deck to two players and two decks to three to five; Manipulation Rummy is for three to
five players and always two decks. Given options must agree; the ones left out follow from
the rest (Carousel: two players, one deck; Manipulation Rummy: four players).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterable
from typing import Any, TextIO

from carousel_env.core.cards import hand_str, parse_hand, parse_table, table_str
from carousel_env.core.errors import CarouselError
from carousel_env.core.text import plural
from carousel_env.games.carousel.engine.rules import Rules, Variant, carousel, manipulation_rummy
from carousel_env.games.carousel.solver import TIME_BUDGET_S, SolveResult, solve

VARIANTS = tuple(v.value for v in Variant)
BATCH_KEYS = ("table", "hand", "variant", "players", "decks")


def _as_option(name: str, value: object) -> str:
    return f"--{name} {value}"


def _as_key(name: str, value: object) -> str:
    return f'"{name}": {json.dumps(value)}'


def rules_for(
    variant: object = Variant.CAROUSEL.value,
    players: object = None,
    decks: object = None,
    spell: Callable[[str, object], str] = _as_option,
) -> Rules:
    """The rules of a position from its variant, player count and deck count (``None``:
    follows from the others). Anything ill-typed, out of range or contradictory raises
    :class:`CarouselError` naming the option(s), each written by ``spell(name, value)``."""
    if not isinstance(variant, str) or variant not in VARIANTS:
        raise CarouselError(f"{spell('variant', variant)}: the variant is one of {', '.join(VARIANTS)}")
    for name, value in (("players", players), ("decks", decks)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            raise CarouselError(f"{spell(name, value)}: {name} must be a whole number")
    if players is not None and not 2 <= players <= 5:
        raise CarouselError(f"{spell('players', players)}: players must be 2 to 5")
    if decks is not None and decks not in (1, 2):
        raise CarouselError(f"{spell('decks', decks)}: decks must be 1 or 2")
    if variant == Variant.MANIPULATION_RUMMY.value:
        if players == 2:
            raise CarouselError(
                f"{spell('players', players)} contradicts {spell('variant', variant)}: "
                "Manipulation Rummy is for 3 to 5 players"
            )
        if decks is not None and decks != 2:
            raise CarouselError(
                f"{spell('decks', decks)} contradicts {spell('variant', variant)}: Manipulation Rummy uses 2 decks"
            )
        return manipulation_rummy() if players is None else manipulation_rummy(players)
    if players is None:
        return carousel(2 if decks in (None, 1) else 3)
    rules = carousel(players)
    if decks is not None and decks != rules.decks:
        raise CarouselError(
            f"{spell('decks', decks)} contradicts {spell('players', players)}: "
            "Carousel deals 1 deck to 2 players and 2 decks to 3 to 5"
        )
    return rules


def result_json(result: SolveResult) -> dict[str, Any]:
    return {
        "best_points": result.best_points,
        "best_cards": result.best_cards,
        "exact": result.exact,
        "suggestions": [
            {
                "played": hand_str(s.play.added),
                "table": table_str(s.play.table),
                "points": s.points,
                "cards": s.cards,
            }
            for s in result.suggestions
        ],
    }


_INEXACT = "not proven exact: the solver's time budget ran out (the best plays it found)"


def result_text(result: SolveResult) -> str:
    if result.best_points is None:
        return "no legal play" if result.exact else f"no legal play found; {_INEXACT}"
    lines = [f"best points {result.best_points}, best cards {result.best_cards}"]
    if not result.exact:
        lines.append(_INEXACT)
    for i, s in enumerate(result.suggestions):
        lines.append(
            f"{i}. [{s.reason}] play {hand_str(s.play.added)}: {plural(s.points, 'point')}, {plural(s.cards, 'card')}, "
            f"hand after {hand_str(s.hand_after) or '(empty)'} ({s.hand_after_points})"
        )
        lines.append(f"   table: {table_str(s.play.table)}")
    return "\n".join(lines)


def solve_line(line: str | bytes) -> dict[str, Any]:
    """One batch line (text, or bytes in UTF-8) to its answer; any problem becomes
    ``{"error": ...}``."""
    try:
        try:
            item = json.loads(line)
        except UnicodeDecodeError as exc:
            raise CarouselError(f"the line is not UTF-8: {exc}") from None
        except json.JSONDecodeError as exc:
            raise CarouselError(f"the line is not JSON: {exc}") from None
        if not isinstance(item, dict):
            raise CarouselError(f"a line must be a JSON object, not {type(item).__name__}")
        unknown = sorted(set(item) - set(BATCH_KEYS))
        if unknown:
            raise CarouselError(f"unknown key {json.dumps(unknown[0])} (the keys are {', '.join(BATCH_KEYS)})")
        if "hand" not in item:
            raise CarouselError('missing "hand" (the table may be left out: it is then empty)')
        rules = rules_for(item.get("variant", Variant.CAROUSEL.value), item.get("players"), item.get("decks"), _as_key)
        return result_json(solve(parse_table(item.get("table", "")), parse_hand(item["hand"]), rules))
    except CarouselError as exc:  # NotationError included
        return {"error": str(exc)}


def run_batch(source: Iterable[str | bytes], sink: TextIO) -> int:
    """Answer each non-blank line of ``source`` on ``sink``, in order. Files are read as
    bytes, so that a line that is not UTF-8 is one error line, not the end of the batch."""
    for line in source:
        if not line.strip():
            continue
        sink.write(json.dumps(solve_line(line)) + "\n")
    return 0


def command(args: argparse.Namespace) -> int:
    if args.batch is not None:
        # Each line carries its own position and rules; an option that would be ignored is refused.
        names = ("table", "hand", "variant", "players", "decks", "time_budget")
        given = [f"--{name.replace('_', '-')}" for name in names if getattr(args, name) is not None]
        if given:
            print(f"carousel solve: {given[0]} does not go with --batch (each line gives its own)", file=sys.stderr)
            return 2
        if args.batch == "-":
            return run_batch(sys.stdin.buffer, sys.stdout)
        try:
            # Opened apart from the with-block so that only a failed open is reported as such.
            source = open(args.batch, "rb")  # noqa: SIM115
        except OSError as exc:
            print(f"carousel solve: cannot read --batch {args.batch}: {exc.strerror or exc}", file=sys.stderr)
            return 2
        with source:
            return run_batch(source, sys.stdout)
    if args.hand is None:
        print("carousel solve: --hand is required without --batch", file=sys.stderr)
        return 2
    try:
        rules = rules_for(args.variant or Variant.CAROUSEL.value, args.players, args.decks)
        budget = TIME_BUDGET_S if args.time_budget is None else args.time_budget
        if not budget > 0:  # also NaN
            raise CarouselError(f"--time-budget must be a positive number of seconds, got {args.time_budget}")
        result = solve(parse_table(args.table or ""), parse_hand(args.hand), rules, time_budget=budget)
    except CarouselError as exc:
        print(f"carousel solve: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(result_json(result)) if args.json else result_text(result))
    return 0


# The help's example: a position of the default rules (one deck, one joker) with plays to find.
EXAMPLE_TABLE = "3C 4C 5C | 7H 7S JK=7D"
EXAMPLE_HAND = "6C 7C 9D"


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``solve`` to a ``add_subparsers()`` object; sets ``func`` to :func:`command`."""
    parser = subparsers.add_parser(
        "solve",
        help="best plays of a position (exact solver)",
        description="The solver's suggestions for a hand at a table: the plays that lay down the most points, "
        "the most cards, and more (one line each).",
        epilog=f"example: carousel solve --table {EXAMPLE_TABLE!r} --hand {EXAMPLE_HAND!r}",
    )
    # No defaults here: command() tells an option left out from one given, to refuse
    # contradictions and options --batch would ignore.
    parser.add_argument("--table", help=f"table melds, e.g. {EXAMPLE_TABLE!r} (default: empty)")
    parser.add_argument("--hand", help=f"hand cards, e.g. {EXAMPLE_HAND!r}")
    parser.add_argument("--variant", choices=VARIANTS, help="the rules (default: carousel)")
    parser.add_argument(
        "--players",
        type=int,
        choices=(2, 3, 4, 5),
        help="2-5 for carousel (default 2, or 3 with --decks 2), 3-5 for manipulation_rummy (default 4)",
    )
    parser.add_argument(
        "--decks", type=int, choices=(1, 2), help="carousel: 1 (2 players, the default) or 2 (3-5 players)"
    )
    parser.add_argument(
        "--time-budget",
        type=float,
        metavar="SECONDS",
        help=f"past it, the best plays found, said to be not proven exact (default {TIME_BUDGET_S})",
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    parser.add_argument("--batch", metavar="FILE", help="JSON lines in, JSON lines out ('-' for stdin)")
    parser.set_defaults(func=command)
    return parser
