"""Command-line pieces several commands share: the games' options, and a new run's directory."""

from __future__ import annotations

import argparse
from pathlib import Path

from carousel_env.core.registry import GAMES, variants_text


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
