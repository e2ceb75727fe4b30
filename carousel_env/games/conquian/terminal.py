"""Conquian at the terminal: the text ``carousel play`` and ``carousel demo`` show.

Each decision shows both players' melds, the faced card, the stock and the dead pile, and the
hand: ``p`` passes the faced card (or leaves the turned one, or does not force), ``f`` forces
the card just passed on the opponent, ``t1``.. takes the card with that arrangement of the
player's melds (listed), and a card (``7H``) discards it. The narration says the other
player's moves, the decisions the env took alone (a card nothing melds with is passed), and
each hand's result.
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
from carousel_env.games.conquian.decision import ConquianAction
from carousel_env.games.conquian.melds import melds_str
from carousel_env.games.conquian.render import render_text
from carousel_env.games.conquian.rules import CARDS
from carousel_env.games.conquian.state import HandEnd, Phase

KEYS = {"p": ConquianAction.PASS, "f": ConquianAction.FORCE}
OFFERS = Numbered("t", ConquianAction.FIRST_OFFER)
TYPED = ChoiceKeys(KEYS, (OFFERS,), (ConquianAction.FIRST_DISCARD, ConquianAction.FIRST_OFFER), CARDS)
PASS_WORDS = {
    Phase.FACED: "pass the faced card",
    Phase.TURNED: "leave the turned card",
    Phase.FORCE: "do not force it",
}


def offer_text(env: Any, action: int, said: bool = False) -> str:
    """What offer ``action`` lays, as a choice ("take 3S: melds ...") or, ``said`` of another
    player, as the narration tells it ("takes 3S: melds ...")."""
    raw = env.unwrapped
    offer = raw.suggestions[action - ConquianAction.FIRST_OFFER]
    card = card_str(raw.game_state.faced)
    if said:
        verb = f"takes {card}" if offer.take else "lays from the hand, leaving the card"
    else:
        verb = f"take {card}" if offer.take else "lay from the hand, leave the card"
    return f"{verb}: melds {melds_str(offer.arrangement.melds)}"


def describe_choices(env: Any, mask: np.ndarray) -> list[str]:
    """The lines listing what the player may do at this decision."""
    state = env.unwrapped.game_state
    lines = []
    for i, action in enumerate(OFFERS.legal(mask)):
        lines.append(f"t{i + 1}  {offer_text(env, action)}")
    if mask[ConquianAction.PASS]:
        lines.append(f"p   {PASS_WORDS.get(state.phase, 'pass')}")
    if mask[ConquianAction.FORCE]:
        lines.append(f"f   force {card_str(state.faced)} on player {1 - state.current}")
    first, stop = TYPED.cards
    discards = [card_str(CARDS[int(a)]) for a in np.flatnonzero(mask[first:stop])]
    if discards:
        lines.append(f"a card to discard it: {' '.join(discards)}")
    return lines


class Narrator(MoveNarrator):
    """One line per move of the other player (your own are not repeated), then each hand's end."""

    def move_text(self, env: Any, action: int) -> str:
        state = env.unwrapped.game_state
        if action >= ConquianAction.FIRST_OFFER:
            return offer_text(env, action, said=True)
        if action >= ConquianAction.FIRST_DISCARD:
            return f"discards {card_str(CARDS[action - ConquianAction.FIRST_DISCARD])}"
        if action == ConquianAction.FORCE:
            return f"forces {card_str(state.faced)} on player {1 - state.current}"
        return (
            f"{PASS_WORDS.get(state.phase, 'passes')}s"
            if state.phase is Phase.FORCE
            else f"passes {card_str(state.faced)}"
        )

    def unit_lines(self, env: Any, result: Any) -> list[str]:
        state = env.unwrapped.game_state
        how = f"{seat_name(result.winner, self.you)} melded 11" if result.end is HandEnd.OUT else "a tableau"
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
