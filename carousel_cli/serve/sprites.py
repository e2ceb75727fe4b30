"""The page's cards: one SVG sprite sheet, a ``<symbol>`` per card (``card-7H``), the joker
(``card-JK``) and a card's back (``card-back``), drawn here so that the page asks nothing of
any other server. The page names a board's tokens (``envkit.board``) by these ids."""

from __future__ import annotations

from functools import cache

from carousel_env.core.cards import JOKER, NUM_CARDS, card_str, rank_of, suit_of

WIDTH, HEIGHT = 60, 84  # a card's viewBox
SUIT_GLYPHS = ("\u2663", "\u2666", "\u2665", "\u2660")  # clubs, diamonds, hearts, spades (SUITS' order)
RED_SUITS = (1, 2)
RED, BLACK, JOKER_INK = "#c81e1e", "#141414", "#7828a0"
FRAME = f'<rect x="1" y="1" width="{WIDTH - 2}" height="{HEIGHT - 2}" rx="5" fill="{{fill}}" stroke="#3c3c3c"/>'


def _card(card: int) -> str:
    text = card_str(card)
    rank, glyph = text[:-1], SUIT_GLYPHS[suit_of(card)]
    ink = RED if suit_of(card) in RED_SUITS else BLACK
    court = rank_of(card) > 10
    centre = rank if court else glyph
    return (
        f'<symbol id="card-{text}" viewBox="0 0 {WIDTH} {HEIGHT}">'
        + FRAME.format(fill="#fafafa")
        + f'<text x="5" y="17" font-size="15" font-weight="bold" fill="{ink}">{rank}</text>'
        + f'<text x="5" y="32" font-size="14" fill="{ink}">{glyph}</text>'
        + f'<text x="{WIDTH / 2 + 4}" y="{HEIGHT / 2 + 16}" font-size="{26 if court else 32}" text-anchor="middle"'
        f' fill="{ink}">{centre}</text>'
        "</symbol>"
    )


@cache
def sprite_sheet() -> str:
    """The whole sheet, as the page loads it (``/cards.svg``)."""
    symbols = [_card(card) for card in range(NUM_CARDS)]
    symbols.append(
        f'<symbol id="card-{card_str(JOKER)}" viewBox="0 0 {WIDTH} {HEIGHT}">'
        + FRAME.format(fill="#fff5dc")
        + f'<text x="{WIDTH / 2}" y="{HEIGHT / 2 + 8}" font-size="22" font-weight="bold" text-anchor="middle"'
        f' fill="{JOKER_INK}">JK</text>'
        "</symbol>"
    )
    symbols.append(
        f'<symbol id="card-back" viewBox="0 0 {WIDTH} {HEIGHT}">'
        + FRAME.format(fill="#2a4d8f")
        + f'<rect x="6" y="6" width="{WIDTH - 12}" height="{HEIGHT - 12}" rx="3" fill="none" stroke="#dfe6f5"'
        ' stroke-width="2"/></symbol>'
    )
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" style="display:none" font-family="DejaVu Sans, Arial, sans-serif">'
        + "".join(symbols)
        + "</svg>\n"
    )
