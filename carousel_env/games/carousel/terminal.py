"""Carousel at the terminal: the text ``carousel play`` and ``carousel demo`` show.

Each decision shows the table, the hand and the numbered plays the solver found: a number
makes that play, ``d`` draws again, ``k`` knocks, ``e`` ends the turn. The narration says
every other seat's draws beyond the one each turn opens with (as counts: their cards stay
hidden), plays (the cards and the table they made), knocks and turn ends (with the cards
left in hand), the decisions the env took alone, and each round's result.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from carousel_env.core.cards import hand_str, table_str
from carousel_env.core.text import plural
from carousel_env.envkit.terminal import ChoiceKeys, Numbered, Terminal, game_over_line, seat_name
from carousel_env.games.carousel.envs.aec import DRAW_AGAIN, END_TURN, FIRST_SUGGESTION, KNOCK
from carousel_env.games.carousel.envs.render_text import render_text

KEYS = {"d": DRAW_AGAIN, "k": KNOCK, "e": END_TURN}
TYPED = ChoiceKeys(KEYS, (Numbered("", FIRST_SUGGESTION),))  # plays are typed by number, from 1
NAMES = {DRAW_AGAIN: "d  draw again", KNOCK: "k  knock", END_TURN: "e  end turn"}
ONLY_CHOICE = " (only choice)"


class Narrator:
    """One line per action, a seat's consecutive draws in one line (``draws 2 more cards``:
    a turn opens with a draw of its own)."""

    def __init__(self, you: int | None, say: Callable[[str], None]) -> None:
        self.you, self.say = you, say
        self._draws: tuple[int, int, str] | None = None  # (seat, cards, note) not said yet

    def before(self, env: Any, seat: int, action: int) -> None:
        who = seat_name(seat, self.you)
        if action == DRAW_AGAIN:
            self._draw(seat, "")
        elif action >= FIRST_SUGGESTION:
            play = env.unwrapped.suggestions[action - FIRST_SUGGESTION].play
            self._say(f"{who} plays {hand_str(play.added)} -> table {table_str(play.table)}")
        elif action == KNOCK:
            self._say(f"{who} knocks")
        else:  # END_TURN leaves the hand as it is: its size now is the one the turn ends with
            cards = len(env.unwrapped.game_state.hands[seat])
            self._say(f"{who} ends the turn with {plural(cards, 'card')}")

    def after(self, env: Any) -> None:
        raw = env.unwrapped
        for auto in raw.auto_actions:
            seat = raw.possible_agents.index(auto.agent)
            who = seat_name(seat, self.you)
            if auto.action == DRAW_AGAIN:
                self._draw(seat, ONLY_CHOICE)
            elif auto.action >= FIRST_SUGGESTION:  # named "PLAY <cards>" by the env
                self._say(f"{who} plays {auto.name.split(' ', 1)[1]}{ONLY_CHOICE}")
            elif auto.action == KNOCK:
                self._say(f"{who} knocks{ONLY_CHOICE}")
            else:
                self._say(f"{who} ends the turn{ONLY_CHOICE}")
        state = raw.game_state
        ended = len(state.round_scores) - len(raw.round_results)  # rounds ended before this step
        for number, score in enumerate(raw.round_results, start=ended + 1):
            self._say(
                f"\n== round {number} over ({score.end.value}): points {list(score.points)}, "
                f"totals {list(state.scores)}"
            )

    def flush(self) -> None:
        if self._draws is not None:
            seat, cards, note = self._draws
            self._draws = None
            self.say(f"{seat_name(seat, self.you)} draws {plural(cards, 'more card')}{note}")

    def _draw(self, seat: int, note: str) -> None:
        if self._draws is not None and self._draws[0] == seat and self._draws[2] == note:
            self._draws = (seat, self._draws[1] + 1, note)
            return
        self.flush()
        self._draws = (seat, 1, note)

    def _say(self, text: str) -> None:
        self.flush()
        self.say(text)


def describe_choices(env: Any, mask: np.ndarray) -> list[str]:
    """The lines listing what the player may do at this decision."""
    lines = []
    for k, sug in enumerate(env.unwrapped.suggestions):
        if mask[FIRST_SUGGESTION + k]:
            lines.append(
                f"{k + 1:>2}  play {hand_str(sug.play.added)}  (-{sug.points} pts, "
                f"hand after {sug.hand_after_points})  ->  {table_str(sug.play.table)}"
            )
    lines += [NAMES[a] for a in (DRAW_AGAIN, KNOCK, END_TURN) if mask[a]]
    return lines


def view(env: Any, seat: int | None) -> str:
    state = env.unwrapped.game_state
    return render_text(state, reveal_all=True) if seat is None else render_text(state, observer=seat)


def game_over(env: Any, you: int | None) -> str:
    result = env.unwrapped.game_state.game_result
    return "Game over." if result is None else game_over_line((result.winner,), result.totals, you)


TERMINAL = Terminal(
    view=view,
    choices=describe_choices,
    typed=TYPED,
    narrator=Narrator,
    game_over=game_over,
)
