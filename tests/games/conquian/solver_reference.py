"""A brute-force reference for Conquian's melding solver (tests and benchmarks only), and random
positions to compare them on.

It shares no code with :mod:`carousel_env.games.conquian.solver`: it imports only the card
encoding, the rules (:class:`ConquianRules`, :func:`position`, :func:`card_at`), the meld test
(:func:`melds.is_meld`, :func:`melds.melds_of`) and the declarative rule a turn's melding must
keep (:func:`legal.arrangement_problem`).

The reference (:func:`reference_arrangements`)
==============================================
Every subset ``S`` of the hand (non-empty when nothing is taken) and every set partition of
the table's cards, the taken card and ``S`` into groups is enumerated; a partition is kept when
every group is a meld and :func:`arrangement_problem` finds nothing wrong with it. The kept
partitions, each as :func:`melds_of` writes it, are the answer.

The partitions are made by the textbook recursion: the cards are taken one by one, each put
into one of the groups already open or into a new group of its own (so each partition comes
once). A hand card may also be left out, which is how the subsets are enumerated with the
partitions in one walk (:func:`reference_arrangements_literal` loops over the subsets and
partitions each on its own; the tests check both give the same). Only a group that can still
become a meld is extended, read on the cards' order, suit first then run position (A..7, J, Q,
K): a group stays of one rank (at most 4 cards) or of one suit. In a group of one suit every
card comes after the group's cards, so it can join only as the next position (any card between
would have come first and stayed out for good), and the group stays within ``run_limit``. The
kept partitions are still checked whole with :func:`is_meld`.

Positions (:func:`random_position`)
===================================
A player's melds (0 to 10 cards of disjoint valid melds), a hand making 10 cards with them,
and a card not among them to take; ``dense`` positions draw everything from one or two suits
and sets of four, where rearranging has the most to do.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator
from itertools import combinations

from carousel_env.core.cards import Card, rank_of, suit_of
from carousel_env.games.conquian.legal import arrangement_problem
from carousel_env.games.conquian.melds import Melds, is_meld, melds_of
from carousel_env.games.conquian.rules import CARDS, HAND_SIZE, RANKS, ConquianRules, card_at, position

SET_MAX = 4  # the reference's own constants: a set is 3 or 4 cards of a rank
MELD_MIN = 3


def _order(card: Card) -> tuple[int, int]:
    return suit_of(card), position(card)


def _fits(group: list[Card], card: Card, run_limit: int) -> bool:
    """Whether ``card`` (after every card of ``group`` in :func:`_order`) may join ``group`` so
    that it can still become a set or a run."""
    last = group[-1]
    same_rank = all(rank_of(c) == rank_of(card) for c in group)
    if same_rank and len(group) < SET_MAX:
        return True
    same_suit = all(suit_of(c) == suit_of(card) for c in group)
    return same_suit and position(card) == position(last) + 1 and len(group) < run_limit


def _may_grow(group: list[Card], later: frozenset[Card], run_limit: int) -> bool:
    """Whether a card of ``later`` may still join ``group`` (as :func:`_fits` allows)."""
    last = group[-1]
    same_rank = all(rank_of(c) == rank_of(last) for c in group) and len(group) < SET_MAX
    if same_rank and any(rank_of(c) == rank_of(last) for c in later):
        return True
    if position(last) + 1 >= len(RANKS) or len(group) >= run_limit:
        return False
    return all(suit_of(c) == suit_of(last) for c in group) and card_at(suit_of(last), position(last) + 1) in later


def group_partitions(required: Iterable[Card], optional: Iterable[Card], run_limit: int) -> Iterator[list[list[Card]]]:
    """Every partition into groups of the ``required`` cards and a subset of the ``optional``
    ones (each subset with each of its partitions once), but those with a group that can no
    longer become a meld. The groups are lists in :func:`_order`; they are reused: copy them."""
    required = set(required)
    cards = sorted(required | set(optional), key=_order)
    later = [frozenset(cards[i:]) for i in range(len(cards) + 1)]
    groups: list[list[Card]] = []

    def walk(i: int) -> Iterator[list[list[Card]]]:
        if any(len(g) < MELD_MIN and not _may_grow(g, later[i], run_limit) for g in groups):
            return  # a group too small for a meld that no card left can join
        if i == len(cards):
            yield groups
            return
        card = cards[i]
        if card not in required:  # left in the hand
            yield from walk(i + 1)
        for group in groups:
            if _fits(group, card, run_limit):
                group.append(card)
                yield from walk(i + 1)
                group.pop()
        groups.append([card])
        yield from walk(i + 1)
        groups.pop()

    yield from walk(0)


def _kept(
    rules: ConquianRules,
    melds: Melds,
    hand: frozenset[Card],
    taken: Card | None,
    forced: bool,
    partitions: Iterable[list[list[Card]]],
) -> set[Melds]:
    found: set[Melds] = set()
    for groups in partitions:
        if not all(is_meld(g, rules) for g in groups):
            continue
        if taken is None and not any(c in hand for g in groups for c in g):
            continue  # melding from the hand alone must lay a card
        new = melds_of(groups)
        if new not in found and arrangement_problem(rules, melds, hand, taken, new, forced=forced) is None:
            found.add(new)
    return found


def _required(melds: Melds, taken: Card | None) -> list[Card]:
    table = [c for m in melds for c in m]
    return table if taken is None else [*table, taken]


def reference_arrangements(
    rules: ConquianRules, melds: Melds, hand: Iterable[Card], taken: Card | None, forced: bool = False
) -> set[Melds]:
    """Every legal end of a turn's melding: each subset of ``hand`` with each partition of the
    table, ``taken`` and the subset into melds that :func:`arrangement_problem` accepts."""
    hand = frozenset(hand)
    required = _required(melds, taken)
    return _kept(rules, melds, hand, taken, forced, group_partitions(required, hand, rules.run_limit))


def reference_arrangements_literal(
    rules: ConquianRules, melds: Melds, hand: Iterable[Card], taken: Card | None, forced: bool = False
) -> set[Melds]:
    """:func:`reference_arrangements` with the subsets looped over one by one (slow: a check
    of the joint walk)."""
    hand = frozenset(hand)
    required = _required(melds, taken)
    found: set[Melds] = set()
    for size in range(0 if taken is not None else 1, len(hand) + 1):
        for subset in combinations(sorted(hand), size):
            parts = group_partitions([*required, *subset], (), rules.run_limit)
            found |= _kept(rules, melds, hand, taken, forced, parts)
    return found


# ---------------------------------------------------------------- positions

KINDS = ("random", "dense", "long")


def _random_meld(rng: random.Random, free: set[Card], suits: list[int], rules: ConquianRules, kind: str):
    """A random set or run of ``free`` cards (runs in ``suits``), or None."""
    if rng.random() < (0.45 if kind == "dense" else 0.35):
        rank = rng.choice(RANKS)
        have = [c for c in sorted(free) if rank_of(c) == rank]
        if len(have) < MELD_MIN:
            return None
        size = SET_MAX if len(have) == SET_MAX and rng.random() < (0.7 if kind == "dense" else 0.4) else MELD_MIN
        return tuple(sorted(rng.sample(have, size)))
    suit = rng.choice(suits)
    longest = rules.run_limit
    size = rng.randint(MELD_MIN, min(longest, 10 if kind == "long" else 5))
    low = rng.randint(0, len(RANKS) - size)
    run = tuple(card_at(suit, p) for p in range(low, low + size))
    return run if all(c in free for c in run) else None


def _near(card: Card, other: Card) -> bool:
    return rank_of(card) == rank_of(other) or (
        suit_of(card) == suit_of(other) and abs(position(card) - position(other)) <= 2
    )


def random_position(
    rng: random.Random, rules: ConquianRules, kind: str | None = None
) -> tuple[Melds, tuple[Card, ...], Card]:
    """A player's melds, hand (10 cards between them) and a card to take, not among them.
    ``kind``: ``random`` (cards from the whole pack), ``dense`` (one or two suits and sets
    of four), ``long`` (long runs); None draws one."""
    kind = kind or rng.choice(KINDS)
    suits = rng.sample(range(4), 1 if kind != "random" and rng.random() < 0.4 else 2)
    if kind == "random":
        suits = list(range(4))
    free = set(CARDS)
    target = rng.choice((0, 3, 3, 4, 5, 6, 6, 7, 8, 9, 10))
    melds: list[tuple[Card, ...]] = []
    melded = 0
    for _ in range(60):
        if melded >= target:
            break
        meld = _random_meld(rng, free, suits, rules, kind)
        if meld is None or melded + len(meld) > HAND_SIZE:
            continue
        melds.append(meld)
        melded += len(meld)
        free -= set(meld)
    focus = [c for c in sorted(free) if suit_of(c) in suits]
    if kind == "dense":  # the ranks of the focus suits in every suit: sets to make
        ranks = {rank_of(c) for c in focus}
        focus += [c for c in sorted(free) if rank_of(c) in ranks and suit_of(c) not in suits and rng.random() < 0.3]
    hand: list[Card] = []
    while len(hand) < HAND_SIZE - melded:
        pool = focus if kind != "random" and focus and rng.random() < 0.85 else sorted(free)
        card = rng.choice(pool)
        if card in free:
            hand.append(card)
            free.discard(card)
        focus = [c for c in focus if c != card]
    held = [c for m in melds for c in m] + hand
    near = sorted(c for c in free if any(_near(c, h) for h in held))
    taken = rng.choice(near if near and rng.random() < 0.8 else sorted(free))
    return melds_of(melds), tuple(sorted(hand)), taken


def random_forcing(rng: random.Random, rules: ConquianRules, kind: str | None = None):
    """A position as :func:`random_position` whose card grows a table meld if any can grow
    (a forcing candidate; whether it can be forced is the solver's and the reference's call)."""
    melds, hand, taken = random_position(rng, rules, kind)
    table = {c for m in melds for c in m}
    fits = []
    for c in sorted(set(CARDS) - table - set(hand)):
        grows = any(is_meld((*m, c), rules) for m in melds)
        # now and then a card that may fit only by rearranging
        if grows or (any(_near(c, t) for t in table) and rng.random() < 0.2):
            fits.append(c)
    if fits:
        taken = rng.choice(fits)
    return melds, hand, taken


__all__ = [
    "KINDS",
    "group_partitions",
    "random_forcing",
    "random_position",
    "reference_arrangements",
    "reference_arrangements_literal",
]
