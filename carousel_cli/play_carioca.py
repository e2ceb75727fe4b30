"""Play Carioca at the terminal against scripted players or a trained Carioca agent.

Each decision shows the round and its contract, every player's melds, your hand, then what
you may do: ``s`` draws from the stock, ``t`` takes the pile's top, ``d1``.. goes down with
that arrangement (listed), ``l1``.. makes that lay-off (listed), a card (``7H``, ``JK``)
discards it, ``q`` quits. Anything else is asked again; end of input (Ctrl-D) quits cleanly.
Between your decisions the others' moves are narrated (their draws from the stock unnamed),
the decisions the env took alone, and each round's result.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

import numpy as np

from carousel_cli.prompt import ask_choice, opponent_policy, print_auto_actions
from carousel_env.core.cards import card_str, parse_card
from carousel_env.core.errors import CarouselError, NotationError
from carousel_env.games.carioca.env import CariocaAction, layoff_of
from carousel_env.games.carioca.render import render_text

KEYS = {"s": CariocaAction.DRAW_STOCK, "t": CariocaAction.TAKE_DISCARD}


def _layoffs(mask: np.ndarray) -> list[int]:
    return [int(a) for a in np.flatnonzero(mask) if CariocaAction.FIRST_LAY_OFF <= a < CariocaAction.FIRST_GO_DOWN]


def describe_choices(env, mask: np.ndarray) -> list[str]:
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
    for i, action in enumerate(_layoffs(mask)):
        layoff = layoff_of(action, state.current, state.num_players)
        lines.append(f"l{i + 1}  lay off {card_str(layoff.card)} on {state.melds[layoff.seat][layoff.meld]} "
                     f"(player {layoff.seat}, {layoff.end.name.lower()} end)")  # fmt: skip
    discards = [
        card_str(int(a) - CariocaAction.FIRST_DISCARD)
        for a in np.flatnonzero(mask)
        if CariocaAction.FIRST_DISCARD <= a < CariocaAction.FIRST_LAY_OFF
    ]
    if discards:
        lines.append(f"a card to discard it: {' '.join(discards)}")
    return lines


def parse_choice(text: str, mask: np.ndarray) -> int | None:
    """The action for an input line, or None if it is not a legal choice."""
    lowered = text.strip().lower()
    if lowered in KEYS:
        action = int(KEYS[lowered])
    elif lowered[:1] == "d" and lowered[1:].isdigit() and int(lowered[1:]) >= 1:
        action = CariocaAction.FIRST_GO_DOWN + int(lowered[1:]) - 1
    elif lowered[:1] == "l" and lowered[1:].isdigit() and int(lowered[1:]) >= 1:
        layoffs = _layoffs(mask)
        index = int(lowered[1:]) - 1
        return layoffs[index] if index < len(layoffs) else None
    else:
        try:
            action = CariocaAction.FIRST_DISCARD + parse_card(text.strip().upper())
        except NotationError:
            return None
    return action if 0 <= action < len(mask) and mask[action] else None


def _move_text(env, action: int, seat: int) -> str:
    """What ``action`` is, said before it is made."""
    state = env.unwrapped.game_state
    if action >= CariocaAction.FIRST_GO_DOWN:
        arrangement = env.unwrapped.suggestions[action - CariocaAction.FIRST_GO_DOWN]
        return "goes down: " + " | ".join(str(m) for m in arrangement)
    if action >= CariocaAction.FIRST_LAY_OFF:
        layoff = layoff_of(action, state.current, state.num_players)
        return f"lays off {card_str(layoff.card)} on player {layoff.seat}'s {state.melds[layoff.seat][layoff.meld]}"
    if action >= CariocaAction.FIRST_DISCARD:
        return f"discards {card_str(action - CariocaAction.FIRST_DISCARD)}"
    if action == CariocaAction.TAKE_DISCARD:
        return f"takes the pile's top {card_str(state.top)}"
    return "draws from the stock"


def play_carioca(
    opponents: list[str],
    num_players: int = 2,
    seat: int = 0,
    seed: int = 0,
    input_fn: Callable[[str], str] = input,
    out=sys.stdout,
) -> int:
    """A game of Carioca: you at ``seat``, ``opponents`` (names or checkpoints) taken in turn
    at the other seats."""
    import carousel_env
    from carousel_env.envkit.layout import ObservationLayout
    from carousel_env.games.carioca.policies import env_action, resolve_policy

    env = carousel_env.env(game="carioca", num_players=num_players)
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < num_players:
        raise CarouselError(f"--seat must be a seat 0..{num_players - 1}, got {seat!r}")
    raw = env.unwrapped
    layout = ObservationLayout.of(raw.observation_layout)
    others = [s for s in range(num_players) if s != seat]
    names = {s: opponents[i % len(opponents)] for i, s in enumerate(others)}
    policies = {s: opponent_policy(names[s], seed + s, layout, resolve_policy) for s in others}
    env.reset(seed=seed)
    table = ", ".join(f"player {s} is {names[s]}" for s in others)
    print(f"You are player {seat}; {table}. Carioca, six rounds: the lowest total wins.", file=out)
    for agent in env.agent_iter():
        obs, _, term, trunc, _info = env.last()
        if term or trunc:
            env.step(None)
            continue
        s = int(agent.rsplit("_", 1)[1])
        mask = obs["action_mask"]
        if s == seat:
            action = ask_choice(
                render_text(raw.game_state, observer=seat),
                describe_choices(env, mask),
                lambda text, mask=mask: parse_choice(text, mask),
                "s, t, d1.., l1.. or a card to discard (e.g. 7H) as listed",
                input_fn,
                out,
            )
            if action is None:
                return 0
        else:
            action = env_action(policies[s], env, obs["observation"], mask)
            print(f"player {s} {_move_text(env, action, seat)}", file=out)
        env.step(action)
        print_auto_actions(raw, seat, out)
        for result in raw.round_results:
            how = "the stock ran out" if result.out < 0 else f"player {result.out} went out"
            print(f"\n== round {result.round} over: {how}; penalties {list(result.penalties)}, "
                  f"totals {list(raw.game_state.scores)}", file=out)  # fmt: skip
    result = raw.game_state.game_result
    if result is not None:
        winners = " and ".join("you" if w == seat else f"player {w}" for w in result.winners)
        print(f"\nGame over: {winners} won. Final totals {list(result.totals)}", file=out)
    return 0
