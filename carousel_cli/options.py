"""Command-line pieces several commands share: the games' options, the torch threads the
networks play on, a new run's directory, and the progress lines of a long run of games."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from carousel_env.core.errors import CarouselError
from carousel_env.core.registry import GAMES, variants_text
from carousel_env.core.text import plural


def game_options(p: argparse.ArgumentParser, more: str = "") -> None:
    """``--game`` and ``--variant``, for the commands that play games between agents."""
    p.add_argument(
        "--game",
        choices=sorted(GAMES),
        default=None,
        help=f"the game (default: the checkpoint's own, else carousel){more}",
    )
    p.add_argument(
        "--variant",
        default=None,
        help=f"the rules, by game ({variants_text()}) (default: the checkpoint's own, else the game's first)",
    )


def torch_threads_option(p: argparse.ArgumentParser) -> None:
    """``--torch-threads``, for the commands whose networks play games in this process."""
    p.add_argument(
        "--torch-threads",
        type=int,
        default=1,
        help="torch threads the networks decide on in this process: a network deciding a few games at a time "
        "gains nothing from more, and more fight any other job for the cores",
    )


def set_torch_threads(args: argparse.Namespace) -> None:
    """Apply ``--torch-threads`` (a bad count is named before any game is played)."""
    if args.torch_threads < 1:
        raise CarouselError(f"--torch-threads must be at least 1, got {args.torch_threads}")
    import torch

    torch.set_num_threads(args.torch_threads)


def new_run_dir(args: argparse.Namespace, exp_name: str) -> Path:
    """The run directory of a new run (``--out``, or ``runs/<exp_name>``). One that already
    holds a run is refused, naming ``--resume`` and ``--overwrite``; with ``--overwrite`` it is
    emptied first, so that no checkpoint or TensorBoard log of the old run is left beside the new."""
    import shutil

    from training.config import ConfigError

    out = Path(args.out) if args.out else Path("runs") / exp_name
    if out.is_dir() and any(out.iterdir()):
        if not args.overwrite:
            raise ConfigError(
                f"{out} already holds a run: continue it with --resume, or start over with --overwrite"
                " (which deletes it first)"
            )
        print(f"--overwrite: deleting the run in {out} to start over", flush=True)
        shutil.rmtree(out)
    return out


class GamesProgress:
    """``progress(done, total)`` for a long run of games: a line on stderr at each tenth of
    them, once ``quiet_s`` seconds have passed (a run shorter than that prints nothing)."""

    def __init__(self, command: str, quiet_s: float = 10.0) -> None:
        self.command, self.quiet_s = command, quiet_s
        self.started = time.perf_counter()
        self.next_tenth = 1

    def __call__(self, done: int, total: int) -> None:
        if done * 10 < self.next_tenth * total or done == total:
            return
        self.next_tenth = done * 10 // total + 1
        elapsed = time.perf_counter() - self.started
        if elapsed >= self.quiet_s:
            print(
                f"{self.command}: {done:,} of {plural(total, 'game')} played ({elapsed:.0f} s)",
                file=sys.stderr,
                flush=True,
            )
