"""Gin Rummy's observation: every public fact and the observer's own hand, nothing hidden.

A float32 vector ``[global block][K knock slots of SLOT_SIZE]``, every value in [0, 1].
Card channels are 52 wide and use the engine's card index ``(rank - 1) * 4 + suit`` (suits
C D H S); "own" and "opp" are relative to the observer.
"""

from __future__ import annotations

import numpy as np

from carousel_env.core.cards import NUM_CARDS
from carousel_env.envkit.layout import ChannelLayout, channel_layout
from carousel_env.games.gin_rummy import melds as gm
from carousel_env.games.gin_rummy.engine import GinState, HandEnd, Phase
from carousel_env.games.gin_rummy.rules import MAX_KNOCK_LIMIT, OPENSPIEL_UPCARD_DRAWS

STOCK_AT_DEAL = NUM_CARDS - 21  # 10 + 10 dealt and the upcard
SCORE_SCALE = 100.0  # points and deadwood are divided by it
PHASES = tuple(Phase)

# (name, width): the global block, in order (docs: the env's module docstring).
GLOBAL_CHANNELS: tuple[tuple[str, int], ...] = (
    ("hand", NUM_CARDS),  # own hand
    ("upcard", NUM_CARDS),  # the top of the discard pile
    ("pile", NUM_CARDS),  # the cards under it
    ("taken", NUM_CARDS),  # the upcard the observer took this turn
    ("own_declined", NUM_CARDS),  # upcards passed on or drawn over
    ("own_discarded", NUM_CARDS),
    ("opp_known", NUM_CARDS),  # taken from the pile by the opponent and still held
    ("opp_declined", NUM_CARDS),
    ("opp_discarded", NUM_CARDS),
    ("last_knock_melds", NUM_CARDS),  # the game's last knock: the knocker's melds
    ("last_layoffs", NUM_CARDS),  # ... the cards laid off on them
    ("last_hands", NUM_CARDS),  # ... every card the two hands showed (the hand over)
    ("after_discard", NUM_CARDS),  # while the observer discards: after_deadwood of its hand less each card
    ("phase", len(PHASES)),
    ("scalars", 13),
)
SLOT_CHANNELS: tuple[tuple[str, int], ...] = (
    ("valid", 1),
    ("deadwood", 1),  # / knock limit 10
    ("gin", 1),
    ("layoff_spots", 1),  # / 20: cards the opponent might lay off
    ("discard", NUM_CARDS),
    ("set_cards", NUM_CARDS),
    ("run_cards", NUM_CARDS),
)
SCALARS = (
    "to_play",
    "dealer",
    "stock",
    "own_score",
    "opp_score",
    "own_hands_won",
    "opp_hands_won",
    "own_deadwood",
    "can_knock",
    "knock_limit",
    "upcard_draws",
    "opp_passed_first_upcard",
    "after_upcard",  # while the observer may take the upcard: after_deadwood of taking it and the best discard
)


ObservationLayout = ChannelLayout  # the family's channel layout (carousel_env.envkit.layout)


def after_deadwood(deadwood: int) -> float:
    """A deadwood a move would leave, as the observation holds it: 1 for none, 0 for 100 or
    more, so that a card or move it does not apply to (0) reads as the worst."""
    return 1.0 - min(deadwood / SCORE_SCALE, 1.0)


def layout(k: int) -> ObservationLayout:
    return channel_layout(GLOBAL_CHANNELS, SLOT_CHANNELS, k)


# The 52-wide channels at the head of the global block, each the plane of one card mask.
CARD_CHANNELS = GLOBAL_CHANNELS[: [name for name, _ in GLOBAL_CHANNELS].index("after_discard")]
assert all(width == NUM_CARDS for _, width in CARD_CHANNELS)
CARD_BLOCK = len(CARD_CHANNELS) * NUM_CARDS
_AT = {name: start for name, (start, _) in layout(0).offsets.items()}  # the same for every K
_SLOT = {name: start for name, (start, _) in layout(1).slot_offsets.items()}
assert _AT["hand"] == 0
# A knock slot's card channels, side by side: the discard, the sets' cards, the runs' cards.
SLOT_CARD_CHANNELS = ("discard", "set_cards", "run_cards")
assert [_SLOT[name] for name in SLOT_CARD_CHANNELS] == [_SLOT["discard"] + i * NUM_CARDS for i in range(3)]


