"""Conquian's melds (RULES.md, "Conquian": "Cards and melds").

A meld is a sorted tuple of cards (the family's index sorts a run by rank and a set by
suit); a player's melds are a sorted tuple of melds, so that two arrangements of the same
melds are equal. A **set** is 3 or 4 cards of one rank; a **run** is 3 or more cards of one
suit in consecutive ranks (A..7, J, Q, K: the 7 and the J are consecutive, the ace low only),
at most ``rules.run_limit`` long.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import combinations

from carousel_env.core.cards import Card, hand_str, rank_of, suit_of
from carousel_env.games.conquian.rules import (
    CARDS,
    MELD_MIN,
    SET_MAX,
    ConquianRules,
    card_at,
    is_conquian_card,
    position,
)

NEAR = 2  # run places within which two cards of a suit may meld (with the card between)
Meld = tuple[Card, ...]
Melds = tuple[Meld, ...]


def is_set(cards: Iterable[Card]) -> bool:
    cards = tuple(cards)
    if not all(is_conquian_card(c) for c in cards):
        return False
    return MELD_MIN <= len(cards) <= SET_MAX and len({rank_of(c) for c in cards}) == 1 and len(set(cards)) == len(cards)


def is_run(cards: Iterable[Card], rules: ConquianRules) -> bool:
    cards = tuple(cards)
    if not all(is_conquian_card(c) for c in cards):
        return False
    if not MELD_MIN <= len(cards) <= rules.run_limit or len({suit_of(c) for c in cards}) != 1:
        return False
    places = sorted(position(c) for c in cards)
    return places == list(range(places[0], places[0] + len(places)))


def is_meld(cards: Iterable[Card], rules: ConquianRules) -> bool:
    cards = tuple(cards)
    return is_set(cards) or is_run(cards, rules)


def meld_of(cards: Iterable[Card]) -> Meld:
    """``cards`` as a meld (sorted)."""
    return tuple(sorted(cards))


def melds_of(melds: Iterable[Iterable[Card]]) -> Melds:
    """``melds`` as a player's melds (each sorted, in order)."""
    return tuple(sorted(meld_of(m) for m in melds))


def cards_in(melds: Melds) -> tuple[Card, ...]:
    return tuple(sorted(c for m in melds for c in m))


def melds_str(melds: Melds) -> str:
    return " | ".join(hand_str(m) for m in melds)


def candidate_melds(cards: Iterable[Card], rules: ConquianRules) -> list[Meld]:
    """Every meld that can be made of ``cards`` (distinct cards), each once."""
    cards = sorted(set(cards))
    found: list[Meld] = []
    by_rank: dict[int, list[Card]] = {}
    by_suit: dict[int, set[int]] = {}
    for c in cards:
        by_rank.setdefault(rank_of(c), []).append(c)
        by_suit.setdefault(suit_of(c), set()).add(position(c))
    for same in by_rank.values():
        for size in range(MELD_MIN, len(same) + 1):
            found += [meld_of(m) for m in combinations(same, size)]
    for suit, places in by_suit.items():
        for low in sorted(places):
            high = low
            while high + 1 in places and high + 1 - low + 1 <= rules.run_limit:
                high += 1
                if high - low + 1 >= MELD_MIN:
                    found.append(meld_of(card_at(suit, p) for p in range(low, high + 1)))
    return found


def could_meld(a: Card, b: Card) -> bool:
    """Whether two cards could be in one meld: the same rank, or the same suit within two places."""
    if rank_of(a) == rank_of(b):
        return a != b
    return suit_of(a) == suit_of(b) and abs(position(a) - position(b)) <= NEAR


def meld_partners(cards: Iterable[Card]) -> set[Card]:
    """The cards of the pack that could meld with one of ``cards`` (:func:`could_meld`); a card
    of ``cards`` is in it only as another's partner."""
    cards = tuple(cards)
    return {x for x in CARDS if any(could_meld(x, c) for c in cards)}
