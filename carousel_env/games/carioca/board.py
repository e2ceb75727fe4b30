"""Carioca's board for the page (``envkit.board``): the pile's top and the stock, every
seat's melds, whether it is down, its score and hand size, the observer's hand; going down
shows the melds it lays."""

from __future__ import annotations

from typing import Any

from carousel_env.core.cards import card_str
from carousel_env.envkit.board import Board, BoardSpec, Pile, SeatBoard, meld_tokens, text_lines, tokens
from carousel_env.envkit.terminal import observer_of
from carousel_env.games.carioca.env import CariocaAction, layoff_of
from carousel_env.games.carioca.render import render_text

SEAT_LINES = ("Player ", "Your hand", "Pile top")  # what the pictures show of the game's text


def view(env: Any, observer: int | None) -> Board:
    state = env.unwrapped.game_state
    me = observer_of(env, observer)
    lines = text_lines(render_text(state, me), SEAT_LINES)
    top = tokens([state.top]) if state.discards and not state.over else ()
    seats = tuple(
        SeatBoard(
            seat,
            f"{'down' if state.down[seat] else 'not down'}, score {state.scores[seat]}",
            tuple(meld_tokens(m.units) for m in state.melds[seat]),
            len(state.hands[seat]),
            tokens(state.hands[seat]) if observer in (None, seat) else (),
        )
        for seat in range(state.num_players)
    )
    piles = (Pile("Pile", top, len(state.discards)), Pile("Stock", (), len(state.stock)))
    return Board("Carioca", lines, piles, (), seats, tokens(state.hands[me]), observer, state.current)


def move_text(env: Any, action: int) -> str:
    raw = env.unwrapped
    state = raw.game_state
    if action >= CariocaAction.FIRST_GO_DOWN:
        return "go down: " + " | ".join(str(m) for m in raw.suggestions[action - CariocaAction.FIRST_GO_DOWN])
    if action >= CariocaAction.FIRST_LAY_OFF:
        layoff = layoff_of(action, state.current, state.num_players)
        return f"lay off {card_str(layoff.card)} on player {layoff.seat}'s {state.melds[layoff.seat][layoff.meld]}"
    if action >= CariocaAction.FIRST_DISCARD:
        return f"discard {card_str(action - CariocaAction.FIRST_DISCARD)}"
    if action == CariocaAction.TAKE_DISCARD:
        return f"take the pile's top {card_str(state.top)}"
    return "draw from the stock"


def move_melds(env: Any, action: int) -> tuple[tuple[str, ...], ...]:
    if action < CariocaAction.FIRST_GO_DOWN:
        return ()
    return tuple(meld_tokens(m.units) for m in env.unwrapped.suggestions[action - CariocaAction.FIRST_GO_DOWN])


BOARD = BoardSpec(view=view, move_text=move_text, move_melds=move_melds)
