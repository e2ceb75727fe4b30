"""Kaluki's observation: every public fact and the observer's own hand, nothing hidden.

A float32 vector ``[global block][K offer slots]``,
every value in [0, 1]. Card channels are 53 wide: the engine's card index
``(rank - 1) * 4 + suit`` (suits C D H S) holding a count over 2 (two decks), and the joker at
52 holding a count over 4. Seats are relative to the observer (0 is the observer, 1 the next
to play, ...); the seats a smaller table lacks are zeros.

The table, per relative seat: the natural cards of its melds, the cards its melds' jokers
declare, and its melds' shapes (sets by rank, runs by suit and cells). ``fits``: the cards that
could be laid off on some meld now (a joker fits wherever a run can grow or a set has room).
``partners``: the cards that could meld with a natural card of the hand (another suit of its
rank, its suit within two ranks: :func:`~carousel_env.games.kaluki.melds.meld_partners`);
``loose``: the hand's natural cards that are no other card's partner.
``known_k``: the cards relative seat ``k`` is known to hold (every player saw them go into its
hand: taken from the pile, jokers won by an exchange; ``KalukiState.known``); ``feeds``: the
cards the player after the observer would take, as far as the table shows (:func:`feeds`).
The scalars say, among the rest, whether the pile's top melds with the hand (``top_melds``: a
joker or one of the ``partners``), whether it makes a meld with two of the hand's natural cards
(``top_makes_meld``: :func:`~carousel_env.games.kaluki.melds.makes_meld`) and whether it fits
the table (``top_fits``): what a player weighs before taking it. An offer slot describes an
arrangement that lays the pile's top (while the player draws) or a play (after): what it lays
from the hand, the hand value it leaves, its opening value, the jokers it lays, whether it goes
out, and its place among the offers (the solver lists the best first).
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from carousel_env.core.cards import JOKER, NUM_CARDS, face, is_table_joker, make_card, suit_of
from carousel_env.envkit.layout import ChannelLayout, add_card_counts, channel_layout
from carousel_env.games.kaluki.deal import next_seat
from carousel_env.games.kaluki.melds import Meld, MeldKind, card_at, makes_meld, meld_partners
from carousel_env.games.kaluki.rules import CARD_KINDS, HIGH_ACE, LOW_ACE, MAX_JOKERS, MAX_PLAYERS, RUN_MAX, SET_MAX
from carousel_env.games.kaluki.state import KalukiState, MoveKind, Phase

SCORE_SCALE = 500.0  # totals are divided by it (and capped at 1)
VALUE_SCALE = 200.0  # a hand's value
OPENING_SCALE = 100.0
MAX_HAND = 20.0  # 15 dealt, one drawn, a few taken with jokers: scaled by a little more
DECK_SCALE = 2 * NUM_CARDS + MAX_JOKERS
SEAT_FEATURES = ("present", "to_play", "dealer", "opened", "in_play", "hand_size", "total", "melds")
SCALARS = (
    "draw",
    "play",
    "stock",
    "restocks",
    "own_value",
    "threshold",
    "taken_locked",
    "laid_now",
    "top_melds",  # the pile's top is a joker or one of the hand's partners
    "top_fits",  # the pile's top could be laid off on the table
    "top_makes_meld",  # the pile's top makes a meld with two natural cards of the hand
)

GLOBAL_CHANNELS: tuple[tuple[str, int], ...] = (
    ("hand", CARD_KINDS),  # own hand
    ("top", CARD_KINDS),  # the top of the discard pile
    ("pile", CARD_KINDS),  # the cards under it
    ("fits", CARD_KINDS),  # the cards that could be laid off on the table now
    ("partners", CARD_KINDS),  # the cards that could meld with a natural of the hand
    ("loose", CARD_KINDS),  # the hand's naturals that meld with no other card of it
    ("feeds", CARD_KINDS),  # the cards the next player would take, as far as the table shows
    *((f"known_{k}", CARD_KINDS) for k in range(MAX_PLAYERS)),  # the cards relative seat k is known to hold
    *((f"naturals_{k}", CARD_KINDS) for k in range(MAX_PLAYERS)),  # natural cards in relative seat k's melds
    *((f"declared_{k}", CARD_KINDS) for k in range(MAX_PLAYERS)),  # what its melds' jokers stand for
    *((f"sets_{k}", 13) for k in range(MAX_PLAYERS)),  # its sets, by rank
    *((f"runs_{k}", 4 * HIGH_ACE) for k in range(MAX_PLAYERS)),  # its runs' cells, by suit
    ("seats", MAX_PLAYERS * len(SEAT_FEATURES)),
    ("scalars", len(SCALARS)),
)
SLOT_CHANNELS: tuple[tuple[str, int], ...] = (
    ("valid", 1),
    ("take", 1),  # an arrangement laid with the pile's top (else a play)
    ("value_left", 1),  # / VALUE_SCALE
    ("opening_value", 1),  # / OPENING_SCALE
    ("jokers", 1),  # jokers laid / MAX_JOKERS
    ("goes_out", 1),
    ("order", 1),  # its place among the offers, best first: index / K
    ("laid", CARD_KINDS),  # the hand's cards it puts on the table
)

ObservationLayout = ChannelLayout  # the family's channel layout (carousel_env.envkit.layout)


def layout(k: int) -> ObservationLayout:
    return channel_layout(GLOBAL_CHANNELS, SLOT_CHANNELS, k)


def _fits(state: KalukiState) -> set[int]:
    """The card kinds some meld on the table would take now: a set's missing suits while it
    has room, the cells beyond a run's ends (a joker fits wherever one of them does)."""
    rules, found = state.rules, set()
    for meld in state.table():
        if meld.kind is MeldKind.SET:
            if len(meld.units) < SET_MAX:
                held = {suit_of(face(u)) for u in meld.units}
                found.update(make_card(meld.rank, suit) for suit in range(4) if suit not in held)
        elif len(meld.units) < RUN_MAX:
            lowest = LOW_ACE if rules.ace_low_runs else LOW_ACE + 1
            highest = HIGH_ACE if rules.ace_high_runs else HIGH_ACE - 1
            found.update(
                card_at(meld.suit, cell) for cell in (meld.low - 1, meld.high + 1) if lowest <= cell <= highest
            )
    if found:
        found.add(JOKER)
    return found


