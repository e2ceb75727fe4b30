"""Conquian's board for the page (``envkit.board``): the faced card (whose it is), the stock
and the dead pile, both seats' melds, cards melded, totals and hand sizes, the observer's
hand; a take's move shows the melds it makes."""

from __future__ import annotations

from typing import Any

from carousel_env.core.cards import card_str
from carousel_env.envkit.board import Board, BoardSpec, Pile, SeatBoard, meld_tokens, text_lines, tokens
from carousel_env.envkit.terminal import observer_of
from carousel_env.games.conquian.decision import ConquianAction
from carousel_env.games.conquian.render import render_text
from carousel_env.games.conquian.rules import CARDS
from carousel_env.games.conquian.state import NO_CARD
from carousel_env.games.conquian.terminal import PASS_WORDS, offer_text

SEAT_LINES = ("Player ", "Your hand", "Faced")  # what the pictures show of the game's text


def view(env: Any, observer: int | None) -> Board:
    state = env.unwrapped.game_state
    me = observer_of(env, observer)
    lines = text_lines(render_text(state, me), SEAT_LINES)
    faced = tokens([state.faced]) if state.faced != NO_CARD and not state.over else ()
    whose = "Upcard" if state.faced_by < 0 else f"Faced (player {state.faced_by})"
    seats = tuple(
        SeatBoard(
            seat,
            f"{state.melded(seat)} melded, total {state.totals[seat]}" + (", dealer" if seat == state.dealer else ""),
            tuple(meld_tokens(m) for m in state.melds[seat]),
            len(state.hands[seat]),
            tokens(state.hands[seat]) if observer in (None, seat) else (),
        )
        for seat in range(2)
    )
    piles = (
        Pile(whose, faced, len(faced)),
        Pile("Stock", (), len(state.stock)),
        Pile("Dead", tokens(state.dead), len(state.dead)),
    )
    return Board("Conquian", lines, piles, (), seats, tokens(state.hands[me]), observer, state.current)


def move_text(env: Any, action: int) -> str:
    state = env.unwrapped.game_state
    if action >= ConquianAction.FIRST_OFFER:
        return offer_text(env, action)
    if action >= ConquianAction.FIRST_DISCARD:
        return f"discard {card_str(CARDS[action - ConquianAction.FIRST_DISCARD])}"
    if action == ConquianAction.FORCE:
        return f"force {card_str(state.faced)} on player {1 - state.current}"
    return PASS_WORDS.get(state.phase, "pass")


def move_melds(env: Any, action: int) -> tuple[tuple[str, ...], ...]:
    if action < ConquianAction.FIRST_OFFER:
        return ()
    offer = env.unwrapped.suggestions[action - ConquianAction.FIRST_OFFER]
    return tuple(meld_tokens(m) for m in offer.arrangement.melds)


BOARD = BoardSpec(view=view, move_text=move_text, move_melds=move_melds)
