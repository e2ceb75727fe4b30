"""The ``carousel solve`` subcommand.

``carousel solve --table "..." --hand "..." [--decks 1|2] [--json]`` prints the
suggestions of one position; ``carousel solve --batch FILE`` reads JSON lines
``{"table": str, "hand": str, "decks": 1|2}`` and writes one JSON line per input line, in
order; a malformed line yields ``{"error": "..."}`` and the batch goes on.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TextIO

from carousel_env.engine.cards import hand_str, parse_hand, parse_table, table_str
from carousel_env.engine.errors import CarouselError
from carousel_env.engine.rules import Rules, carousel
from carousel_env.solver import SolveResult, solve


def rules_for_decks(decks: int) -> Rules:
    """1 deck: the 2-player game; 2 decks: the 3-player game (same melds, two copies)."""
    if decks == 1:
        return carousel(2)
    if decks == 2:
        return carousel(3)
    raise CarouselError(f"decks must be 1 or 2, got {decks!r}")


def result_json(result: SolveResult) -> dict[str, Any]:
    return {
        "best_points": result.best_points,
        "best_cards": result.best_cards,
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


def result_text(result: SolveResult) -> str:
    if result.best_points is None:
        return "no legal play"
    lines = [f"best points {result.best_points}, best cards {result.best_cards}"]
    for i, s in enumerate(result.suggestions):
        lines.append(
            f"{i}. [{s.reason}] play {hand_str(s.play.added)}: {s.points} points, {s.cards} cards, "
            f"hand after {hand_str(s.hand_after) or '(empty)'} ({s.hand_after_points})"
        )
        lines.append(f"   table: {table_str(s.play.table)}")
    return "\n".join(lines)


def solve_line(line: str) -> dict[str, Any]:
    """One batch line to its answer; any problem becomes ``{"error": ...}``."""
    try:
        item = json.loads(line)
        if not isinstance(item, dict):
            raise ValueError("a line must be a JSON object")
        table_text, hand_text = item.get("table", ""), item.get("hand")
        decks = item.get("decks", 1)
        if not isinstance(table_text, str) or not isinstance(hand_text, str):
            raise ValueError('"table" and "hand" must be strings')
        if isinstance(decks, bool) or not isinstance(decks, int):
            raise ValueError('"decks" must be 1 or 2')
        return result_json(solve(parse_table(table_text), parse_hand(hand_text), rules_for_decks(decks)))
    except (ValueError, CarouselError) as exc:  # JSONDecodeError and NotationError are ValueErrors
        return {"error": str(exc)}


def run_batch(source: TextIO, sink: TextIO) -> int:
    for line in source:
        if not line.strip():
            continue
        sink.write(json.dumps(solve_line(line)) + "\n")
    return 0


def command(args: argparse.Namespace) -> int:
    if args.batch is not None:
        if args.batch == "-":
            return run_batch(sys.stdin, sys.stdout)
        with open(args.batch, encoding="utf-8") as source:
            return run_batch(source, sys.stdout)
    if args.hand is None:
        print("carousel solve: --hand is required without --batch", file=sys.stderr)
        return 2
    try:
        result = solve(parse_table(args.table), parse_hand(args.hand), rules_for_decks(args.decks))
    except CarouselError as exc:
        print(f"carousel solve: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(result_json(result)) if args.json else result_text(result))
    return 0


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``solve`` to a ``add_subparsers()`` object; sets ``func`` to :func:`command`."""
    parser = subparsers.add_parser("solve", help="best plays of a position (exact solver)")
    parser.add_argument("--table", default="", help='table melds, e.g. "3C 4C 5C | 7H 7S JK=7D"')
    parser.add_argument("--hand", help='hand cards, e.g. "6H JK 10S"')
    parser.add_argument("--decks", type=int, choices=(1, 2), default=1, help="1 (2 players) or 2 (3-5 players)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    parser.add_argument("--batch", metavar="FILE", help="JSON lines in, JSON lines out ('-' for stdin)")
    parser.set_defaults(func=command)
    return parser
