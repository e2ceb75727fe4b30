"""Gin Rummy's board for the page (``envkit.board``): the upcard and the stock, the other
hand's size and the cards known of it (taken from the pile; the whole hand once a hand has
ended), the observer's hand and deadwood; a knock's move shows its melds."""

from __future__ import annotations

from typing import Any

from carousel_env.core.cards import card_str
from carousel_env.envkit.board import Board, BoardSpec, Pile, SeatBoard, meld_tokens, tokens
from carousel_env.envkit.terminal import observer_of
from carousel_env.games.gin_rummy import melds as gm
from carousel_env.games.gin_rummy.env import GinAction
from carousel_env.games.gin_rummy.render import result_lines
from carousel_env.games.gin_rummy.terminal import arrangement_text


def _shown(state: Any, seat: int, observer: int | None) -> tuple[str, ...]:
    if observer is None or seat == observer:
        return tokens(state.hand(seat))
    if state.over and state.last_hand is not None:
        return tokens(state.last_hand.hands[seat])
    return tokens(gm.cards_of(state.known[seat]))


def view(env: Any, observer: int | None) -> Board:
    state = env.unwrapped.game_state
    me = observer_of(env, observer)
    lines = [f"Hand {state.hand_index + 1}, {state.phase.value}; dealer player {state.dealer}"]
    lines.append(f"Scores: player 0 {state.scores[0]}, player 1 {state.scores[1]}")
    if state.over and state.last_hand is not None:
        lines += result_lines(state.last_hand)
    upcard = (tokens([state.upcard]) if state.upcard >= 0 and not state.over else ()) or ()
    seats = tuple(
        SeatBoard(
            seat,
            f"score {state.scores[seat]}" + (f", deadwood {gm.deadwood(state.hands[seat])}" if seat == me else ""),
            (),
            bin(state.hands[seat]).count("1"),
            _shown(state, seat, observer),
        )
        for seat in range(2)
    )
    return Board(
        "Gin Rummy",
        tuple(lines),
        (Pile("Upcard", upcard, len(state.discards)), Pile("Stock", (), state.stock_size)),
        (),
        seats,
        tokens(state.hand(me)),
        observer,
        state.current,
    )


FIXED_MOVES = {GinAction.DRAW_STOCK: "draw from the stock", GinAction.PASS: "pass"}


def move_text(env: Any, action: int) -> str:
    raw = env.unwrapped
    if action >= GinAction.FIRST_KNOCK:
        return f"knock: {arrangement_text(raw.knocks[action - GinAction.FIRST_KNOCK][0])}"
    if action >= GinAction.FIRST_DISCARD:
        return f"discard {card_str(action - GinAction.FIRST_DISCARD)}"
    if action == GinAction.TAKE_UPCARD:
        return f"take the upcard {card_str(raw.game_state.upcard)}"
    return FIXED_MOVES[action]


def move_melds(env: Any, action: int) -> tuple[tuple[str, ...], ...]:
    if action < GinAction.FIRST_KNOCK:
        return ()
    arrangement, _ = env.unwrapped.knocks[action - GinAction.FIRST_KNOCK]
    return tuple(meld_tokens(m.cards) for m in arrangement.melds)


BOARD = BoardSpec(view=view, move_text=move_text, move_melds=move_melds)