def feeds(state: KalukiState, seat: int, fitting: set[int] | None = None) -> frozenset[int]:
    """The natural cards the player drawing after ``seat`` would take from the pile, as far as
    the table shows (``simple``'s reasons to take it): those that meld with a card it is known
    to hold (:func:`~carousel_env.games.kaluki.melds.meld_partners`) and, once it has opened,
    those that fit a meld on the table (``fitting``: :func:`_fits` of ``state``, where the caller
    has it). Empty once the hand is over (no seat may be left to draw)."""
    if state.over:
        return frozenset()
    after = next_seat(seat, state.in_play)
    found = meld_partners([c for c in state.known[after] if c != JOKER])
    if not state.opened[after]:
        return found
    return found | ((_fits(state) if fitting is None else fitting) - {JOKER})


def _melds(out: np.ndarray, at: dict, k: int, melds: tuple[Meld, ...]) -> None:
    for meld in melds:
        for unit in meld.units:
            channel = "declared" if is_table_joker(unit) else "naturals"
            out[at[f"{channel}_{k}"] + face(unit)] += 0.5
        if meld.kind is MeldKind.SET:
            out[at[f"sets_{k}"] + meld.rank - 1] = 1.0
        else:
            base = at[f"runs_{k}"] + meld.suit * HIGH_ACE
            out[base + meld.low - 1 : base + meld.high] = 1.0


