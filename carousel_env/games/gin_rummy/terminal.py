"""Gin Rummy at the terminal: the text ``carousel play`` and ``carousel demo`` show.

Each decision shows the hand, the upcard and the scores: ``s`` draws from the stock, ``u``
takes the upcard, ``p`` passes on the first upcard, a card (``7H``) discards it, ``k1``..
knocks with that arrangement (its discard and melds listed: the opponent may lay off on
them). The narration says the other seat's moves (its draws from the stock unnamed), the
decisions the env took alone, and each hand's result.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from carousel_env.core.cards import card_str
from carousel_env.envkit.terminal import (
    ChoiceKeys,
    Numbered,
    Terminal,
    auto_action_lines,
    game_over_line,
    observer_of,
    seat_name,
)
from carousel_env.games.gin_rummy.engine import Phase
from carousel_env.games.gin_rummy.env import GinAction, own_deadwood
from carousel_env.games.gin_rummy.render import render_text

KEYS = {"s": GinAction.DRAW_STOCK, "u": GinAction.TAKE_UPCARD, "p": GinAction.PASS}
TYPED = ChoiceKeys(KEYS, (Numbered("k", GinAction.FIRST_KNOCK),), (GinAction.FIRST_DISCARD, GinAction.FIRST_KNOCK))


def arrangement_text(arrangement: Any) -> str:
    melds = " | ".join(str(m) for m in arrangement.melds)
    return f"discard {card_str(arrangement.discard)}; {melds}; deadwood {arrangement.deadwood}"


def describe_choices(env: Any, mask: np.ndarray) -> list[str]:
    """The lines listing what the player may do at this decision."""
    raw = env.unwrapped
    lines = []
    if mask[GinAction.DRAW_STOCK]:
        lines.append("s   draw from the stock")
    if mask[GinAction.TAKE_UPCARD]:
        lines.append(f"u   take the upcard {card_str(raw.game_state.upcard)}")
    if mask[GinAction.PASS]:
        lines.append("p   pass")
    discards = [
        card_str(int(a) - GinAction.FIRST_DISCARD)
        for a in np.flatnonzero(mask)
        if GinAction.FIRST_DISCARD <= a < GinAction.FIRST_KNOCK
    ]
    if discards:
        lines.append(f"a card to discard it: {' '.join(discards)}")
    for k, (arrangement, _spots) in enumerate(raw.knocks):
        if mask[GinAction.FIRST_KNOCK + k]:
            lines.append(f"k{k + 1}  knock: {arrangement_text(arrangement)}")
    return lines


def move_text(env: Any, action: int) -> str:
    """What ``action`` is, said before it is made (a knock names its arrangement)."""
    raw = env.unwrapped
    if action >= GinAction.FIRST_KNOCK:
        arrangement, _ = raw.knocks[action - GinAction.FIRST_KNOCK]
        return f"knocks: {arrangement_text(arrangement)}"
    if action >= GinAction.FIRST_DISCARD:
        return f"discards {card_str(action - GinAction.FIRST_DISCARD)}"
    if action == GinAction.TAKE_UPCARD:
        return f"takes the upcard {card_str(raw.game_state.upcard)}"
    return {GinAction.DRAW_STOCK: "draws from the stock", GinAction.PASS: "passes"}[GinAction(action)]


class Narrator:
    """One line per move; your own moves are not repeated, except a knock (its arrangement)
    and the card your draw from the stock gave you. A hand's end shows the knocker's melds,
    the other hand's lay-offs and melds, and both deadwoods."""

    def __init__(self, you: int | None, say: Callable[[str], None]) -> None:
        self.you, self.say = you, say
        self._hand_before: int | None = None  # your hand before your draw from the stock

    def before(self, env: Any, seat: int, action: int) -> None:
        if seat != self.you or action >= GinAction.FIRST_KNOCK:
            self.say(f"{seat_name(seat, self.you)} {move_text(env, action)}")
        if seat == self.you and action == GinAction.DRAW_STOCK:
            self._hand_before = env.unwrapped.game_state.hands[seat]

    def after(self, env: Any) -> None:
        raw = env.unwrapped
        if self._hand_before is not None:
            drawn = raw.game_state.hands[self.you] & ~self._hand_before
            self._hand_before = None
            if drawn:  # none when the draw ended the hand
                self.say(f"you drew {card_str(drawn.bit_length() - 1)}")
        for line in auto_action_lines(env, self.you):
            self.say(line)
        for hand in raw.hand_results:
            undercut = " (you were undercut)" if hand.undercut and hand.knocker == self.you else ""
            self.say(
                f"\n== hand over ({hand.end.value}): points {list(hand.points)}, "
                f"scores {list(raw.game_state.scores)}{undercut}"
            )
            for line in knock_lines(hand, self.you):
                self.say(line)

    def flush(self) -> None:
        pass


def knock_lines(hand: Any, you: int | None) -> list[str]:
    """A knocked hand's end: the knocker's melds and deadwood, the other's lay-offs, melds
    and deadwood (no lines for a dead hand)."""
    if hand.arrangement is None or hand.knocker < 0:
        return []
    knocker, other = hand.knocker, 1 - hand.knocker
    melds = " | ".join(str(m) for m in hand.arrangement.melds) or "-"
    lines = [f"  {seat_name(knocker, you)} knocked: {melds}; deadwood {hand.arrangement.deadwood}"]
    if hand.layoffs is not None:
        laid = ", ".join(f"{card_str(card)} on {hand.arrangement.melds[meld]}" for card, meld in hand.layoffs.laid_off)
        own = " | ".join(str(m) for m in hand.layoffs.melds) or "-"
        lines.append(
            f"  {seat_name(other, you)} laid off {laid or 'nothing'}; melds {own}; deadwood {hand.layoffs.deadwood}"
        )
    return lines


def view(env: Any, seat: int | None) -> str:
    """The table as ``seat`` sees it and, for a seat, its deadwood (after its best discard
    when it holds eleven cards)."""
    state = env.unwrapped.game_state
    text = render_text(state, observer=observer_of(env, seat))
    if seat is None:
        return text
    eleven = state.phase is Phase.DISCARD and state.current == seat
    best = " after your best discard" if eleven else ""
    return f"{text}\nYour deadwood{best}: {own_deadwood(state.hands[seat], eleven)}"


def game_over(env: Any, you: int | None) -> str:
    result = env.unwrapped.game_state.game_result
    if result is None:
        return "Game over."
    return game_over_line(() if result.winner < 0 else (result.winner,), result.totals, you)


TERMINAL = Terminal(
    view=view,
    choices=describe_choices,
    typed=TYPED,
    narrator=Narrator,
    game_over=game_over,
)
