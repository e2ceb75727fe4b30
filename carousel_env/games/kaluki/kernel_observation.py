"""Kaluki's observations, compiled, from the vector env's arrays
(:class:`~carousel_env.games.kaluki.kernel_rows.KalukiArrays`): what
:func:`carousel_env.games.kaluki.observation.encode` gives the player to act, and every seat at
the end of a hand, value for value.

The channels' places come from the observation's layout, passed in as ``at`` (the global
channels' starts, in ``GLOBAL_CHANNELS`` order) and ``slot_at`` (the slot channels'), so the
layout is written once, in :mod:`carousel_env.games.kaluki.observation`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from carousel_env.core import compiled
from carousel_env.core.cards import JOKER, NUM_CARDS, TABLE_JOKER
from carousel_env.envkit.layout import DECKS_SCALE
from carousel_env.games.kaluki import kernel_table as kt
from carousel_env.games.kaluki.kernel_rows import DRAW, GAME_OVER, HAND_OVER, PLAY, next_seat
from carousel_env.games.kaluki.observation import (
    DECK_SCALE,
    GLOBAL_CHANNELS,
    MAX_HAND,
    OPENING_SCALE,
    SCORE_SCALE,
    SEAT_FEATURES,
    SLOT_CHANNELS,
    VALUE_SCALE,
)
from carousel_env.games.kaluki.rules import CARD_KINDS, HIGH_ACE, MAX_JOKERS, MAX_PLAYERS
from carousel_env.games.kaluki.solver_pieces import FACE

compiled.name_entry_points(
    __name__,
    {"encode_rows": ("Kaluki's vector observations", 10), "encode_finals": ("Kaluki's vector final observations", 10)},
)

_CHANNELS = [name for name, _ in GLOBAL_CHANNELS]
HAND, TOP, PILE, FITS, PARTNERS, LOOSE, FEEDS = (
    _CHANNELS.index(name) for name in ("hand", "top", "pile", "fits", "partners", "loose", "feeds")
)
KNOWN, NATURALS, DECLARED, SETS, RUNS = (
    _CHANNELS.index(f"{name}_0") for name in ("known", "naturals", "declared", "sets", "runs")
)
SEATS, SCALARS = _CHANNELS.index("seats"), _CHANNELS.index("scalars")
_SLOTS = [name for name, _ in SLOT_CHANNELS]
VALID, TAKE, VALUE_LEFT, OPENING_VALUE, JOKERS, GOES_OUT, ORDER, LAID = (
    _SLOTS.index(name)
    for name in ("valid", "take", "value_left", "opening_value", "jokers", "goes_out", "order", "laid")
)
NUM_SEAT_FEATURES = len(SEAT_FEATURES)
MELD_COUNT_SCALE = 10.0  # a seat's melds on the table, as observation.encode scales them


@njit(cache=True)
def _flag(value: bool) -> float:
    return 1.0 if value else 0.0


@njit(cache=True)
def _add_counts(out, start: int, counts) -> None:
    """observation's ``add_card_counts`` from counts: a real card's over 2, the joker's over 4."""
    for c in range(NUM_CARDS):
        out[start + c] += counts[c] / DECKS_SCALE
    out[start + JOKER] += counts[JOKER] / MAX_JOKERS


