"""Possible positions: a table and a hand that some game of the rules could reach.

A position is possible when (docs/RULES.md "Possible positions"):

1. every unit is a card: a hand holds real cards ``0..51`` and jokers ``JOKER`` (52), never
   a declared joker; a table holds real cards ``0..51`` and declared jokers
   ``TABLE_JOKER + card`` (64..115);
2. the variant has jokers, if the position holds any (Manipulation Rummy has none);
3. the hand and the table hold at most ``rules.jokers`` jokers together, a table joker
   counting as one whatever it declares;
4. they hold at most ``rules.decks`` copies of each real card together; a joker declaring
   7H is no copy of 7H (a joker may declare a card whose real copies are all on the table);
5. every meld on the table is a valid set or run under the rules (their aces).

Every reachable position passes: a deal takes the hands from the deck, and a legal play
only moves hand cards into valid melds. The public ``solve``, ``has_play`` and
``check_play`` run :func:`check_position`; the environment, whose positions the engine
built, skips it.
"""

from __future__ import annotations

from collections import Counter

from carousel_env.core.cards import (
    JOKER,
    NUM_CARDS,
    TABLE_JOKER,
    Hand,
    Table,
    card_str,
    is_hand_card,
    is_table_joker,
    is_table_unit,
    meld_str,
    unit_str,
    units_in,
)
from carousel_env.games.carousel.engine.errors import ImpossiblePosition, PositionRule
from carousel_env.games.carousel.engine.melds import is_valid_meld, is_valid_meld_cached, meld_kind
from carousel_env.games.carousel.engine.rules import Rules

_HAND_CARDS = f"a real card 0..{NUM_CARDS - 1} or a joker, {JOKER}"
_TABLE_UNITS = f"a real card 0..{NUM_CARDS - 1} or a declared joker {TABLE_JOKER}..{TABLE_JOKER + NUM_CARDS - 1}"


def check_position(table: Table, hand: Hand, rules: Rules) -> None:
    """Raise :class:`ImpossiblePosition` naming the first thing no game of ``rules`` could
    reach (see the module docstring), or return ``None``."""
    # Every public solve runs this, so the common case (a possible position of tuples of
    # ints) takes one pass; anything else goes to the full check, which names the problem.
    try:
        if _is_possible(table, hand, rules):
            return
    except TypeError:  # not sequences, or a meld that is not hashable
        pass
    _check_rule_by_rule(table, hand, rules)


def is_possible_position(table: Table, hand: Hand, rules: Rules) -> bool:
    """Whether :func:`check_position` accepts the position."""
    try:
        check_position(table, hand, rules)
    except ImpossiblePosition:
        return False
    return True


def _is_possible(table: Table, hand: Hand, rules: Rules) -> bool:
    """True only if the position passes rules 1-5; False also for unusual input (units that
    are not plain ints, melds that are not tuples) the full check should judge."""
    copies = [0] * (NUM_CARDS + 1)  # per real card, then (at JOKER) the jokers
    for card in hand:
        if type(card) is not int or not 0 <= card <= JOKER:
            return False
        copies[card] += 1
    ace_low, ace_high = rules.ace_low, rules.ace_high
    for meld in table:
        if type(meld) is not tuple:
            return False
        for unit in meld:
            if type(unit) is not int:
                return False
            if 0 <= unit < NUM_CARDS:
                copies[unit] += 1
            elif TABLE_JOKER <= unit < TABLE_JOKER + NUM_CARDS:
                copies[JOKER] += 1
            else:
                return False
        if not is_valid_meld_cached(meld, ace_low, ace_high):
            return False
    return copies[JOKER] <= rules.jokers and max(copies[:NUM_CARDS]) <= rules.decks


