"""Words in the text every game and command prints."""


def plural(count: int, noun: str) -> str:
    """``count`` and ``noun``, in the plural unless one: ``1 card``, ``2 cards``, ``3 matches``."""
    if count == 1:
        return f"{count} {noun}"
    return f"{count} {noun}es" if noun.endswith(("s", "x", "ch", "sh")) else f"{count} {noun}s"
