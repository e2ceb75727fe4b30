"""The answer of a solve: which entries the suggestion slots pick, packed into one array (compiled).

``solve_packed`` (``pipeline``) and the witnesses (``witness.settle``) both end here: they
have the best points of each *entry* (a pair (cards played, hand jokers among them); two
entries are always two different multisets of played cards, each rebuilt into exactly one
play), :func:`choose` picks the slots' entries, and :func:`pack_suggestion` writes each
one's play into the single int64 array that ``carousel_env.games.carousel.solver.solve`` cuts into
suggestions:

``[best points, best cards, suggestions]`` (best cards ``-1``: no legal play), then per
suggestion ``[slot, cards, hand jokers, points, hand-after points, n, *added cards,
n, *hand after, n, *meld lengths, *table units]``, the melds in ``canonical_table`` order.
Every reader and writer indexes it by the constants below (``BEST_POINTS`` ..
``HEADER_SIZE``, ``REC_SLOT`` .. ``REC_LISTS``), never by a literal offset.

Slots (``SLOT_NAMES``; a slot that does not exist or repeats an earlier entry is skipped):
``max_points``, ``max_cards``, ``keep_jokers``, ``knock`` (only when the rules have a knock
limit), then ``size_n`` for n = (max cards - 1) down to max(1, max cards - k).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from carousel_env.games.carousel.solver.prepare import CARD_POINTS, layout

SLOT_NAMES = ("max_points", "max_cards", "keep_jokers", "knock")  # slot 4 is "size_<cards>"
SIZE_SLOT = len(SLOT_NAMES)
PACKED_PER_SUGGESTION = 400  # int64 entries of room per suggestion in a packed answer
# The packed answer's layout, the one place it is written down: the header's entries ...
BEST_POINTS, BEST_CARDS, COUNT = range(3)  # BEST_POINTS also carries pipeline.GAVE_UP
HEADER_SIZE = 3
# ... and a suggestion's record, from its start: five numbers, then the length-prefixed
# lists of the cards added, of the hand after and of the melds' lengths, then the units.
REC_SLOT, REC_CARDS, REC_JOKERS, REC_POINTS, REC_AFTER_POINTS = range(5)
REC_LISTS = 5  # where the record's first list (its length first) starts


def packed_size(k: int) -> int:
    """Entries of a packed answer with room for ``k`` suggestions."""
    return HEADER_SIZE + max(k, 0) * PACKED_PER_SUGGESTION


@dataclass(frozen=True)
class PackedAnswer:
    """A packed answer and whether it is exact: every slot proven best, none left out for
    want of time (the answers of ``solve``'s later steps: witness rounds, integer programs)."""

    packed: np.ndarray
    exact: bool


@njit(cache=True, inline="always")
def start(units, hand_cards, ace_low, ace_high, k):
    """``(out, lay, hand, hand_total)`` of a position: the answer array with room for ``k``
    suggestions and no play written in it (the header alone), the ``prepare.layout``, the hand's
    count per card (52: jokers) and its points (inlined in both compiled entry points,
    ``pipeline.solve_packed`` and ``witness.witnessed``)."""
    out = np.empty(HEADER_SIZE + max(k, 0) * PACKED_PER_SUGGESTION, dtype=np.int64)
    out[BEST_POINTS], out[BEST_CARDS], out[COUNT] = 0, -1, 0
    lay = layout(units, hand_cards, ace_low, ace_high)
    hand_total = np.int64(0)  # not a literal: one compiled choose
    hand = np.zeros(53, dtype=np.int64)
    for c in hand_cards:
        hand_total += CARD_POINTS[c]
        hand[c] += 1
    return out, lay, hand, hand_total


@njit(cache=True, inline="always")
def _offer(picks, count, taken, slot, cards, jokers):
    if cards < 0 or taken[cards, jokers] or count >= picks.shape[0]:
        return count
    taken[cards, jokers] = True
    picks[count, 0], picks[count, 1], picks[count, 2] = slot, cards, jokers
    return count + 1


@njit(cache=True)
def choose(best, k, hand_total, knock_limit):
    """Rows ``(slot, cards, jokers)``, at most ``k``, from ``best[cards, jokers]`` = best points
    (``-1``: no such entry). Ties cannot occur: each key below ends in the entry itself.

    0. ``max_points``: most points; ties: more cards, then fewer jokers.
    1. ``max_cards``: most cards; ties: more points, then fewer jokers.
    2. ``keep_jokers``: most points using no hand joker; ties: more cards.
    3. ``knock`` (``knock_limit >= 0``): the fewest cards whose play leaves a hand worth at
       most ``knock_limit``; ties: more points, then fewer jokers.
    4. ``size_n`` for n = (max cards - 1) down to max(1, max cards - k): most points with
       exactly n cards; ties: fewer jokers.
    """
    picks = np.empty((max(k, 0), 3), dtype=np.int64)
    taken = np.zeros(best.shape, dtype=np.bool_)
    ncards, njokers = best.shape
    top_p = (-1, -1, -1, -1, -1)  # key..., cards, jokers
    top_c = (-1, -1, -1, -1, -1)
    plain = (-1, -1, -1, -1)
    knock = (1 << 30, 0, 0, -1, -1)
    most = -1
    for c in range(ncards):
        for j in range(njokers):
            v = best[c, j]
            if v < 0:
                continue
            most = max(most, c)
            if (v, c, -j) > top_p[:3]:
                top_p = (v, c, -j, c, j)
            if (c, v, -j) > top_c[:3]:
                top_c = (c, v, -j, c, j)
            if j == 0 and (v, c) > plain[:2]:
                plain = (v, c, c, j)
            if knock_limit >= 0 and hand_total - v <= knock_limit and (c, -v, j) < knock[:3]:
                knock = (c, -v, j, c, j)
    count = 0
    if most < 0 or k <= 0:
        return picks[:0]
    count = _offer(picks, count, taken, 0, top_p[3], top_p[4])
    count = _offer(picks, count, taken, 1, top_c[3], top_c[4])
    count = _offer(picks, count, taken, 2, plain[2], plain[3])
    count = _offer(picks, count, taken, 3, knock[3], knock[4])
    for n in range(most - 1, max(0, most - k - 1), -1):
        if count >= k:
            break
        pick = -1
        for j in range(njokers):
            if best[n, j] >= 0 and (pick < 0 or best[n, j] > best[n, pick]):
                pick = j
        if pick >= 0:
            count = _offer(picks, count, taken, SIZE_SLOT, n, pick)
    return picks[:count]


@njit(cache=True, inline="always")
def _meld_before(units, a0, an, b0, bn):
    """``canonical_table``'s order: sets first, then by suit, faces, units."""
    a_run = (units[a0] & 63) >> 2 != (units[a0 + 1] & 63) >> 2
    b_run = (units[b0] & 63) >> 2 != (units[b0 + 1] & 63) >> 2
    if a_run != b_run:
        return b_run
    if units[a0] & 3 != units[b0] & 3:
        return units[a0] & 3 < units[b0] & 3
    for j in range(min(an, bn)):
        if units[a0 + j] & 63 != units[b0 + j] & 63:
            return units[a0 + j] & 63 < units[b0 + j] & 63
    if an != bn:
        return an < bn
    for j in range(an):
        if units[a0 + j] != units[b0 + j]:
            return units[a0 + j] < units[b0 + j]
    return False


@njit(cache=True, inline="always")
def _pack_play(out, at, flat, lengths):
    """Write meld lengths then units in canonical order; returns the next free index."""
    nmelds = lengths.shape[0]
    starts = np.zeros(nmelds, dtype=np.int64)
    for m in range(1, nmelds):
        starts[m] = starts[m - 1] + lengths[m - 1]
    order = np.arange(nmelds)
    for a in range(1, nmelds):  # insertion sort: a table has a few dozen melds at most
        b = a
        while b > 0 and _meld_before(
            flat, starts[order[b]], lengths[order[b]], starts[order[b - 1]], lengths[order[b - 1]]
        ):
            order[b], order[b - 1] = order[b - 1], order[b]
            b -= 1
    out[at] = nmelds
    at += 1
    for m in order:
        out[at] = lengths[m]
        at += 1
    for m in order:
        for j in range(lengths[m]):
            out[at] = flat[starts[m] + j]
            at += 1
    return at


@njit(cache=True)
def pack_suggestion(out, at, slot, cards, jokers, points, hand, added, flat, lengths):
    """Write one suggestion at ``out[at:]`` (see the module docstring); returns the next free
    index. ``hand``: the hand's count per card (52: jokers); ``added``: real cards played per face."""
    out[at + REC_SLOT], out[at + REC_CARDS], out[at + REC_JOKERS] = slot, cards, jokers  # no slice: see sweep
    out[at + REC_POINTS] = points
    head = at
    out[at + REC_LISTS] = cards
    at += REC_LISTS + 1
    after = hand.copy()
    after[52] -= jokers
    for f in range(52):
        for _ in range(added[f]):
            out[at] = f
            at += 1
        after[f] -= added[f]
    for _ in range(jokers):
        out[at] = 52
        at += 1
    left = at
    at += 1
    after_points = 0
    for c in range(53):
        for _ in range(after[c]):
            out[at] = c
            at += 1
            after_points += CARD_POINTS[c]
    out[left] = at - left - 1
    out[head + REC_AFTER_POINTS] = after_points
    return _pack_play(out, at, flat, lengths)
