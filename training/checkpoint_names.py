"""Where a checkpoint named on the command line or in a config is, without torch: config
checks and ``--print-config`` use this before any network loads.

A checkpoint is named by a ``.pt`` file, a run directory (its ``latest.pt``) or a shipped
agent's folder (its exported ``model.pt``). Every command says a missing one the same way:
``missing_checkpoint``.
"""

from __future__ import annotations

import os
from pathlib import Path

from carousel_env.core.errors import CarouselError

LATEST = "latest.pt"  # a run directory's checkpoint, rewritten at every save
BEST = "best.pt"  # a run directory's checkpoint of its best evaluation so far (keep_best)
SHIPPED_MODEL = "model.pt"  # a shipped agent is checkpoints/<name>/model.pt
ARGMAX_TAG = " (argmax)"  # after a network's name where it played its most likely actions, not samples
CHECKPOINT_FORMS = f"a .pt file, a run directory or a shipped agent's folder with {SHIPPED_MODEL}"


class CheckpointError(CarouselError):
    """A checkpoint file is missing, unreadable, corrupt or does not fit what it is loaded into."""


def missing_checkpoint(name: str | Path) -> CheckpointError:
    """The one wording of a checkpoint that is not there, in every command."""
    return CheckpointError(f"no checkpoint at '{name}' ({CHECKPOINT_FORMS})")


GUIDED_MARK = "+"  # search@N+CHECKPOINT: a search player guided by a checkpoint's network
SEARCH = "search"


def split_guided(name: str) -> tuple[str, str] | None:
    """``(search name, checkpoint)`` of a guided search player's name (``search+X``,
    ``search@N+X``); None for any other name. The search part is checked by the game."""
    search, mark, network = name.partition(GUIDED_MARK)
    if not mark or not network or search.partition("@")[0] != SEARCH:
        return None
    return search, network


def is_checkpoint_name(name: str) -> bool:
    """Whether ``name`` names a checkpoint rather than a scripted policy: a ``.pt`` file, a
    path (no policy name holds a slash), or a file or folder that is there. A guided search
    player's name (``search@N+CHECKPOINT``) is a policy's."""
    if split_guided(name) is not None:
        return False
    return name.endswith(".pt") or "/" in name or os.sep in name or Path(name).exists()


def checkpoint_file(name: str | Path) -> Path:
    """The file ``name`` means: itself, a run directory's ``latest.pt``, or a shipped agent's
    folder's ``model.pt`` (where it has no ``latest.pt``). It may not exist: see ``find_checkpoint``."""
    path = Path(name)
    if not path.is_dir():
        return path
    return path / SHIPPED_MODEL if (path / SHIPPED_MODEL).exists() and not (path / LATEST).exists() else path / LATEST


def checkpoint_exists(name: str | Path) -> bool:
    return checkpoint_file(name).is_file()


def find_checkpoint(name: str | Path) -> Path:
    """The checkpoint file ``name`` means, or ``missing_checkpoint(name)``."""
    path = checkpoint_file(name)
    if not path.is_file():
        raise missing_checkpoint(name)
    return path
