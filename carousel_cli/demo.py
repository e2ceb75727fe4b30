"""``carousel demo``: a whole game between scripted players, every move narrated (any game
of the registry: ``--game``; the loop is ``carousel_cli.play.demo``)."""

from __future__ import annotations

import argparse

from carousel_cli.play import demo
from carousel_env.core.registry import DEFAULT_GAME, GAMES, variants_text


def _run(args: argparse.Namespace) -> int:
    variant = args.variant
    if args.preset is not None:  # Gin Rummy's older flag, read for one version
        if variant is not None and variant != args.preset:
            raise SystemExit("carousel demo: error: --preset is the older name of --variant: give one of them")
        variant = args.preset
    spec = GAMES[args.game]
    players = spec.min_players if args.players is None else args.players
    return demo(args.policy or [], args.game, players, args.seed, variant, args.round_bonus)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("demo", help="play a full game between scripted players and print it")
    parser.add_argument(
        "--game", default=DEFAULT_GAME, choices=sorted(GAMES), help=f"the game (default {DEFAULT_GAME})"
    )
    parser.add_argument("--players", type=int, default=None, help="players at the table (default: the game's fewest)")
    parser.add_argument("--seed", type=int, default=0, help="game seed (default 0)")
    parser.add_argument(
        "--variant",
        default=None,
        help=f"the rules, by game ({variants_text()}) (default: the game's first)",
    )
    parser.add_argument("--preset", default=None, help=argparse.SUPPRESS)  # the older name of --variant
    parser.add_argument("--round-bonus", default=None, help="Carousel's round bonus: losers or everyone")
    parser.add_argument(
        "--policy",
        nargs="+",
        default=None,
        help="player(s): one name for every seat or one per seat, among the game's scripted players (an unknown "
        "name lists them; default: Carousel's smart, Gin Rummy's greedy, Carioca's simple)",
    )
    parser.set_defaults(func=_run)
