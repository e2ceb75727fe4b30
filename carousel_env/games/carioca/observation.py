"""Carioca's observation: every public fact and the observer's own hand, nothing hidden.

A float32 vector ``[global block][K go-down slots of SLOT_SIZE]``, every value in [0, 1].
Card channels are 53 wide: the engine's card index ``(rank - 1) * 4 + suit`` (suits C D H S)
holding a count over 2 (two decks), and the joker at 52 holding a count over 4. Seats are
relative to the observer (0 is the observer, 1 the next to play, ...); the seats a smaller
table lacks are zeros. Meld slots are ``3 * relative seat + meld`` (a player lays at most
three melds), as in the lay-off actions.
"""

from __future__ import annotations

import numpy as np

from carousel_env.envkit.layout import ChannelLayout, add_card_counts, channel_layout
from carousel_env.games.carioca.engine import CariocaState, Phase, without
from carousel_env.games.carioca.melds import End, Meld, MeldKind
from carousel_env.games.carioca.rules import (
    CARD_KINDS,
    CONTRACTS,
    DECK_SIZE,
    HAND_SIZE,
    HIGH_ACE,
    MAX_PLAYERS,
    NUM_JOKERS,
    NUM_ROUNDS,
    hand_points,
)
from carousel_env.games.carioca.solver import distance, fits_table, offer_of

MELDS_PER_SEAT = max(c.melds for c in CONTRACTS)  # 3
MELD_SLOTS = MAX_PLAYERS * MELDS_PER_SEAT  # 15
SCORE_SCALE = 1000.0  # totals are divided by it (and capped at 1)
VALUE_SCALE = 200.0  # a hand's value
MAX_HAND = HAND_SIZE + 1 + 3  # 11 dealt, one drawn: scaled by a little more
STAGES = ("draw", "play", "went_down")  # the phase of the player to act
# Per meld slot: these, then a trio's rank (13) and an escalera's suit (4), one-hot.
MELD_FEATURES = ("present", "trio", "escalera", "low", "high", "length", "low_joker", "high_joker", "jokers")
MELD_SIZE = len(MELD_FEATURES) + 13 + 4

# top_helps: while the observer draws, not down, taking the pile's top would bring the contract closer;
# top_fits: while the observer draws, down, the pile's top can be laid off on the table.
SCALARS = ("stock", "reshuffled", "own_distance", "can_go_down", "can_lay_off", "own_value", "top_helps", "top_fits")
GLOBAL_CHANNELS: tuple[tuple[str, int], ...] = (
    ("hand", CARD_KINDS),  # own hand
    ("top", CARD_KINDS),  # the top of the discard pile
    ("pile", CARD_KINDS),  # the cards under it
    ("table", CARD_KINDS),  # every card on the table
    *((f"taken_{k}", CARD_KINDS) for k in range(MAX_PLAYERS)),  # taken from the pile this round
    *((f"thrown_{k}", CARD_KINDS) for k in range(MAX_PLAYERS)),  # discarded this round
    ("needed", CARD_KINDS),  # while the observer plays, not down: the cards whose discard adds to its distance
    ("round", NUM_ROUNDS),
    ("stage", len(STAGES)),
    ("seats", MAX_PLAYERS * 6),  # per relative seat: present, to play, dealer, down, hand size, score
    ("scalars", len(SCALARS)),
    ("melds", MELD_SLOTS * MELD_SIZE),
)
SLOT_CHANNELS: tuple[tuple[str, int], ...] = (
    ("valid", 1),
    ("jokers", 1),  # jokers laid / 3
    ("kept_value", 1),  # / VALUE_SCALE
    ("laid", CARD_KINDS),  # the cards it lays
)


ObservationLayout = ChannelLayout  # the family's channel layout (carousel_env.envkit.layout)


def layout(k: int) -> ObservationLayout:
    return channel_layout(GLOBAL_CHANNELS, SLOT_CHANNELS, k)


# Where the observation holds the observer's distance to the contract (over the contract's
# cards), whether it is down and its hand's size (its own seat's row); the same for every K.
OWN_DISTANCE = layout(0).offsets["scalars"][0] + SCALARS.index("own_distance")
OWN_DOWN = layout(0).offsets["seats"][0] + 3
OWN_HAND_SIZE = layout(0).offsets["seats"][0] + 4


def progress(observations: np.ndarray) -> np.ndarray:
    """Each observer's progress in the round, for training's shaping (a potential): before it
    goes down, minus its distance to the contract over the contract's cards (-1 to 0); once
    down, 1 less its hand's share of the most cards a hand holds (0 to 1, 1 gone out). Going
    down always raises it: the distance of what is left in hand no longer counts."""
    obs = np.asarray(observations, np.float64)
    return np.where(obs[..., OWN_DOWN] > 0.5, 1.0 - obs[..., OWN_HAND_SIZE], -obs[..., OWN_DISTANCE])


