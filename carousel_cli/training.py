"""``carousel train | play | imitate | export`` (registered into carousel_cli.main; the
commands that measure an agent are in carousel_cli.strength)."""

from __future__ import annotations

import argparse
from pathlib import Path

from carousel_cli.options import game_options, new_run_dir
from carousel_env.core.errors import CarouselError
from carousel_env.core.registry import DEFAULT_GAME, GAMES, variants_text
from carousel_env.core.text import plural


def cmd_train(args: argparse.Namespace) -> int:
    from training.config import ConfigError, check_names

    if args.resume and args.overwrite:
        raise ConfigError("--resume continues the run in --out, --overwrite deletes it: give one of them")
    if args.game is not None:
        if args.resume:
            raise ConfigError("--resume continues the run's own game; --game is for a new run")
        args.set = [f"game={args.game}", *args.set]  # the same as --set game=G, before the other overrides
    if args.backend == "rllib":
        return _train_rllib(args)
    from training.config import format_config, from_dict, load_config, parse_overrides

    if args.address:
        raise ConfigError("--address needs --backend rllib (the in-house trainer runs on one machine)")
    if args.resume and args.out and (Path(args.out) / "rllib").is_dir():
        raise ConfigError(f"{args.out} is a run of --backend rllib; resume it with --backend rllib")
    if args.resume:
        from training.checkpoint import CheckpointError, load
        from training.checkpoint_names import LATEST

        if args.out is None:
            raise CheckpointError("--resume needs --out RUN_DIR (the run to continue)")
        if not (Path(args.out) / LATEST).is_file():
            raise CheckpointError(f"--resume: no run to continue in '{args.out}' (it has no {LATEST})")
        # The run's own resolved config wins over --config: the schedule must not change.
        saved = load(Path(args.out) / LATEST)
        config = from_dict(saved["config"])
        if args.set:
            config = from_dict(parse_overrides(args.set), base=config)
    else:
        config = load_config(args.config, args.set)
        check_names(config)
    if args.print_config:
        source = f"the run in {args.out}" if args.resume else (args.config or "the TrainConfig defaults")
        overrides = "".join(f" --set {pair}" for pair in args.set)
        header = [f"Resolved training config: {source}" + (f", with{overrides}" if overrides else "")]
        header.append("Each comment is the key's documentation from training/config.py; '# default:' marks a change.")
        print(format_config(config, header), end="")
        return 0
    from training.ppo import train  # imported here so that --print-config starts without torch

    out = Path(args.out) if args.resume else new_run_dir(args, config.exp_name)
    run_dir = train(config, out, resume=args.resume, max_updates=args.max_updates)
    _print_summary(run_dir, config)
    return 0


def _print_summary(run_dir: Path, config) -> None:
    """What was trained, how strong it is, and what to do next: a run's last lines."""
    from training.checkpoint import load
    from training.checkpoint_names import BEST, LATEST
    from training.games import training_game

    counters = load(run_dir / LATEST).get("counters", {})
    game = training_game(config.game)
    print(
        f"trained: {config.label()}, {config.num_players} players, self-play PPO for "
        f"{plural(counters.get('global_step', 0), 'learner decision')} ({plural(counters.get('update', 0), 'update')})"
    )
    print(f"run saved in {run_dir} (checkpoint {run_dir / LATEST}, curves {run_dir / 'learning_curves.png'})")
    if (run_dir / BEST).exists():
        best = load(run_dir / BEST).get("counters", {})
        print(
            f"its best evaluation: {best.get('best_win_rate', 0):.2f} against {config.evaluation_opponent()} after "
            f"{plural(best.get('global_step', 0), 'learner decision')} (checkpoint {run_dir / BEST})"
        )
    unit = config.family().unit
    _print_last_eval(run_dir / "metrics.csv", config.evaluation_opponent(), 1 / config.num_players, unit)
    players = "" if config.num_players == 2 else f" --players {config.num_players}"
    print("next:")
    print(
        f"  .venv/bin/carousel eval --checkpoint {run_dir} --opponents {','.join(game.yardsticks)} --games 200{players}"
    )
    print(f"  .venv/bin/carousel play --checkpoint {run_dir}{players}")
    print(
        f"  .venv/bin/carousel train --resume --out {run_dir} --set total_timesteps="
        f"{2 * config.total_timesteps}   # train it longer"
    )


