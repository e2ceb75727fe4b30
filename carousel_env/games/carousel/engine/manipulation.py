"""The manipulation check (RULES.md "Manipulation" and "Jokers on the table").

A play is the multiset of hand cards added plus the complete new table, every joker with
its declared card. It is legal when:

1. at least one hand card is added, and every added card is in the hand;
2. the new table holds exactly the old table's real cards plus the added real cards, and
   exactly the old table's jokers plus the added jokers (so no table card disappears and
   no table joker goes back to a hand);
3. every meld of the new table is valid;
4. table jokers keep their declared card unless released: for every card ``d``, the
   number of table jokers whose declaration changed away from ``d`` is at most the number
   of real copies of ``d`` on the new table.

Jokers are interchangeable, so in rule 4 the table jokers are matched to the new table's
jokers so as to keep as many declarations as possible: the number that changed away
from ``d`` is ``max(0, old jokers declaring d - new jokers declaring d)``. Any other
matching only changes more declarations, so if this one breaks the rule, all do.

This module is the single code path that decides legality: the game applies plays
through it and the solver's suggestions are checked by it. ``check_play`` first refuses a
starting position no game could reach (``positions.check_position``), unless the engine
built it.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from dataclasses import dataclass
from itertools import chain

from carousel_env.core.cards import (
    JOKER,
    NUM_CARDS,
    TABLE_JOKER,
    Hand,
    Table,
    card_str,
    face,
    hand_str,
    is_hand_card,
    is_table_joker,
    is_table_unit,
    meld_str,
    table_str,
    units_in,
)
from carousel_env.games.carousel.engine import positions
from carousel_env.games.carousel.engine.errors import IllegalPlay, PlayRule
from carousel_env.games.carousel.engine.melds import is_valid_meld, is_valid_meld_cached
from carousel_env.games.carousel.engine.rules import Rules


@dataclass(frozen=True, repr=False)
class Play:
    """Hand cards added (sorted) and the complete new table; printed in card notation."""

    added: Hand
    table: Table

    def __repr__(self) -> str:
        return f"Play(added={hand_str(self.added)!r}, table={table_str(self.table)!r})"

    def __str__(self) -> str:
        return f"{hand_str(self.added)} -> {table_str(self.table)}"

    def __post_init__(self) -> None:
        # Checked here so that a bad unit is named where the play is built, instead of a
        # TypeError from sorting an int with a str (check_play judges of_normalised plays).
        added = units_in(self.added, "added", _not_a_card)
        for card in added:
            if not is_hand_card(card):
                raise IllegalPlay(
                    PlayRule.NOT_A_CARD, f"added holds {card!r} ({type(card).__name__}), not a hand card (an int 0..52)"
                )
        table = []
        for number, meld in enumerate(units_in(self.table, "table", _not_a_card), 1):
            units = units_in(meld, f"meld {number} of the table", _not_a_card)
            for unit in units:
                if not is_table_unit(unit):
                    raise IllegalPlay(
                        PlayRule.NOT_A_CARD,
                        f"meld {number} of the table holds {unit!r} ({type(unit).__name__}), not a table unit "
                        f"(an int: a real card 0..{NUM_CARDS - 1} or a declared joker "
                        f"{TABLE_JOKER}..{TABLE_JOKER + NUM_CARDS - 1})",
                    )
            table.append(units)
        object.__setattr__(self, "added", tuple(sorted(added)))
        object.__setattr__(self, "table", tuple(table))

    @classmethod
    def of_normalised(cls, added: tuple, table: tuple) -> Play:
        """A play from ``added`` already a sorted tuple and ``table`` already a tuple of
        tuples, skipping ``__post_init__``: the solver builds every suggestion this way, and
        at up to 8 suggestions of 20-odd melds per decision, copying them again costs more
        than the rest of unpacking the solve."""
        play = object.__new__(cls)
        object.__setattr__(play, "added", added)
        object.__setattr__(play, "table", table)
        return play


def check_play(table: Table, hand: Hand, play: Play, rules: Rules, *, check_position: bool = True) -> None:
    """Raise :class:`IllegalPlay` naming the broken rule, or return ``None`` if legal.

    The position the play starts from must be one a game could reach, or
    :class:`~carousel_env.games.carousel.engine.errors.ImpossiblePosition` is raised (a broken table is not
    "repaired" by a play). ``check_position=False`` skips that check, for positions the
    engine built (the game's own state); the play is checked in full either way."""
    if check_position:
        positions.check_position(table, hand, rules)
    # The environment checks a play on every step, so the common case (a legal play) takes
    # a fast path; anything it does not accept goes through the rule-by-rule check below,
    # which names the broken rule (or accepts what the fast path was too strict for).
    try:
        if _passes_all_rules(table, hand, play, rules):
            return
    except (TypeError, ValueError):  # malformed input: the full check says what is wrong
        pass
    _check_rule_by_rule(table, hand, play, rules)


_ONLY_INT = frozenset({int})


def _passes_all_rules(table: Table, hand: Hand, play: Play, rules: Rules) -> bool:
    """True only if ``play`` obeys rules 1-4 (see the module docstring); False also for
    unusual input the full check should judge (units that are not plain ints).

    Multisets are compared as sorted lists: table jokers (>= ``TABLE_JOKER``) sort after
    every real card and hand jokers (``JOKER``) after every real hand card."""
    added = play.added  # sorted by Play
    if not added or added[0] < 0 or added[-1] > JOKER:
        return False
    # Rule 1: every added card comes out of the hand (one copy each).
    rest = list(hand)
    for card in added:
        if type(card) is not int:
            return False
        rest.remove(card)  # ValueError: not in the hand
    new_units = sorted(chain.from_iterable(play.table))
    if not new_units or new_units[0] < 0 or new_units[-1] >= TABLE_JOKER + NUM_CARDS:
        return False
    new_first_joker = bisect_left(new_units, TABLE_JOKER)
    if bisect_left(new_units, NUM_CARDS) != new_first_joker or not _ONLY_INT.issuperset(map(type, new_units)):
        return False
    old_units = sorted(chain.from_iterable(table))
    old_first_joker = bisect_left(old_units, TABLE_JOKER)
    # Rule 2: real cards conserved and accounted for, jokers counted.
    added_jokers = len(added) - bisect_left(added, JOKER)
    new_real = new_units[:new_first_joker]
    if new_real != sorted(old_units[:old_first_joker] + list(added[: len(added) - added_jokers])):
        return False
    if len(new_units) - new_first_joker != len(old_units) - old_first_joker + added_jokers:
        return False
    # Rule 3: every meld valid.
    ace_low, ace_high = rules.ace_low, rules.ace_high
    for meld in play.table:
        if not is_valid_meld_cached(meld, ace_low, ace_high):
            return False
    # Rule 4: table jokers keep their declaration unless a real copy releases them.
    if old_first_joker == len(old_units):
        return True
    old_jokers = [face(u) for u in old_units[old_first_joker:]]
    new_jokers = [face(u) for u in new_units[new_first_joker:]]
    for declared in set(old_jokers):
        changed_away = old_jokers.count(declared) - new_jokers.count(declared)
        if changed_away > 0 and changed_away > new_real.count(declared):
            return False
    return True


def _check_rule_by_rule(table: Table, hand: Hand, play: Play, rules: Rules) -> None:
    bad = [c for c in play.added if not is_hand_card(c)]
    bad += [u for m in play.table for u in m if not is_table_unit(u)]
    if bad:
        raise IllegalPlay(PlayRule.NOT_A_CARD, f"{bad[:3]!r} are not cards or table units")
    if not play.added:
        raise IllegalPlay(PlayRule.NO_HAND_CARD, "no card was added")
    missing = Counter(play.added) - Counter(hand)
    if missing:
        raise IllegalPlay(PlayRule.NOT_IN_HAND, f"{hand_str(missing.elements())} not in the hand {hand_str(hand)}")

    old_real = Counter(u for m in table for u in m if not is_table_joker(u))
    new_real = Counter(u for m in play.table for u in m if not is_table_joker(u))
    added_real = Counter(c for c in play.added if c != JOKER)
    lost = old_real - new_real
    if lost:
        raise IllegalPlay(PlayRule.TABLE_CARDS_CONSERVED, f"{hand_str(lost.elements())} left the table")
    extra = new_real - old_real - added_real
    if extra:
        raise IllegalPlay(
            PlayRule.CARDS_ACCOUNTED, f"{hand_str(extra.elements())} on the new table came from neither table nor play"
        )
    unplaced = (old_real + added_real) - new_real
    if unplaced:
        raise IllegalPlay(PlayRule.CARDS_ACCOUNTED, f"played {hand_str(unplaced.elements())} is not on the new table")

    old_jokers = Counter(face(u) for m in table for u in m if is_table_joker(u))
    new_jokers = Counter(face(u) for m in play.table for u in m if is_table_joker(u))
    added_jokers = play.added.count(JOKER)
    old_count, new_count = sum(old_jokers.values()), sum(new_jokers.values())
    if new_count < old_count + added_jokers:
        if new_count < old_count:
            raise IllegalPlay(PlayRule.JOKER_TO_HAND, f"{old_count} jokers were on the table, {new_count} are now")
        raise IllegalPlay(
            PlayRule.CARDS_ACCOUNTED, f"{added_jokers} jokers played but only {new_count - old_count} placed"
        )
    if new_count > old_count + added_jokers:
        raise IllegalPlay(PlayRule.CARDS_ACCOUNTED, f"{new_count - old_count - added_jokers} jokers came from nowhere")

    for meld in play.table:
        if not is_valid_meld(meld, rules):
            raise IllegalPlay(PlayRule.INVALID_MELD, f"{meld_str(meld)} is neither a set nor a run")

    for declared, was in old_jokers.items():
        changed_away = was - new_jokers.get(declared, 0)
        if changed_away > new_real.get(declared, 0):
            raise IllegalPlay(
                PlayRule.JOKER_DECLARATION,
                f"{changed_away} joker(s) declared {card_str(declared)} changed declaration but only "
                f"{new_real.get(declared, 0)} real {card_str(declared)} on the new table can release them",
            )


def _not_a_card(detail: str) -> IllegalPlay:
    return IllegalPlay(PlayRule.NOT_A_CARD, detail)


def is_legal_play(table: Table, hand: Hand, play: Play, rules: Rules, *, check_position: bool = True) -> bool:
    """Whether ``check_play`` accepts the play; an impossible position still raises."""
    try:
        check_play(table, hand, play, rules, check_position=check_position)
    except IllegalPlay:
        return False
    return True


def remaining_hand(hand: Hand, play: Play) -> Hand:
    """The hand after ``play`` (assumes the play was checked; of an unchecked play, the
    cards the hand does not hold are ignored)."""
    rest = list(hand)
    for card in play.added:
        if card in rest:
            rest.remove(card)
    return tuple(sorted(rest))
