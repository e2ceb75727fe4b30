"""A picture of a Carousel state (the env's ``rgb_array`` render mode), drawn with Pillow.

The table's melds fill the upper part, one row of small cards per meld (wrapping into
columns when there are many), the observer's hand runs along the bottom, and a header line
gives the round, the scores and the last action. Other hands show only their size.
"""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from carousel_env.engine.cards import JOKER, card_str, face, hand_points, is_table_joker, suit_of
from carousel_env.engine.game import GameState
from carousel_env.engine.melds import is_valid_meld, sort_meld

WIDTH, HEIGHT = 960, 600
CARD_W, CARD_H, GAP = 30, 42, 3
FELT = (22, 94, 50)
RED, BLACK, JOKER_INK = (200, 30, 30), (20, 20, 20), (120, 40, 160)
SUIT_SYMBOLS = "CDHS"


def _font() -> ImageFont.ImageFont:
    return ImageFont.load_default()


def _draw_card(draw: ImageDraw.ImageDraw, x: int, y: int, label: str, ink: tuple, font, joker: bool) -> None:
    fill = (255, 245, 220) if joker else (250, 250, 250)
    draw.rounded_rectangle((x, y, x + CARD_W, y + CARD_H), radius=4, fill=fill, outline=(60, 60, 60))
    # Two lines: rank over suit (a joker on the table shows "JK" over its declared card).
    top, bottom = (label[:-1], label[-1]) if not joker else ("JK", label)
    draw.text((x + 3, y + 3), top, fill=ink, font=font)
    draw.text((x + 3, y + 21), bottom, fill=ink, font=font)


def _ink(card: int) -> tuple:
    return RED if suit_of(card) in (1, 2) else BLACK


def draw_state(state: GameState, observer: int, last_action=None, auto_actions=()) -> np.ndarray:
    """An ``(HEIGHT, WIDTH, 3)`` uint8 picture of ``state`` as ``observer`` sees it."""
    image = Image.new("RGB", (WIDTH, HEIGHT), FELT)
    draw = ImageDraw.Draw(image)
    font = _font()
    scores = "  ".join(
        f"P{p}{'*' if p == state.current else ''}: {state.scores[p]} ({len(state.hands[p])} cards)"
        for p in range(state.num_players)
    )
    draw.text((10, 8), f"Round {state.round_index + 1}  stock {len(state.stock)}  {scores}", fill="white", font=font)
    if last_action is not None:
        text = f"Last: {last_action[0]} {last_action[2]}"
        if auto_actions:
            text += "  then " + ", ".join(f"{a} {name}" for a, _, name in auto_actions[-4:])
        draw.text((10, 24), text[:150], fill=(230, 230, 160), font=font)

    x, y = 10, 44
    for meld in state.table:
        shown = sort_meld(meld, state.rules) if is_valid_meld(meld, state.rules) else meld
        width = len(shown) * (CARD_W + GAP) + 12
        if x + width > WIDTH:
            x, y = 10, y + CARD_H + 8
        if y + CARD_H > HEIGHT - CARD_H - 40:
            draw.text((x, y), "...", fill="white", font=font)
            break
        for unit in shown:
            joker = is_table_joker(unit)
            _draw_card(draw, x, y, card_str(face(unit)), JOKER_INK if joker else _ink(unit), font, joker)
            x += CARD_W + GAP
        x += 12

    hand = state.hands[observer]
    hy = HEIGHT - CARD_H - 12
    draw.text((10, hy - 16), f"Player {observer}'s hand ({hand_points(hand)} pts)", fill="white", font=font)
    hx = 10
    for card in hand:
        if hx + CARD_W > WIDTH:
            break
        if card == JOKER:
            _draw_card(draw, hx, hy, "", JOKER_INK, font, True)
        else:
            _draw_card(draw, hx, hy, card_str(card), _ink(card), font, False)
        hx += CARD_W + GAP
    return np.asarray(image, dtype=np.uint8)