def _train_rllib(args: argparse.Namespace) -> int:
    """``carousel train --backend rllib``: RLlib PPO self-play (training/rllib/)."""
    from training.config import ConfigError, check_names, format_config, parse_overrides
    from training.rllib.config import from_dict, load_config

    if args.resume:
        if args.out is None:
            raise ConfigError("--resume needs --out RUN_DIR (the run to continue)")
        from training.rllib.train import load_run_config

        # The run's own resolved config wins over --config: the schedule must not change.
        config = load_run_config(args.out)
        if args.set:
            config = from_dict(parse_overrides(args.set), base=config)
    else:
        config = load_config(args.config, args.set)
        check_names(config)
    if args.print_config:
        source = f"the run in {args.out}" if args.resume else (args.config or "the RllibConfig defaults")
        header = [f"Resolved RLlib training config: {source}", "Documentation: training/rllib/config.py."]
        print(format_config(config, header), end="")
        return 0
    from training.rllib.train import train  # imports ray and torch

    out = Path(args.out) if args.resume else new_run_dir(args, config.exp_name)
    summary = train(config, out, resume=args.resume, address=args.address, max_iterations=args.max_updates)
    print(
        f"run saved in {summary.run_dir}: RLlib checkpoint {summary.run_dir / 'rllib'} (--resume), "
        f"network {summary.run_dir / 'latest.pt'} (carousel eval/tournament/play --checkpoint {summary.run_dir})"
    )
    return 0


def cmd_play(args: argparse.Namespace) -> int:
    from carousel_cli.play import play
    from training.checkpoint_names import is_checkpoint_name

    game, options = args.game, {}
    if is_checkpoint_name(args.checkpoint):  # the network's game and rules, unless told otherwise
        from training.checkpoint import saved_env_keys

        saved = saved_env_keys(args.checkpoint)
        if game is not None and game != saved.game:
            raise CarouselError(
                f"--game {game}: the checkpoint {args.checkpoint} plays {saved.game} (leave --game out)"
            )
        game, options = saved.game, saved.env
    game = game or DEFAULT_GAME
    players = GAMES[game].min_players if args.players is None else args.players
    opponents = [args.checkpoint] + [o for o in (args.opponents or "").split(",") if o]
    return play(
        opponents, game, num_players=players, seat=args.seat, seed=args.seed, options=options, variant=args.variant
    )


def cmd_imitate(args: argparse.Namespace) -> int:
    from training.games import training_game
    from training.imitation import imitate

    keys = {}
    if args.init is not None:  # its game, rules and table, unless told otherwise
        from training.checkpoint import saved_env_keys
        from training.policies import has_card_head

        saved = saved_env_keys(args.init)
        keys = {"game": saved.game, "num_players": saved.num_players, "env": dict(saved.env)}
        args.card_head = args.card_head or has_card_head(args.init)  # its card head is kept
    keys["game"] = args.game or keys.get("game", DEFAULT_GAME)
    if args.variant:
        variant_key = training_game(keys["game"]).variant_key
        if variant_key is None:
            raise CarouselError(f"--variant: {GAMES[keys['game']].title} has no variants")
        keys["env"] = {**keys.get("env", {}), variant_key: args.variant}
    if args.torch_threads is not None:
        keys["torch_threads"] = args.torch_threads
    tables = _table_sizes(args.players)  # each overrides --init's table size
    out = new_run_dir(args, f"imitate_{args.teacher}")
    print(f"carousel imitate: {plural(args.decisions, 'decision')} of {args.teacher} in {keys['game']}", flush=True)
    res = imitate(
        args.teacher,
        out,
        keys,
        decisions=args.decisions,
        epochs=args.epochs,
        learning_rate=args.lr,
        seed=args.seed,
        init=args.init,
        report=lambda line: print(f"  {line}", flush=True),
        tables=tables,
        workers=args.workers,
        student=args.student,
        student_share=args.student_share,
        card_head=args.card_head,
    )
    print(
        f"imitated {plural(res.decisions, 'decision')} of {args.teacher} in {res.seconds:.0f} s: the network makes "
        f"the teacher's move at {res.train_accuracy:.3f} of the decisions it learned from and "
        f"{res.held_out_accuracy:.3f} of held-out ones"
    )
    print(f"checkpoint {out / 'latest.pt'}: measure it with carousel eval --checkpoint {out}, or start PPO from it "
          f"(--set init_checkpoint={out})")  # fmt: skip
    return 0


