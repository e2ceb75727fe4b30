"""Play Carousel at the terminal against trained agents or baselines.

Each decision shows the table, your hand and the numbered plays the solver found. Type a
number to make that play, ``d`` to draw again, ``k`` to knock, ``e`` to end the turn, ``q``
to quit. Anything else is asked again; end of input (Ctrl-D) quits cleanly.

Between your decisions the game is narrated as ``carousel demo`` does: every other seat's
draws beyond the one each turn opens with (as counts: their cards stay hidden), plays (the
cards and the table they made), knocks and turn ends (with the cards left in hand), the
decisions the env took alone (yours too: a seat's only legal action), and each round's result.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

import numpy as np

from carousel_cli.prompt import ask_choice
from carousel_env.core.cards import hand_str, table_str
from carousel_env.core.errors import CarouselError
from carousel_env.core.text import plural
from carousel_env.games.carousel.agents.match import policy_action
from carousel_env.games.carousel.envs.aec import DRAW_AGAIN, END_TURN, FIRST_SUGGESTION, KNOCK
from carousel_env.games.carousel.envs.render_text import render_text
from carousel_env.games.carousel.solver import compile_ahead
from training.envs import layout_of
from training.policies import load_policy

KEYS = {"d": DRAW_AGAIN, "k": KNOCK, "e": END_TURN}
NAMES = {DRAW_AGAIN: "d  draw again", KNOCK: "k  knock", END_TURN: "e  end turn"}
ONLY_CHOICE = " (only choice)"


class Narrator:
    """Prints what happens between the player's decisions, one line per action, a seat's
    consecutive draws in one line (``draws 2 more cards``: a turn opens with a draw of its own)."""

    def __init__(self, you: int, out) -> None:
        self.you, self.out = you, out
        self._draws: tuple[int, int, str] | None = None  # (seat, cards, note) not printed yet

    def who(self, seat: int) -> str:
        return f"player {seat} (you)" if seat == self.you else f"player {seat}"

    def action(self, env, seat: int, action: int) -> None:
        """``seat`` is about to make ``action`` at the env's current decision."""
        if action == DRAW_AGAIN:
            self._draw(seat, "")
        elif action >= FIRST_SUGGESTION:
            play = env.unwrapped.suggestions[action - FIRST_SUGGESTION].play
            self._say(f"{self.who(seat)} plays {hand_str(play.added)} -> table {table_str(play.table)}")
        elif action == KNOCK:
            self._say(f"{self.who(seat)} knocks")
        else:  # END_TURN leaves the hand as it is: its size now is the one the turn ends with
            cards = len(env.unwrapped.game_state.hands[seat])
            self._say(f"{self.who(seat)} ends the turn with {plural(cards, 'card')}")

    def auto_actions(self, env) -> None:
        """The decisions the env took alone in the last step."""
        for auto in env.unwrapped.auto_actions:
            seat = int(auto.agent.rsplit("_", 1)[1])
            if auto.action == DRAW_AGAIN:
                self._draw(seat, ONLY_CHOICE)
            elif auto.action >= FIRST_SUGGESTION:  # named "PLAY <cards>" by the env
                self._say(f"{self.who(seat)} plays {auto.name.split(' ', 1)[1]}{ONLY_CHOICE}")
            elif auto.action == KNOCK:
                self._say(f"{self.who(seat)} knocks{ONLY_CHOICE}")
            else:
                self._say(f"{self.who(seat)} ends the turn{ONLY_CHOICE}")

    def line(self, text: str) -> None:
        self._say(text)

    def flush(self) -> None:
        if self._draws is not None:
            seat, cards, note = self._draws
            self._draws = None
            print(f"{self.who(seat)} draws {plural(cards, 'more card')}{note}", file=self.out)

    def _draw(self, seat: int, note: str) -> None:
        if self._draws is not None and self._draws[0] == seat and self._draws[2] == note:
            self._draws = (seat, self._draws[1] + 1, note)
            return
        self.flush()
        self._draws = (seat, 1, note)

    def _say(self, text: str) -> None:
        self.flush()
        print(text, file=self.out)


