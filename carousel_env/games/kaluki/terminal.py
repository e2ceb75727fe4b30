"""Kaluki (and plain Rummy) at the terminal: the text ``carousel play`` and ``carousel demo`` show.

Each decision shows every player's melds and hand size, the pile's top and the hand: ``s``
draws from the stock, ``t`` takes the pile's top to keep (where the rules allow it), ``p1``..
takes the top with that arrangement (an opening that lays it) while drawing, or makes that
play (melds, lay-offs and joker exchanges, listed) after, and a card (``7H``, ``JK``) discards
it. The narration says the others' moves (their draws from the stock unnamed), the decisions
the env took alone, and each hand's result.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from carousel_env.core.cards import card_str
from carousel_env.envkit.terminal import (
    ChoiceKeys,
    MoveNarrator,
    Numbered,
    Terminal,
    game_over_line,
    observer_of,
    seat_name,
)
from carousel_env.games.kaluki.env import KalukiAction, engine_moves
from carousel_env.games.kaluki.render import HAND_ENDS, render_text
from carousel_env.games.kaluki.state import Phase

KEYS = {"s": KalukiAction.DRAW_STOCK, "t": KalukiAction.TAKE_DISCARD}
OFFERS = Numbered("p", KalukiAction.FIRST_OFFER)
TYPED = ChoiceKeys(KEYS, (OFFERS,), (KalukiAction.FIRST_DISCARD, KalukiAction.FIRST_OFFER))


def _take_melds(env: Any, action: int) -> str:
    """A take's offer (while drawing) in words: the melds that lay the pile's top."""
    return " | ".join(str(m) for m in env.unwrapped.suggestions[action - KalukiAction.FIRST_OFFER].melds)


def offer_text(env: Any, action: int) -> str:
    """An offer in words: while drawing, the melds that lay the pile's top; after, the play's moves."""
    raw = env.unwrapped
    state = raw.game_state
    if state.phase is Phase.DRAW:
        return f"take the pile's top {card_str(state.top)} and lay {_take_melds(env, action)}"
    return "; ".join(str(m) for m in engine_moves(state, action, raw.suggestions))


def describe_choices(env: Any, mask: np.ndarray) -> list[str]:
    """The lines listing what the player may do at this decision."""
    state = env.unwrapped.game_state
    lines = []
    if mask[KalukiAction.DRAW_STOCK]:
        lines.append("s   draw from the stock")
    if mask[KalukiAction.TAKE_DISCARD]:
        lines.append(f"t   take the pile's top {card_str(state.top)}")
    for i, action in enumerate(OFFERS.legal(mask)):
        offer = env.unwrapped.suggestions[i]
        left = f"  (hand value left {offer.hand_value})"
        lines.append(f"p{i + 1}  {offer_text(env, action)}{left}")
    first, stop = TYPED.cards
    discards = [card_str(int(a)) for a in np.flatnonzero(mask[first:stop])]
    if discards:
        lines.append(f"a card to discard it: {' '.join(discards)}")
    return lines


class Narrator(MoveNarrator):
    """One line per move of the others (your own are not repeated), then each hand's end."""

    def move_text(self, env: Any, action: int) -> str:
        """What ``action`` is, said before it is made (a draw from the stock stays unnamed)."""
        state = env.unwrapped.game_state
        if action >= KalukiAction.FIRST_OFFER:
            if state.phase is Phase.DRAW:
                return f"takes the pile's top {card_str(state.top)} and lays {_take_melds(env, action)}"
            return f"plays: {offer_text(env, action)}"
        if action >= KalukiAction.FIRST_DISCARD:
            return f"discards {card_str(action - KalukiAction.FIRST_DISCARD)}"
        if action == KalukiAction.TAKE_DISCARD:
            return f"takes the pile's top {card_str(state.top)}"
        return "draws from the stock"

    def unit_lines(self, env: Any, result: Any) -> list[str]:
        state = env.unwrapped.game_state
        how = HAND_ENDS[result.end] if result.out < 0 else f"{seat_name(result.out, self.you)} went out"
        lines = [f"\n== hand {result.number} over: {how}; scores {list(result.scores)}, totals {list(state.totals)}"]
        if not state.over:
            lines.append(f"Hand {state.hand_number + 1}: dealer player {state.dealer}")
        return lines


def view(env: Any, seat: int | None) -> str:
    return render_text(env.unwrapped.game_state, observer=observer_of(env, seat))


def game_over(env: Any, you: int | None) -> str:
    result = env.unwrapped.game_state.game_result
    return "Game over." if result is None else game_over_line(tuple(result.winners), result.totals, you)


TERMINAL = Terminal(view=view, choices=describe_choices, typed=TYPED, narrator=Narrator, game_over=game_over)
