"""The errors every game of the package shares; each game adds the rules it names.

Each one is raised before any state changes: states are immutable, so a failed call
leaves the caller's state exactly as it was.
"""

from __future__ import annotations


class CarouselError(ValueError):
    """Base class of every error the package raises for bad input."""


class NotationError(CarouselError):
    """Malformed card, hand or table text. ``token`` is the offending token."""

    def __init__(self, message: str, token: str) -> None:
        super().__init__(message)
        self.token = token


class IllegalAction(CarouselError):
    """An action that is not allowed at this decision point (wrong phase, wrong player...)."""
