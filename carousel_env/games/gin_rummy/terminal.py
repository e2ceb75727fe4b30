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

from carousel_env.core.cards import card_str, parse_card
from carousel_env.core.errors import NotationError
from carousel_env.envkit.family import Terminal, seat_name
from carousel_env.games.gin_rummy.env import GinAction
from carousel_env.games.gin_rummy.render import render_text

KEYS = {"s": GinAction.DRAW_STOCK, "u": GinAction.TAKE_UPCARD, "p": GinAction.PASS}


def _arrangement_text(arrangement: Any) -> str:
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
            lines.append(f"k{k + 1}  knock: {_arrangement_text(arrangement)}")
    return lines


def parse_choice(text: str, mask: np.ndarray) -> int | None:
    """The action for an input line, or None if it is not a legal choice."""
    lowered = text.strip().lower()
    if lowered in KEYS:
        action = int(KEYS[lowered])
    elif lowered.startswith("k") and lowered[1:].isdigit() and int(lowered[1:]) >= 1:
        action = GinAction.FIRST_KNOCK + int(lowered[1:]) - 1
    else:
        try:
            action = GinAction.FIRST_DISCARD + parse_card(text.strip().upper())
        except NotationError:
            return None
    return action if 0 <= action < len(mask) and mask[action] else None


def move_text(env: Any, action: int) -> str:
    """What ``action`` is, said before it is made (a knock names its arrangement)."""
    raw = env.unwrapped
    if action >= GinAction.FIRST_KNOCK:
        arrangement, _ = raw.knocks[action - GinAction.FIRST_KNOCK]
        return f"knocks: {_arrangement_text(arrangement)}"
    if action >= GinAction.FIRST_DISCARD:
        return f"discards {card_str(action - GinAction.FIRST_DISCARD)}"
    if action == GinAction.TAKE_UPCARD:
        return f"takes the upcard {card_str(raw.game_state.upcard)}"
    return {GinAction.DRAW_STOCK: "draws from the stock", GinAction.PASS: "passes"}[GinAction(action)]


class Narrator:
    """One line per move; your own moves are not repeated, except a knock (its arrangement)."""

    def __init__(self, you: int | None, say: Callable[[str], None]) -> None:
        self.you, self.say = you, say

    def before(self, env: Any, seat: int, action: int) -> None:
        if seat != self.you or action >= GinAction.FIRST_KNOCK:
            self.say(f"{seat_name(seat, self.you)} {move_text(env, action)}")

    def after(self, env: Any) -> None:
        raw = env.unwrapped
        for auto in raw.auto_actions:
            seat = raw.possible_agents.index(auto.agent)
            self.say(f"{seat_name(seat, self.you)}: {auto.name.lower().replace('_', ' ')} (only choice)")
        for hand in raw.hand_results:
            undercut = " (you were undercut)" if hand.undercut and hand.knocker == self.you else ""
            self.say(
                f"\n== hand over ({hand.end.value}): points {list(hand.points)}, "
                f"scores {list(raw.game_state.scores)}{undercut}"
            )

    def flush(self) -> None:
        pass


def view(env: Any, seat: int | None) -> str:
    state = env.unwrapped.game_state
    observer = seat if seat is not None else max(state.current, 0)
    return render_text(state, observer=observer)


def game_over(env: Any, you: int | None) -> str:
    result = env.unwrapped.game_state.game_result
    if result is None:
        return "Game over."
    winner = "nobody" if result.winner < 0 else seat_name(result.winner, you)
    return f"\nGame over: {winner} won. Final totals {list(result.totals)}"


TERMINAL = Terminal(
    view=view,
    choices=describe_choices,
    parse=lambda env, text, mask: parse_choice(text, mask),
    hint="s, u, p, a card to discard (e.g. 7H) or k1.. as listed",
    narrator=Narrator,
    game_over=game_over,
)
