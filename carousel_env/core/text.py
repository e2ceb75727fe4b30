"""Words in the text every game and command prints."""


def plural(count: int, noun: str) -> str:
    """``count`` and ``noun``, in the plural unless one: ``1 card``, ``2 cards``."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"
