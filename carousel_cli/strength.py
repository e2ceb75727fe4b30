"""``carousel eval | tournament | leaderboard | exploit``: how strong an agent is (registered
into carousel_cli.main beside the training commands)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING

from carousel_cli.gin_eval import cmd_eval_gin, openspiel_matches, parse_bots, print_matches
from carousel_cli.options import GamesProgress, game_options, new_run_dir, set_torch_threads, torch_threads_option
from carousel_env.core.errors import CarouselError
from carousel_env.core.registry import DEFAULT_GAME, GAMES
from carousel_env.core.text import plural
from carousel_env.integrations import OPENSPIEL_PREFIX
from training.checkpoint_names import ARGMAX_TAG
from training.exploit_defaults import EVAL_GAMES, EVAL_POINTS
from training.leaderboard_defaults import FOUR_PLAYER_GAMES, GUIDED_BUDGET, HEADS_UP_GAMES

README = "README.md"  # the published README, whose leaderboard tables a small run must not replace

if TYPE_CHECKING:  # the commands import training lazily, so that --help starts without torch
    from training.evaluate import EvalResult


def _ci(interval: tuple[float, float], digits: int = 3) -> str:
    return f"95% CI {interval[0]:.{digits}f} to {interval[1]:.{digits}f}"


def _print_eval(res: EvalResult) -> None:
    lo, hi = res.win_rate_ci
    deal_lo, deal_hi = res.win_rate_ci_deals
    print(
        f"{res.candidate}{ARGMAX_TAG if res.argmax else ''} vs {', '.join(res.opponents)}: "
        f"{plural(res.games, 'game')} on {plural(res.deals, 'deal')}, "
        f"win rate {res.win_rate:.3f} (fair share {res.fair_share:.3f}; 95% CI {lo:.3f}-{hi:.3f} over games, "
        f"{deal_lo:.3f}-{deal_hi:.3f} over deals)"
    )
    from training.games import training_game

    family = training_game(res.game)
    unit = family.unit  # Gin Rummy scores hands, the others rounds
    print(
        f"  {unit}s {res.rounds}, mean {unit}-score difference {res.mean_round_score_diff:+.2f} "
        f"({_ci(res.mean_round_score_diff_ci, 2)})"
    )
    print(
        f"  points a {unit}: {res.points_per_unit:.2f} ({_ci(res.points_per_unit_ci, 2)}) against the opponents' "
        f"{res.opponents_points_per_unit:.2f} ({_ci(res.opponents_points_per_unit_ci, 2)}); decided {unit}s "
        f"{res.units_decided}, won {res.decided_won_rate:.3f} ({_ci(res.decided_won_ci)})"
    )
    names = family.events_of(res.variant)  # what the game (its variant) calls its units' events
    # A game names only the events it has (Kaluki: going out alone).
    rates = [f"{names.knocked} rate {res.knock_rate:.3f} ({_ci(res.knock_rate_ci)})"] if names.knocked else []
    if names.went_out:
        rates.append(f"{names.went_out} rate {res.go_out_rate:.3f} ({_ci(res.go_out_rate_ci)})")
    if names.undercut and names.knocked:
        rates.append(
            f"{names.undercut} rate (of {names.knocked}s) {res.undercut_rate:.3f} ({_ci(res.undercut_rate_ci)})"
        )
    print("  " + ", ".join(rates))
    for name, row in res.by_opponent.items():
        print(f"  vs {name}: {plural(row.games, 'game')}, win rate {row.win_rate:.3f}")


def cmd_eval(args: argparse.Namespace) -> int:
    set_torch_threads(args)
    opponents = [o.strip() for o in args.opponents.split(",") if o.strip()]
    bots = [o for o in opponents if o.startswith(OPENSPIEL_PREFIX)]
    opponents = [o for o in opponents if not o.startswith(OPENSPIEL_PREFIX)]
    if bots:  # OpenSpiel's bots play in OpenSpiel's game; our players beside them, under its rules
        if args.game not in (None, "gin_rummy") or args.variant not in (None, "openspiel"):
            raise CarouselError(
                "OpenSpiel's bots play Gin Rummy under its own rules: --game gin_rummy (preset openspiel)"
            )
        if not opponents:
            return cmd_eval_gin(args)
        parse_bots(args, bots)  # a bad bot is named before any game is played
        args.game, args.variant = "gin_rummy", "openspiel"
    import sys

    from carousel_env.core.stats import MIN_DEALS_FOR_INTERVAL
    from training.evaluate import evaluate

    res = evaluate(
        args.checkpoint,
        opponents,
        games=args.games,
        num_players=args.players,
        seed=args.seed,
        env_spec=_eval_env_spec(args),
        num_workers=args.workers,
        argmax=args.argmax,
        replays=args.replays,
        progress=GamesProgress("carousel eval"),
    )
    if args.replays is not None:
        print(f"wrote {plural(res.games, 'replay')} to {args.replays} (carousel serve --replay FILE)", file=sys.stderr)
    matches = openspiel_matches(args, bots) if bots else []
    if args.json:  # one object: OpenSpiel's matches beside ours
        print(json.dumps({**res.as_json(), **({"matches": [m.as_json() for m in matches]} if matches else {})}))
    else:
        _print_eval(res)
        print_matches(matches, args)
    if res.deals < MIN_DEALS_FOR_INTERVAL:  # on stderr: --json's output stays one JSON object
        print(
            f"note: {plural(res.deals, 'deal')} is too few to trust the interval over deals (it needs about "
            f"{MIN_DEALS_FOR_INTERVAL}); raise --games to {MIN_DEALS_FOR_INTERVAL * args.players} or more",
            file=sys.stderr,
        )
    return 0


def _eval_env_spec(args: argparse.Namespace):
    """The env that ``--game`` and ``--variant`` name (None when neither is given: the
    candidate's checkpoint says, or Carousel). Either given alone keeps the rest of the
    (first) checkpoint's own: its game, its rules."""
    if args.game is None and args.variant is None:
        return None
    from training.checkpoint_names import is_checkpoint_name
    from training.config import EnvKeys, check_env_keys
    from training.envs import EnvSpec

    keys, variant_key = EnvKeys(), None
    agents = [args.checkpoint] if hasattr(args, "checkpoint") else [a.strip() for a in args.agents.split(",")]
    checkpoints = [agent for agent in agents if agent and is_checkpoint_name(agent)]
    if checkpoints:
        from training.checkpoint import saved_env_keys

        keys = saved_env_keys(checkpoints[0])
        if args.game is not None and args.game != keys.game:
            keys = EnvKeys(game=args.game)  # another game: none of the checkpoint's options
    elif args.game is not None:
        keys = EnvKeys(game=args.game)
    env = dict(keys.env)
    if args.variant is not None:
        variant_key = keys.family().variant_key
        if variant_key is None:
            raise CarouselError(f"--variant: {GAMES[keys.game].title} has no variants")
        env[variant_key] = args.variant
    keys = EnvKeys(game=keys.game, num_players=args.players, env=env)
    try:
        check_env_keys(keys)
    except CarouselError as exc:
        raise CarouselError(str(exc).replace(f"config key 'env.{variant_key}'", "--variant")) from None
    options = {k: v for k, v in keys.env_options().items() if k != "num_players"}
    return EnvSpec.of(args.players, game=keys.game, **options)


def cmd_tournament(args: argparse.Namespace) -> int:
    from training.tournament import format_pairs, format_table, play_tournament, save

    set_torch_threads(args)
    agents = [a.strip() for a in args.agents.split(",") if a.strip()]
    played = play_tournament(
        agents,
        games=args.games,
        num_players=args.players,
        seed=args.seed,
        num_workers=args.workers,
        env_spec=_eval_env_spec(args),
    )
    print(format_table(played.rows))
    print()
    print(format_pairs(played.pairs))
    if args.out:
        save(played.rows, args.out, played.pairs)
        print(f"saved {Path(args.out) / 'tournament.json'}, tournament_pairs.json and tournament.txt")
    return 0


def _check_publishing(args: argparse.Namespace, board, four_player_games: int) -> None:
    """A run of fewer games than the defaults does not replace the published page or the
    README's tables unless told to (``--publish``)."""
    fewer = [
        f"--{name.replace('_', '-')} {given} (published: {default})"
        for name, given, default in (
            ("heads_up_games", args.heads_up_games, HEADS_UP_GAMES),
            ("four_player_games", four_player_games, FOUR_PLAYER_GAMES if 4 in board.table_sizes else 0),
        )
        if given < default
    ]
    page = Path(args.out or board.page).resolve() == Path(board.page).resolve()
    readme = (
        not args.no_readme and board.readme_tag is not None and Path(args.readme).resolve() == Path(README).resolve()
    )
    publishing = page or readme
    if fewer and publishing and not args.publish:
        raise CarouselError(
            f"{', '.join(fewer)}: fewer games than the published leaderboard's; write this run elsewhere with "
            f"--out PATH --no-readme, or replace {board.page} and the README's tables with --publish"
        )


def cmd_leaderboard(args: argparse.Namespace) -> int:
    from training.leaderboard import default_roster, guided_agents, make_leaderboard
    from training.leaderboard_games import leaderboard_game

    set_torch_threads(args)
    game = args.game or DEFAULT_GAME
    board = leaderboard_game(game, args.variant)
    if args.agents:
        agents = [a.strip() for a in args.agents.split(",") if a.strip()]
    else:
        agents = list(default_roster(args.checkpoints, game, args.variant))
    four_player_games = args.four_player_games
    if four_player_games is None:
        four_player_games = FOUR_PLAYER_GAMES if 4 in board.table_sizes else 0
    _check_publishing(args, board, four_player_games)
    if args.heads_up_only is None:
        heads_up_only = list(guided_agents(agents))
    else:
        heads_up_only = [a.strip() for a in args.heads_up_only.split(",") if a.strip()]
    make_leaderboard(
        agents,
        out=args.out or board.page,
        heads_up_games=args.heads_up_games,
        four_player_games=four_player_games,
        seed=args.seed,
        state=args.state,
        readme=None if args.no_readme else args.readme,
        num_workers=args.workers,
        heads_up_only=heads_up_only,
        game=game,
        variant=args.variant,
        replays=args.replays,
    )
    return 0


def cmd_exploit(args: argparse.Namespace) -> int:
    from training.config import ConfigError, from_dict, parse_overrides
    from training.exploit import exploit_config, write_report

    if args.resume:
        from training.checkpoint import load
        from training.checkpoint_names import LATEST

        if args.out is None or not (Path(args.out) / LATEST).is_file():
            raise ConfigError(f"--resume: no run to continue in '{args.out}' (give --out, the exploit run's directory)")
        config = from_dict(load(Path(args.out) / LATEST)["config"])
        if args.set:
            raise ConfigError("--resume continues the run as it was configured: leave --set out")
        warm = config.init_checkpoint is not None
        out = Path(args.out)
    else:
        if args.checkpoint is None or args.budget is None:
            raise ConfigError("carousel exploit needs --checkpoint (the agent) and --budget (learner decisions)")
        config = exploit_config(
            args.checkpoint,
            args.budget,
            game=args.game,
            players=args.players,
            warm_start=args.warm_start,
            seed=args.seed,
            eval_games=args.eval_games,
            eval_points=args.evaluations,
            overrides=parse_overrides(args.set),
        )
        warm = args.warm_start
        out = new_run_dir(args, f"exploit_{Path(args.checkpoint).name}")
    from training.ppo import train

    start = "warm-started from it" if warm else "from scratch"
    print(
        f"carousel exploit: a best response to {config.fixed_opponent} ({start}), "
        f"{config.num_players} players, {plural(config.total_timesteps, 'learner decision')}, evaluated every "
        f"{plural(config.eval_interval, 'update')} on {plural(config.eval_games, 'game')}",
        flush=True,
    )
    train(config, out, resume=args.resume)
    points = write_report(out, config, warm)
    if points:
        last = points[-1]
        print(
            f"best response vs {config.fixed_opponent}: win rate {last.win_rate:.3f} (fair share "
            f"{1 / config.num_players:.3f}; 95% CI {last.win_rate_ci_low:.3f}-{last.win_rate_ci_high:.3f} over "
            f"games, {last.win_rate_deals_ci_low:.3f}-{last.win_rate_deals_ci_high:.3f} over deals), mean score "
            f"difference {last.score_diff:+.2f}, after {plural(last.learner_decisions, 'learner decision')}"
        )
    print(f"report: {out / 'exploit.json'}, {out / 'exploit.csv'}, {out / 'exploit.png'}")
    return 0


def register(subparsers) -> None:
    p = subparsers.add_parser("eval", help="evaluate an agent against baselines or checkpoints")
    game_options(
        p,
        "; with gin_rummy, --opponents may name OpenSpiel's bots, openspiel:simple and "
        "openspiel:ismcts@N, played inside OpenSpiel",
    )
    p.add_argument(
        "--checkpoint",
        required=True,
        help="checkpoint file, run directory, baseline name, or a search guided by a checkpoint's network "
        "(search@N+CHECKPOINT)",
    )
    p.add_argument(
        "--opponents", default="greedy", help="comma-separated checkpoints / baseline names (search@N+CHECKPOINT too)"
    )
    p.add_argument(
        "--games",
        type=int,
        default=100,
        help="games; each deal is played once per seat, the candidate in every seat (heads-up: mirror pairs), "
        "so this is rounded up to a multiple of --players",
    )
    p.add_argument(
        "--players", type=int, default=2, help="players at the table, in the game's range (Kaluki: 2 to 6; Gin: 2)"
    )
    p.add_argument("--seed", type=int, default=0, help="the first deal's seed (deal g: seed + g)")
    p.add_argument("--workers", type=int, default=0, help="worker processes stepping games (0: this process)")
    p.add_argument(
        "--argmax",
        action="store_true",
        help="networks play their policy's most likely action instead of sampling it (default: sampled)",
    )
    torch_threads_option(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument(
        "--replays",
        default=None,
        metavar="DIR",
        help="write every game as a replay, DIR/game_NNNN.json (watch one: carousel serve --replay FILE)",
    )
    p.set_defaults(func=cmd_eval)

    p = subparsers.add_parser("tournament", help="rate checkpoints and baselines against each other (openskill)")
    p.add_argument("--agents", required=True, help="comma-separated checkpoints / baseline names")
    p.add_argument("--games", type=int, default=20, help="games per pair, rounded up to whole deals as in eval")
    p.add_argument(
        "--players",
        type=int,
        default=2,
        help="players at each table, in the game's range: the pair's first agent in one seat, the second in the others",
    )
    game_options(p)
    p.add_argument("--seed", type=int, default=0, help="the first pair's first deal seed")
    p.add_argument("--workers", type=int, default=0, help="worker processes stepping games (0: this process)")
    torch_threads_option(p)
    p.add_argument("--out", default=None, help="directory for tournament.json / tournament.txt")
    p.set_defaults(func=cmd_tournament)

    p = subparsers.add_parser(
        "leaderboard",
        help="rate a game's baselines, its search player and its shipped agents at its table sizes "
        "(its docs/LEADERBOARD*.md page and the README's table; resumable)",
        description="Every pair of agents plays heads-up, every 4 of them a 4-player table, each deal from every "
        "seat; openskill ratings per table size. Finished matches are kept in the state file, so a rerun plays only "
        "what it lacks. Defaults and costs: the docstring of training/leaderboard.py.",
    )
    p.add_argument(
        "--game",
        choices=sorted(GAMES),
        default=None,
        help=f"the game (default: {DEFAULT_GAME}); what its leaderboard plays, its page and its state file are the "
        "game's own (the LeaderboardFacts of its family contract)",
    )
    p.add_argument(
        "--variant",
        default=None,
        help="a variant's own leaderboard, where the game has one (kaluki: rummy); default: the game's",
    )
    p.add_argument(
        "--agents",
        default=None,
        help="comma-separated checkpoints / scripted policy names (search@N and search@N+CHECKPOINT too; Gin Rummy: "
        "openspiel:simple, openspiel:ismcts@N); default: the game's baselines (Carousel's random, greedy, smart, "
        "search@4, search@16), its OpenSpiel bots where open_spiel is installed, every --checkpoints/<name>/model.pt "
        f"of the game, and search@{GUIDED_BUDGET}+ each of them trained heads-up where the game has a guided search",
    )
    p.add_argument(
        "--heads-up-only",
        default=None,
        help="comma-separated agents (as the tables name them, e.g. search@8+ppo_2p) that sit out the 4-player "
        "tables, the costly ones; default: the guided search players (search@N+CHECKPOINT) of the roster; '' for none",
    )
    p.add_argument("--checkpoints", default="checkpoints", help="where the default roster finds shipped agents")
    p.add_argument(
        "--heads-up-games",
        type=int,
        default=HEADS_UP_GAMES,
        help="games per pair, rounded up to whole deals (even); 0: none",
    )
    p.add_argument(
        "--four-player-games",
        type=int,
        default=None,
        help=f"games per table of 4, rounded up to whole deals (a multiple of 4); 0: none (default: {FOUR_PLAYER_GAMES}"
        "; Gin Rummy, heads-up only: 0)",
    )
    p.add_argument("--seed", type=int, default=0, help="the first deal's seed (every match plays the same deals)")
    p.add_argument("--workers", type=int, default=0, help="worker processes playing games (results do not change)")
    torch_threads_option(p)
    p.add_argument(
        "--replays",
        default=None,
        metavar="DIR",
        help="write the games played now as replays, a folder a match (watch one: carousel serve --replay FILE)",
    )
    p.add_argument("--out", default=None, help="the leaderboard page to write (default: the game's published page)")
    p.add_argument(
        "--state", default=None, help="the games played so far (default: the game's state file, beside --out)"
    )
    p.add_argument("--readme", default=README, help="README whose leaderboard markers get the tables")
    p.add_argument("--no-readme", action="store_true", help="leave the README alone")
    p.add_argument(
        "--publish",
        action="store_true",
        help="replace the published page and the README's tables with a run of fewer games than the defaults "
        "(without it, such a run must write elsewhere: --out PATH --no-readme)",
    )
    p.set_defaults(func=cmd_leaderboard)

    p = subparsers.add_parser(
        "exploit",
        help="approximate exploitability: train a best response against a frozen agent and report its win rate",
        description="Trains a PPO learner against the agent at every other seat (from scratch, or warm-started from "
        "the agent) and evaluates it against the agent on mirror-paired deals along the way; writes exploit.json, "
        "exploit.csv and exploit.png in the run directory. Documentation: training/exploit.py.",
    )
    p.add_argument("--checkpoint", default=None, help="the agent: checkpoint file, run directory or scripted policy")
    p.add_argument("--budget", type=int, default=None, help="learner decisions to train the best response for")
    p.add_argument("--game", choices=sorted(GAMES), default=None, help="the game (default: the checkpoint's own)")
    p.add_argument("--players", type=int, default=None, help="players at the table (default: the checkpoint's)")
    p.add_argument("--warm-start", action="store_true", help="start the learner from the agent's own network")
    p.add_argument("--eval-games", type=int, default=EVAL_GAMES, help="games per evaluation against the agent")
    p.add_argument(
        "--evaluations", type=int, default=EVAL_POINTS, help="evaluations along the budget (the last at its end)"
    )
    p.add_argument("--seed", type=int, default=1, help="the run's seed")
    p.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a key of the best response's training config (as carousel train --set); a warm start from "
        "a near-deterministic network wants a small step, e.g. --set learning_rate=3e-5 --set target_kl=0.01",
    )
    p.add_argument("--out", default=None, help="run directory (default runs/exploit_<agent>)")
    p.add_argument("--overwrite", action="store_true", help="start over in an --out that already holds a run")
    p.add_argument("--resume", action="store_true", help="continue the exploit run in --out")
    p.set_defaults(func=cmd_exploit)