def _laid(state: KalukiState, suggestion) -> tuple[tuple[int, ...], bool]:
    """The hand's cards a suggestion puts on the table, and whether the hand is then empty: its
    melds', lay-offs' and exchanges' cards, less the jokers its exchanges release (a play's
    ``released``), which the hand gets back or lays again."""
    s = state.current
    given = Counter(c for m in suggestion.melds for c in m.cards())
    if state.phase is Phase.DRAW:  # an arrangement laid with the pile's top
        return tuple(given.elements()), len(state.hands[s]) + 1 == given.total()
    for move in suggestion.moves:
        if move.kind is MoveKind.LAY_OFF:
            given[move.card] += 1
        elif move.kind is MoveKind.EXCHANGE:
            given.update(move.cards)
    left = len(state.hands[s]) - given.total() + suggestion.released
    given[JOKER] = max(given[JOKER] - suggestion.released, 0)
    return tuple(sorted(given.elements())), left == 0


def encode(state: KalukiState, seat: int, suggestions: tuple, lay: ObservationLayout) -> np.ndarray:
    """The observation of ``seat``; ``suggestions`` are the decision's offers when it acts
    (arrangements to take the pile's top with while it draws, plays after)."""
    out = np.zeros(lay.size, np.float32)
    at = {name: start for name, (start, _) in lay.offsets.items()}
    n, rules = state.num_players, state.rules
    hand = state.hands[seat]
    add_card_counts(out, at["hand"], hand, MAX_JOKERS)
    top = state.top if state.discards and not state.over else None
    if top is not None:
        out[at["top"] + top] = 1.0
        add_card_counts(out, at["pile"], state.discards[:-1], MAX_JOKERS)
    else:
        add_card_counts(out, at["pile"], state.discards, MAX_JOKERS)
    fitting = _fits(state)
    for card in fitting:
        out[at["fits"] + card] = 1.0
    naturals = [c for c in hand if c != JOKER]
    partners = meld_partners(naturals)
    for card in partners:
        out[at["partners"] + card] = 1.0
    for card in set(naturals) - partners:
        out[at["loose"] + card] = 1.0
    for card in feeds(state, seat, fitting):
        out[at["feeds"] + card] = 1.0
    for other in range(n):
        k = (other - seat) % n
        add_card_counts(out, at[f"known_{k}"], state.known[other], MAX_JOKERS)
        _melds(out, at, k, state.melds[other])
        base = at["seats"] + k * len(SEAT_FEATURES)
        out[base : base + len(SEAT_FEATURES)] = (
            1.0,
            float(state.current == other),
            float(state.dealer == other),
            float(state.opened[other]),
            float(state.in_play[other]),
            min(len(state.hands[other]) / MAX_HAND, 1.0),
            min(state.totals[other] / SCORE_SCALE, 1.0),
            min(len(state.melds[other]) / 10.0, 1.0),
        )
    acting = state.current == seat and not state.over
    threshold = 0 if state.opened[seat] else rules.opening
    scalars = (
        float(acting and state.phase is Phase.DRAW),
        float(acting and state.phase is Phase.PLAY),
        len(state.stock) / DECK_SCALE,
        state.restocks_used / max(rules.restocks, 1),
        min(rules.hand_value(hand) / VALUE_SCALE, 1.0),
        min(threshold / OPENING_SCALE, 1.0),
        float(acting and state.taken >= 0),
        float(acting and state.laid_now),
        float(top is not None and (top == JOKER or top in partners)),
        float(top is not None and top in fitting),
        float(top is not None and makes_meld(top, naturals, rules)),
    )
    out[at["scalars"] : at["scalars"] + len(scalars)] = scalars
    for i, suggestion in enumerate(suggestions):
        base = lay.global_size + i * lay.slot_size
        slot = {name: base + start for name, (start, _) in lay.slot_offsets.items()}
        laid, out_now = _laid(state, suggestion)
        out[slot["valid"]] = 1.0
        out[slot["take"]] = float(state.phase is Phase.DRAW)
        out[slot["value_left"]] = min(suggestion.hand_value / VALUE_SCALE, 1.0)
        out[slot["opening_value"]] = min(suggestion.opening_value / OPENING_SCALE, 1.0)
        out[slot["jokers"]] = suggestion.jokers / MAX_JOKERS
        out[slot["goes_out"]] = float(out_now)
        out[slot["order"]] = i / lay.k
        add_card_counts(out, slot["laid"], laid, MAX_JOKERS)
    return np.minimum(out, 1.0, out=out)