def _table_sizes(text: str | None) -> list[int]:
    """``--players`` of imitate: one table size or several, comma-separated ("2,3,4,5")."""
    if text is None:
        return []
    try:
        sizes = [int(part) for part in text.split(",")]
    except ValueError:
        raise CarouselError(f"--players takes table sizes separated by commas (2 or 2,3,4,5), got {text!r}") from None
    if len(set(sizes)) != len(sizes):
        raise CarouselError(f"--players names a table size twice: {text!r}")
    return sizes


def cmd_export(args: argparse.Namespace) -> int:
    from training.checkpoint import export_policy

    slim = export_policy(args.checkpoint, args.out)
    counters = slim.get("counters", {})
    print(
        f"wrote {args.out} ({Path(args.out).stat().st_size / 1024:.0f} KiB): network of {args.checkpoint}, "
        f"{counters.get('global_step', '?')} learner decisions, {counters.get('update', '?')} updates"
    )
    return 0


def _print_last_eval(metrics_csv: Path, opponent: str, fair_share: float, unit: str) -> None:
    """Repeat the run's latest evaluation beside the fair share, and say plainly whether the
    agent beats ``opponent``, so that a run's last lines say how good it is (``unit``: the
    game's scoring unit, a round or a hand)."""
    import csv

    if not metrics_csv.exists():
        return
    latest: dict[str, float] = {}
    with metrics_csv.open() as f:
        for row in csv.DictReader(f):
            if row["name"].startswith("eval/"):
                latest[row["name"]] = float(row["value"])
    if "eval/win_rate" not in latest:
        print("no evaluation in this run (eval_games=0): measure it with carousel eval, below")
        return
    rate = latest["eval/win_rate"]
    low, high = latest.get("eval/win_rate_ci_low", 0.0), latest.get("eval/win_rate_ci_high", 1.0)
    print(
        f"latest evaluation vs {opponent}: win rate {rate:.3f} (fair share {fair_share:.3f}; 95% CI "
        f"{low:.3f}-{high:.3f}), mean {unit}-score difference {latest.get('eval/score_diff', 0.0):+.2f}"
    )
    if low > fair_share:
        verdict = f"it beats {opponent}"
    elif high < fair_share:
        verdict = f"it loses to {opponent} so far: a longer run helps"
    else:
        verdict = f"no clear edge over {opponent} yet (the interval holds the fair share)"
    print(f"  {verdict}")


