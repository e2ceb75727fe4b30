"""``carousel serve``: every game of the family in the browser.

A local web app: choose a game, its variant or preset and the table, seat yourself and any
agents (scripted players, search players, the shipped networks in ``checkpoints/``, any
checkpoint path), then play with the cards drawn, or watch agents play at a chosen pace,
paused and stepped; ``--replay FILE`` opens a game written by ``carousel eval --replays``,
the leaderboard or the page, with a move slider. The server holds every game
(``serve.tables``); the page only shows it (``serve.app``). It listens on 127.0.0.1 unless
``--host`` says otherwise: ``--host 0.0.0.0`` lets other machines in, on purpose.

Needs the ``serve`` extra (Starlette, uvicorn): ``.venv/bin/pip install -e '.[serve]'``
(``python3 tasks.py setup`` installs it).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from carousel_env.core.errors import CarouselError

LOCAL_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
SHIPPED = Path("checkpoints")  # the shipped networks, from the repository's root


def shipped_checkpoints(root: Path = SHIPPED) -> list[tuple[str, str]]:
    """``(path, game)`` of every network folder under ``root`` (a folder with ``model.pt``)."""
    from training.checkpoint import saved_env_keys

    found = []
    for folder in sorted(p for p in root.glob("*") if (p / "model.pt").is_file()):
        try:
            found.append((str(folder), saved_env_keys(folder).game))
        except Exception as exc:  # a broken folder is named, and the others still offered
            print(f"carousel serve: {folder} is left out: {exc}", file=sys.stderr)
    return found


def _run(args: argparse.Namespace) -> int:
    try:
        import uvicorn

        from carousel_cli.serve.app import create_app
    except ImportError as exc:
        raise CarouselError(
            f"carousel serve needs the serve extra ({exc.name} is missing): .venv/bin/pip install -e '.[serve]'"
        ) from None
    from carousel_env.envkit.family import family_game
    from carousel_env.envkit.replay import read_replay, replay_frames

    print("carousel serve: loading the games and the shipped networks", flush=True)
    replay = None
    if args.replay is not None:
        replay = read_replay(args.replay)
        replay_frames(replay, family_game(replay.game))  # a replay the games refuse fails here, not in the page
    local = args.host == LOCAL_HOST
    app = create_app(shipped_checkpoints(), replay, any_checkpoint=local)
    if not local:
        print(
            f"carousel serve: listening on {args.host}: other machines can reach this server (its pages seat only"
            " the shipped networks, no other checkpoint path)",
            file=sys.stderr,
        )
    where = f"http://{'localhost' if args.host == LOCAL_HOST else args.host}:{args.port}/"
    print(f"carousel serve: open {where} (Ctrl-C stops)", flush=True)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("serve", help="play and watch every game in the browser (a local web app)")
    parser.add_argument(
        "--host",
        default=LOCAL_HOST,
        help="the address to listen on: 127.0.0.1 is this machine only; 0.0.0.0 exposes it to the network, on purpose",
    )
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help="the port")
    parser.add_argument("--replay", default=None, metavar="FILE", help="open this game's replay (a JSON file)")
    parser.set_defaults(func=_run)
