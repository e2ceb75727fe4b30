"""Conquian's observation: every public fact and the observer's own hand, nothing hidden.

A float32 vector ``[global block][K offer slots]``, every value in [0, 1]. Card channels
are 40 wide, a card at its place among the 40 (``rules.index_of``: A..7, J, Q, K, each in
suits C D H S). Every card that went face down was seen face up, so the dead pile is public,
and so are the cards each player passed.

``extends_own`` and ``extends_opponent``: the cards that would grow one of that player's
melds as it stands (a set's missing suit, the cards beyond a run's ends). ``partners``: the
cards that could meld with a card of the hand (its rank, its suit within two places:
:func:`~carousel_env.games.conquian.melds.meld_partners`); ``loose``: the hand's cards that are
no other hand card's partner; ``live_partners``: for each card of the hand, how many of the
unseen cards could meld with it (of at most ``PARTNERS_MAX``), the count ``simple`` discards
by. An offer slot
describes an arrangement: whether it takes the card (else it leaves a turned card after
laying from the hand), the hand's cards it lays, the cards melded after it, whether it wins,
and the cards that would grow its melds.
"""

from __future__ import annotations

import numpy as np

from carousel_env.envkit.layout import ChannelLayout, channel_layout
from carousel_env.games.conquian.decision import Offer
from carousel_env.games.conquian.melds import NEAR, Melds, could_meld, is_set, meld_partners
from carousel_env.games.conquian.rules import (
    CARDS,
    HAND_SIZE,
    NUM_CARDS,
    SET_MAX,
    WINNING_MELDED,
    ConquianRules,
    card_at,
    index_of,
    position,
    suit_of,
)
from carousel_env.games.conquian.state import NO_CARD, ConquianState, Phase

STOCK_SCALE = float(NUM_CARDS - 2 * HAND_SIZE)  # 20: the stock after the deal, upcard included
POOL_SCALE = 5.0
PARTNERS_MAX = 3 + 2 * NEAR  # a card's partners: the rank's other suits, its suit within NEAR places
PHASES = (Phase.FACED, Phase.TURNED, Phase.FORCE, Phase.FORCED, Phase.DISCARD)
SCALARS = (
    *(f"acting_{p.value}" for p in PHASES),
    "stock",
    "own_melded",
    "opponent_melded",
    "own_hand",
    "opponent_hand",
    "upcard",
    "dealer",
    "faced_by_own",
    "faced_by_opponent",
    "lead",  # 0.5 + (own total - opponent total) / (2 * target)
    "pool",
)

GLOBAL_CHANNELS: tuple[tuple[str, int], ...] = (
    ("hand", NUM_CARDS),
    ("own_melds", NUM_CARDS),
    ("opponent_melds", NUM_CARDS),
    ("faced", NUM_CARDS),
    ("dead", NUM_CARDS),
    ("own_passed", NUM_CARDS),
    ("opponent_passed", NUM_CARDS),
    ("unseen", NUM_CARDS),  # in the opponent's hand or the stock
    ("extends_own", NUM_CARDS),
    ("extends_opponent", NUM_CARDS),
    ("partners", NUM_CARDS),  # could meld with a card of the hand
    ("loose", NUM_CARDS),  # the hand's cards no other hand card melds with
    ("live_partners", NUM_CARDS),  # a hand card's unseen partners / PARTNERS_MAX
    ("scalars", len(SCALARS)),
)
SLOT_CHANNELS: tuple[tuple[str, int], ...] = (
    ("valid", 1),
    ("take", 1),
    ("melded_after", 1),  # / 11
    ("wins", 1),
    ("laid", NUM_CARDS),
    ("extends_after", NUM_CARDS),
)

ObservationLayout = ChannelLayout  # the family's channel layout (carousel_env.envkit.layout)


def layout(k: int) -> ObservationLayout:
    return channel_layout(GLOBAL_CHANNELS, SLOT_CHANNELS, k)


