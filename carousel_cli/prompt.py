"""The terminal prompt every game's ``carousel play`` asks its decisions with, and the
opponents it plays against."""

from __future__ import annotations

from collections.abc import Callable

QUIT = ("q", "quit", "exit")


def ask_choice(
    view: str,
    choices: list[str],
    parse: Callable[[str], int | None],
    hint: str,
    input_fn: Callable[[str], str],
    out,
) -> int | None:
    """Show ``view`` and the ``choices``, then read lines until ``parse`` makes one an action
    (``hint`` answers any other line); None when the player quits (``q``, end of input)."""
    print("\n" + view, file=out)
    print("Your choices:", file=out)
    for line in choices:
        print("  " + line, file=out)
    while True:
        try:
            text = input_fn("> ")
        except (EOFError, KeyboardInterrupt):
            print("\nbye", file=out)
            return None
        if text.strip().lower() in QUIT:
            print("bye", file=out)
            return None
        action = parse(text)
        if action is not None:
            return action
        print(f"not a choice here: {hint} (q quits)", file=out)


def opponent_policy(name: str, seed: int, layout, resolve_policy: Callable):
    """The opponent ``name``: a trained agent's network for a checkpoint, else the game's
    scripted player (``resolve_policy``, the game's policies module's)."""
    from training.checkpoint_names import is_checkpoint_name

    if not is_checkpoint_name(name):
        return resolve_policy(name, seed=seed)
    from training.policies import network_callable

    return network_callable(name, layout, seed)


def print_auto_actions(raw, seat: int, out) -> None:
    """The decisions the env took alone in its last step (``raw.auto_actions``), each said
    as its player's only choice; ``seat`` is "you"."""
    for auto in raw.auto_actions:
        who = "you" if auto.agent == raw.possible_agents[seat] else auto.agent.replace("_", " ")
        print(f"{who}: {auto.name.lower().replace('_', ' ')} (only choice)", file=out)
