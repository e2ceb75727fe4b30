"""Carousel's board for the page (``envkit.board``): the table every seat plays on, each
hand's size (every hand at a round's end), the stock; a play's move shows the table it
would make, its cards added."""

from __future__ import annotations

from typing import Any

from carousel_env.core.cards import hand_points, hand_str
from carousel_env.envkit.board import Board, BoardSpec, Pile, SeatBoard, meld_tokens, text_lines, tokens
from carousel_env.envkit.terminal import observer_of
from carousel_env.games.carousel.engine.game import Phase
from carousel_env.games.carousel.engine.melds import is_valid_meld, sort_meld
from carousel_env.games.carousel.envs.aec import DRAW_AGAIN, END_TURN, FIRST_SUGGESTION, KNOCK
from carousel_env.games.carousel.envs.render_text import render_text

PICTURED = ("  ", "> ", "Table")  # the game's text lines that the cards show: the table, the hands
FIXED_MOVES = {DRAW_AGAIN: "draw again", KNOCK: "knock", END_TURN: "end the turn"}


def _melds(table: Any, rules: Any) -> tuple[tuple[str, ...], ...]:
    return tuple(meld_tokens(sort_meld(m, rules) if is_valid_meld(m, rules) else m) for m in table)


def view(env: Any, observer: int | None) -> Board:
    state = env.unwrapped.game_state
    me = observer_of(env, observer)
    ended = state.phase in (Phase.ROUND_OVER, Phase.GAME_OVER)
    lines = text_lines(render_text(state, observer=me), PICTURED)
    seats = tuple(
        SeatBoard(
            seat,
            f"score {state.scores[seat]}, rounds won {state.rounds_won[seat]}"
            + (f", hand {hand_points(state.hands[seat])} pts" if seat == me or observer is None or ended else ""),
            (),
            len(state.hands[seat]),
            tokens(state.hands[seat]) if seat == me or observer is None or ended else (),
        )
        for seat in range(state.num_players)
    )
    return Board(
        "Carousel",
        tuple(lines),
        (Pile("Stock", (), len(state.stock)),),
        _melds(state.table, state.rules),
        seats,
        tokens(state.hands[me]),
        observer,
        -1 if state.phase is Phase.GAME_OVER else state.current,
    )


def move_text(env: Any, action: int) -> str:
    if action >= FIRST_SUGGESTION:
        suggestion = env.unwrapped.suggestions[action - FIRST_SUGGESTION]
        return f"play {hand_str(suggestion.play.added)} (-{suggestion.points} pts)"
    return FIXED_MOVES[action]


def move_melds(env: Any, action: int) -> tuple[tuple[str, ...], ...]:
    if action < FIRST_SUGGESTION:
        return ()
    raw = env.unwrapped
    return _melds(raw.suggestions[action - FIRST_SUGGESTION].play.table, raw.game_state.rules)


BOARD = BoardSpec(view=view, move_text=move_text, move_melds=move_melds)
