"""The rules configuration.

RULES.md fixes every rule of Carousel except the points it marks **option**; only those
are free fields here (``round_bonus``). Everything else follows from the variant and the
number of players, so a configuration can never describe a game that RULES.md does not.

Two variants share the engine:

* ``Variant.CAROUSEL`` (default): RULES.md's Carousel.
* ``Variant.MANIPULATION_RUMMY``: source 004's "Manipulation Rummy" (3 to 5 players, two
  decks, no jokers, 7 cards each, aces high only, must play when able, draw one at a time
  until able, no knocking, going out scores the others' hand values).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from carousel_env.core.errors import CarouselError


class Variant(str, Enum):
    CAROUSEL = "carousel"
    MANIPULATION_RUMMY = "manipulation_rummy"


class RoundBonus(str, Enum):
    """RULES.md option ``round_bonus``: who gets +25 per round won at the end of the game."""

    LOSERS = "losers"  # everyone but the game winner (source 000), the default
    EVERYONE = "everyone"  # the game winner too (source 002)


@dataclass(frozen=True)
class Rules:
    """A complete, validated rules configuration. Build it with :func:`carousel` or
    :func:`manipulation_rummy` (or directly; invalid combinations raise)."""

    num_players: int = 2
    variant: Variant = Variant.CAROUSEL
    round_bonus: RoundBonus = RoundBonus.LOSERS

    def __post_init__(self) -> None:
        # Accept plain strings (from YAML / CLI) but store the enums.
        try:
            object.__setattr__(self, "variant", Variant(self.variant))
        except ValueError:
            names = ", ".join(v.value for v in Variant)
            raise CarouselError(f"unknown variant {self.variant!r} (choose from {names})") from None
        try:
            object.__setattr__(self, "round_bonus", RoundBonus(self.round_bonus))
        except ValueError:
            names = ", ".join(v.value for v in RoundBonus)
            raise CarouselError(f"unknown round_bonus {self.round_bonus!r} (choose from {names})") from None
        if isinstance(self.num_players, bool) or not isinstance(self.num_players, int):
            raise CarouselError(f"num_players must be an int, got {self.num_players!r}")
        low = 3 if self.variant is Variant.MANIPULATION_RUMMY else 2
        if not low <= self.num_players <= 5:
            raise CarouselError(f"{self.variant.value} is for {low} to 5 players, got num_players={self.num_players}")

    # ---- everything below is fixed by RULES.md

    @property
    def decks(self) -> int:
        if self.variant is Variant.MANIPULATION_RUMMY:
            return 2
        return 1 if self.num_players == 2 else 2

    @property
    def jokers(self) -> int:
        if self.variant is Variant.MANIPULATION_RUMMY:
            return 0
        return self.decks

    @property
    def deck_size(self) -> int:
        return 52 * self.decks + self.jokers

    @property
    def hand_size(self) -> int:
        return 7 if self.variant is Variant.MANIPULATION_RUMMY else 10

    @property
    def ace_low(self) -> bool:
        """May an ace sit below a 2 in a run (A-2-3)?"""
        return self.variant is Variant.CAROUSEL

    @property
    def ace_high(self) -> bool:
        """May an ace sit above a king in a run (Q-K-A)?"""
        return True

    @property
    def max_draws(self) -> int | None:
        """Cards a player may draw in one turn (``None``: until able to play)."""
        return None if self.variant is Variant.MANIPULATION_RUMMY else 3

    @property
    def knock_limit(self) -> int | None:
        """Largest hand value that may knock (``None``: no knocking)."""
        return None if self.variant is Variant.MANIPULATION_RUMMY else 5

    @property
    def must_play(self) -> bool:
        """Must a player who can play make a play this turn (variant), or may they decline?"""
        return self.variant is Variant.MANIPULATION_RUMMY

    @property
    def target_score(self) -> int:
        return 150

    @property
    def going_out_bonus(self) -> int:
        return 25 if self.variant is Variant.CAROUSEL else 0

    @property
    def undercut_bonus(self) -> int:
        return 10

    @property
    def game_bonus(self) -> int:
        return 100 if self.variant is Variant.CAROUSEL else 0

    @property
    def round_won_bonus(self) -> int:
        return 25 if self.variant is Variant.CAROUSEL else 0


def carousel(num_players: int = 2, round_bonus: RoundBonus | str = RoundBonus.LOSERS) -> Rules:
    return Rules(num_players=num_players, variant=Variant.CAROUSEL, round_bonus=round_bonus)


def manipulation_rummy(num_players: int = 4) -> Rules:
    return Rules(num_players=num_players, variant=Variant.MANIPULATION_RUMMY)


def by_name(name: str, num_players: int, **options: object) -> Rules:
    """A rules configuration selected by variant name (``carousel``, ``manipulation_rummy``)."""
    return Rules(num_players=num_players, variant=name, **options)  # type: ignore[arg-type]