def _meld(out: np.ndarray, start: int, meld: Meld) -> None:
    trio = meld.kind is MeldKind.TRIO
    values = (
        1.0,
        float(trio),
        float(not trio),
        0.0 if trio else meld.low / HIGH_ACE,
        0.0 if trio else meld.high / HIGH_ACE,
        len(meld.units) / HIGH_ACE,
        float(not trio and meld.end_joker(End.LOW)),
        float(not trio and meld.end_joker(End.HIGH)),
        meld.jokers / NUM_JOKERS,
    )
    out[start : start + len(values)] = values
    at = start + len(values)
    if trio:
        out[at + meld.rank - 1] = 1.0
    else:
        out[at + 13 + meld.suit] = 1.0


def stage(state: CariocaState) -> str:
    if state.phase is Phase.DRAW:
        return "draw"
    return "went_down" if state.went_down_now else "play"


def encode(
    state: CariocaState,
    seat: int,
    suggestions: tuple,
    own_distance: int,
    can_lay_off: bool,
    lay: ObservationLayout,
) -> np.ndarray:
    """The observation of ``seat``. ``suggestions`` are the go-down arrangements offered (when
    it acts), ``own_distance`` its hand's distance to the contract (the solver's)."""
    out = np.zeros(lay.size, np.float32)
    at = {name: start for name, (start, _) in lay.offsets.items()}
    n = state.num_players
    hand = state.hands[seat]
    add_card_counts(out, at["hand"], hand, NUM_JOKERS)
    if state.discards and not state.over:
        out[at["top"] + state.top] = 1.0
        add_card_counts(out, at["pile"], state.discards[:-1], NUM_JOKERS)
    else:
        add_card_counts(out, at["pile"], state.discards, NUM_JOKERS)
    for other in range(n):
        k = (other - seat) % n
        add_card_counts(out, at[f"taken_{k}"], state.taken[other], NUM_JOKERS)
        add_card_counts(out, at[f"thrown_{k}"], state.thrown[other], NUM_JOKERS)
        for index, meld in enumerate(state.melds[other]):
            add_card_counts(out, at["table"], meld.cards(), NUM_JOKERS)
            _meld(out, at["melds"] + (k * MELDS_PER_SEAT + index) * MELD_SIZE, meld)
        base = at["seats"] + k * 6
        out[base : base + 6] = (
            1.0,
            float(state.current == other),
            float(state.dealer == other),
            float(state.down[other]),
            len(state.hands[other]) / MAX_HAND,
            min(state.scores[other] / SCORE_SCALE, 1.0),
        )
    out[at["round"] + state.round] = 1.0
    if state.current == seat and not state.over:
        out[at["stage"] + STAGES.index(stage(state))] = 1.0
    contract = state.contract
    value = hand_points(hand)
    top_helps = top_fits = False
    if state.current == seat and not state.over and state.down[seat]:
        top_fits = state.phase is Phase.DRAW and bool(state.discards) and fits_table(state.top, state.melds)
    elif state.current == seat and not state.over:
        if state.phase is Phase.DRAW:
            top_helps = bool(state.discards) and distance((*hand, state.top), contract) < own_distance
        else:
            for card in set(hand):
                if distance(without(hand, (card,)), contract) > own_distance:
                    out[at["needed"] + card] = 1.0
    scalars = (
        len(state.stock) / DECK_SIZE,
        float(state.reshuffled),
        min(own_distance / contract.cards, 1.0),
        float(bool(suggestions)),
        float(can_lay_off),
        min(value / VALUE_SCALE, 1.0),
        float(top_helps),
        float(top_fits),
    )
    out[at["scalars"] : at["scalars"] + len(scalars)] = scalars
    for k, arrangement in enumerate(suggestions):
        base = lay.global_size + k * lay.slot_size
        slot = {name: base + start for name, (start, _) in lay.slot_offsets.items()}
        offer = offer_of(arrangement, value)
        out[slot["valid"]] = 1.0
        out[slot["jokers"]] = offer.jokers / 3.0
        out[slot["kept_value"]] = min(offer.kept_value / VALUE_SCALE, 1.0)
        add_card_counts(out, slot["laid"], offer.laid, NUM_JOKERS)
    # A card can be taken and thrown again and again: the history channels are capped.
    return np.minimum(out, 1.0, out=out)
