"""``carousel demo``: a full game between simple players, printed as it goes."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from carousel_env.core.cards import hand_str, table_str
from carousel_env.games.carousel.agents.match import engine_player
from carousel_env.games.carousel.agents.registry import SEARCH, is_policy_name, policy_names
from carousel_env.games.carousel.engine.game import Action, ActionKind, GameState, Phase, apply, new_game, next_round
from carousel_env.games.carousel.engine.rules import RoundBonus, Rules, Variant
from carousel_env.games.carousel.envs.render_text import render_text
from carousel_env.games.carousel.solver import can_play, compile_ahead

Player = Callable[[GameState], Action]


def describe(state: GameState, action: Action) -> str:
    who = f"player {state.current}"
    if isinstance(action, ActionKind):
        return f"{who}: {action.value.replace('_', ' ')}"
    return f"{who}: plays {hand_str(action.added)} -> table {table_str(action.table)}"


def play_game(rules: Rules, seed: int, players: list[Player], echo: Callable[[str], None] = print) -> GameState:
    state = new_game(rules, seed, can_play=can_play)
    echo(render_text(state, reveal_all=True))
    while not state.is_over:
        if state.phase is Phase.ROUND_OVER:
            echo(render_text(state, reveal_all=True))
            state = next_round(state)
            echo("")
            echo(render_text(state, reveal_all=True))
            continue
        action = players[state.current](state)
        echo(describe(state, action))
        state = apply(state, action)
    echo(render_text(state, reveal_all=True))
    return state


def _run(args: argparse.Namespace) -> int:
    rules = Rules(num_players=args.players, variant=args.variant, round_bonus=args.round_bonus)
    names = args.policy * rules.num_players if len(args.policy) == 1 else args.policy
    if len(names) != rules.num_players:
        parser_error = f"--policy takes one name or one per player ({rules.num_players}), got {len(args.policy)}"
        raise SystemExit(f"carousel demo: error: {parser_error}")
    players = [engine_player(name, seed=args.seed + i) for i, name in enumerate(names)]
    compile_ahead()  # a cold cache: compiled before the game, not at its first crowded table
    play_game(rules, args.seed, players)
    return 0


def policy_name(name: str) -> str:
    """An argparse type: a name the agents registry knows (``search@N`` included)."""
    if not is_policy_name(name):
        known = ", ".join((*policy_names(), SEARCH, f"{SEARCH}@N"))
        raise argparse.ArgumentTypeError(f"unknown policy {name!r} (known: {known})")
    return name


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("demo", help="play a full game between simple players and print it")
    parser.add_argument("--players", type=int, default=2, help="number of players, 2 to 5 (default 2)")
    parser.add_argument("--seed", type=int, default=0, help="game seed (default 0)")
    parser.add_argument("--variant", default=Variant.CAROUSEL.value, choices=[v.value for v in Variant])
    parser.add_argument("--round-bonus", default=RoundBonus.LOSERS.value, choices=[b.value for b in RoundBonus])
    parser.add_argument(
        "--policy",
        nargs="+",
        default=["smart"],
        type=policy_name,
        help=f"player(s): one name for every seat or one per seat, of {', '.join(policy_names())}, "
        f"{SEARCH} or {SEARCH}@N (N determinizations per action); default smart",
    )
    parser.set_defaults(func=_run)
