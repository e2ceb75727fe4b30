"""The games ``carousel serve`` holds: one :class:`Table` per game being played or watched.

The server holds the game; the page only shows it. A table is made from a :class:`TableRequest`
(the game, its variant or preset, the table size, who sits at each seat: ``you`` or an
agent), checked whole before anything is dealt. A move from the page names the decision it
answers (``turn``: how many decisions the game has had) and an action: a move that is not
the human's to make, answers an older decision, or is not legal is refused with a
:class:`MoveRefused` naming why, and the game is left as it was. Agents move one decision at a
time (:meth:`Table.agent_step`), so the server paces them, pauses them and steps them.

Nothing here knows the web: ``serve.app`` carries these to and from the page as JSON.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from carousel_env.core.errors import CarouselError
from carousel_env.core.registry import GAMES, game_spec
from carousel_env.envkit.board import Board, Move, legal_moves
from carousel_env.envkit.episodes import Decision, next_decision
from carousel_env.envkit.family import family_game
from carousel_env.envkit.replay import Replay

YOU = "you"  # a seat the page's player takes
MAX_SEED = 2**31 - 1


def shown(value: object, limit: int = 40) -> str:
    """A value from the page as an error quotes it: its repr, cut to ``limit`` characters."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


class TableRequest(NamedTuple):
    """A table as the page asks for it: ``variant`` the game's variant or preset (None: its
    default), ``seats`` one entry a seat (``you``, a scripted player's name, a checkpoint)."""

    game: str
    variant: str | None
    seats: tuple[str, ...]
    seed: int


class MoveRefused(CarouselError):
    """A move the table does not take; the game is unchanged."""


def request_from(message: Mapping[str, Any]) -> TableRequest:
    """The :class:`TableRequest` a ``new`` message holds; a CarouselError naming the field
    that is missing or wrong."""
    game = message.get("game")
    if not isinstance(game, str) or game not in GAMES:
        raise CarouselError(f"game: {shown(game)} is not one of {', '.join(GAMES)}")
    spec = game_spec(game)
    variant = message.get("variant")
    if variant is not None and variant not in spec.variants:
        raise CarouselError(
            f"variant: {shown(variant)} is not one of {spec.title}'s ({', '.join(spec.variants) or 'none'})"
        )
    seats = message.get("seats")
    if not isinstance(seats, list) or not all(isinstance(s, str) and s.strip() for s in seats):
        raise CarouselError("seats: a list with a name for each seat (you, a player, a checkpoint)")
    if not spec.min_players <= len(seats) <= spec.max_players:
        raise CarouselError(f"seats: {spec.title} seats {spec.min_players} to {spec.max_players}, got {len(seats)}")
    if sum(s == YOU for s in seats) > 1:
        raise CarouselError("seats: you may take one seat (the others are agents)")
    seed = message.get("seed", 0)
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed <= MAX_SEED:
        raise CarouselError(f"seed: a whole number from 0 to {MAX_SEED}, got {shown(seed)}")
    return TableRequest(game, variant, tuple(s.strip() for s in seats), seed)


class View(NamedTuple):
    """What the page shows of a table: the board as the human sees it (every hand, when
    watching), the human's legal moves when it is theirs to decide, what was said so far,
    the decisions made (``turn``), who sits where, and whether the game is over."""

    board: Board
    moves: tuple[Move, ...]
    said: tuple[str, ...]
    turn: int
    seats: tuple[str, ...]
    you: int | None
    over: bool


