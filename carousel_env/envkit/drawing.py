"""Cards drawn with Pillow, for every game's ``rgb_array`` picture."""

from __future__ import annotations

from PIL import ImageDraw, ImageFont

from carousel_env.core.cards import suit_of

CARD_W, CARD_H, GAP = 30, 42, 3
FELT = (22, 94, 50)
RED, BLACK, JOKER_INK = (200, 30, 30), (20, 20, 20), (120, 40, 160)


def font() -> ImageFont.ImageFont:
    return ImageFont.load_default()


def draw_card(draw: ImageDraw.ImageDraw, x: int, y: int, label: str, ink: tuple, font, joker: bool = False) -> None:
    """A card at ``(x, y)``: rank over suit (a table joker shows "JK" over its declared card)."""
    fill = (255, 245, 220) if joker else (250, 250, 250)
    draw.rounded_rectangle((x, y, x + CARD_W, y + CARD_H), radius=4, fill=fill, outline=(60, 60, 60))
    top, bottom = (label[:-1], label[-1]) if not joker else ("JK", label)
    draw.text((x + 3, y + 3), top, fill=ink, font=font)
    draw.text((x + 3, y + 21), bottom, fill=ink, font=font)


def ink(card: int) -> tuple:
    """Red for diamonds and hearts, black for clubs and spades."""
    return RED if suit_of(card) in (1, 2) else BLACK
