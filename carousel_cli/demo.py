"""``carousel demo``: a full game between simple players, printed as it goes (any registered
game: ``--game``)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from carousel_env.core.cards import hand_str, table_str
from carousel_env.core.registry import DEFAULT_GAME, GAMES, game_spec
from carousel_env.games.carioca import engine as carioca
from carousel_env.games.carioca.players import PLAYERS as CARIOCA_PLAYERS
from carousel_env.games.carioca.players import get_player as get_carioca_player
from carousel_env.games.carioca.render import render_text as render_carioca
from carousel_env.games.carousel.agents.match import engine_player
from carousel_env.games.carousel.agents.registry import SEARCH, is_policy_name, policy_names
from carousel_env.games.carousel.engine.game import Action, ActionKind, GameState, Phase, apply, new_game, next_round
from carousel_env.games.carousel.engine.rules import RoundBonus, Rules, Variant
from carousel_env.games.carousel.envs.render_text import render_text
from carousel_env.games.carousel.solver import can_play, compile_ahead
from carousel_env.games.gin_rummy.engine import GinState
from carousel_env.games.gin_rummy.engine import Phase as GinPhase
from carousel_env.games.gin_rummy.engine import apply as gin_apply
from carousel_env.games.gin_rummy.engine import new_game as new_gin_game
from carousel_env.games.gin_rummy.engine import next_hand as next_gin_hand
from carousel_env.games.gin_rummy.players import PLAYERS as GIN_PLAYERS
from carousel_env.games.gin_rummy.players import get_player as get_gin_player
from carousel_env.games.gin_rummy.render import render_text as render_gin
from carousel_env.games.gin_rummy.rules import PRESETS, GinRules

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


def play_gin(rules: GinRules, seed: int, players: list, echo: Callable[[str], None] = print) -> GinState:
    """A Gin Rummy game between ``players`` (engine players), every move printed."""
    state = new_gin_game(rules, seed)
    while True:
        echo(render_gin(state, observer=state.current if state.current >= 0 else 0))
        while not state.over:
            move = players[state.current](state)
            echo(f"player {state.current}: {move}")
            state = gin_apply(state, move)
        echo(render_gin(state, observer=0))
        if state.phase is GinPhase.GAME_OVER:
            return state
        state = next_gin_hand(state)
        echo("")


def _run_gin(args: argparse.Namespace) -> int:
    for option, default in (("players", None), ("variant", None), ("round_bonus", None)):
        if getattr(args, option) is not default:
            raise SystemExit(
                f"carousel demo: error: --{option.replace('_', '-')} is a Carousel option, not Gin Rummy's"
            )
    rules = GinRules.from_options(args.preset or "book")
    names = args.policy or ["greedy"]
    names = names * 2 if len(names) == 1 else names
    if len(names) != 2:
        raise SystemExit(f"carousel demo: error: --policy takes one name or two for Gin Rummy, got {len(names)}")
    players = [get_gin_player(name, seed=args.seed + i) for i, name in enumerate(names)]
    play_gin(rules, args.seed, players)
    return 0


def play_carioca(
    num_players: int, seed: int, players: list, echo: Callable[[str], None] = print
) -> carioca.CariocaState:
    """A Carioca game between ``players`` (engine players), every move printed, each round's
    end shown from seat 0."""
    state = carioca.new_game(num_players, seed)
    while True:
        echo(f"Round {state.round + 1}: {state.contract}; dealer player {state.dealer}")
        while not state.over:
            move = players[state.current](state)
            echo(f"player {state.current}: {move}")
            state = carioca.apply(state, move)
        echo(render_carioca(state, observer=0))
        if state.phase is carioca.Phase.GAME_OVER:
            return state
        state = carioca.next_round(state)
        echo("")


def _run_carioca(args: argparse.Namespace) -> int:
    for option in ("variant", "round_bonus", "preset"):
        if getattr(args, option) is not None:
            raise SystemExit(f"carousel demo: error: --{option.replace('_', '-')} is not a Carioca option")
    players = 2 if args.players is None else args.players
    if not 2 <= players <= 5:
        raise SystemExit(f"carousel demo: error: Carioca is played by 2 to 5 players, got --players {players}")
    names = args.policy or ["simple"]
    names = names * players if len(names) == 1 else names
    if len(names) != players:
        raise SystemExit(
            f"carousel demo: error: --policy takes one name or one per player ({players}), got {len(names)}"
        )
    for name in names:
        if name not in CARIOCA_PLAYERS:
            raise SystemExit(f"carousel demo: error: unknown Carioca player {name!r} ({', '.join(CARIOCA_PLAYERS)})")
    play_carioca(players, args.seed, [get_carioca_player(name, seed=args.seed + i) for i, name in enumerate(names)])
    return 0


def _run(args: argparse.Namespace) -> int:
    game_spec(args.game)  # an unknown game is named
    if args.game == "gin_rummy":
        return _run_gin(args)
    if args.game == "carioca":
        return _run_carioca(args)
    if args.preset is not None:
        raise SystemExit(
            "carousel demo: error: --preset is a Gin Rummy option (Carousel's rules: --variant, --round-bonus)"
        )
    for name in args.policy or []:
        try:
            policy_name(name)
        except argparse.ArgumentTypeError as exc:
            print(f"carousel demo: error: argument --policy: {exc}", file=sys.stderr)
            raise SystemExit(2) from None
    args.players = 2 if args.players is None else args.players
    args.variant = args.variant or Variant.CAROUSEL.value
    args.round_bonus = args.round_bonus or RoundBonus.LOSERS.value
    args.policy = args.policy or ["smart"]
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
    parser.add_argument(
        "--game", default=DEFAULT_GAME, choices=sorted(GAMES), help=f"the game (default {DEFAULT_GAME})"
    )
    parser.add_argument(
        "--players", type=int, default=None, help="Carousel, Carioca: number of players, 2 to 5 (default 2)"
    )
    parser.add_argument("--seed", type=int, default=0, help="game seed (default 0)")
    parser.add_argument("--variant", default=None, choices=[v.value for v in Variant], help="Carousel's variant")
    parser.add_argument("--round-bonus", default=None, choices=[b.value for b in RoundBonus], help="Carousel's option")
    parser.add_argument("--preset", default=None, choices=sorted(PRESETS), help="Gin Rummy's rules (default book)")
    parser.add_argument(
        "--policy",
        nargs="+",
        default=None,
        help=f"player(s): one name for every seat or one per seat. Carousel: {', '.join(policy_names())}, "
        f"{SEARCH} or {SEARCH}@N (N determinizations per action), default smart; Gin Rummy: "
        f"{', '.join(GIN_PLAYERS)}, default greedy; Carioca: {', '.join(CARIOCA_PLAYERS)}, default simple",
    )
    parser.set_defaults(func=_run)
