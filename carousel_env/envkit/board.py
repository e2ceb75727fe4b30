"""A game's table as pictures are drawn from it (``carousel serve``'s page): what the family
contract's ``board`` declares.

A game says what a seat sees, in cards (:class:`Board`: the piles, every seat's melds, the
hands it may see, its own hand, and the game's text lines), and what each legal action is
(:class:`Move`: its words, the hand card that makes it when it is a discard, the melds it
lays or the table it makes). The page draws cards by their tokens (:func:`card_token`): a
card's text (``10H``, ``JK``), a table joker with what it declares (``JK=7H``), or
:data:`CARD_BACK` for a card nobody sees. The one :func:`legal_moves` lists every game's
moves, so the page needs nothing of any game.

Pure data and callables: nothing here imports a game or a web library.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from carousel_env.core.cards import Card, Unit, card_str, unit_str
from carousel_env.envkit.terminal import ChoiceKeys

CARD_BACK = "back"  # the token of a card face down


def card_token(card: Card) -> str:
    """A hand card's token: its text (``10H``, ``JK``)."""
    return card_str(card)


def unit_token(unit: Unit) -> str:
    """A table unit's token: a card's text, a table joker's ``JK=`` and what it declares."""
    return unit_str(unit)


def text_lines(text: str, pictured: tuple[str, ...]) -> tuple[str, ...]:
    """A game's text view as a board's lines, less the lines that begin with one of
    ``pictured`` (the seats, the hand: what the cards show)."""
    return tuple(line for line in text.splitlines() if not line.startswith(pictured))


def tokens(cards: Iterable[Card]) -> tuple[str, ...]:
    return tuple(card_token(c) for c in cards)


def meld_tokens(units: Iterable[Unit]) -> tuple[str, ...]:
    return tuple(unit_token(u) for u in units)


class Pile(NamedTuple):
    """A pile or the stock: its face-up cards (the top last) and how many cards it holds."""

    label: str
    cards: tuple[str, ...]
    size: int


class SeatBoard(NamedTuple):
    """One seat as the observer sees it: its words (``opened, total 40``), its melds, its
    hand's size and the cards of it the observer may see (the observer's own, a shown hand,
    cards known from the pile; empty otherwise)."""

    seat: int
    status: str
    melds: tuple[tuple[str, ...], ...]
    hand_size: int
    shown: tuple[str, ...] = ()


class Board(NamedTuple):
    """What a seat sees of the table: the game's ``title``, its text ``lines`` (the phase, the
    scores, a hand's end), the ``piles``, the ``table`` every seat plays on (Carousel's
    melds; empty where each seat has its own), the ``seats`` and the observer's ``hand``
    (every hand is ``shown`` when the observer is None: a replay, a watched game)."""

    title: str
    lines: tuple[str, ...]
    piles: tuple[Pile, ...]
    table: tuple[tuple[str, ...], ...]
    seats: tuple[SeatBoard, ...]
    hand: tuple[str, ...]
    observer: int | None
    to_act: int  # -1: nobody (the game is over)


class Move(NamedTuple):
    """One legal action as the page offers it: its words; ``card``: the hand card whose
    click makes it (a discard), else None; ``melds``: what it lays or the table it makes
    (Carousel's suggestions, a knock's melds; empty for a move that lays nothing)."""

    action: int
    text: str
    card: str | None = None
    melds: tuple[tuple[str, ...], ...] = ()


@dataclass(frozen=True)
class BoardSpec:
    """A game's board: ``view(env, observer)`` its :class:`Board` (``observer`` None: every
    hand shown), ``move_text(env, action)`` a legal action's words, ``move_melds(env,
    action)`` the melds it lays or the table it makes (empty when none), and ``title`` of
    a game's env (``Rummy`` for Kaluki's preset)."""

    view: Callable[[Any, int | None], Board]
    move_text: Callable[[Any, int], str]
    move_melds: Callable[[Any, int], tuple[tuple[str, ...], ...]] = lambda env, action: ()


def discard_card(typed: ChoiceKeys, action: int) -> str | None:
    """The token of the card whose click makes ``action``, where the game's typed choices
    name it by a card (a discard), else None."""
    if typed.cards is None or not typed.cards[0] <= action < typed.cards[1]:
        return None
    place = action - typed.cards[0]
    card = place if typed.card_order is None else typed.card_order[place]
    return card_token(card)


def legal_moves(board: BoardSpec, typed: ChoiceKeys, env: Any, mask: np.ndarray) -> tuple[Move, ...]:
    """Every legal action of ``mask`` as a :class:`Move`, in action order."""
    return tuple(
        Move(int(a), board.move_text(env, int(a)), discard_card(typed, int(a)), board.move_melds(env, int(a)))
        for a in np.flatnonzero(mask)
    )
