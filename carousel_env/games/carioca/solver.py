"""Exact answers to what Carioca's env asks of a hand (RULES.md, "Carioca").

* :func:`arrangements`: every distinct way a hand can lay out the round's contract when
  going down, in the env's order (see below).
* :func:`distance`: the fewest cards a hand lacks to make the contract.
* :func:`legal_layoffs`: every lay-off a hand can make onto the melds on the table.

Hands are sorted tuples of cards (``JOKER`` for a joker); inside, a hand is its count
vector over the 53 card kinds (two decks: a real card counts 0..2, the joker 0..4).

The order of arrangements: fewest jokers used first (a joker kept can be laid off on any
meld later, and is worth 25 points left in hand), then the least value kept in hand, then
the melds' notation (so that the order is total and stable).
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from itertools import combinations_with_replacement
from typing import NamedTuple

import numpy as np

from carousel_env.core import compiled
from carousel_env.core.cards import JOKER, Card, joker_as
from carousel_env.core.cards import counts as count_vector
from carousel_env.games.carioca import melds as cm
from carousel_env.games.carioca.distance import distance as compiled_distance
from carousel_env.games.carioca.melds import End, LayOff, Meld, MeldKind
from carousel_env.games.carioca.rules import (
    ESCALERA_SIZE,
    HIGH_ACE,
    LOW_ACE,
    TRIO_SIZE,
    Contract,
    card_at,
    hand_points,
)

Arrangement = tuple[Meld, ...]
RANKS = range(1, 14)
SUITS = range(4)
WINDOW_LOWS = range(LOW_ACE, HIGH_ACE - ESCALERA_SIZE + 2)  # the cells an escalera of 4 can start at


def _rank_cards(rank: int) -> list[Card]:
    return [(rank - 1) * 4 + s for s in SUITS]


def _window(suit: int, low: int) -> list[Card]:
    return [card_at(suit, low + i) for i in range(ESCALERA_SIZE)]


# ---------------------------------------------------------------- going down


def _trio_options(counts: list[int], rank: int) -> list[tuple[Meld, Counter]]:
    """Every trio of exactly 3 the hand can lay of ``rank``, at most one joker."""
    options = []
    held = sum(counts[(rank - 1) * 4 + s] for s in SUITS)
    for reals, jokers in ((3, 0), (2, 1)):
        if jokers > counts[JOKER] or reals > held:
            continue  # too few of the rank: no choice of suits can be laid
        for suits in combinations_with_replacement(SUITS, reals):
            need = Counter((rank - 1) * 4 + s for s in suits)
            if all(counts[c] >= n for c, n in need.items()):
                units = tuple(sorted(need.elements())) + (cm.trio_joker(rank),) * jokers
                need[JOKER] += jokers
                options.append((Meld(MeldKind.TRIO, units), need))
    return options


def _escalera_options(counts: list[int], suit: int, low: int) -> list[tuple[Meld, Counter]]:
    """Every escalera of exactly 4 from cell ``low`` the hand can lay, at most one joker."""
    cells = _window(suit, low)
    have = [counts[c] > 0 for c in cells]
    options = []
    if all(have):
        options.append((Meld(MeldKind.ESCALERA, tuple(cells), low), Counter(cells)))
    if counts[JOKER]:
        for i in range(ESCALERA_SIZE):
            if all(have[:i] + have[i + 1 :]):
                units = tuple(joker_as(c) if j == i else c for j, c in enumerate(cells))
                need = Counter(cells[:i] + cells[i + 1 :])
                need[JOKER] += 1
                options.append((Meld(MeldKind.ESCALERA, units, low), need))
    return options


class Offer(NamedTuple):
    """What going down with an arrangement lays (hand cards, jokers as ``JOKER``) and the
    value it keeps in hand: what the module's order and the env's slots are made of."""

    laid: tuple[Card, ...]
    jokers: int
    kept_value: int


def offer_of(arrangement: Arrangement, hand_value: int) -> Offer:
    """The :class:`Offer` of ``arrangement`` from a hand worth ``hand_value``."""
    laid = tuple(c for m in arrangement for c in m.cards())
    return Offer(laid, laid.count(JOKER), hand_value - hand_points(laid))


def _order_key(arrangement: Arrangement, hand_value: int) -> tuple:
    offer = offer_of(arrangement, hand_value)
    notation = tuple((m.kind is MeldKind.ESCALERA, m.low, m.units) for m in arrangement)
    return (offer.jokers, offer.kept_value, notation)


def arrangements(hand, contract: Contract, limit: int | None = None, keep_one: bool = True) -> list[Arrangement]:
    """The distinct arrangements with which ``hand`` can go down on ``contract``, in the
    module's order (the first ``limit`` if given). A player must keep a card to discard, so a
    hand of no more cards than the contract has none; ``keep_one=False`` lists what the cards
    hold all the same."""
    if len(hand) < contract.cards + keep_one or distance(hand, contract) > 0:
        return []  # the compiled distance says in microseconds what the enumeration would find
    counts = count_vector(hand)
    trios = [o for r in RANKS for o in _trio_options(counts, r)]
    escaleras = [o for s in SUITS for low in WINDOW_LOWS for o in _escalera_options(counts, s, low)]
    found: list[Arrangement] = []

    def extend(chosen: list, need: Counter, trio_from: int, escalera_from: int, ranks: set) -> None:
        if len(chosen) < contract.trios:
            for i in range(trio_from, len(trios)):
                meld, more = trios[i]
                if meld.rank in ranks:
                    continue
                total = need + more
                if _fits(total, counts):
                    extend([*chosen, meld], total, i + 1, 0, ranks | {meld.rank})
            return
        if len(chosen) < contract.melds:
            for i in range(escalera_from, len(escaleras)):
                meld, more = escaleras[i]
                total = need + more
                if _fits(total, counts):
                    extend([*chosen, meld], total, trio_from, i, ranks)  # i again: two alike may be laid
            return
        found.append(tuple(chosen))

    extend([], Counter(), 0, 0, set())
    value = hand_points(hand)
    found.sort(key=lambda a: _order_key(a, value))
    return found[:limit] if limit is not None else found


def _fits(need: Counter, counts: list[int]) -> bool:
    return all(counts[c] >= n for c, n in need.items())


# ---------------------------------------------------------------- distance


def _alone(real: int, size: int, jokers: int) -> int:
    """Cards a meld of ``size`` lacks with ``real`` of its cards in hand and ``jokers``."""
    filled = min(size, real)
    if filled < size and jokers:
        filled += 1
    return size - filled


def _max_fill(counts: list[int], demands: list[dict[Card, int]], caps: list[int]) -> int:
    """The most real cards the hand can place into the target melds: each meld takes at most
    ``caps[m]`` cards, and at most ``demands[m][c]`` of card ``c`` (a max flow, by augmenting
    paths on the tiny bipartite graph)."""
    used = {}  # (card, meld) -> flow
    load = [0] * len(caps)
    supply = {c: counts[c] for d in demands for c in d}
    total = 0
    for card in list(supply):
        while supply[card] > 0:
            path = _augment(card, demands, caps, used, load, supply, set())
            if not path:
                break
            total += 1
    return total


def _augment(card, demands, caps, used, load, supply, seen) -> bool:
    """Push one unit of ``card`` into some meld, re-routing others where needed."""
    for m, demand in enumerate(demands):
        if used.get((card, m), 0) >= demand.get(card, 0) or m in seen:
            continue
        seen.add(m)
        if load[m] < caps[m]:
            used[card, m] = used.get((card, m), 0) + 1
            load[m] += 1
            supply[card] -= 1
            return True
        # The meld is full: move one of its other cards elsewhere to make room.
        for (other, om), flow in list(used.items()):
            if om == m and flow > 0 and other != card:
                used[other, m] -= 1
                load[m] -= 1
                supply[other] += 1
                if _augment(other, demands, caps, used, load, supply, seen):
                    used[card, m] = used.get((card, m), 0) + 1
                    load[m] += 1
                    supply[card] -= 1
                    return True
                used[other, m] += 1
                load[m] += 1
                supply[other] -= 1
    return False


def _exact(counts: list[int], targets: list[tuple[int, dict[Card, int]]]) -> int:
    """Cards missing to make exactly ``targets`` (size, card demands), jokers placed best."""
    jokers = counts[JOKER]
    size = sum(s for s, _ in targets)
    best = size
    n = len(targets)
    for subset in range(1 << n):
        used = bin(subset).count("1")
        if used > jokers:
            continue
        caps = [s - (subset >> m & 1) for m, (s, _) in enumerate(targets)]
        filled = _max_fill(counts, [d for _, d in targets], caps)
        best = min(best, size - used - filled)
    return best


def distance(hand, contract: Contract) -> int:
    """The fewest cards ``hand`` lacks to hold ``contract`` (0: it holds it; going down also
    needs a card kept to discard, which a hand of 11 or 12 always has but in round 6 with 11).
    Missing cards are real cards: an added joker never beats the card it stands for.

    Computed by the compiled :func:`carousel_env.games.carioca.distance.distance`, which the
    tests hold equal to :func:`reference_distance`."""
    return _distance(tuple(sorted(hand)), contract)


@lru_cache(maxsize=1 << 16)  # every seat's observation asks it at every step; hands change slowly
def _distance(hand: tuple, contract: Contract) -> int:
    counts = np.array(count_vector(hand), np.int64)
    return int(compiled.first_call(compiled_distance, counts, contract.trios, contract.escaleras))


def reference_distance(hand, contract: Contract) -> int:
    """:func:`distance` in plain Python, the reference: every choice of target melds (trios
    of different ranks, escalera windows), pruned by their costs alone, each whole choice
    filled exactly by augmenting paths. Checked against brute force."""
    counts = count_vector(hand)
    jokers = counts[JOKER]
    trios = sorted(
        (_alone(sum(min(counts[c], TRIO_SIZE) for c in _rank_cards(r)), TRIO_SIZE, jokers), r) for r in RANKS
    )
    windows = sorted(
        (_alone(sum(counts[c] > 0 for c in _window(s, low)), ESCALERA_SIZE, jokers), s, low)
        for s in SUITS
        for low in WINDOW_LOWS
    )
    best = [contract.cards]

    def trio_target(r: int) -> tuple[int, dict[Card, int]]:
        return TRIO_SIZE, {c: TRIO_SIZE for c in _rank_cards(r)}

    def window_target(s: int, low: int) -> tuple[int, dict[Card, int]]:
        return ESCALERA_SIZE, dict.fromkeys(_window(s, low), 1)

    def extend(targets: list, bound: int, trio_from: int, window_from: int) -> None:
        if bound >= best[0]:
            return  # the standalone costs already reach the best found: prune
        if len(targets) < contract.trios:
            for i in range(trio_from, len(trios)):
                cost, r = trios[i]
                extend([*targets, trio_target(r)], bound + cost, i + 1, 0)
            return
        if len(targets) < contract.melds:
            for i in range(window_from, len(windows)):
                cost, s, low = windows[i]
                if bound + cost >= best[0]:
                    break  # sorted by cost: the rest are no better
                extend([*targets, window_target(s, low)], bound + cost, trio_from, i)
            return
        best[0] = min(best[0], _exact(counts, targets))

    extend([], 0, 0, 0)
    return best[0]


# ---------------------------------------------------------------- lay-offs


def fits_table(card: Card, table: tuple[tuple[Meld, ...], ...]) -> bool:
    """Whether ``card`` can be laid off on some meld of ``table`` (per seat, its melds)."""
    return any(cm.laid_off(meld, card, end) is not None for melds in table for meld in melds for end in End)


def legal_layoffs(hand, table: tuple[tuple[Meld, ...], ...]) -> list[LayOff]:
    """Every lay-off ``hand`` can make onto ``table`` (per seat, its melds), in the order seat,
    meld, card, end; none when the hand has a single card (it must be kept to discard)."""
    if len(hand) < 2:
        return []
    cards = sorted(set(hand))
    found = []
    for seat, melds in enumerate(table):
        for index, meld in enumerate(melds):
            for card in cards:
                for end in End:
                    if cm.laid_off(meld, card, end) is not None:
                        found.append(LayOff(card, seat, index, end))
    return found
