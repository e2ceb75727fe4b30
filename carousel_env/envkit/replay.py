"""A whole game as a file, to watch again (``carousel serve --replay FILE``).

A :class:`Replay` is what fixes a game: the game, its env options (the table size among
them), the deal seed, who sat at each seat, and every decision made, in order (the env's
own single-choice steps are not decisions: stepping it again takes them again). Its JSON
form (:meth:`Replay.to_json`, :func:`read_replay`) is checked field by field, and
:func:`replay_frames` steps a new env through it: a decision the env refuses, or a game
that ends before its decisions do or goes on after them, is a :class:`ReplayError` naming
the decision.

Written by ``carousel eval --replays DIR`` and the leaderboard (``training.replays``), and
by the page for a game played there.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from carousel_env.core.errors import CarouselError
from carousel_env.core.registry import GAMES, env_module
from carousel_env.envkit.board import Board
from carousel_env.envkit.episodes import next_decision

FORMAT = "carousel-replay/1"  # the JSON form's name and version


class ReplayError(CarouselError):
    """A replay file or object that is not a replay of this package's games."""


@dataclass(frozen=True)
class Replay:
    """One whole game: ``options`` are the env's keyword arguments (``num_players`` among
    them), ``players`` what sat at each seat (a player's name, a checkpoint, ``you``),
    ``actions`` every decision in order; ``result`` what the game ended with, in words."""

    game: str
    options: Mapping[str, Any]
    seed: int
    players: tuple[str, ...]
    actions: tuple[int, ...]
    result: str = ""

    @property
    def num_players(self) -> int:
        return int(self.options["num_players"])

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "game": self.game,
            "options": dict(self.options),
            "seed": self.seed,
            "players": list(self.players),
            "actions": list(self.actions),
            "result": self.result,
        }

    def write(self, path: str | Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.to_json()) + "\n")
        return path

    @classmethod
    def from_json(cls, data: object, source: str = "the replay") -> Replay:
        """The replay ``data`` (a decoded JSON object) holds; a :class:`ReplayError` naming
        the first field that is missing or wrong."""

        def field(name: str, kind: type | tuple[type, ...]) -> Any:
            if name not in data:
                raise ReplayError(f"{source}: no {name!r} field")
            value = data[name]
            if not isinstance(value, kind) or isinstance(value, bool):
                raise ReplayError(f"{source}: {name!r} has the wrong type ({type(value).__name__})")
            return value

        if not isinstance(data, dict):
            raise ReplayError(f"{source}: not a JSON object")
        if data.get("format") != FORMAT:
            raise ReplayError(f"{source}: format {data.get('format')!r} is not {FORMAT!r}")
        game = field("game", str)
        if game not in GAMES:
            raise ReplayError(f"{source}: unknown game {game!r} (one of {', '.join(GAMES)})")
        options = field("options", dict)
        players = field("players", list)
        actions = field("actions", list)
        num_players = options.get("num_players")
        if not isinstance(num_players, int) or isinstance(num_players, bool) or len(players) != num_players:
            raise ReplayError(f"{source}: 'options' num_players {num_players!r} and {len(players)} 'players' differ")
        if not all(isinstance(p, str) for p in players):
            raise ReplayError(f"{source}: 'players' are not all names")
        if not all(isinstance(a, int) and not isinstance(a, bool) and a >= 0 for a in actions):
            raise ReplayError(f"{source}: 'actions' are not all actions (whole numbers from 0)")
        result = data.get("result", "")
        return cls(game, dict(options), field("seed", int), tuple(players), tuple(actions), str(result))


def read_replay(path: str | Path) -> Replay:
    """The replay in the JSON file ``path``; a :class:`ReplayError` naming what is wrong."""
    path = Path(path)
    try:
        data = json.loads(path.read_text())
    except OSError as exc:
        raise ReplayError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ReplayError(f"{path}: not JSON ({exc})") from None
    return Replay.from_json(data, str(path))


def new_env(replay: Replay) -> Any:
    """The replay's env, dealt: its game and options, reset with its seed."""
    try:
        env = env_module(replay.game).env(**replay.options)
    except (CarouselError, TypeError, ValueError) as exc:
        raise ReplayError(f"the replay's options {dict(replay.options)}: {exc}") from None
    env.reset(seed=replay.seed)
    return env


class Frame(NamedTuple):
    """A replay at one decision: the board (every hand shown), who decides and what
    (``seat`` -1 and ``move`` empty after the last), and what was said since the frame
    before (the moves, the env's single-choice steps, a round's or hand's end)."""

    board: Board
    seat: int
    move: str
    said: tuple[str, ...]


def replay_frames(replay: Replay, family: Any) -> list[Frame]:
    """The replay's frames, one per decision and one at the end, stepped through a new env
    with ``family``'s board and narration (``envkit.family.FamilyGame``)."""
    env = new_env(replay)
    said: list[str] = []
    narrator = family.terminal.narrator(None, said.append)
    narrator.after(env)
    frames = []
    for k, action in enumerate(replay.actions):
        decision = next_decision(env)
        if decision is None:
            raise ReplayError(f"the game is over after {k} of the replay's {len(replay.actions)} decisions")
        seat, mask = decision.seat, decision.action_mask
        if action >= len(mask) or not mask[action]:
            raise ReplayError(f"decision {k + 1}: action {action} is not legal for player {seat}")
        move = family.board.move_text(env, action)
        narrator.flush()
        frames.append(Frame(family.board.view(env, None), seat, move, tuple(said)))
        said.clear()
        narrator.before(env, seat, action)
        env.step(action)
        narrator.after(env)
    if next_decision(env) is not None:
        raise ReplayError(f"the game goes on after the replay's {len(replay.actions)} decisions")
    narrator.flush()
    said.append(family.terminal.game_over(env, None).strip())
    frames.append(Frame(family.board.view(env, None), -1, "", tuple(said)))
    return frames
