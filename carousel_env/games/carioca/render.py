"""Carioca as text (``ansi``) and as a picture (``rgb_array``), from one seat's view."""

from __future__ import annotations

import numpy as np

from carousel_env.core.cards import JOKER, card_str, face, hand_str, is_table_joker, unit_str
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
    from PIL import Image, ImageDraw  # Pillow is only needed here

    from carousel_env.envkit.drawing import CARD_H, CARD_W, FELT, GAP, JOKER_INK, draw_card, font, ink

    image = Image.new("RGB", (WIDTH, HEIGHT), FELT)
    draw = ImageDraw.Draw(image)
    text_font = font()
    header = f"Carioca  round {state.round + 1}: {state.contract}  stock {len(state.stock)}"
    draw.text((10, 8), header, fill="white", font=text_font)
    if last_step is not None:
        draw.text((10, 24), f"Last: {last_step[0]} {last_step[2]}"[:120], fill=(230, 230, 160), font=text_font)
    if state.discards and not state.over:
        draw.text((WIDTH - 130, 8), "Pile", fill="white", font=text_font)
        draw_card(draw, WIDTH - 90, 6, card_str(state.top), _ink(state.top, ink, JOKER_INK), text_font)
    y = 56
    for seat in range(state.num_players):
        you = " (you)" if seat == observer else ""
        label = f"Player {seat}{you}: {plural(len(state.hands[seat]), 'card')}, score {state.scores[seat]}"
        draw.text((10, y), label, fill="white", font=text_font)
        x = 10
        for meld in state.melds[seat]:
            for unit in meld.units:
                card = face(unit)
                joker = is_table_joker(unit)
                draw_card(draw, x, y + 14, unit_str(unit)[3:] if joker else card_str(card), ink(card), text_font, joker)
                x += CARD_W // 2 + 2
            x += CARD_W + GAP
        y += CARD_H + 24
    hy = HEIGHT - CARD_H - 12
    draw.text((10, hy - 16), f"Player {observer}'s hand", fill="white", font=text_font)
    x = 10
    for card in state.hands[observer]:
        draw_card(draw, x, hy, card_str(card), _ink(card, ink, JOKER_INK), text_font)
        x += CARD_W + GAP
    return np.asarray(image, dtype=np.uint8)


def _ink(card: int, ink, joker_ink) -> tuple:
    return joker_ink if card == JOKER else ink(card)
