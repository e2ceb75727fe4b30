"""Play Gin Rummy at the terminal against a scripted player or a trained Gin agent.

Each decision shows your hand, the upcard and the scores, then what you may do: ``s`` draws
from the stock, ``u`` takes the upcard, ``p`` passes on the first upcard, a card (``7H``)
discards it, ``k1``.. knocks with that arrangement (its discard and melds are listed: the
opponent may lay off on them), ``q`` quits. Anything else is asked again; end of input
(Ctrl-D) quits cleanly. Between your decisions the opponent's moves are narrated (its
discards and knocks; its draws from the stock unnamed), the decisions the env took alone,
and each hand's result. The game is the preset's: a match to 100 under ``book``, one hand
under ``openspiel``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

import numpy as np

from carousel_cli.prompt import ask_choice, opponent_policy, print_auto_actions
from carousel_env.core.cards import card_str, parse_card
from carousel_env.core.errors import CarouselError, NotationError
from carousel_env.games.gin_rummy.env import GinAction
from carousel_env.games.gin_rummy.render import render_text

KEYS = {"s": GinAction.DRAW_STOCK, "u": GinAction.TAKE_UPCARD, "p": GinAction.PASS}


def describe_choices(env, mask: np.ndarray) -> list[str]:
    """The lines listing what the player may do at this decision."""
    raw = env.unwrapped
    state = raw.game_state
    lines = []
    if mask[GinAction.DRAW_STOCK]:
        lines.append("s   draw from the stock")
    if mask[GinAction.TAKE_UPCARD]:
        lines.append(f"u   take the upcard {card_str(state.upcard)}")
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
            melds = " | ".join(str(m) for m in arrangement.melds)
            lines.append(
                f"k{k + 1}  knock: discard {card_str(arrangement.discard)}; {melds}; deadwood {arrangement.deadwood}"
            )
    return lines


def parse_choice(text: str, mask: np.ndarray) -> int | None:
    """The action for an input line, or None if it is not a legal choice."""
    text = text.strip()
    lowered = text.lower()
    if lowered in KEYS:
        action = int(KEYS[lowered])
    elif lowered.startswith("k") and lowered[1:].isdigit() and int(lowered[1:]) >= 1:
        action = GinAction.FIRST_KNOCK + int(lowered[1:]) - 1
    else:
        try:
            action = GinAction.FIRST_DISCARD + parse_card(text.upper())
        except NotationError:
            return None
    return action if 0 <= action < len(mask) and mask[action] else None


def _move_text(env, action: int) -> str:
    """What ``action`` is, said before it is made (a knock names its arrangement)."""
    if action >= GinAction.FIRST_KNOCK:
        arrangement, _ = env.unwrapped.knocks[action - GinAction.FIRST_KNOCK]
        melds = " | ".join(str(m) for m in arrangement.melds)
        return f"knocks: discard {card_str(arrangement.discard)}; {melds}; deadwood {arrangement.deadwood}"
    if action >= GinAction.FIRST_DISCARD:
        return f"discards {card_str(action - GinAction.FIRST_DISCARD)}"
    if action == GinAction.TAKE_UPCARD:
        return f"takes the upcard {card_str(env.unwrapped.game_state.upcard)}"
    return {GinAction.DRAW_STOCK: "draws from the stock", GinAction.PASS: "passes"}[GinAction(action)]


def _hands_over(env, seat: int, out) -> None:
    for hand in env.unwrapped.hand_results:
        state = env.unwrapped.game_state
        print(
            f"\n== hand over ({hand.end.value}): points {list(hand.points)}, scores {list(state.scores)}"
            + (" (you were undercut)" if hand.undercut and hand.knocker == seat else ""),
            file=out,
        )


def play_gin(
    opponent: str,
    preset: str = "book",
    seat: int = 0,
    seed: int = 0,
    input_fn: Callable[[str], str] = input,
    out=sys.stdout,
) -> int:
    import carousel_env
    from carousel_env.envkit.layout import ObservationLayout
    from carousel_env.games.gin_rummy.policies import env_action, resolve_policy

    env = carousel_env.env(game="gin_rummy", preset=preset)
    if isinstance(seat, bool) or not isinstance(seat, int) or seat not in (0, 1):
        raise CarouselError(f"--seat must be 0 or 1 in Gin Rummy (a heads-up game), got {seat!r}")
    raw = env.unwrapped
    policy = opponent_policy(opponent, seed + 1 - seat, ObservationLayout.of(raw.observation_layout), resolve_policy)
    env.reset(seed=seed)
    print(f"You are player {seat}; player {1 - seat} is {opponent}. Gin Rummy, {preset} rules.", file=out)
    for agent in env.agent_iter():
        obs, _, term, trunc, _info = env.last()
        if term or trunc:
            env.step(None)
            continue
        s = int(agent.rsplit("_", 1)[1])
        mask = obs["action_mask"]
        if s == seat:
            action = _ask(env, seat, mask, input_fn, out)
            if action is None:
                return 0
            who = "you"
        else:
            action = env_action(policy, env, obs["observation"], mask)
            who = f"player {s}"
        if s != seat or action >= GinAction.FIRST_KNOCK:
            print(f"{who} {_move_text(env, action)}", file=out)
        env.step(action)
        print_auto_actions(raw, seat, out)
        _hands_over(env, seat, out)
    result = raw.game_state.game_result
    if result is not None:
        winner = "nobody" if result.winner < 0 else ("you" if result.winner == seat else f"player {result.winner}")
        print(f"\nGame over: {winner} won. Final totals {list(result.totals)}", file=out)
    return 0


def _ask(env, seat: int, mask: np.ndarray, input_fn: Callable[[str], str], out) -> int | None:
    """The player's action, asked until it is a legal choice; None when they quit."""
    return ask_choice(
        render_text(env.unwrapped.game_state, observer=seat),
        describe_choices(env, mask),
        lambda text: parse_choice(text, mask),
        "s, u, p, a card to discard (e.g. 7H) or k1.. as listed",
        input_fn,
        out,
    )
