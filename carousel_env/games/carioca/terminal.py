"""Carioca at the terminal: the text ``carousel play`` and ``carousel demo`` show.

Each decision shows the round and its contract, every player's melds and the hand: ``s``
draws from the stock, ``t`` takes the pile's top, ``d1``.. goes down with that arrangement
(listed), ``l1``.. makes that lay-off (listed), a card (``7H``, ``JK``) discards it. The
narration says the others' moves (their draws from the stock unnamed), the decisions the
env took alone, and each round's result.
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
from carousel_env.games.carioca.engine import RoundEnd
from carousel_env.games.carioca.env import CariocaAction, layoff_of
from carousel_env.games.carioca.melds import MeldKind
from carousel_env.games.carioca.render import render_text
from carousel_env.games.carioca.rules import PILE_DRAW_LIMIT

KEYS = {"s": CariocaAction.DRAW_STOCK, "t": CariocaAction.TAKE_DISCARD}
# Going down by slot; a lay-off by its place among the legal ones (their actions are sparse).
LAY_OFFS = Numbered("l", CariocaAction.FIRST_LAY_OFF, CariocaAction.FIRST_GO_DOWN, by_slot=False)
TYPED = ChoiceKeys(
    KEYS,
    (Numbered("d", CariocaAction.FIRST_GO_DOWN), LAY_OFFS),
    (CariocaAction.FIRST_DISCARD, CariocaAction.FIRST_LAY_OFF),
)
ROUND_ENDS = {
    RoundEnd.STOCK: "the stock ran out",
    RoundEnd.PILE_LIMIT: f"the pile was drawn from {PILE_DRAW_LIMIT} times",
}


def describe_choices(env: Any, mask: np.ndarray) -> list[str]:
    """The lines listing what the player may do at this decision."""
    raw = env.unwrapped
    state = raw.game_state
    lines = []
    if mask[CariocaAction.DRAW_STOCK]:
        lines.append("s   draw from the stock")
    if mask[CariocaAction.TAKE_DISCARD]:
        lines.append(f"t   take the pile's top {card_str(state.top)}")
    for k, arrangement in enumerate(raw.suggestions):
        if mask[CariocaAction.FIRST_GO_DOWN + k]:
            lines.append(f"d{k + 1}  go down: " + " | ".join(str(m) for m in arrangement))
    for i, action in enumerate(LAY_OFFS.legal(mask)):
        layoff = layoff_of(action, state.current, state.num_players)
        target = state.melds[layoff.seat][layoff.meld]
        end = f", {layoff.end.name.lower()} end" if target.kind is MeldKind.ESCALERA else ""  # a trio has no ends
        lines.append(f"l{i + 1}  lay off {card_str(layoff.card)} on {target} (player {layoff.seat}{end})")
    discards = [
        card_str(int(a) - CariocaAction.FIRST_DISCARD)
        for a in np.flatnonzero(mask)
        if CariocaAction.FIRST_DISCARD <= a < CariocaAction.FIRST_LAY_OFF
    ]
    if discards:
        lines.append(f"a card to discard it: {' '.join(discards)}")
    return lines


class Narrator(MoveNarrator):
    """One line per move of the others (your own are not repeated), then each round's end
    and the next round's contract."""

    def move_text(self, env: Any, action: int) -> str:
        """What ``action`` is, said before it is made."""
        raw = env.unwrapped
        state = raw.game_state
        if action >= CariocaAction.FIRST_GO_DOWN:
            return "goes down: " + " | ".join(str(m) for m in raw.suggestions[action - CariocaAction.FIRST_GO_DOWN])
        if action >= CariocaAction.FIRST_LAY_OFF:
            layoff = layoff_of(action, state.current, state.num_players)
            return f"lays off {card_str(layoff.card)} on player {layoff.seat}'s {state.melds[layoff.seat][layoff.meld]}"
        if action >= CariocaAction.FIRST_DISCARD:
            return f"discards {card_str(action - CariocaAction.FIRST_DISCARD)}"
        if action == CariocaAction.TAKE_DISCARD:
            return f"takes the pile's top {card_str(state.top)}"
        return "draws from the stock"

    def unit_lines(self, env: Any, result: Any) -> list[str]:
        state = env.unwrapped.game_state
        how = ROUND_ENDS[result.end] if result.out < 0 else f"{seat_name(result.out, self.you)} went out"
        lines = [
            f"\n== round {result.round} over: {how}; penalties {list(result.penalties)}, totals {list(state.scores)}"
        ]
        if not state.over:
            lines.append(f"Round {state.round + 1}: {state.contract}; dealer player {state.dealer}")
        return lines


def view(env: Any, seat: int | None) -> str:
    state = env.unwrapped.game_state
    return f"Round {state.round + 1}: {state.contract}\n" + render_text(state, observer=observer_of(env, seat))


def game_over(env: Any, you: int | None) -> str:
    result = env.unwrapped.game_state.game_result
    return "Game over." if result is None else game_over_line(tuple(result.winners), result.totals, you)


TERMINAL = Terminal(
    view=view,
    choices=describe_choices,
    typed=TYPED,
    narrator=Narrator,
    game_over=game_over,
)
