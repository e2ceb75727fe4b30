"""The terminal prompt every game's ``carousel play`` asks its decisions with."""

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
    (``hint``, what may be typed, answers any other line); None when the player quits (``q``,
    end of input)."""
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
