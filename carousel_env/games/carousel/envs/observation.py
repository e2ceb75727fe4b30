"""The observation vector of the Carousel environment: its layout and its encoder.

The vector is ``[global block][K slot blocks]``: the global block describes what one player
may know of the game; slot ``k`` describes the solver's suggestion ``k`` (the effect of
action ``FIRST_SUGGESTION + k``). Slots all have the same features in the same order, so a
network can encode them with shared weights. :func:`layout` gives the named slices; the
env's module docstring lists every channel.

Everything is a function of the state as the observer sees it: the observer's own hand,
the table, public counts (hand sizes, stock size, scores) and the suggestions, which the
solver computes from the observer's hand and the table only. Other hands and the stock
order never enter, which the information tests check by shuffling them.
"""

from __future__ import annotations

from collections import Counter
from functools import cache

import numpy as np

from carousel_env.core.cards import NUM_CARDS, POINTS, TABLE_JOKER
from carousel_env.envkit.layout import ObservationLayout
from carousel_env.games.carousel.engine.game import GameState, Phase
from carousel_env.games.carousel.engine.rules import Rules

MAX_PLAYERS = 5
MAX_OPPONENTS = MAX_PLAYERS - 1
PHASES = tuple(Phase)
# The solver's reasons, in the order it lists suggestions; ``size_<n>`` counts as "size".
REASONS = ("max_points", "max_cards", "keep_jokers", "knock", "size")

# Scales keep features near [0, 1] in ordinary play; the Box bounds below are generous
# upper limits (scores keep growing until the game ends), never clipped in practice.
POINTS_SCALE = 100.0
SCORE_SCALE = 150.0
SIZE_SCALE = 20.0

# (name, width, upper bound) of each global channel, in vector order.
GLOBAL_CHANNELS: tuple[tuple[str, int, float], ...] = (
    ("hand", NUM_CARDS + 1, 2.0),
    ("table_cards", NUM_CARDS, 2.0),
    ("table_jokers", NUM_CARDS, 2.0),
    ("unseen", NUM_CARDS + 1, 2.0),
    ("self", 6, 20.0),
    ("opponents", 5 * MAX_OPPONENTS, 20.0),
    ("dealer", MAX_PLAYERS, 1.0),
    ("to_play", MAX_PLAYERS, 1.0),
    ("stock", 1, 1.0),
    ("draws", 4, 1.0),
    ("phase", len(PHASES), 1.0),
    ("final_turns", 2, 1.0),
    ("round", 1, 20.0),
    ("table_melds", 1, 20.0),
    ("solver", 4, 20.0),
)
SLOT_CHANNELS: tuple[tuple[str, int, float], ...] = (
    ("valid", 1, 1.0),
    ("cards", NUM_CARDS + 1, 2.0),
    ("num_cards", 1, 20.0),
    ("points", 1, 20.0),
    ("hand_after_points", 1, 20.0),
    ("hand_after_size", 1, 20.0),
    ("jokers_used", 1, 1.0),
    ("goes_out", 1, 1.0),
    ("can_knock_after", 1, 1.0),
    ("reason", len(REASONS), 1.0),
    ("melds_after", 1, 20.0),
    ("changes_melds", 1, 1.0),
)


def _slices(channels: tuple[tuple[str, int, float], ...], start: int = 0) -> dict[str, slice]:
    out = {}
    for name, width, _ in channels:
        out[name] = slice(start, start + width)
        start += width
    return out


def _width(channels: tuple[tuple[str, int, float], ...]) -> int:
    return sum(width for _, width, _ in channels)


@cache
def layout(num_slots: int) -> ObservationLayout:
    """Carousel's layout for ``num_slots`` (= ``k_suggestions``) suggestion slots."""
    return ObservationLayout(
        _width(GLOBAL_CHANNELS), num_slots, _width(SLOT_CHANNELS), _slices(GLOBAL_CHANNELS), _slices(SLOT_CHANNELS)
    )


def upper_bounds(num_slots: int) -> np.ndarray:
    """Per-element upper bounds of Carousel's vector with ``num_slots`` slots (the lower
    bound is 0 everywhere): the observation space's ``high``."""
    parts = [np.full(width, bound, np.float32) for _, width, bound in GLOBAL_CHANNELS]
    slot = np.concatenate([np.full(width, bound, np.float32) for _, width, bound in SLOT_CHANNELS])
    return np.concatenate([*parts, np.tile(slot, num_slots)])


# Precomputed offsets: the encoder runs once per decision, so it indexes plain ints.
_G = _slices(GLOBAL_CHANNELS)
_S = _slices(SLOT_CHANNELS)
_HAND, _TCARDS, _TJOKERS, _UNSEEN = (_G[n].start for n in ("hand", "table_cards", "table_jokers", "unseen"))
_PHASE_INDEX = {p: i for i, p in enumerate(PHASES)}
_SELF, _OPPONENTS, _DEALER, _TO_PLAY, _STOCK, _DRAWS, _PHASE, _FINAL, _ROUND, _MELDS, _SOLVER = (
    _G[n].start
    for n in (
        "self",
        "opponents",
        "dealer",
        "to_play",
        "stock",
        "draws",
        "phase",
        "final_turns",
        "round",
        "table_melds",
        "solver",
    )
)


@cache  # a handful of distinct reasons
def _reason_index(reason: str) -> int | None:
    for i, name in enumerate(REASONS):
        if reason.startswith(name):
            return i
    return None


