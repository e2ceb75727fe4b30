"""The rules Carousel's plays and positions can break (the shared errors are in
:mod:`carousel_env.core.errors`)."""

from __future__ import annotations

from enum import Enum

from carousel_env.core.errors import CarouselError

# Plays and positions are both refused for it, in the same words.
_NOT_A_CARD = "every unit must be a card (0..52 in a hand, a real card or a declared joker on the table)"


class PlayRule(str, Enum):
    """The rule of RULES.md ("Manipulation", "Jokers on the table") that a play breaks."""

    NOT_A_CARD = _NOT_A_CARD
    NO_HAND_CARD = "a play must add at least one card from the hand"
    NOT_IN_HAND = "played cards must come from the player's hand"
    TABLE_CARDS_CONSERVED = "every card that was on the table must still be on the table"
    CARDS_ACCOUNTED = "the new table must hold exactly the old table plus the played cards"
    INVALID_MELD = "every card on the table must be in a valid meld"
    JOKER_DECLARATION = "a table joker keeps its declared card unless a real copy releases it"
    JOKER_TO_HAND = "a joker on the table never goes back to a hand"


class IllegalPlay(CarouselError):
    """A proposed play fails the manipulation check; ``rule`` names the rule broken."""

    def __init__(self, rule: PlayRule, detail: str) -> None:
        super().__init__(f"illegal play: {rule.value}: {detail}")
        self.rule = rule
        self.detail = detail


class PositionRule(str, Enum):
    """What makes a position (a table and a hand) one that no game of the rules could reach
    (RULES.md "Cards and values", "Melds", "Jokers on the table", the variant)."""

    NOT_A_CARD = _NOT_A_CARD
    JOKERS_NOT_IN_VARIANT = "the variant is played without jokers"
    TOO_MANY_JOKERS = "the hand and the table together hold at most the deck's jokers"
    TOO_MANY_COPIES = "the hand and the table together hold at most one copy of each card per deck"
    INVALID_MELD = "every meld on the table must be a valid set or run"


class ImpossiblePosition(CarouselError):
    """A table and hand that no game of the rules could reach; ``rule`` names what is wrong."""

    def __init__(self, rule: PositionRule, detail: str) -> None:
        super().__init__(f"impossible position: {rule.value}: {detail}")
        self.rule = rule
        self.detail = detail