def register(subparsers) -> None:
    p = subparsers.add_parser("train", help="self-play PPO training")
    p.add_argument(
        "--backend",
        choices=("inhouse", "rllib"),
        default="inhouse",
        help="inhouse: the trainer in training/ (default); rllib: RLlib PPO on Ray (configs/rllib_2p.yaml)",
    )
    p.add_argument("--config", default=None, help="YAML config (configs/default.yaml, ...); defaults if omitted")
    p.add_argument("--out", default=None, help="run directory (default runs/<exp_name>)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="override a config key")
    p.add_argument(
        "--game",
        choices=sorted(GAMES),
        default=None,
        help="the game to train (--set game=G); e.g. --config configs/gin.yaml instead holds a whole Gin config",
    )
    p.add_argument("--resume", action="store_true", help="continue the run in --out from its latest checkpoint")
    p.add_argument(
        "--overwrite",
        action="store_true",
        help="start over in an --out that already holds a run, deleting it first (without it: refused)",
    )
    p.add_argument(
        "--max-updates", type=int, default=None, help="stop after this many updates / iterations (resume later)"
    )
    p.add_argument(
        "--address",
        default=None,
        help="--backend rllib: the Ray cluster to run on ('auto': the one `ray start` began on this machine, "
        "or HOST:PORT); default: a local Ray instance",
    )
    p.add_argument(
        "--print-config",
        action="store_true",
        help="print the resolved config (--config, --set applied) as documented YAML and exit without training",
    )
    p.set_defaults(func=cmd_train)

    p = subparsers.add_parser("play", help="play against an agent at the terminal")
    p.add_argument("--checkpoint", required=True, help="your opponent: checkpoint file, run directory or baseline name")
    p.add_argument(
        "--opponents",
        default="",
        help="the other opponents at a table of 3 or more (comma-separated, taken in turn with --checkpoint): "
        "each name must play",
    )
    p.add_argument(
        "--players", type=int, default=None, help="players at the table (default: the game's fewest; Gin Rummy: 2)"
    )
    p.add_argument("--seat", type=int, default=0, help="your seat, 0 to --players minus 1")
    p.add_argument("--seed", type=int, default=0, help="the game's seed")
    p.add_argument(
        "--game",
        choices=sorted(GAMES),
        default=None,
        help=f"the game (default: the checkpoint's own, else {DEFAULT_GAME})",
    )
    p.add_argument(
        "--variant",
        default=None,
        help=f"the rules, by game ({variants_text()}) (default: the checkpoint's own, else the game's first)",
    )
    p.set_defaults(func=cmd_play)

    p = subparsers.add_parser(
        "imitate",
        help="teach a new network a scripted player's moves (a start for PPO: init_checkpoint)",
        description="Plays games between copies of the teacher, records its decisions and fits the network's policy "
        "to them. Documentation: training/imitation.py.",
    )
    p.add_argument("--teacher", required=True, help="the scripted player to imitate (its game's: smart, simple, ...)")
    game_options(p)
    p.add_argument(
        "--players",
        default=None,
        help="players at the table, or several table sizes (2,3,4,5: one network for all, the decisions split "
        "evenly) (default: 2)",
    )
    p.add_argument("--decisions", type=int, default=100_000, help="the teacher's decisions to learn from")
    p.add_argument("--epochs", type=int, default=4, help="passes over the decisions")
    p.add_argument("--lr", type=float, default=1e-3, help="Adam learning rate")
    p.add_argument("--seed", type=int, default=1, help="the seed of the deals, the teachers and the network")
    p.add_argument(
        "--workers",
        type=int,
        default=1,
        help="processes recording the teacher's games at once, each a share with a seed of its own (the games "
        "follow --seed and --workers)",
    )
    p.add_argument(
        "--init",
        default=None,
        help="start from this checkpoint's network (its game, rules and table size too) instead of a new one: "
        "expert iteration with --teacher search@8+CHECKPOINT",
    )
    p.add_argument(
        "--student",
        default=None,
        help="a checkpoint that plays --student-share of the moves while the teacher's are recorded (DAgger: the "
        "teacher's answers in the positions the student reaches)",
    )
    p.add_argument(
        "--student-share",
        type=float,
        default=1.0,
        help="the share of the decisions the student plays, each drawn apart (default: 1, all of them)",
    )
    p.add_argument(
        "--card-head",
        action="store_true",
        help="a network that scores the discards card by card (config key card_head; kept from --init's network)",
    )
    p.add_argument(
        "--torch-threads",
        type=int,
        default=None,
        help="torch threads fitting the network (config key torch_threads; default 1: more only on a machine with "
        "cores to spare)",
    )
    p.add_argument("--out", default=None, help="run directory (default runs/imitate_<teacher>)")
    p.add_argument("--overwrite", action="store_true", help="start over in an --out that already holds a run")
    p.set_defaults(func=cmd_imitate)

    p = subparsers.add_parser("export", help="write a checkpoint's network alone, small, for eval/play/sharing")
    p.add_argument("--checkpoint", required=True, help="checkpoint file or run directory")
    p.add_argument("--out", required=True, help="file to write (e.g. checkpoints/my_agent/model.pt)")
    p.set_defaults(func=cmd_export)