# Where each hand card and table unit is counted, in one bincount over the vector: its own
# channel (a table joker declaring card ``c``, unit ``TABLE_JOKER + c``, in ``table_jokers``
# at ``c``), and once more in ``unseen`` (a table joker as a joker there), which then holds
# the cards seen and is turned into the deck minus them. Units 52..63 do not exist.
_UNIT_AT = tuple(
    _TCARDS + u if u < NUM_CARDS else _TJOKERS + u - TABLE_JOKER if u >= TABLE_JOKER else -1
    for u in range(TABLE_JOKER + NUM_CARDS)
)
_UNIT_SEEN_AT = tuple(
    _UNSEEN + u if u < NUM_CARDS else _UNSEEN + NUM_CARDS if u >= TABLE_JOKER else -1
    for u in range(TABLE_JOKER + NUM_CARDS)
)


@cache
def _deck_counts(rules: Rules) -> tuple[np.ndarray, int]:
    """Copies of each card in the deck (index 52: jokers), and the deck size."""
    deck = np.full(NUM_CARDS + 1, rules.decks, np.float32)
    deck[NUM_CARDS] = rules.jokers
    deck.flags.writeable = False
    return deck, rules.deck_size


def encode(state: GameState, observer: int, suggestions: tuple, lay: ObservationLayout) -> np.ndarray:
    """The observation vector of ``observer``. ``suggestions`` are the solver's suggestions
    for the player to act (pass ``()`` when ``observer`` is not that player)."""
    rules = state.rules
    n = state.num_players
    hand = state.hands[observer]
    units = [u for meld in state.table for u in meld]
    at = [_HAND + c for c in hand]
    at += map(_UNIT_AT.__getitem__, units)
    at += [_UNSEEN + c for c in hand]
    at += map(_UNIT_SEEN_AT.__getitem__, units)
    v = np.bincount(at, minlength=lay.size).astype(np.float32) if at else np.zeros(lay.size, np.float32)
    # Unseen = the deck minus the own hand minus the table.
    deck, deck_size = _deck_counts(rules)
    unseen = v[_UNSEEN : _UNSEEN + NUM_CARDS + 1]
    np.subtract(deck, unseen, out=unseen)

    last = state.round_scores[-1].points if state.round_scores else None
    hand_value = sum([POINTS[c] for c in hand])
    knock_limit = rules.knock_limit
    v[_SELF] = len(hand) / SIZE_SCALE
    v[_SELF + 1] = hand_value / POINTS_SCALE
    v[_SELF + 2] = knock_limit is not None and hand_value <= knock_limit
    v[_SELF + 3] = state.scores[observer] / SCORE_SCALE
    v[_SELF + 4] = state.rounds_won[observer] / 10.0
    if last is not None:
        v[_SELF + 5] = last[observer] / POINTS_SCALE
    o = _OPPONENTS
    for rel in range(1, n):
        p = (observer + rel) % n
        v[o] = 1.0
        v[o + 1] = len(state.hands[p]) / SIZE_SCALE
        v[o + 2] = state.scores[p] / SCORE_SCALE
        v[o + 3] = state.rounds_won[p] / 10.0
        if last is not None:
            v[o + 4] = last[p] / POINTS_SCALE
        o += 5
    v[_DEALER + (state.dealer - observer) % n] = 1.0
    v[_TO_PLAY + (state.current - observer) % n] = 1.0
    v[_STOCK] = len(state.stock) / deck_size
    v[_DRAWS + min(state.draws_this_turn, 3)] = 1.0
    v[_PHASE + _PHASE_INDEX[state.phase]] = 1.0
    if state.final_turns_left is not None:
        v[_FINAL] = 1.0
        v[_FINAL + 1] = state.final_turns_left / MAX_PLAYERS
    v[_ROUND] = state.round_index / 10.0
    v[_MELDS] = len(state.table) / SIZE_SCALE
    if suggestions:
        v[_SOLVER] = len(suggestions) / lay.num_slots
        v[_SOLVER + 1] = max(s.points for s in suggestions) / POINTS_SCALE
        v[_SOLVER + 2] = max(s.cards for s in suggestions) / SIZE_SCALE
        v[_SOLVER + 3] = 1.0
        old_melds = Counter(state.table)
        base = lay.global_size
        for sug in suggestions[: lay.num_slots]:
            _encode_slot(v, base, sug, old_melds, knock_limit)
            base += lay.slot_features
    return v


(
    _VALID,
    _CARDS,
    _NUM_CARDS,
    _POINTS,
    _AFTER_POINTS,
    _AFTER_SIZE,
    _JOKERS,
    _GOES_OUT,
    _KNOCK_AFTER,
    _REASON,
    _MELDS_AFTER,
    _CHANGES,
) = (sl.start for sl in _S.values())


def _encode_slot(v: np.ndarray, base: int, sug, old_melds: Counter, knock_limit: int | None) -> None:
    v[base + _VALID] = 1.0
    for c in sug.play.added:
        v[base + _CARDS + c] += 1.0
    v[base + _NUM_CARDS] = sug.cards / SIZE_SCALE
    v[base + _POINTS] = sug.points / POINTS_SCALE
    v[base + _AFTER_POINTS] = sug.hand_after_points / POINTS_SCALE
    v[base + _AFTER_SIZE] = len(sug.hand_after) / SIZE_SCALE
    v[base + _JOKERS] = sug.jokers_used / 2.0
    v[base + _GOES_OUT] = not sug.hand_after
    v[base + _KNOCK_AFTER] = knock_limit is not None and sug.hand_after_points <= knock_limit
    r = _reason_index(sug.reason)
    if r is not None:
        v[base + _REASON + r] = 1.0
    new_table = sug.play.table
    v[base + _MELDS_AFTER] = len(new_table) / SIZE_SCALE
    # A play that only adds melds keeps every old meld as it was, each copy of a repeated
    # meld included; anything else changed some.
    v[base + _CHANGES] = bool(old_melds - Counter(new_table))
