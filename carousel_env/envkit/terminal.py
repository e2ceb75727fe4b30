"""A game's text at the terminal (``carousel play``, ``carousel demo``): what the family
contract's ``terminal`` declares, and the helpers every game's text shares.

How a choice is typed is declared, not written per game (:class:`ChoiceKeys`): a key per
fixed action (``s`` draws from the stock), numbered choices (``k2``: the second knock
offered; Carousel's plays are bare numbers), and a card naming the action that discards it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol

import numpy as np

from carousel_env.core.cards import card_str, parse_card
from carousel_env.core.errors import NotationError


class Numbered(NamedTuple):
    """Choices typed as ``prefix`` and a number from 1: the actions ``first`` up to ``stop``
    (None: the mask's end). ``by_slot``: ``n`` names action ``first + n - 1`` (a suggestion
    slot); else the ``n``-th legal action of the range (Carioca's lay-offs)."""

    prefix: str
    first: int
    stop: int | None = None
    by_slot: bool = True

    def legal(self, mask: np.ndarray) -> list[int]:
        """The range's legal actions, in order."""
        stop = len(mask) if self.stop is None else self.stop
        return [self.first + int(i) for i in np.flatnonzero(mask[self.first : stop])]

    def action(self, n: int, mask: np.ndarray) -> int | None:
        """The action choice ``n`` (0-based) names, legal or not; None when it names none."""
        if not self.by_slot:
            legal = self.legal(mask)
            return legal[n] if n < len(legal) else None
        stop = len(mask) if self.stop is None else self.stop
        return self.first + n if self.first + n < stop else None

    def keys(self, mask: np.ndarray) -> list[str]:
        if not self.by_slot:
            return [f"{self.prefix}{i + 1}" for i in range(len(self.legal(mask)))]
        return [f"{self.prefix}{a - self.first + 1}" for a in self.legal(mask)]


@dataclass(frozen=True)
class ChoiceKeys:
    """How a game's choices are typed: ``named`` keys of fixed actions, ``numbered`` choices,
    and ``cards``: the range ``(first, stop)`` of the actions ``first + i`` that a card
    (``7h``, any case) names, ``i`` its place in ``card_order`` (None: the card's own index,
    a game of all 52 cards). Its keys list the numbered choices, then the named, then the
    cards, in the declaration's order."""

    named: Mapping[str, int]
    numbered: tuple[Numbered, ...] = ()
    cards: tuple[int, int] | None = None
    card_order: tuple[int, ...] | None = None  # the cards of the actions from ``cards[0]``, in order

    def _place(self, card: int) -> int | None:
        if self.card_order is None:
            return card
        return self.card_order.index(card) if card in self.card_order else None

    def _card(self, place: int) -> int:
        return place if self.card_order is None else self.card_order[place]

    def parse(self, text: str, mask: np.ndarray) -> int | None:
        """The legal action an input line names, else None."""
        lowered = text.strip().lower()
        action = self.named.get(lowered)
        for choices in self.numbered:
            if action is None and (n := numbered(lowered, choices.prefix)) is not None:
                action = choices.action(n, mask)
        card = card_named(lowered) if self.cards is not None and action is None else None
        place = self._place(card) if card is not None else None
        if place is not None and self.cards[0] + place < self.cards[1]:
            action = self.cards[0] + place
        return action if action is not None and 0 <= action < len(mask) and mask[action] else None

    def keys(self, mask: np.ndarray) -> list[str]:
        """What may be typed now: every legal choice's key."""
        keys = [key for choices in self.numbered for key in choices.keys(mask)]
        keys += [key for key, action in self.named.items() if mask[action]]
        if self.cards is not None:
            first, stop = self.cards
            keys += [card_str(self._card(int(a))) for a in np.flatnonzero(mask[first:stop])]
        return keys


class Narrator(Protocol):
    """Says what happens at the table between a player's decisions (``carousel play``) or
    every move (``carousel demo``), one line at a time through ``say``."""

    def before(self, env: Any, seat: int, action: int) -> None:
        """``seat`` is about to make ``action`` at the env's current decision."""

    def after(self, env: Any) -> None:
        """The env has stepped: the decisions it took alone, the units it ended."""

    def flush(self) -> None:
        """Anything held back (a run of draws) is said now."""


@dataclass(frozen=True)
class Terminal:
    """A game's text at the terminal, for the one play loop and the one demo loop.

    ``view(env, seat)``: the table as ``seat`` sees it (None: every hand shown);
    ``choices(env, mask)``: the lines listing the legal choices; ``typed``: how a choice is
    typed (:class:`ChoiceKeys`: what an input line names, and every legal choice's key, with
    which a wrong entry is answered); ``narrator(you, say)``: the narration (``you``: the
    human's seat, None in a demo); ``game_over(env, you)``: the last line.
    """

    view: Callable[[Any, int | None], str]
    choices: Callable[[Any, np.ndarray], list[str]]
    typed: ChoiceKeys
    narrator: Callable[[int | None, Callable[[str], None]], Narrator]
    game_over: Callable[[Any, int | None], str]


def seat_name(seat: int, you: int | None) -> str:
    """How the narration names a seat."""
    return f"player {seat} (you)" if seat == you else f"player {seat}"


def auto_action_lines(env: Any, you: int | None) -> list[str]:
    """The decisions the env took alone in its last step, a line each."""
    raw = env.unwrapped
    return [
        f"{seat_name(raw.possible_agents.index(auto.agent), you)}: {spoken(auto.name)} (only choice)"
        for auto in raw.auto_actions
    ]


def spoken(action_name: str) -> str:
    """An action's name as the narration says it: ``DISCARD_5S`` -> ``discard 5S`` (a card keeps its case)."""
    words = action_name.replace("_", " ").split()
    return " ".join(word if card_named(word) is not None else word.lower() for word in words)


def observer_of(env: Any, seat: int | None) -> int:
    """Whose view a picture of the table shows: ``seat``, or the seat to act (None)."""
    return seat if seat is not None else max(env.unwrapped.game_state.current, 0)


def game_over_line(winners: tuple[int, ...], totals: tuple[int, ...], you: int | None) -> str:
    """The game's last line: who won (nobody, where ``winners`` is empty) and the totals."""
    who = " and ".join(seat_name(w, you) for w in winners) or "nobody"
    return f"\nGame over: {who} won. Final totals {list(totals)}"


class MoveNarrator:
    """The plain narration (a :class:`Narrator`): a line per move of the others
    (:meth:`move_text`), the decisions the env took alone, then :meth:`unit_lines` for each
    unit (round or hand) the step ended. A game subclasses it with its two texts."""

    def __init__(self, you: int | None, say: Callable[[str], None]) -> None:
        self.you, self.say = you, say

    def move_text(self, env: Any, action: int) -> str:
        """What ``action`` is, said before it is made (``draws from the stock``)."""
        raise NotImplementedError

    def unit_lines(self, env: Any, result: Any) -> list[str]:
        """What is said of a unit that ended with ``result`` (the env already past it)."""
        raise NotImplementedError

    def before(self, env: Any, seat: int, action: int) -> None:
        if seat != self.you:
            self.say(f"{seat_name(seat, self.you)} {self.move_text(env, action)}")

    def after(self, env: Any) -> None:
        for line in auto_action_lines(env, self.you):
            self.say(line)
        for result in env.unwrapped.unit_results:
            for line in self.unit_lines(env, result):
                self.say(line)

    def flush(self) -> None:
        pass


def numbered(text: str, prefix: str) -> int | None:
    """The 0-based index an input like ``k2`` names (``prefix`` then a number from 1), else None."""
    text = text.strip().lower()
    number = text[len(prefix) :]
    return int(number) - 1 if text.startswith(prefix) and number.isdigit() and int(number) >= 1 else None


def card_named(text: str) -> int | None:
    """The card an input like ``7h`` names (any case), else None."""
    try:
        return parse_card(text.strip().upper())
    except NotationError:
        return None
