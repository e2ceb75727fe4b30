"""Carioca as text (``ansi``) and as a picture (``rgb_array``), from one seat's view."""

from __future__ import annotations

import numpy as np

from carousel_env.core.cards import card_str, hand_str
from carousel_env.core.text import plural
from carousel_env.games.carioca.engine import CariocaState, RoundEnd
from carousel_env.games.carioca.rules import NUM_ROUNDS

WIDTH, HEIGHT = 760, 420


def _melds(state: CariocaState, seat: int) -> str:
    return " | ".join(str(m) for m in state.melds[seat]) or "-"


def render_text(state: CariocaState, observer: int) -> str:
    """What ``observer`` sees: the round and contract, the pile's top, every player's melds
    and hand size, the scores, own hand (and a round's end)."""
    to_act = f"player {state.current} to act" if state.current >= 0 else "nobody to act"
    top = card_str(state.top) if state.discards and not state.over else "-"
    lines = [
        f"Carioca, round {state.round + 1} of {NUM_ROUNDS} ({state.contract}), {state.phase.value}, {to_act};"
        f" dealer player {state.dealer}",
        f"Pile top: {top} ({plural(len(state.discards), 'card')})   stock: {len(state.stock)}"
        + ("   (reshuffled)" if state.reshuffled else ""),
    ]
    for seat in range(state.num_players):
        you = " (you)" if seat == observer else ""
        down = "down" if state.down[seat] else "not down"
        lines.append(
            f"Player {seat}{you}: {plural(len(state.hands[seat]), 'card')}, {down}, score {state.scores[seat]};"
            f" melds {_melds(state, seat)}"
        )
    lines.append(f"Your hand: {hand_str(state.hands[observer])}")
    last = state.last_round
    if state.over and last is not None:
        how = {RoundEnd.OUT: f"player {last.out} went out", RoundEnd.PILE_LIMIT: "the pile draw limit was reached"}.get(
            last.end, "the stock ran out"
        )
        penalties = ", ".join(f"player {s} {p}" for s, p in enumerate(last.penalties))
        lines.append(f"Round {last.round} over: {how}; penalties {penalties}")
    result = state.game_result
    if result is not None:
        winners = " and ".join(f"player {s}" for s in result.winners)
        lines.append(f"Game over: totals {', '.join(map(str, result.totals))}; lowest: {winners}")
    return "\n".join(lines)


def draw_state(state: CariocaState, observer: int, last_step=None, auto_actions=()) -> np.ndarray:
    """An ``(HEIGHT, WIDTH, 3)`` uint8 picture of ``state`` as ``observer`` sees it."""
    from carousel_env.envkit.drawing import SeatRow, draw_table  # Pillow is only needed here

    seats = [
        SeatRow(
            f"Player {seat}{' (you)' if seat == observer else ''}: {plural(len(state.hands[seat]), 'card')},"
            f" score {state.scores[seat]}",
            [meld.units for meld in state.melds[seat]],
        )
        for seat in range(state.num_players)
    ]
    return draw_table(
        (WIDTH, HEIGHT),
        f"Carioca  round {state.round + 1}: {state.contract}  stock {len(state.stock)}",
        None if last_step is None else f"Last: {last_step[0]} {last_step[2]}",
        state.top if state.discards and not state.over else None,
        seats,
        f"Player {observer}'s hand",
        state.hands[observer],
    )
