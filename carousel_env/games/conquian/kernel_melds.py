"""Conquian's compiled melds: every meld of the 40 cards as a mask, and every way to meld a
taken card (:func:`arrangements`), for the vector env's kernel (:mod:`carousel_env.games.conquian.kernel`).

A card is a bit of an int64, its place among the 40 (``rules.index_of``); a meld is a mask.
The ways to meld a card are every partition of the table's cards, the card and any hand cards
into melds (the cards lowest first, each skipped if it is the hand's, or put in a meld whose
lowest card it is: each partition once), kept where the rule of
:func:`carousel_env.games.conquian.legal.arrangement_problem` holds (:func:`kept`), and sorted
as :func:`carousel_env.games.conquian.solver.arrangements` sorts them: most cards laid, then the
melds. ``tests/games/conquian/test_conquian_kernel.py`` holds them to the solver.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from numba import njit

from carousel_env.core import compiled
from carousel_env.games.conquian.rules import MELD_MIN, NUM_CARDS, SET_MAX, WINNING_MELDED, Rearrange

HERE = Path(__file__).resolve().parent
# The kernel's sources, this module's and the kernel's together: one stamp for their cache.
SOURCES = tuple(
    HERE / f"{name}.py" for name in ("kernel_melds", "kernel", "rules", "melds", "decision", "observation", "state")
)
compiled.drop_stale_cache(HERE / "__pycache__", SOURCES)

MODES = tuple(Rearrange)
FREE, BORROW, NONE = (MODES.index(m) for m in Rearrange)
MAX_MELDS = 4  # a player's melds (11 cards make 3 at most)
CAPACITY = 4096  # arrangements a decision can hold (the densest positions make a few hundred)
POSITIONS = NUM_CARDS // 4


def all_melds(run_limit: int) -> tuple[np.ndarray, np.ndarray]:
    """Every meld of the 40 cards as masks, grouped by their lowest card (and where each
    group starts)."""
    found: list[list[int]] = [[] for _ in range(NUM_CARDS)]
    for place in range(POSITIONS):
        suits = [place * 4 + s for s in range(4)]
        for skip in range(-1, 4):  # the set of 4, then each set of 3
            cards = [c for i, c in enumerate(suits) if i != skip]
            found[cards[0]].append(sum(1 << c for c in cards))
    for suit in range(4):
        for low in range(POSITIONS):
            for length in range(MELD_MIN, run_limit + 1):
                if low + length <= POSITIONS:
                    cards = [(low + i) * 4 + suit for i in range(length)]
                    found[cards[0]].append(sum(1 << c for c in cards))
    first = np.zeros(NUM_CARDS + 1, np.int64)
    for c in range(NUM_CARDS):
        first[c + 1] = first[c] + len(found[c])
    return np.array([m for group in found for m in group], np.int64), first


# ---------------------------------------------------------------- cards and melds


@njit(cache=True)
def popcount(x):
    n = 0
    while x:
        x &= x - 1
        n += 1
    return n


@njit(cache=True)
def lowest(x):
    """The lowest card of a non-empty mask."""
    c = 0
    while not (x >> c) & 1:
        c += 1
    return c


@njit(cache=True)
def highest(x):
    c = NUM_CARDS - 1
    while not (x >> c) & 1:
        c -= 1
    return c


@njit(cache=True)
def is_set_mask(m):
    low = lowest(m)
    return (m >> ((low // 4) * 4)) <= 15 and popcount(m) >= MELD_MIN


@njit(cache=True)
def is_meld_mask(m, run_limit):
    n = popcount(m)
    if n < MELD_MIN:
        return False
    low = lowest(m)
    if (m >> ((low // 4) * 4)) <= 15:  # every card at one place: a set
        return n <= SET_MAX
    if n > run_limit:
        return False
    suit, place = low % 4, low // 4
    run = 0
    for i in range(n):
        if place + i >= POSITIONS:
            return False
        run |= np.int64(1) << ((place + i) * 4 + suit)
    return run == m


@njit(cache=True)
def growing(melds, count, run_limit):
    """The cards that would grow one of ``melds[:count]`` as it stands."""
    out = np.int64(0)
    for i in range(count):
        m = melds[i]
        low, high = lowest(m), highest(m)
        if is_set_mask(m):
            if popcount(m) < SET_MAX:
                place = low // 4
                for s in range(4):
                    if not (m >> (place * 4 + s)) & 1:
                        out |= np.int64(1) << (place * 4 + s)
        elif popcount(m) < run_limit:
            if low // 4 > 0:
                out |= np.int64(1) << (low - 4)
            if high // 4 < POSITIONS - 1:
                out |= np.int64(1) << (high + 4)
    return out


@njit(cache=True)
def meld_compare(a, b):
    """-1, 0 or 1: the melds as sorted card tuples, compared as Python compares them."""
    while a and b:
        la, lb = a & -a, b & -b
        if la != lb:
            return -1 if la < lb else 1
        a ^= la
        b ^= lb
    if a == b:
        return 0
    return -1 if a == 0 else 1


# ---------------------------------------------------------------- the rule and the ways to meld


@njit(cache=True)
def kept(old, old_n, new, new_n, taken, forced, borrow, run_limit):
    """``legal._kept_problem`` is None: under ``none`` and ``borrow`` the old melds kept."""
    homes = np.full(MAX_MELDS, -1, np.int64)
    lent = np.int64(0)
    for i in range(old_n):
        m = old[i]
        size = popcount(m)
        home = -1
        for j in range(new_n):
            overlap = popcount(m & new[j])
            if (borrow and overlap >= size - 1) or (not borrow and overlap == size):
                home = j
                break
        if home < 0:
            return False
        for h in range(i):
            if homes[h] == home:
                return False
        homes[i] = home
        out = m & ~new[home]
        if out:
            if size < 4 or not (is_set_mask(m) or out == (m & -m) or out == (np.int64(1) << highest(m))):
                return False
            lent |= out
    at = -1
    if taken >= 0:
        for j in range(new_n):
            if (new[j] >> taken) & 1:
                at = j
    home_of_at = -1
    for i in range(old_n):
        if homes[i] == at:
            home_of_at = i
    if lent and (taken < 0 or home_of_at >= 0 or lent & ~new[at]):
        return False
    if forced:
        grown = home_of_at >= 0 and is_meld_mask(old[home_of_at] | (np.int64(1) << taken), run_limit)
        if not grown and not (lent and not (new[at] & ~(lent | (np.int64(1) << taken)))):
            return False
    return True


@njit(cache=True)
def arrangements(old, old_n, hand, taken, forced, mode, run_limit, meld_masks, first_meld, out, out_n, out_laid):
    """Every way to meld ``taken`` (-1: from the hand alone) into ``out`` (melds per row,
    ``out_n`` of them, ``out_laid`` the hand's cards laid), in the solver's order; returns
    how many. Stops early with 1 when ``forced`` is a question (``out`` of length 0)."""
    required = np.int64(0)
    for i in range(old_n):
        required |= old[i]
    if taken >= 0:
        required |= np.int64(1) << taken
    pool = required | hand
    cards = np.zeros(WINNING_MELDED + 1, np.int64)
    n = 0
    for c in range(NUM_CARDS):
        if (pool >> c) & 1:
            cards[n] = c
            n += 1
    ptr = np.zeros(n + 1, np.int64)
    applied = np.zeros(n + 1, np.int64)
    chosen = np.zeros(n + 1, np.int64)
    free = pool
    found = 0
    probe = out.shape[0] == 0
    level = 0
    new = np.zeros(MAX_MELDS, np.int64)
    while level >= 0:
        if level == n:
            k = 0
            laid = np.int64(0)
            for j in range(n):
                if chosen[j]:
                    new[k] = chosen[j]
                    laid |= chosen[j] & hand
                    k += 1
            ok = taken >= 0 or laid != 0
            if ok and mode != FREE:
                ok = kept(old, old_n, new, k, taken, forced, mode == BORROW, run_limit)
            if ok:
                if probe:
                    return 1
                if found >= out.shape[0]:
                    raise ValueError("more ways to meld than the kernel holds")
                for j in range(k):
                    out[found, j] = new[j]
                out_n[found] = k
                out_laid[found] = laid
                found += 1
            level -= 1
            continue
        c = cards[level]
        if applied[level]:
            free |= applied[level]
            applied[level] = 0
        bit = np.int64(1) << c
        if not free & bit:  # in a meld of a lower card
            if ptr[level] == 0:
                ptr[level] = 1
                chosen[level] = 0
                level += 1
                ptr[level] = 0
                applied[level] = 0
            else:
                level -= 1
            continue
        options = 1 + first_meld[c + 1] - first_meld[c]
        j = ptr[level]
        moved = False
        while j < options and not moved:
            if j == 0:
                if hand & bit:  # a hand card may stay in the hand
                    free &= ~bit
                    applied[level] = bit
                    chosen[level] = 0
                    moved = True
            else:
                m = meld_masks[first_meld[c] + j - 1]
                if not m & ~free:
                    free &= ~m
                    applied[level] = m
                    chosen[level] = m
                    moved = True
            j += 1
        ptr[level] = j
        if moved:
            level += 1
            ptr[level] = 0
            applied[level] = 0
        else:
            level -= 1
    return _sorted(out, out_n, out_laid, found)


@njit(cache=True)
def _before(out, out_n, out_laid, a, b):
    """Whether arrangement ``a`` comes before ``b``: more cards laid, then the melds."""
    la, lb = popcount(out_laid[a]), popcount(out_laid[b])
    if la != lb:
        return la > lb
    for j in range(min(out_n[a], out_n[b])):
        c = meld_compare(out[a, j], out[b, j])
        if c != 0:
            return c < 0
    return out_n[a] < out_n[b]


@njit(cache=True)
def _sorted(out, out_n, out_laid, found):
    for i in range(1, found):  # insertion sort, rows moved whole
        j = i
        while j > 0 and _before(out, out_n, out_laid, j, j - 1):
            for m in range(MAX_MELDS):
                out[j, m], out[j - 1, m] = out[j - 1, m], out[j, m]
            out_n[j], out_n[j - 1] = out_n[j - 1], out_n[j]
            out_laid[j], out_laid[j - 1] = out_laid[j - 1], out_laid[j]
            j -= 1
    return found
