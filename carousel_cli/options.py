"""Command-line pieces several commands share: the games' options, a new run's directory, and
the progress lines of a long run of games."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

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