OWN_DEADWOOD = _AT["scalars"] + SCALARS.index("own_deadwood")  # the observer's deadwood (over 100)


def progress(observations: np.ndarray) -> np.ndarray:
    """Each observer's progress towards a knock, for training's shaping (a potential): minus
    its deadwood over 100, as the observation holds it."""
    return -np.asarray(observations, np.float64)[..., OWN_DEADWOOD]


def card_planes(masks: list[int]) -> np.ndarray:
    """One row of 0/1 per card mask, ``NUM_CARDS`` wide (bit ``c`` of the mask at column ``c``)."""
    words = np.array(masks, dtype="<u8")
    return np.unpackbits(words.view(np.uint8), bitorder="little").reshape(len(masks), 64)[:, :NUM_CARDS]


def encode(state: GinState, seat: int, knocks: tuple, own_deadwood: int, lay: ObservationLayout) -> np.ndarray:
    """The observation of ``seat``; ``knocks`` are the knock suggestions (when it acts)."""
    out = np.zeros(lay.size, np.float32)
    at = _AT
    opp = 1 - seat
    if state.upcard >= 0 and not state.over:
        upcard, pile = 1 << state.upcard, gm.mask_of(state.discards[:-1])
    else:
        upcard, pile = 0, gm.mask_of(state.discards)
    taken = 1 << state.taken if state.taken >= 0 and state.current == seat else 0
    last = state.last_hand
    knock_melds = laid_off = shown = 0
    if last is not None and last.end in (HandEnd.KNOCK, HandEnd.GIN):
        for meld in last.arrangement.melds:
            knock_melds |= meld.mask
        laid_off = gm.mask_of(card for card, _ in last.layoffs.laid_off)
    if last is not None and state.over:
        shown = gm.mask_of(last.hands[0]) | gm.mask_of(last.hands[1])
    planes = (
        state.hands[seat],
        upcard,
        pile,
        taken,
        state.declined[seat],
        state.discarded[seat],
        state.known[opp],
        state.declined[opp],
        state.discarded[opp],
        knock_melds,
        laid_off,
        shown,
    )  # in the order of CARD_CHANNELS
    out[:CARD_BLOCK] = card_planes(planes).ravel()
    out[at["phase"] + PHASES.index(state.phase)] = 1.0
    hand = state.hands[seat]
    upcard_offered = state.phase in (Phase.FIRST_UPCARD, Phase.DRAW) and state.upcard >= 0
    after_upcard = 0.0
    if state.current == seat and state.phase is Phase.DISCARD:
        for card, left in gm.discard_deadwoods(hand):
            out[at["after_discard"] + card] = after_deadwood(left)
    elif state.current == seat and upcard_offered:
        upcard = 1 << state.upcard
        after_upcard = after_deadwood(gm.deadwood_after_discard(hand | upcard, upcard))
    scalars = (
        float(state.current == seat),
        float(state.dealer == seat),
        state.stock_size / STOCK_AT_DEAL,
        min(state.scores[seat] / SCORE_SCALE, 1.0),
        min(state.scores[opp] / SCORE_SCALE, 1.0),
        min(state.hands_won[seat] / 10.0, 1.0),
        min(state.hands_won[opp] / 10.0, 1.0),
        min(own_deadwood / SCORE_SCALE, 1.0),
        float(bool(knocks)),
        state.rules.knock_limit / MAX_KNOCK_LIMIT,
        min(state.upcard_draws / OPENSPIEL_UPCARD_DRAWS, 1.0),
        float(state.passed[opp]),
        after_upcard,
    )
    out[at["scalars"] : at["scalars"] + len(scalars)] = scalars
    for k, (arrangement, spots) in enumerate(knocks):
        base = lay.global_size + k * lay.slot_size
        slot = {name: base + start for name, start in _SLOT.items()}
        out[slot["valid"]] = 1.0
        out[slot["deadwood"]] = arrangement.deadwood / MAX_KNOCK_LIMIT
        out[slot["gin"]] = float(arrangement.deadwood == 0)
        out[slot["layoff_spots"]] = min(spots / 20.0, 1.0)
        sets = runs = 0
        for meld in arrangement.melds:
            if meld.is_run:
                runs |= meld.mask
            else:
                sets |= meld.mask
        start = slot["discard"]
        out[start : start + 3 * NUM_CARDS] = card_planes([1 << arrangement.discard, sets, runs]).ravel()
    return out
