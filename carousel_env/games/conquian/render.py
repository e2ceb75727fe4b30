"""Conquian as text (``ansi``) and as a picture (``rgb_array``), from one seat's view."""

from __future__ import annotations

import numpy as np

from carousel_env.core.cards import card_str, hand_str
from carousel_env.core.text import plural
from carousel_env.games.conquian.melds import melds_str
from carousel_env.games.conquian.state import NO_CARD, ConquianState, HandEnd

WIDTH, HEIGHT = 900, 480


def _seat_line(state: ConquianState, seat: int, observer: int) -> str:
    you = " (you)" if seat == observer else ""
    dealer = ", dealer" if seat == state.dealer else ""
    cards = plural(len(state.hands[seat]), "card")
    melded = state.melded(seat)
    melds = melds_str(state.melds[seat]) or "-"
    return f"Player {seat}{you}{dealer}: {cards}, {melded} melded, total {state.totals[seat]}; melds {melds}"


def _faced(state: ConquianState) -> str:
    if state.faced == NO_CARD or state.over:
        return "-"
    if state.faced_by < 0:
        return f"{card_str(state.faced)} (the upcard)"
    return f"{card_str(state.faced)} (from player {state.faced_by})"


def render_text(state: ConquianState, observer: int) -> str:
    """What ``observer`` sees: the hand's number, the faced card, the stock and the dead pile,
    both players' melds, hand sizes and totals, own hand (and a hand's end, a game's end)."""
    to_act = f"player {state.current} to act" if state.current >= 0 else "nobody to act"
    lines = [
        f"Conquian, hand {state.hand_number + 1}, {state.phase.value}, {to_act}",
        f"Faced: {_faced(state)}   stock: {len(state.stock)}   dead: {hand_str(state.dead) or '-'}",
        *(_seat_line(state, seat, observer) for seat in range(2)),
        f"Your hand: {hand_str(state.hands[observer]) or '-'}",
    ]
    last = state.last_hand
    if state.over and last is not None:
        how = f"player {last.winner} melded 11" if last.end is HandEnd.OUT else "a tableau (the stock ran out)"
        scores = ", ".join(f"player {s} {p:+d}" for s, p in enumerate(last.scores))
        lines.append(f"Hand {last.number} over: {how}; scores {scores}")
    result = state.game_result
    if result is not None:
        winners = " and ".join(f"player {s}" for s in result.winners) or "nobody"
        lines.append(f"Game over: totals {', '.join(map(str, result.totals))}; won by {winners}")
    return "\n".join(lines)


def draw_state(state: ConquianState, observer: int, last_step=None, auto_actions=()) -> np.ndarray:
    """An ``(HEIGHT, WIDTH, 3)`` uint8 picture of ``state`` as ``observer`` sees it."""
    from carousel_env.envkit.drawing import SeatRow, draw_table  # Pillow is only needed here

    seats = [SeatRow(_seat_line(state, seat, observer).split(";")[0], list(state.melds[seat])) for seat in range(2)]
    return draw_table(
        (WIDTH, HEIGHT),
        f"Conquian  hand {state.hand_number + 1}  stock {len(state.stock)}",
        None if last_step is None else f"Last: {last_step[0]} {last_step[2]}",
        state.faced if state.faced != NO_CARD and not state.over else None,
        seats,
        f"Player {observer}'s hand",
        state.hands[observer],
    )