def describe_choices(env, mask: np.ndarray) -> list[str]:
    lines = []
    suggestions = env.unwrapped.suggestions
    for k, sug in enumerate(suggestions):
        if mask[FIRST_SUGGESTION + k]:
            lines.append(
                f"{k + 1:>2}  play {hand_str(sug.play.added)}  (-{sug.points} pts, "
                f"hand after {sug.hand_after_points})  ->  {table_str(sug.play.table)}"
            )
    lines += [NAMES[a] for a in (DRAW_AGAIN, KNOCK, END_TURN) if mask[a]]
    return lines


def parse_choice(text: str, mask: np.ndarray) -> int | None:
    """The action for an input line, or None if it is not a legal choice."""
    text = text.strip().lower()
    if text in KEYS:
        action = KEYS[text]
    elif text.isdigit() and int(text) >= 1:  # plays are numbered from 1
        action = FIRST_SUGGESTION + int(text) - 1
    else:
        return None
    return action if 0 <= action < len(mask) and mask[action] else None


def _ask(env, state, seat: int, mask: np.ndarray, input_fn: Callable[[str], str], out) -> int | None:
    """The player's action, asked until it is a legal choice; None when they quit."""
    return ask_choice(
        render_text(state, observer=seat),
        describe_choices(env, mask),
        lambda text: parse_choice(text, mask),
        "type a play's number, or d / k / e as listed",
        input_fn,
        out,
    )


def play(
    opponents: list[str],
    num_players: int = 2,
    seat: int = 0,
    seed: int = 0,
    k_suggestions: int = 8,
    input_fn: Callable[[str], str] = input,
    out=sys.stdout,
) -> int:
    import carousel_env

    env = carousel_env.env(num_players=num_players, k_suggestions=k_suggestions, episode="game")
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < num_players:
        raise CarouselError(
            f"--seat must be a seat from 0 to {num_players - 1} with {num_players} players, got {seat!r}"
        )
    if len(opponents) > num_players - 1:  # each name given plays, or the command says which would not
        unused = ", ".join(opponents[num_players - 1 :])
        raise CarouselError(
            f"--checkpoint and --opponents name {len(opponents)} agents, but a {num_players}-player game seats"
            f" {plural(num_players - 1, 'opponent')}: {unused} would not play (more seats: --players)"
        )
    layout = layout_of(env)
    others = [s for s in range(num_players) if s != seat]
    controllers = {s: load_policy(opponents[i % len(opponents)], layout, seed + s) for i, s in enumerate(others)}
    compile_ahead()  # a cold cache: compiled before the first prompt, not in the middle of the game
    env.reset(seed=seed)
    print(
        f"You are player {seat}. Opponents: "
        + ", ".join(f"player {s} = {opponents[i % len(opponents)]}" for i, s in enumerate(others)),
        file=out,
    )
    narrator = Narrator(seat, out)
    narrator.auto_actions(env)
    rounds_seen = 0
    for agent in env.agent_iter():
        obs, _, term, trunc, _info = env.last()
        state = env.unwrapped.game_state
        if len(state.round_scores) > rounds_seen:
            rounds_seen = len(state.round_scores)
            r = state.round_scores[-1]
            narrator.line(
                f"\n== round {rounds_seen} over ({r.end.value}): points {list(r.points)}, totals {list(state.scores)}"
            )
        if term or trunc:
            env.step(None)
            continue
        s = int(agent.rsplit("_", 1)[1])
        mask = obs["action_mask"]
        if s != seat:
            action = policy_action(controllers[s], env, s, obs["observation"], mask)
        else:
            narrator.flush()
            action = _ask(env, state, seat, mask, input_fn, out)
            if action is None:
                return 0
        narrator.action(env, s, action)
        env.step(action)
        narrator.auto_actions(env)
    narrator.flush()
    result = env.unwrapped.game_state.game_result
    if result is not None:
        print(f"\nGame over: player {result.winner} wins. Final totals {list(result.totals)}", file=out)
    return 0
