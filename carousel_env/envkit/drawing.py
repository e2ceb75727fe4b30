"""Cards drawn with Pillow, for every game's ``rgb_array`` picture."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from carousel_env.core.cards import JOKER, Card, Unit, card_str, face, is_table_joker, suit_of, unit_str

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


def card_ink(card: Card) -> tuple:
    """A hand card's ink: the joker's own, else by suit."""
    return JOKER_INK if card == JOKER else ink(card)


class SeatRow(NamedTuple):
    """One seat's line of a table picture: its label and its melds on the table."""

    label: str
    melds: Sequence[Sequence[Unit]]


def draw_table(
    size: tuple[int, int],
    header: str,
    last: str | None,
    top: Card | None,
    seats: Sequence[SeatRow],
    hand_label: str,
    hand: Sequence[Card],
) -> np.ndarray:
    """An ``(height, width, 3)`` uint8 picture of a melding game's table: the header and the
    last action, the pile's top, a row per seat with its melds (table jokers show what they
    declare), and the observer's hand at the bottom. Rows that do not fit are left out."""
    width, height = size
    image = Image.new("RGB", (width, height), FELT)
    draw = ImageDraw.Draw(image)
    text_font = font()
    draw.text((10, 8), header, fill="white", font=text_font)
    if last is not None:
        draw.text((10, 24), last[:120], fill=(230, 230, 160), font=text_font)
    if top is not None:
        draw.text((width - 130, 8), "Pile", fill="white", font=text_font)
        draw_card(draw, width - 90, 6, card_str(top), card_ink(top), text_font)
    y, hand_y = 56, height - CARD_H - 12
    for row in seats:
        if y + CARD_H + 14 > hand_y - 16:
            break
        draw.text((10, y), row.label, fill="white", font=text_font)
        x = 10
        for meld in row.melds:
            for unit in meld:
                card, joker = face(unit), is_table_joker(unit)
                label = unit_str(unit)[3:] if joker else card_str(card)
                draw_card(draw, x, y + 14, label, ink(card), text_font, joker)
                x += CARD_W // 2 + 2
            x += CARD_W + GAP
        y += CARD_H + 24
    draw.text((10, hand_y - 16), hand_label, fill="white", font=text_font)
    x = 10
    for card in hand:
        draw_card(draw, x, hand_y, card_str(card), card_ink(card), text_font)
        x += CARD_W + GAP
    return np.asarray(image, dtype=np.uint8)