def growing_cards(melds: Melds, rules: ConquianRules) -> set[int]:
    """The cards that would grow one of ``melds`` as it stands."""
    found: set[int] = set()
    for meld in melds:
        if is_set(meld):
            if len(meld) < SET_MAX:
                held = {suit_of(c) for c in meld}
                found.update(card_at(s, position(meld[0])) for s in range(4) if s not in held)
        elif len(meld) < rules.run_limit:
            suit = suit_of(meld[0])
            found.update(card_at(suit, p) for p in (position(meld[0]) - 1, position(meld[-1]) + 1) if 0 <= p < 10)
    return found


def unseen_cards(state: ConquianState, seat: int) -> set[int]:
    """The cards ``seat`` has not seen: the opponent's hand and the stock (every other card is
    in its hand, on the table, faced or was faced before going down)."""
    seen = {*state.hands[seat], *state.dead, *(c for table in state.melds for m in table for c in m)}
    if state.faced != NO_CARD:
        seen.add(state.faced)
    return set(CARDS) - seen


def _cards(out: np.ndarray, start: int, cards) -> None:
    for card in cards:
        out[start + index_of(card)] = 1.0


def encode(state: ConquianState, seat: int, found: tuple[Offer, ...], lay: ObservationLayout) -> np.ndarray:
    """The observation of ``seat``; ``found`` are the decision's offers when it acts."""
    out = np.zeros(lay.size, np.float32)
    at = {name: start for name, (start, _) in lay.offsets.items()}
    rules, other = state.rules, 1 - seat
    own_table = [c for m in state.melds[seat] for c in m]
    other_table = [c for m in state.melds[other] for c in m]
    _cards(out, at["hand"], state.hands[seat])
    _cards(out, at["own_melds"], own_table)
    _cards(out, at["opponent_melds"], other_table)
    faced = (state.faced,) if state.faced != NO_CARD and not state.over else ()
    _cards(out, at["faced"], faced)
    _cards(out, at["dead"], state.dead)
    _cards(out, at["own_passed"], state.declined[seat])
    _cards(out, at["opponent_passed"], state.declined[other])
    unseen = unseen_cards(state, seat)
    _cards(out, at["unseen"], unseen)
    _cards(out, at["extends_own"], growing_cards(state.melds[seat], rules))
    _cards(out, at["extends_opponent"], growing_cards(state.melds[other], rules))
    hand = state.hands[seat]
    partners = meld_partners(hand)
    _cards(out, at["partners"], partners)
    _cards(out, at["loose"], set(hand) - partners)
    for card in hand:
        out[at["live_partners"] + index_of(card)] = sum(could_meld(card, x) for x in unseen) / PARTNERS_MAX
    acting = state.current == seat and not state.over
    lead = (state.totals[seat] - state.totals[other]) / (2.0 * rules.target)
    scalars = (
        *(float(acting and state.phase is p) for p in PHASES),
        len(state.stock) / STOCK_SCALE,
        len(own_table) / WINNING_MELDED,
        len(other_table) / WINNING_MELDED,
        len(state.hands[seat]) / HAND_SIZE,
        len(state.hands[other]) / HAND_SIZE,
        float(state.upcard and not state.over),
        float(state.dealer == seat),
        float(bool(faced) and state.faced_by == seat),
        float(bool(faced) and state.faced_by == other),
        min(max(0.5 + lead, 0.0), 1.0),
        min(state.pool / POOL_SCALE, 1.0),
    )
    out[at["scalars"] : at["scalars"] + len(scalars)] = scalars
    for i, offer in enumerate(found):
        base = lay.global_size + i * lay.slot_size
        slot = {name: base + start for name, (start, _) in lay.slot_offsets.items()}
        melds = offer.arrangement.melds
        melded = sum(len(m) for m in melds)
        out[slot["valid"]] = 1.0
        out[slot["take"]] = float(offer.take)
        out[slot["melded_after"]] = min(melded / WINNING_MELDED, 1.0)
        out[slot["wins"]] = float(melded == WINNING_MELDED)
        _cards(out, slot["laid"], offer.arrangement.laid)
        _cards(out, slot["extends_after"], growing_cards(melds, rules))
    return out
