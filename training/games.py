"""Training's view of a game: the registered game's family contract
(``carousel_env.envkit.family.FamilyGame``, built in the game's own folder), and the names
of the players training adds to a game's scripted ones.

Training drives every game the same way (PettingZoo's AEC API, or the game's compiled
vector env) and reads what differs only from the contract. The one kind of player a game
cannot build alone is a search guided by a trained network (``search@N+CHECKPOINT``, where
the game declares a ``guided_search``): its name is checked here, its network loaded by
``training.policies``.
"""

from __future__ import annotations

from carousel_env.core.registry import DEFAULT_GAME
from carousel_env.envkit.family import EnvKeyError, FamilyGame, family_game
from training.checkpoint_names import GUIDED_MARK, CheckpointError, checkpoint_exists, missing_checkpoint, split_guided

__all__ = [
    "EnvKeyError",
    "FamilyGame",
    "is_player_name",
    "player_names",
    "training_game",
    "unknown_player",
]


def training_game(name: str = DEFAULT_GAME) -> FamilyGame:
    """The registered game ``name``'s family contract (an ``UnknownGame`` error names the games)."""
    return family_game(name)


def player_names(game: FamilyGame) -> tuple[str, ...]:
    """The names ``game``'s players go by, for messages: its scripted players, ``search@N``
    and, where it has one, the guided search."""
    guided = (f"search@N{GUIDED_MARK}CHECKPOINT",) if game.guided_search is not None else ()
    return (*game.players, "search@N", *guided)


def is_player_name(game: FamilyGame, name: str) -> bool:
    """Whether ``name`` is one of ``game``'s players: a scripted one, or a guided search
    whose checkpoint is there."""
    guided = split_guided(name)
    if guided is None:
        return game.is_player(name)
    return game.guided_search is not None and game.is_player(guided[0]) and checkpoint_exists(guided[1])


def unknown_player(game: FamilyGame, name: str, also_not: str = "") -> Exception:
    """The error for a name that is none of ``game``'s players (``also_not``: what else the
    name was tried as); a guided search's missing checkpoint is named as such."""
    guided = split_guided(name)
    if guided is not None and game.guided_search is not None and game.is_player(guided[0]):
        return CheckpointError(f"guided search player {name!r}: {missing_checkpoint(guided[1])}")
    return game.unknown_player(name, also_not)
