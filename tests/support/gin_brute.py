"""Gin Rummy by brute force, written from RULES.md alone: every subset of a hand that is a
meld, every choice of disjoint melds, every lay-off. Slow and plain, to check the engine's
search (``carousel_env.games.gin_rummy.melds``) on small hands."""

from __future__ import annotations

from itertools import combinations

from carousel_env.core.cards import rank_of, suit_of


def value(card: int) -> int:
    return min(rank_of(card), 10)


def is_meld(cards) -> bool:
    """A set of 3 or 4 of a rank, or a run of 3 or more of a suit, the ace low only."""
    cards = list(cards)
    if len(cards) < 3:
        return False
    ranks = sorted(rank_of(c) for c in cards)
    if len(set(ranks)) == 1:
        return len(cards) <= 4
    if len({suit_of(c) for c in cards}) != 1:
        return False
    return ranks == list(range(ranks[0], ranks[0] + len(cards)))


def all_melds(hand) -> list[frozenset]:
    """Every meld within ``hand``: each rank's 3 or 4 cards, each suit's consecutive stretches."""
    hand = sorted(hand)
    melds = []
    for rank in range(1, 14):
        same = [c for c in hand if rank_of(c) == rank]
        melds += [frozenset(s) for n in (3, 4) for s in combinations(same, n)]
    for suit in range(4):
        ranks = {rank_of(c): c for c in hand if suit_of(c) == suit}
        for low in range(1, 12):
            for high in range(low + 2, 14):
                if not all(r in ranks for r in range(low, high + 1)):
                    break
                melds.append(frozenset(ranks[r] for r in range(low, high + 1)))
    assert all(is_meld(m) for m in melds)
    return melds


def min_deadwood(hand) -> int:
    """The least value of the cards outside disjoint melds, over every choice of melds."""
    hand = frozenset(hand)
    melds = all_melds(hand)

    def best(i: int, used: frozenset) -> int:
        if i == len(melds):
            return sum(value(c) for c in hand - used)
        skip = best(i + 1, used)
        if melds[i] & used:
            return skip
        return min(skip, best(i + 1, used | melds[i]))

    return best(0, frozenset())


def min_deadwood_after_discard(hand) -> int:
    return min(min_deadwood(set(hand) - {c}) for c in hand)


def can_lay_off(knocker_melds, cards) -> bool:
    """Whether ``cards`` can all be laid off: split among the knocker's melds so that each
    meld with its share is still a meld."""
    cards = list(cards)
    melds = [list(m) for m in knocker_melds]

    def place(i: int) -> bool:
        if i == len(cards):
            return all(is_meld(m) for m in melds)
        for m in melds:
            m.append(cards[i])
            if place(i + 1):
                m.pop()
                return True
            m.pop()
        return False

    return place(0)


def min_deadwood_after_layoffs(knocker_melds, hand, gin: bool) -> int:
    """The opponent's least deadwood: every subset laid off where it can be, the rest melded."""
    hand = sorted(hand)
    if gin:
        return min_deadwood(hand)
    reach = [c for c in hand if any(is_meld([*m, c]) or _near_run(m, c) for m in knocker_melds)]
    best = min_deadwood(hand)
    for n in range(1, len(reach) + 1):
        for laid in combinations(reach, n):
            if can_lay_off(knocker_melds, laid):
                best = min(best, min_deadwood(set(hand) - set(laid)))
    return best


def _near_run(meld, card) -> bool:
    """``card`` is of a run's suit (it might extend it through other laid-off cards)."""
    return len({suit_of(c) for c in meld}) == 1 and suit_of(card) == suit_of(next(iter(meld)))
