"""What a Conquian player can meld: every distinct way to meld a taken card with the hand and
the player's own melds, rearranged as ``rules.rearrange`` allows, then further melds from the
hand (RULES.md, "Conquian": "A turn", 4 and 5).

An :class:`Arrangement` is where a turn leaves the player's melds: ``melds``, and the hand's
cards it ``laid``. Two ways that end in the same melds are one arrangement. The solver builds
them by rule, mode by mode:

* ``free``: every partition into melds of the old melds' cards, the taken card and any hand
  cards (the cards are taken lowest first, each one skipped if it may be, or put in a meld
  whose lowest card it is: each partition comes once).
* ``none``: each old meld grows (a set by its missing suit, a run at its ends) or stays; the
  taken card grows one of them or makes a new meld with hand cards; new melds of hand cards.
* ``borrow``: as ``none``, or the taken card makes a new meld with cards borrowed from the old
  melds (one from a set of 4, or an end of a run of 4 or more; one per meld) and hand cards.

A forced card (``forced``) is first laid with table cards alone: under ``none`` it grows an
old meld by itself (hand cards may grow it further); under ``borrow`` it does that or makes a
meld of borrowed cards; under ``free`` any
partition follows, the hand's cards being laid after. ``tests/games/conquian`` checks the solver
against every partition of every subset of the cards, filtered by the engine's rule
(:func:`carousel_env.games.conquian.legal.arrangement_problem`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator
from itertools import product
from typing import NamedTuple

from carousel_env.core.cards import Card, rank_of, suit_of
from carousel_env.games.conquian.melds import Meld, Melds, candidate_melds, is_meld, is_set, meld_of, melds_of
from carousel_env.games.conquian.rules import SET_MAX, ConquianRules, Rearrange, card_at, position


class Arrangement(NamedTuple):
    """A player's melds after a turn's melding, and the hand's cards laid in it."""

    melds: Melds
    laid: tuple[Card, ...]


def partitions(required: Iterable[Card], optional: Iterable[Card], rules: ConquianRules) -> Iterator[Melds]:
    """Every set of melds that holds each ``required`` card and any of the ``optional`` ones, once."""
    required, optional = frozenset(required), frozenset(optional)
    pool = sorted(required | optional)
    by_lowest: dict[Card, list[Meld]] = defaultdict(list)
    for meld in candidate_melds(pool, rules):
        by_lowest[meld[0]].append(meld)
    free = set(pool)
    chosen: list[Meld] = []

    def walk(i: int) -> Iterator[Melds]:
        while i < len(pool) and pool[i] not in free:
            i += 1
        if i == len(pool):
            yield tuple(chosen)
            return
        card = pool[i]
        if card in optional:  # left in the hand
            free.discard(card)
            yield from walk(i + 1)
            free.add(card)
        for meld in by_lowest[card]:
            if all(c in free for c in meld):
                free.difference_update(meld)
                chosen.append(meld)
                yield from walk(i + 1)
                chosen.pop()
                free.update(meld)

    yield from walk(0)


def growths(meld: Meld, available: frozenset[Card], rules: ConquianRules) -> list[Meld]:
    """``meld`` as it stays or grows with ``available`` cards: a set by its missing suit, a run
    at either end (within ``rules.run_limit``)."""
    found = [meld]
    if is_set(meld):
        if len(meld) < SET_MAX:
            found += [meld_of((*meld, c)) for c in available if rank_of(c) == rank_of(meld[0]) and c not in meld]
        return found
    suit, low, high = suit_of(meld[0]), position(meld[0]), position(meld[-1])
    below = 0
    while low - below - 1 >= 0 and card_at(suit, low - below - 1) in available:
        below += 1
    above = 0
    while high + above + 1 <= 9 and card_at(suit, high + above + 1) in available:
        above += 1
    for down, up in product(range(below + 1), range(above + 1)):
        if (down or up) and len(meld) + down + up <= rules.run_limit:
            found.append(meld_of(card_at(suit, p) for p in range(low - down, high + up + 1)))
    return found


def _lendable(meld: Meld) -> tuple[Card, ...]:
    """The cards ``borrow`` may take from ``meld``: any of a set of 4, an end of a run of 4+."""
    if len(meld) < 4:
        return ()
    return meld if is_set(meld) else (meld[0], meld[-1])


