"""Gin Rummy as text (``ansi``) and as a picture (``rgb_array``), from one seat's view."""

from __future__ import annotations

import numpy as np

from carousel_env.core.cards import card_str, hand_str
from carousel_env.core.text import plural
from carousel_env.games.gin_rummy import melds as gm
from carousel_env.games.gin_rummy.engine import GinState, HandResult

WIDTH, HEIGHT = 640, 300


def result_lines(result: HandResult) -> list[str]:
    lines = [f"Hand over ({result.end.value}): points {result.points[0]} - {result.points[1]}"]
    if result.arrangement is not None:
        a, answer = result.arrangement, result.layoffs
        dead = hand_str(a.deadwood_cards(gm.mask_of(result.hands[result.knocker]) | 1 << a.discard))
        melds = " | ".join(str(m) for m in a.melds) or "none"
        lines.append(f"  player {result.knocker} knocked: {melds}; deadwood {dead or '-'} ({a.deadwood})")
        laid = " ".join(card_str(c) for c, _ in answer.laid_off) or "none"
        own = " | ".join(str(m) for m in answer.melds) or "none"
        undercut = ", undercut" if result.undercut else ""
        lines.append(
            f"  player {1 - result.knocker} laid off {laid}; melds {own}; deadwood {answer.deadwood}{undercut}"
        )
    return lines


def render_text(state: GinState, observer: int) -> str:
    """What ``observer`` sees: own hand, the upcard, the stock, the scores (and a hand's end)."""
    opp = 1 - observer
    to_act = f"player {state.current} to act" if state.current >= 0 else "nobody to act"
    lines = [
        f"Gin Rummy, hand {state.hand_index + 1}, {state.phase.value}, {to_act}; dealer player {state.dealer}",
        f"Scores: player 0 {state.scores[0]}, player 1 {state.scores[1]}",
        f"Upcard: {card_str(state.upcard) if state.upcard >= 0 and not state.over else '-'}"
        f"   stock: {state.stock_size}   pile: {len(state.discards)}",
        f"Player {opp}: {plural(bin(state.hands[opp]).count('1'), 'card')}"
        + (f", known {hand_str(gm.cards_of(state.known[opp]))}" if state.known[opp] else ""),
        f"Player {observer} (you): {hand_str(state.hand(observer))}",
    ]
    if state.over and state.last_hand is not None:
        lines += result_lines(state.last_hand)
    if state.game_result is not None:
        g = state.game_result
        lines.append(f"Game over: totals {g.totals[0]} - {g.totals[1]} (bonuses {g.bonuses[0]}, {g.bonuses[1]})")
    return "\n".join(lines)


def draw_state(state: GinState, observer: int, last_step=None, auto_actions=()) -> np.ndarray:
    """An ``(HEIGHT, WIDTH, 3)`` uint8 picture of ``state`` as ``observer`` sees it."""
    from PIL import Image, ImageDraw  # Pillow is only needed here

    from carousel_env.envkit.drawing import CARD_H, CARD_W, FELT, GAP, draw_card, font, ink

    image = Image.new("RGB", (WIDTH, HEIGHT), FELT)
    draw = ImageDraw.Draw(image)
    text_font = font()
    scores = f"scores {state.scores[0]} - {state.scores[1]}"
    header = f"Gin Rummy  hand {state.hand_index + 1}  {scores}  stock {state.stock_size}"
    draw.text((10, 8), header, fill="white", font=text_font)
    if last_step is not None:
        draw.text((10, 24), f"Last: {last_step[0]} {last_step[2]}"[:100], fill=(230, 230, 160), font=text_font)
    opp = 1 - observer
    draw.text(
        (10, 50), f"Player {opp}: {plural(bin(state.hands[opp]).count('1'), 'card')}", fill="white", font=text_font
    )
    x = 10
    shown = state.last_hand.hands[opp] if state.over and state.last_hand else gm.cards_of(state.known[opp])
    for card in shown:
        draw_card(draw, x, 66, card_str(card), ink(card), text_font)
        x += CARD_W + GAP
    if state.upcard >= 0 and not state.over:
        draw.text((10, 124), "Upcard", fill="white", font=text_font)
        draw_card(draw, 60, 118, card_str(state.upcard), ink(state.upcard), text_font)
    hy = HEIGHT - CARD_H - 12
    draw.text(
        (10, hy - 16),
        f"Player {observer}'s hand (deadwood {gm.deadwood(state.hands[observer])})",
        fill="white",
        font=text_font,
    )
    x = 10
    for card in state.hand(observer):
        draw_card(draw, x, hy, card_str(card), ink(card), text_font)
        x += CARD_W + GAP
    return np.asarray(image, dtype=np.uint8)
