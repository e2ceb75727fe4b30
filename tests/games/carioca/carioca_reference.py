"""Brute-force references for Carioca's solver, written apart from it: arrangements by
trying every split of every sub-hand into melds, distances by adding cards until a hand
can go down."""

from __future__ import annotations

from itertools import combinations, combinations_with_replacement

from carousel_env.core.cards import JOKER, NUM_CARDS, joker_as, rank_of
from carousel_env.games.carioca import melds as cm
from carousel_env.games.carioca.rules import ESCALERA_SIZE, TRIO_SIZE, card_at


def meld_readings(cards: tuple, kind: cm.MeldKind) -> set:
    """Every meld ``cards`` (hand cards, one joker at most) can be laid as, going down."""
    jokers = cards.count(JOKER)
    real = [c for c in cards if c != JOKER]
    if jokers > 1:
        return set()
    found = set()
    if kind is cm.MeldKind.TRIO:
        if len(cards) == TRIO_SIZE and real and len({rank_of(c) for c in real}) == 1:
            found.add(cm.Meld(kind, tuple(sorted(real)) + (cm.trio_joker(rank_of(real[0])),) * jokers))
        return found
    if len(cards) != ESCALERA_SIZE:
        return found
    for suit in range(4):
        for low in range(1, 12):
            cells = [card_at(suit, low + i) for i in range(ESCALERA_SIZE)]
            for hole in [None] if not jokers else range(ESCALERA_SIZE):
                wanted = sorted(c for i, c in enumerate(cells) if i != hole)
                if wanted == sorted(real):
                    units = tuple(joker_as(c) if i == hole else c for i, c in enumerate(cells))
                    found.add(cm.Meld(kind, units, low))
    return found


def brute_arrangements(hand: tuple, contract) -> set:
    """Every arrangement as a sorted tuple of (kind, low, units), by exhaustion: every group
    of cards for each meld in turn, read every way it can be laid."""
    kinds = [cm.MeldKind.TRIO] * contract.trios + [cm.MeldKind.ESCALERA] * contract.escaleras
    found = set()
    if len(hand) <= sum(TRIO_SIZE if k is cm.MeldKind.TRIO else ESCALERA_SIZE for k in kinds):
        return found

    def pick(i: int, rest: tuple, melds: list) -> None:
        if i == len(kinds):
            trios = [m.rank for m in melds if m.kind is cm.MeldKind.TRIO]
            if len(set(trios)) == len(trios):
                found.add(tuple(sorted((m.kind.value, m.low, m.units) for m in melds)))
            return
        size = TRIO_SIZE if kinds[i] is cm.MeldKind.TRIO else ESCALERA_SIZE
        for group in {tuple(sorted(rest[j] for j in idx)) for idx in combinations(range(len(rest)), size)}:
            left = list(rest)
            for c in group:
                left.remove(c)
            for meld in meld_readings(group, kinds[i]):
                pick(i + 1, tuple(left), [*melds, meld])

    pick(0, tuple(hand), [])
    return found


def brute_distance(hand: tuple, contract, most: int = 3) -> int | None:
    """The fewest real cards to add to ``hand`` for it to hold the contract, trying every
    multiset of up to ``most`` cards (the arrangements checked against :func:`brute_arrangements`
    elsewhere); None if more are needed."""
    from carousel_env.games.carioca.solver import arrangements

    for d in range(most + 1):
        for extra in combinations_with_replacement(range(NUM_CARDS), d):
            if arrangements(tuple(sorted(hand + extra)), contract, limit=1, keep_one=False):
                return d
    return None
