"""Kaluki as text (``ansi``) and as a picture (``rgb_array``), from one seat's view."""

from __future__ import annotations

import numpy as np

from carousel_env.core.cards import card_str, hand_str
from carousel_env.core.text import plural
from carousel_env.games.kaluki.state import HandEnd, KalukiState

WIDTH, HEIGHT = 900, 560
HAND_ENDS = {HandEnd.STOCK: "the stock ran out", HandEnd.PILE_LIMIT: "the pile was taken from too often"}


def game_name(state: KalukiState) -> str:
    """Plain Rummy's preset has no opening requirement and one deck; the rest is Kaluki."""
    return "Rummy" if state.rules.decks == 1 and state.rules.jokers == 0 else "Kaluki"


def _seat_line(state: KalukiState, seat: int, observer: int) -> str:
    you = " (you)" if seat == observer else ""
    if not state.in_play[seat]:
        return f"Player {seat}{you}: out of the game, total {state.totals[seat]}"
    opened = "opened" if state.opened[seat] else "not opened"
    melds = " | ".join(str(m) for m in state.melds[seat]) or "-"
    cards = plural(len(state.hands[seat]), "card")
    known = f", known to hold {hand_str(state.known[seat])}" if state.known[seat] else ""
    return f"Player {seat}{you}: {cards}{known}, {opened}, total {state.totals[seat]}; melds {melds}"


def render_text(state: KalukiState, observer: int) -> str:
    """What ``observer`` sees: the hand's number, the pile's top, every player's melds, hand
    size, the cards it is known to hold (taken from the pile, jokers won) and total, own hand
    (and a hand's end, a game's end)."""
    to_act = f"player {state.current} to act" if state.current >= 0 else "nobody to act"
    top = card_str(state.top) if state.discards and not state.over else "-"
    opening = f"opening {state.rules.opening}" if state.rules.opening else "no opening requirement"
    lines = [
        f"{game_name(state)}, hand {state.hand_number + 1} ({opening}), {state.phase.value}, {to_act};"
        f" dealer player {state.dealer}",
        f"Pile top: {top} ({plural(len(state.discards), 'card')})   stock: {len(state.stock)}",
        *(_seat_line(state, seat, observer) for seat in range(state.num_players)),
        f"Your hand: {hand_str(state.hands[observer])}",
    ]
    last = state.last_hand
    if state.over and last is not None:
        how = f"player {last.out} went out" if last.out >= 0 else HAND_ENDS.get(last.end, last.end.value)
        scores = ", ".join(f"player {s} {p:+d}" for s, p in enumerate(last.scores))
        lines.append(f"Hand {last.number} over: {how}; scores {scores}")
    result = state.game_result
    if result is not None:
        winners = " and ".join(f"player {s}" for s in result.winners) or "nobody"
        lines.append(f"Game over: totals {', '.join(map(str, result.totals))}; won by {winners}")
    return "\n".join(lines)


def draw_state(state: KalukiState, observer: int, last_step=None, auto_actions=()) -> np.ndarray:
    """An ``(HEIGHT, WIDTH, 3)`` uint8 picture of ``state`` as ``observer`` sees it."""
    from carousel_env.envkit.drawing import SeatRow, draw_table  # Pillow is only needed here

    seats = [
        SeatRow(_seat_line(state, seat, observer).split(";")[0], [meld.units for meld in state.melds[seat]])
        for seat in range(state.num_players)
    ]
    return draw_table(
        (WIDTH, HEIGHT),
        f"{game_name(state)}  hand {state.hand_number + 1}  stock {len(state.stock)}",
        None if last_step is None else f"Last: {last_step[0]} {last_step[2]}",
        state.top if state.discards and not state.over else None,
        seats,
        f"Player {observer}'s hand",
        state.hands[observer],
    )