@njit(cache=True)
def _melds(out, at, a, g: int, seat: int, k: int) -> None:
    """observation._melds: seat ``seat``'s melds into relative seat ``k``'s channels."""
    for m in range(a.table_n[g]):
        row = a.table[g, m]
        if row[kt.SEAT] != seat:
            continue
        size = row[kt.SIZE]
        for u in range(size):
            unit = row[kt.UNITS + u]
            channel = DECLARED if unit >= TABLE_JOKER else NATURALS
            out[at[channel + k] + (unit & FACE)] += 0.5
        first = row[kt.UNITS] & FACE
        if row[kt.KIND] == kt.SET_KIND:
            out[at[SETS + k] + first // 4] = 1.0
        else:
            base = at[RUNS + k] + (first % 4) * HIGH_ACE
            low = row[kt.LOW]
            out[base + low - 1 : base + low - 1 + size] = 1.0


@njit(cache=True)
def _encode(out, a, g: int, seat: int, at, slot_at, global_size: int, slot_size: int, p) -> None:
    """Seat ``seat``'s view of row ``g``, with the row's offers if it acts."""
    opening, restocks, ace_low, ace_high, card_values, k = p
    n = a.opened.shape[1]
    over = a.phase[g] == HAND_OVER or a.phase[g] == GAME_OVER
    acting = a.current[g] == seat and not over
    out[:] = 0.0
    hand = a.hands[g, seat]
    _add_counts(out, at[HAND], hand)
    top = -1
    if a.discards_n[g] > 0 and not over:  # once the hand is over the whole pile is the pile
        top = a.discards[g, a.discards_n[g] - 1]
        out[at[TOP] + top] = 1.0
    pile = np.zeros(CARD_KINDS, np.int64)
    for i in range(a.discards_n[g] - (top >= 0)):
        pile[a.discards[g, i]] += 1
    _add_counts(out, at[PILE], pile)
    fitting = np.zeros(CARD_KINDS, np.bool_)
    kt.table_fits(a.table[g], a.table_n[g], ace_low, ace_high, fitting)
    partners = np.zeros(CARD_KINDS, np.bool_)
    kt.mark_partners(hand, partners)
    feeding = np.zeros(CARD_KINDS, np.bool_)
    fed = False  # observation.feeds: no seat is left to draw once the hand is over
    if not over:
        after = next_seat(seat, a.in_play[g])
        kt.mark_partners(a.known[g, after], feeding)
        fed = a.opened[g, after]
    for c in range(CARD_KINDS):
        if fitting[c]:
            out[at[FITS] + c] = 1.0
        if partners[c]:
            out[at[PARTNERS] + c] = 1.0
        if c < NUM_CARDS and hand[c] > 0 and not partners[c]:
            out[at[LOOSE] + c] = 1.0
        if c < NUM_CARDS and not over and (feeding[c] or (fed and fitting[c])):
            out[at[FEEDS] + c] = 1.0
    for other in range(n):
        rel = (other - seat) % n
        _add_counts(out, at[KNOWN + rel], a.known[g, other])
        _melds(out, at, a, g, other, rel)
        base = at[SEATS] + rel * NUM_SEAT_FEATURES
        out[base] = 1.0
        out[base + 1] = _flag(a.current[g] == other)
        out[base + 2] = _flag(a.dealer[g] == other)
        out[base + 3] = _flag(a.opened[g, other])
        out[base + 4] = _flag(a.in_play[g, other])
        out[base + 5] = min(a.hand_n[g, other] / MAX_HAND, 1.0)
        out[base + 6] = min(a.totals[g, other] / SCORE_SCALE, 1.0)
        out[base + 7] = min(a.seat_melds[g, other] / MELD_COUNT_SCALE, 1.0)
    value = 0
    for c in range(CARD_KINDS):
        value += hand[c] * card_values[c]
    threshold = 0 if a.opened[g, seat] else opening
    scalars = at[SCALARS]
    out[scalars] = _flag(acting and a.phase[g] == DRAW)
    out[scalars + 1] = _flag(acting and a.phase[g] == PLAY)
    out[scalars + 2] = a.stock_n[g] / DECK_SCALE
    out[scalars + 3] = a.restocks_used[g] / max(restocks, 1)
    out[scalars + 4] = min(value / VALUE_SCALE, 1.0)
    out[scalars + 5] = min(threshold / OPENING_SCALE, 1.0)
    out[scalars + 6] = _flag(acting and a.taken[g] >= 0)
    out[scalars + 7] = _flag(acting and a.laid_now[g])
    out[scalars + 8] = _flag(top >= 0 and (top == JOKER or partners[top]))
    out[scalars + 9] = _flag(top >= 0 and fitting[top])
    out[scalars + 10] = _flag(top >= 0 and kt.makes_meld(top, hand, ace_low, ace_high))
    for i in range(a.offers_n[g] if acting else 0):
        base = global_size + i * slot_size
        out[base + slot_at[VALID]] = 1.0
        out[base + slot_at[TAKE]] = _flag(a.phase[g] == DRAW)
        out[base + slot_at[VALUE_LEFT]] = min(a.offer_left[g, i] / VALUE_SCALE, 1.0)
        out[base + slot_at[OPENING_VALUE]] = min(a.offer_open[g, i] / OPENING_SCALE, 1.0)
        out[base + slot_at[JOKERS]] = a.offer_jokers[g, i] / MAX_JOKERS
        out[base + slot_at[GOES_OUT]] = _flag(a.offer_out[g, i])
        out[base + slot_at[ORDER]] = i / k
        _add_counts(out, base + slot_at[LAID], a.offer_laid[g, i])
    for j in range(out.shape[0]):
        out[j] = min(out[j], 1.0)


@njit(cache=True)
def encode_rows(obs, a, rows, at, slot_at, global_size: int, slot_size: int, p) -> None:
    """The observation of the player to act in each of ``rows`` (rows at a decision the kernel
    made), into ``obs``. ``p``: (opening, restocks, ace_low_runs, ace_high_runs, card values, K)."""
    for g in rows:
        _encode(obs[g], a, g, a.current[g], at, slot_at, global_size, slot_size, p)


@njit(cache=True)
def encode_finals(out, a, g: int, at, slot_at, global_size: int, slot_size: int, p) -> None:
    """Every seat's view of row ``g``, a finished hand (observation.encode of each seat, no seat
    acting), into ``out``'s rows."""
    for seat in range(a.opened.shape[1]):
        _encode(out[seat], a, g, seat, at, slot_at, global_size, slot_size, p)


assert dict(GLOBAL_CHANNELS)["seats"] == MAX_PLAYERS * NUM_SEAT_FEATURES  # the seat features' places
