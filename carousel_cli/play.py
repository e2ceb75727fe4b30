"""Play Carousel at the terminal against trained agents or baselines.

Each decision shows the table, your hand and the numbered plays the solver found. Type a
number to make that play, ``d`` to draw again, ``k`` to knock, ``e`` to end the turn, ``q``
to quit. Anything else is asked again; end of input (Ctrl-D) quits cleanly.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

import numpy as np

from carousel_env.core.cards import hand_str, table_str
from carousel_env.core.errors import CarouselError
from carousel_env.games.carousel.agents.match import policy_action
from carousel_env.games.carousel.envs.aec import DRAW_AGAIN, END_TURN, FIRST_SUGGESTION, KNOCK
from carousel_env.games.carousel.envs.render_text import render_text
from carousel_env.games.carousel.solver import compile_ahead
from training.envs import layout_of
from training.policies import load_policy

KEYS = {"d": DRAW_AGAIN, "k": KNOCK, "e": END_TURN}
NAMES = {DRAW_AGAIN: "d  draw again", KNOCK: "k  knock", END_TURN: "e  end turn"}


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
    rounds_seen = 0
    for agent in env.agent_iter():
        obs, _, term, trunc, _info = env.last()
        state = env.unwrapped.game_state
        if len(state.round_scores) > rounds_seen:
            rounds_seen = len(state.round_scores)
            r = state.round_scores[-1]
            print(
                f"\n== round {rounds_seen} over ({r.end.value}): points {list(r.points)}, totals {list(state.scores)}",
                file=out,
            )
        if term or trunc:
            env.step(None)
            continue
        s = int(agent.rsplit("_", 1)[1])
        mask = obs["action_mask"]
        if s != seat:
            env.step(policy_action(controllers[s], env, s, obs["observation"], mask))
            continue
        print("\n" + render_text(state, observer=seat), file=out)
        print("Your choices:", file=out)
        for line in describe_choices(env, mask):
            print("  " + line, file=out)
        while True:
            try:
                text = input_fn("> ")
            except (EOFError, KeyboardInterrupt):
                print("\nbye", file=out)
                return 0
            if text.strip().lower() in ("q", "quit", "exit"):
                print("bye", file=out)
                return 0
            action = parse_choice(text, mask)
            if action is not None:
                break
            print("not a choice here: type a play's number, or d / k / e as listed (q quits)", file=out)
        env.step(action)
    result = env.unwrapped.game_state.game_result
    if result is not None:
        print(f"\nGame over: player {result.winner} wins. Final totals {list(result.totals)}", file=out)
    return 0
