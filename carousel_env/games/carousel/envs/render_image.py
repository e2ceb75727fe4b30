"""A picture of a Carousel state (the env's ``rgb_array`` render mode), drawn with Pillow.

The table's melds fill the upper part, one row of small cards per meld (wrapping into
columns when there are many), the observer's hand runs along the bottom, and a header line
gives the round, the scores and the last action. Other hands show only their size.
"""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw

from carousel_env.core.cards import JOKER, card_str, face, hand_points, is_table_joker
from carousel_env.core.text import plural
from carousel_env.envkit.drawing import CARD_H, CARD_W, FELT, GAP, JOKER_INK, draw_card, ink
from carousel_env.envkit.drawing import font as _font
from carousel_env.games.carousel.engine.game import GameState
from carousel_env.games.carousel.engine.melds import is_valid_meld, sort_meld

WIDTH, HEIGHT = 960, 600


def draw_state(state: GameState, observer: int, last_action=None, auto_actions=()) -> np.ndarray:
    """An ``(HEIGHT, WIDTH, 3)`` uint8 picture of ``state`` as ``observer`` sees it."""
    image = Image.new("RGB", (WIDTH, HEIGHT), FELT)
    draw = ImageDraw.Draw(image)
    font = _font()
    scores = "  ".join(
        f"P{p}{'*' if p == state.current else ''}: {state.scores[p]} ({plural(len(state.hands[p]), 'card')})"
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
            draw_card(draw, x, y, card_str(face(unit)), JOKER_INK if joker else ink(unit), font, joker)
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
            draw_card(draw, hx, hy, "", JOKER_INK, font, True)
        else:
            draw_card(draw, hx, hy, card_str(card), ink(card), font, False)
        hx += CARD_W + GAP
    return np.asarray(image, dtype=np.uint8)