class Table:
    """One game: its env, its agents by seat, the human's seat (None: watched), the
    decisions made and what was said."""

    def __init__(self, request: TableRequest) -> None:
        import carousel_env
        from carousel_cli.play import game_options
        from training.envs import layout_of
        from training.policies import load_policy

        self.request = request
        game, seats = request.game, request.seats
        self.family = family_game(game)
        # The env's keyword arguments, as a replay of this game names them.
        self.options = game_options(game, len(seats), variant=request.variant)
        self.env = carousel_env.env(game=game, **self.options)
        self.you = seats.index(YOU) if YOU in seats else None
        layout = layout_of(self.env)
        self.agents = {
            seat: load_policy(name, layout, self.request.seed + seat, game)
            for seat, name in enumerate(seats)
            if seat != self.you
        }
        self.family.compile_ahead({}, False)
        self.env.reset(seed=self.request.seed)
        self.actions: list[int] = []
        self.said: list[str] = []
        self.lock = threading.Lock()  # the server's threads step one table one decision at a time
        self.over_said = False  # the game's last line said
        self.narrator = self.family.terminal.narrator(self.you, self._say)
        self.narrator.after(self.env)
        self._finish_if_over()

    def _say(self, line: str) -> None:
        self.said.extend(part for part in line.strip("\n").split("\n") if part)

    def _finish_if_over(self) -> None:
        if next_decision(self.env) is None and not self.over_said:
            self.narrator.flush()
            self._say(self.family.terminal.game_over(self.env, self.you))
            self.over_said = True

    @property
    def turn(self) -> int:
        return len(self.actions)

    def to_act(self) -> int | None:
        """The seat that must decide, None once the game is over."""
        with self.lock:  # finding it may step past finished seats
            decision = next_decision(self.env)
            return None if decision is None else decision.seat

    def agent_to_act(self) -> bool:
        seat = self.to_act()
        return seat is not None and seat != self.you

    def _step(self, seat: int, action: int, page_line: str | None = None) -> None:
        said = len(self.said)
        self.narrator.before(self.env, seat, action)
        if page_line is not None and len(self.said) == said:  # the narrator says a few of your moves (a knock) itself
            self._say(page_line)
        self.env.step(action)
        self.actions.append(action)
        self.narrator.after(self.env)
        self._finish_if_over()

    def move(self, action: object, turn: object) -> None:
        """The human's ``action`` at decision ``turn``; :class:`MoveRefused` (the game
        unchanged) when it is not theirs, not this decision's or not legal."""
        with self.lock:
            decision = next_decision(self.env)
            if decision is None:
                raise MoveRefused("the game is over")
            if self.you is None or decision.seat != self.you:
                raise MoveRefused(f"it is player {decision.seat}'s decision, not yours")
            if turn != self.turn:
                raise MoveRefused(f"that move answers decision {shown(turn)}; the game is at decision {self.turn}")
            if not isinstance(action, int) or isinstance(action, bool):
                raise MoveRefused(f"action: a whole number, got {shown(action)}")
            if not 0 <= action < len(decision.action_mask) or not decision.action_mask[action]:
                legal = ", ".join(m.text for m in self._moves(decision))
                raise MoveRefused(f"action {action} is not legal here (legal: {legal})")
            # The narration leaves most of your own moves unsaid (you typed them); the page says them.
            words = self.family.board.move_text(self.env, action)
            self._step(decision.seat, action, f"player {decision.seat} (you): {words}")

    def agent_step(self) -> bool:
        """One agent's decision, if an agent is to decide; whether one was made."""
        with self.lock:
            decision = next_decision(self.env)
            if decision is None or decision.seat == self.you:
                return False
            seat = decision.seat
            action = self.family.act(self.agents[seat], self.env, seat, decision.observation, decision.action_mask)
            self._step(seat, int(action))
            return True

    def _moves(self, decision: Decision) -> tuple[Move, ...]:
        return legal_moves(self.family.board, self.family.terminal.typed, self.env, decision.action_mask)

    def view(self) -> View:
        with self.lock:
            decision = next_decision(self.env)
            mine = decision is not None and decision.seat == self.you
            return View(
                self.family.board.view(self.env, self.you),
                self._moves(decision) if mine else (),
                tuple(self.said),
                self.turn,
                self.request.seats,
                self.you,
                decision is None,
            )

    def replay(self) -> Replay:
        """The game so far as a replay (whole once the game is over)."""
        with self.lock:
            result = self.said[-1] if next_decision(self.env) is None and self.said else ""
            request = self.request
            return Replay(request.game, dict(self.options), request.seed, request.seats, tuple(self.actions), result)


def catalog(checkpoints: Sequence[tuple[str, str]]) -> list[dict[str, Any]]:
    """Every game for the page's choices: its name, title, table sizes, variants (the first
    its default), scripted players and the ``checkpoints`` (``(path, game)``) that play it."""
    out = []
    for name, spec in GAMES.items():
        family = family_game(name)
        default = next((d.default for d in family.options_doc if d.key == family.variant_key), None)
        variants = sorted(spec.variants, key=lambda v: v != default)
        out.append(
            {
                "game": name,
                "title": spec.title,
                "min_players": spec.min_players,
                "max_players": spec.max_players,
                "variants": variants,
                "players": list(family.players),
                "checkpoints": [path for path, game in checkpoints if game == name],
            }
        )
    return out
