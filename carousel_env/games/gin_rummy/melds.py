"""Exact meld arithmetic of Gin Rummy: deadwood, knock arrangements and lay-offs.

A hand is a bit mask over the 52 card indices of :mod:`carousel_env.core.cards` (bit
``(rank - 1) * 4 + suit``). Melds are sets of 3 or 4 cards of a rank and runs of 3 or more
of a suit, the ace low only. Every run longer than 5 splits into runs of 3 to 5, so the
185 *base* melds (runs of 3 to 5, sets of 3 and 4) reach every arrangement's value; what a
player lays out merges adjacent runs of a suit back into one (:func:`merge_runs`).

Deadwood is found by a search over the lowest card left (it is either deadwood or the
lowest card of a base meld), remembered per mask: exact, with no shortcut. The search runs
only on a hand's *meldable* cards (those in some base meld within it, found with a few
shifts of the mask): the others are deadwood in every arrangement, so a hand and the same
hand less one of them share their search.

Every cache is bounded, so that an env process's memory stays flat however long it plays
(issue 57; ``benchmarks/bench_env_memory.py``): a hand's discards are asked again only
within the same decision, and the searches' masks recur across games but each is cheap.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import product
from typing import NamedTuple

from carousel_env.core.cards import NUM_CARDS, POINTS, Card, card_str, make_card, rank_of, suit_of

Mask = int
ALL_CARDS: Mask = (1 << NUM_CARDS) - 1  # every card of the pack
# Search masks recur across games (random book play meets 91,000 in 400): 2**16 remembered
# (about 150 bytes each) hit 99.6% of the searches of the last 100 games, 2**20 99.7%.
SEARCH_CACHE_SIZE = 1 << 16
# A hand's discards (eleven pairs, about 1 KB) are asked again only within one decision: 4
# remembered hit 62.5%, 2**20 62.6%; the margin is for callers that alternate between hands.
DISCARD_CACHE_SIZE = 1 << 10


# Card lists and values per 13-bit chunk of a mask: four lookups instead of a loop per card.
_CHUNK = 13
_CHUNK_MASK = (1 << _CHUNK) - 1
_CHUNK_CARDS = tuple(
    tuple(tuple(start + i for i in range(_CHUNK) if bits >> i & 1) for bits in range(1 << _CHUNK))
    for start in range(0, NUM_CARDS, _CHUNK)
)
_CHUNK_VALUES = tuple(tuple(sum(POINTS[c] for c in cards) for cards in chunk) for chunk in _CHUNK_CARDS)
assert NUM_CARDS == 4 * _CHUNK  # the lookups below read exactly four chunks

# One bit per rank (the clubs position), for the sets test of :func:`meldable`.
_RANK_BITS = sum(1 << (4 * r) for r in range(NUM_CARDS // 4))


def mask_of(cards) -> Mask:
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def cards_of(mask: Mask) -> tuple[Card, ...]:
    """The cards of ``mask`` in index order."""
    c0, c1, c2, c3 = _CHUNK_CARDS
    m = _CHUNK_MASK
    return c0[mask & m] + c1[mask >> 13 & m] + c2[mask >> 26 & m] + c3[mask >> 39]


def value_of(mask: Mask) -> int:
    v0, v1, v2, v3 = _CHUNK_VALUES
    m = _CHUNK_MASK
    return v0[mask & m] + v1[mask >> 13 & m] + v2[mask >> 26 & m] + v3[mask >> 39]


def meldable(mask: Mask) -> Mask:
    """The cards of ``mask`` that lie in some base meld within ``mask``: every card of three
    in a row of a suit (a suit's next rank is 4 bits up), and every card of a rank held 3 or
    4 times."""
    starts = mask & mask >> 4 & mask >> 8
    runs = starts | starts << 4 | starts << 8
    a, b, c, d = mask & _RANK_BITS, mask >> 1 & _RANK_BITS, mask >> 2 & _RANK_BITS, mask >> 3 & _RANK_BITS
    trios = a & b & (c | d) | c & d & (a | b)  # at least 3 of the 4 suits
    return runs | trios * 0xF & mask


class Meld(NamedTuple):
    """A meld laid out: its cards in rank order (a run's suit is its cards')."""

    cards: tuple[Card, ...]

    @property
    def is_run(self) -> bool:
        return suit_of(self.cards[0]) == suit_of(self.cards[1])

    @property
    def mask(self) -> Mask:
        return mask_of(self.cards)

    def __str__(self) -> str:
        return " ".join(card_str(c) for c in self.cards)


def _base_melds() -> tuple[Meld, ...]:
    melds = []
    for rank in range(1, 14):
        suits = range(4)
        for missing in suits:  # the four sets of 3, then the set of 4
            melds.append(Meld(tuple(make_card(rank, s) for s in suits if s != missing)))
        melds.append(Meld(tuple(make_card(rank, s) for s in suits)))
    for length in (3, 4, 5):
        for suit in range(4):
            for low in range(1, 15 - length):
                melds.append(Meld(tuple(make_card(r, suit) for r in range(low, low + length))))
    return tuple(melds)


BASE_MELDS: tuple[Meld, ...] = _base_melds()
_BASE_MASKS = tuple(m.mask for m in BASE_MELDS)
_BASE_VALUES = tuple(value_of(m) for m in _BASE_MASKS)
# The base melds whose lowest card is c: the only melds the search tries for card c.
_BY_LOWEST: tuple[tuple[int, ...], ...] = tuple(
    tuple(i for i, m in enumerate(BASE_MELDS) if min(m.cards) == c) for c in range(NUM_CARDS)
)


def melded_value(mask: Mask) -> int:
    """The largest total value of disjoint melds within ``mask``."""
    return _melded_core(meldable(mask))


@lru_cache(maxsize=SEARCH_CACHE_SIZE)
def _melded_core(mask: Mask) -> int:
    """:func:`melded_value` of a mask of meldable cards (any mask is right; these are few)."""
    if mask == 0:
        return 0
    low = mask & -mask
    best = _melded_core(mask ^ low)  # the lowest card as deadwood
    for i in _BY_LOWEST[low.bit_length() - 1]:
        meld = _BASE_MASKS[i]
        if meld & mask == meld:
            best = max(best, _BASE_VALUES[i] + _melded_core(mask ^ meld))
    return best


def deadwood(mask: Mask) -> int:
    """The smallest deadwood of the cards of ``mask`` over every arrangement."""
    return value_of(mask) - melded_value(mask)


@lru_cache(maxsize=DISCARD_CACHE_SIZE)
def discard_deadwoods(mask: Mask) -> tuple[tuple[Card, int], ...]:
    """Each card of ``mask`` with the smallest deadwood of ``mask`` less that card."""
    total = value_of(mask)
    core = meldable(mask)
    kept = _melded_core(core)  # what a card outside every meld leaves melded
    return tuple(
        (c, total - POINTS[c] - (melded_value(mask ^ 1 << c) if core >> c & 1 else kept)) for c in cards_of(mask)
    )


def deadwood_after_discard(mask: Mask, keep: Mask = 0) -> int:
    """The smallest deadwood of ``mask`` less one discard, exactly (every discard tried;
    the cards of ``keep`` may not be discarded)."""
    if not keep:
        return _least_after_discard(mask)
    return min(left for c, left in discard_deadwoods(mask) if not keep >> c & 1)


@lru_cache(maxsize=DISCARD_CACHE_SIZE)
def _least_after_discard(mask: Mask) -> int:
    return min(left for _, left in discard_deadwoods(mask))


def merge_runs(melds) -> tuple[Meld, ...]:
    """The melds with the runs of a suit that touch merged into one, in canonical order."""
    runs = sorted((m for m in melds if m.is_run), key=lambda m: (suit_of(m.cards[0]), m.cards[0]))
    merged: list[list[Card]] = []
    for run in runs:
        last = merged[-1] if merged else None
        if last and suit_of(last[-1]) == suit_of(run.cards[0]) and rank_of(last[-1]) + 1 == rank_of(run.cards[0]):
            last.extend(run.cards)
        else:
            merged.append(list(run.cards))
    out = [Meld(tuple(m.cards)) for m in melds if not m.is_run] + [Meld(tuple(r)) for r in merged]
    return tuple(sorted(out))


def _packings(mask: Mask):
    """Every way to pick disjoint base melds within ``mask`` (as tuples of base indices)."""
    if mask == 0:
        yield ()
        return
    low = mask & -mask
    yield from _packings(mask ^ low)
    for i in _BY_LOWEST[low.bit_length() - 1]:
        meld = _BASE_MASKS[i]
        if meld & mask == meld:
            for rest in _packings(mask ^ meld):
                yield (i, *rest)


def best_melds(mask: Mask) -> tuple[Meld, ...]:
    """One arrangement of least deadwood (the first in the search's order), runs merged."""
    melds = []
    while mask:
        low = mask & -mask
        target = melded_value(mask)
        if melded_value(mask ^ low) == target:
            mask ^= low
            continue
        for i in _BY_LOWEST[low.bit_length() - 1]:
            meld = _BASE_MASKS[i]
            if meld & mask == meld and _BASE_VALUES[i] + melded_value(mask ^ meld) == target:
                melds.append(BASE_MELDS[i])
                mask ^= meld
                break
    return merge_runs(melds)


def extensions(meld: Meld) -> Mask:
    """The cards that extend ``meld``: a run's two ends (the ace low only), a set's missing
    suits while it has 3 cards."""
    if meld.is_run:
        first, last = meld.cards[0], meld.cards[-1]
        ends = 0
        if rank_of(first) > 1:
            ends |= 1 << (first - 4)
        if rank_of(last) < 13:
            ends |= 1 << (last + 4)
        return ends
    if len(meld.cards) == 4:
        return 0
    rank = rank_of(meld.cards[0])
    return mask_of(make_card(rank, s) for s in range(4)) & ~meld.mask


class Arrangement(NamedTuple):
    """A knock: the card discarded face down and the melds laid out (the rest is deadwood)."""

    discard: Card
    melds: tuple[Meld, ...]
    deadwood: int

    def deadwood_cards(self, hand: Mask) -> tuple[Card, ...]:
        melded = 0
        for meld in self.melds:
            melded |= meld.mask
        return cards_of(hand & ~melded & ~(1 << self.discard))


def _closed(packed: tuple[Meld, ...], left: Mask) -> bool:
    """No card left over could join the melds: none extends one, none form a meld alone."""
    for meld in packed:
        if extensions(meld) & left:
            return False
    return melded_value(left) == 0


def knock_arrangements(hand: Mask, limit: int, keep: Mask = 0) -> list[Arrangement]:
    """Every distinct way to knock with the 11 cards of ``hand``: a discard (not one of
    ``keep``) and melds leaving at most ``limit`` deadwood, where no card left over could
    join the melds (keeping a meld or a meld's extension as deadwood only raises the
    knocker's count). Unordered: the env orders them (:func:`layoff_spots`)."""
    found: dict[tuple, Arrangement] = {}
    for discard in cards_of(hand & ~keep):
        ten = hand ^ (1 << discard)
        if deadwood(ten) > limit:
            continue
        total = value_of(ten)
        for packing in _packings(ten):
            melded = 0
            for i in packing:
                melded |= _BASE_MASKS[i]
            left = total - value_of(melded)
            if left > limit:
                continue
            melds = merge_runs([BASE_MELDS[i] for i in packing])
            if (discard, melds) not in found and _closed(melds, ten & ~melded):
                found[(discard, melds)] = Arrangement(discard, melds, left)
    return list(found.values())


class Layoffs(NamedTuple):
    """The opponent's answer to a knock: cards laid off (each with the index of the
    knocker's meld it joins), own melds, and the deadwood left."""

    laid_off: tuple[tuple[Card, int], ...]
    melds: tuple[Meld, ...]
    deadwood: int


def _chains(meld: Meld, hand: Mask) -> list[tuple[Card, ...]]:
    """The card sequences the opponent could lay off on one of the knocker's melds."""
    if not meld.is_run:
        missing = extensions(meld) & hand
        return [()] + [(c,) for c in cards_of(missing)]
    down, up = [], []
    card = meld.cards[0]
    while rank_of(card) > 1 and hand >> (card - 4) & 1:
        card -= 4
        down.append(card)
    card = meld.cards[-1]
    while rank_of(card) < 13 and hand >> (card + 4) & 1:
        card += 4
        up.append(card)
    return [tuple(down[:a]) + tuple(up[:b]) for a in range(len(down) + 1) for b in range(len(up) + 1)]


def best_layoffs(knocker_melds: tuple[Meld, ...], hand: Mask, gin: bool) -> Layoffs:
    """The opponent's least deadwood after laying off on ``knocker_melds`` (never on gin)
    and melding the rest, breaking their own melds where that helps. Ties go to fewer
    lay-offs, then to the first found."""
    best: tuple | None = None
    options = [[()]] if gin else [_chains(m, hand) for m in knocker_melds]
    for choice in product(*options):
        pairs = [(card, meld_index) for meld_index, chain in enumerate(choice) for card in chain]
        laid = mask_of(card for card, _ in pairs)
        if bin(laid).count("1") < len(pairs):
            continue  # one card on two melds (it extends both)
        key = (deadwood(hand & ~laid), len(pairs))
        if best is None or key < best[0]:
            best = (key, tuple(pairs), hand & ~laid)
    assert best is not None
    (dead, _), pairs, rest = best
    return Layoffs(pairs, best_melds(rest), dead)


def layoff_spots(melds: tuple[Meld, ...], unseen: Mask) -> int:
    """How many of the ``unseen`` cards could be laid off on ``melds`` (one step out)."""
    spots = 0
    for meld in melds:
        spots |= extensions(meld)
    return bin(spots & unseen).count("1")
