"""The fixed facts of Carioca (RULES.md, "Carioca"): the deck, the six contracts, the card
values and the escalera's positions. Carioca has no options: everything here is the rules.
"""

from __future__ import annotations

from typing import NamedTuple

from carousel_env.core.cards import JOKER, NUM_CARDS, Card, make_card, rank_of

MIN_PLAYERS, MAX_PLAYERS = 2, 5
NUM_DECKS = 2
NUM_JOKERS = 4
DECK_SIZE = NUM_DECKS * NUM_CARDS + NUM_JOKERS  # 108
HAND_SIZE = 11
NUM_ROUNDS = 6
TRIO_SIZE = 3  # a trio is 3 or more cards; exactly 3 when going down
ESCALERA_SIZE = 4  # an escalera is 4 or more cards; exactly 4 when going down
JOKERS_PER_MELD_GOING_DOWN = 1
RESHUFFLES = 1  # the stock is rebuilt from the discard pile once a round
# The project's bound on a round (RULES.md): a round whose pile has been drawn from this often
# ends before the next draw, as when the stock runs out; far beyond normal play, it ends
# what a policy that always takes the pile's top would play forever.
PILE_DRAW_LIMIT = 300
JOKER_POINTS = 25
CARD_KINDS = NUM_CARDS + 1  # the 52 faces and the joker: the index of a hand's count vector

# An escalera's cells: position 1 is the low ace, 2..13 the ranks 2..K, 14 the high ace.
LOW_ACE, HIGH_ACE = 1, 14
TRIO_JOKER_SUIT = 0  # a joker in a trio stands for the rank; it is written with clubs (JK=7C)


class Contract(NamedTuple):
    """What a player must lay out to go down: ``trios`` trios and ``escaleras`` escaleras."""

    trios: int
    escaleras: int

    @property
    def cards(self) -> int:
        return self.trios * TRIO_SIZE + self.escaleras * ESCALERA_SIZE

    @property
    def melds(self) -> int:
        return self.trios + self.escaleras

    def __str__(self) -> str:
        parts = []
        if self.trios:
            parts.append(f"{self.trios} trio{'s' if self.trios > 1 else ''}")
        if self.escaleras:
            parts.append(f"{self.escaleras} escalera{'s' if self.escaleras > 1 else ''}")
        return " and ".join(parts)


# Round r (1..6) plays CONTRACTS[r - 1] (source 003).
CONTRACTS: tuple[Contract, ...] = (
    Contract(trios=2, escaleras=0),
    Contract(trios=1, escaleras=1),
    Contract(trios=0, escaleras=2),
    Contract(trios=3, escaleras=0),
    Contract(trios=2, escaleras=1),
    Contract(trios=1, escaleras=2),
)
assert len(CONTRACTS) == NUM_ROUNDS


def card_points(card: Card) -> int:
    """A card left in hand: 2-10 face value, J 11, Q 12, K 13, A 14, joker 25 (source 003)."""
    if card == JOKER:
        return JOKER_POINTS
    rank = rank_of(card)
    return 14 if rank == 1 else rank


POINTS: tuple[int, ...] = tuple(card_points(c) for c in range(CARD_KINDS))


def hand_points(hand) -> int:
    return sum(POINTS[c] for c in hand)


def card_at(suit: int, position: int) -> Card:
    """The card in cell ``position`` (1..14) of an escalera of ``suit``: both aces are the ace."""
    return make_card(1 if position == HIGH_ACE else position, suit)


__all__ = [
    "CARD_KINDS",
    "CONTRACTS",
    "DECK_SIZE",
    "ESCALERA_SIZE",
    "HAND_SIZE",
    "HIGH_ACE",
    "JOKER_POINTS",
    "LOW_ACE",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "NUM_DECKS",
    "NUM_JOKERS",
    "NUM_ROUNDS",
    "PILE_DRAW_LIMIT",
    "POINTS",
    "TRIO_SIZE",
    "Contract",
    "card_at",
    "card_points",
    "hand_points",
]