def _check_rule_by_rule(table: Table, hand: Hand, rules: Rules) -> None:
    hand = units_in(hand, "the hand", _not_a_card)
    melds = [
        units_in(meld, f"meld {number} of the table", _not_a_card)
        for number, meld in enumerate(units_in(table, "the table", _not_a_card), 1)
    ]
    for card in hand:
        if not is_hand_card(card):
            raise ImpossiblePosition(PositionRule.NOT_A_CARD, _not_a_hand_card(card))
    for number, meld in enumerate(melds, 1):
        for unit in meld:
            if not is_table_unit(unit):
                raise ImpossiblePosition(
                    PositionRule.NOT_A_CARD,
                    f"meld {number} of the table holds {_shown(unit)}: a table unit is {_TABLE_UNITS}",
                )

    # Where each joker is, in reading order: the hand's first, then the table's by meld.
    jokers = [("in the hand", "JK")] * hand.count(JOKER)
    jokers += [
        (f"in meld {number} ({meld_str(meld)})", unit_str(unit))
        for number, meld in enumerate(melds, 1)
        for unit in meld
        if is_table_joker(unit)
    ]
    if jokers and rules.jokers == 0:
        where, text = jokers[0]
        raise ImpossiblePosition(
            PositionRule.JOKERS_NOT_IN_VARIANT, f"{text} {where}: {_describe(rules)} has no jokers"
        )
    if len(jokers) > rules.jokers:
        places = ", ".join(f"{text} {where}" for where, text in jokers)
        raise ImpossiblePosition(
            PositionRule.TOO_MANY_JOKERS, f"{len(jokers)} jokers ({places}); {_describe(rules)} allows {rules.jokers}"
        )

    in_hand = Counter(card for card in hand if card != JOKER)
    on_table = Counter(unit for meld in melds for unit in meld if not is_table_joker(unit))
    for card in sorted((in_hand + on_table).keys()):
        total = in_hand[card] + on_table[card]
        if total > rules.decks:
            numbers = [str(n) for n, meld in enumerate(melds, 1) for _ in range(meld.count(card))]
            places = []
            if numbers:
                melds_named = f"meld {numbers[0]}" if len(numbers) == 1 else f"melds {', '.join(numbers)}"
                places.append(f"{on_table[card]} on the table, in {melds_named}")
            if in_hand[card]:
                places.append(f"{in_hand[card]} in the hand")
            raise ImpossiblePosition(
                PositionRule.TOO_MANY_COPIES,
                f"{total} copies of {card_str(card)} ({'; '.join(places)}); {_describe(rules)} allows "
                f"{rules.decks} (a joker declaring {card_str(card)} is no copy of it)",
            )

    for number, meld in enumerate(melds, 1):
        if not is_valid_meld(meld, rules):
            raise ImpossiblePosition(
                PositionRule.INVALID_MELD,
                f"meld {number} of {len(melds)} ({meld_str(meld)}) is neither a set nor a run{_why_not(meld, rules)}",
            )


def _why_not(meld: tuple, rules: Rules) -> str:
    """Why a meld that would be valid with aces low is not, where that is the reason."""
    if not rules.ace_low and meld_kind(meld, ace_low=True, ace_high=rules.ace_high) is not None:
        return f" ({rules.variant.value} has aces high only: no A-2-3)"
    return ""


def _describe(rules: Rules) -> str:
    """The rules as the errors name them: ``carousel for 2 players (1 deck, 1 joker)``."""
    decks = "1 deck" if rules.decks == 1 else f"{rules.decks} decks"
    jokers = {0: "no jokers", 1: "1 joker"}.get(rules.jokers, f"{rules.jokers} jokers")
    return f"{rules.variant.value} for {rules.num_players} players ({decks}, {jokers})"


def _not_a_hand_card(card: object) -> str:
    if _is_int(card) and TABLE_JOKER <= card < TABLE_JOKER + NUM_CARDS:
        return (
            f"the hand holds {card} ({unit_str(card)}), a declared joker: a joker in a hand is JK ({JOKER}) "
            "and declares a card only when it is played"
        )
    return f"the hand holds {_shown(card)}: a hand card is {_HAND_CARDS}"


def _shown(unit: object) -> str:
    return f"{unit!r}" if _is_int(unit) else f"{unit!r} ({type(unit).__name__})"


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _not_a_card(detail: str) -> ImpossiblePosition:
    return ImpossiblePosition(PositionRule.NOT_A_CARD, detail)
