"""Kaluki's (and plain Rummy's) board for the page (``envkit.board``): the pile's top and the
stock, every seat's melds (table jokers with what they declare), whether it has opened, its
total and hand size, the cards every player saw go into its hand (``KalukiState.known``), the
observer's hand; an offer's move shows the melds it lays."""

from __future__ import annotations

from typing import Any

from carousel_env.core.cards import card_str
from carousel_env.envkit.board import Board, BoardSpec, Pile, SeatBoard, meld_tokens, text_lines, tokens
from carousel_env.envkit.terminal import observer_of
from carousel_env.games.kaluki.env import KalukiAction, engine_moves
from carousel_env.games.kaluki.render import game_name, render_text
from carousel_env.games.kaluki.terminal import offer_text

SEAT_LINES = ("Player ", "Your hand", "Pile top")  # what the pictures show of the game's text


def _status(state: Any, seat: int) -> str:
    if not state.in_play[seat]:
        return f"out of the game, total {state.totals[seat]}"
    return f"{'opened' if state.opened[seat] else 'not opened'}, total {state.totals[seat]}"


def view(env: Any, observer: int | None) -> Board:
    state = env.unwrapped.game_state
    me = observer_of(env, observer)
    lines = text_lines(render_text(state, me), SEAT_LINES)
    top = tokens([state.top]) if state.discards and not state.over else ()
    seats = tuple(
        SeatBoard(
            seat,
            _status(state, seat),
            tuple(meld_tokens(m.units) for m in state.melds[seat]),
            len(state.hands[seat]),
            tokens(state.hands[seat] if observer in (None, seat) else state.known[seat]),
        )
        for seat in range(state.num_players)
    )
    piles = (Pile("Pile", top, len(state.discards)), Pile("Stock", (), len(state.stock)))
    return Board(game_name(state), lines, piles, (), seats, tokens(state.hands[me]), observer, state.current)


def move_text(env: Any, action: int) -> str:
    state = env.unwrapped.game_state
    if action >= KalukiAction.FIRST_OFFER:
        return offer_text(env, action)
    if action >= KalukiAction.FIRST_DISCARD:
        return f"discard {card_str(action - KalukiAction.FIRST_DISCARD)}"
    if action == KalukiAction.TAKE_DISCARD:
        return f"take the pile's top {card_str(state.top)}"
    return "draw from the stock"


def move_melds(env: Any, action: int) -> tuple[tuple[str, ...], ...]:
    if action < KalukiAction.FIRST_OFFER:
        return ()
    raw = env.unwrapped
    moves = engine_moves(raw.game_state, action, raw.suggestions)
    return tuple(meld_tokens(meld.units) for move in moves for meld in move.melds)


BOARD = BoardSpec(view=view, move_text=move_text, move_melds=move_melds)