def _grown_tables(homes: Melds, hand: frozenset[Card], rules: ConquianRules) -> Iterator[tuple[Melds, frozenset[Card]]]:
    """Each way the ``homes`` grow with hand cards, and the hand cards left."""

    def walk(i: int, left: frozenset[Card], grown: tuple[Meld, ...]) -> Iterator[tuple[Melds, frozenset[Card]]]:
        if i == len(homes):
            yield grown, left
            return
        for meld in growths(homes[i], left, rules):
            yield from walk(i + 1, left - set(meld), (*grown, meld))

    yield from walk(0, hand, ())


def _grows_alone(homes: Melds, grown: Melds, taken: Card, rules: ConquianRules) -> bool:
    """Whether the home that took ``taken`` is a meld with it alone (no hand card bridging)."""
    i = next(i for i, meld in enumerate(grown) if taken in meld)
    return is_meld((*homes[i], taken), rules)


def _kept_melds(
    homes: Melds, hand: frozenset[Card], rules: ConquianRules, taken: Card | None, placed_only: bool
) -> Iterator[Melds]:
    """Melds that only grow: the ``homes`` grown with the hand's cards (and the taken card), and
    new melds from the cards left, the taken card among them if no home took it (unless
    ``placed_only``: a forced card must grow a home)."""
    cards = hand | {taken} if taken is not None else hand
    for grown, left in _grown_tables(homes, cards, rules):
        placed = taken is None or taken not in left
        if placed_only and not (placed and _grows_alone(homes, grown, taken, rules)):
            continue
        required = () if placed else (taken,)
        for new in partitions(required, left - set(required), rules):
            yield (*grown, *new)


def _borrowed_melds(
    melds: Melds, hand: frozenset[Card], rules: ConquianRules, taken: Card, forced: bool
) -> Iterator[Melds]:
    """Under ``borrow``: the taken card in a new meld with at least one borrowed card (and hand
    cards, unless ``forced``), the rest as :func:`_kept_melds` makes them."""
    lender = {card: i for i, meld in enumerate(melds) for card in _lendable(meld)}
    pool = {taken, *lender} if forced else {taken, *lender, *hand}
    for meld in candidate_melds(pool, rules):
        borrowed = [c for c in meld if c in lender]
        lenders = [lender[c] for c in borrowed]
        if taken not in meld or not borrowed or len(set(lenders)) != len(lenders):
            continue
        homes = tuple(
            meld_of(c for c in old if c not in borrowed) if i in lenders else old for i, old in enumerate(melds)
        )
        for rest in _kept_melds(homes, hand - set(meld), rules, None, False):
            yield (*rest, meld)


def arrangements(
    rules: ConquianRules,
    melds: Melds,
    hand: Iterable[Card],
    taken: Card | None,
    *,
    forced: bool = False,
) -> list[Arrangement]:
    """Every distinct arrangement of a player holding ``melds`` and ``hand`` who melds ``taken``
    (None: melds from the hand alone, which must then lay a card), most cards laid first.
    ``forced``: ``taken`` is forced on the player (laid with table cards first)."""
    hand = frozenset(hand)
    table = tuple(c for m in melds for c in m)
    mode = rules.rearrange
    if mode is Rearrange.FREE:
        required = (*table, taken) if taken is not None else table
        found: Iterable[Melds] = partitions(required, hand, rules)
    else:
        found = _kept_melds(melds, hand, rules, taken, forced)
        if mode is Rearrange.BORROW and taken is not None:
            found = (*found, *_borrowed_melds(melds, hand, rules, taken, forced))
    seen: dict[Melds, tuple[Card, ...]] = {}
    for result in found:
        key = melds_of(result)
        if key not in seen:
            seen[key] = tuple(sorted(c for m in key for c in m if c in hand))
    out = [Arrangement(key, laid) for key, laid in seen.items() if taken is not None or laid]
    out.sort(key=lambda a: (-len(a.laid), a.melds))
    return out


def can_force(rules: ConquianRules, melds: Melds, card: Card) -> bool:
    """Whether ``card`` can be laid with the player's ``melds`` alone (so the opponent may force it)."""
    return bool(melds) and bool(arrangements(rules, melds, (), card, forced=True))
