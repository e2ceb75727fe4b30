"""A Conquian decision as the env asks it: the actions, the offers (the ways to meld a taken
card, from the solver) and the engine move each action makes.

======================= ========================== =============================================
0                       ``PASS``                   pass the faced card, leave the turned one, do not force
1                       ``FORCE``                  force the card just passed on the opponent
2 + i                   ``DISCARD`` card i         i: the card's place among the 40 (``rules.CARDS``)
42 + k                  ``OFFER`` k                take the card with arrangement k (or leave it, see below)
======================= ========================== =============================================

The offers are the solver's arrangements, most cards laid first: to take the faced or turned
card, or the forced one. Under ``hand_melds_on_turn_up`` (the ``bicycle`` preset) a turned card
may also be left after laying melds from the hand: those arrangements follow the takes in the
same slots (:attr:`Offer.take` tells them apart).
"""

from __future__ import annotations

from enum import IntEnum
from typing import NamedTuple

import numpy as np

from carousel_env.core.cards import card_str
from carousel_env.games.conquian.rules import CARDS, NUM_CARDS, index_of
from carousel_env.games.conquian.solver import Arrangement, arrangements
from carousel_env.games.conquian.state import FORCE, PASS, ConquianState, Move, Phase, discard, leave, take


class ConquianAction(IntEnum):
    PASS = 0
    FORCE = 1
    FIRST_DISCARD = 2  # + the card's place among the 40
    FIRST_OFFER = 2 + NUM_CARDS  # + slot


NUM_FIXED_ACTIONS = int(ConquianAction.FIRST_OFFER)


class Offer(NamedTuple):
    """An offer slot: an arrangement, and whether it takes the faced card (else it leaves the
    turned card after laying from the hand)."""

    arrangement: Arrangement
    take: bool


def action_name(action: int) -> str:
    if action < ConquianAction.FIRST_DISCARD:
        return ConquianAction(action).name
    if action < ConquianAction.FIRST_OFFER:
        return f"DISCARD {card_str(CARDS[action - ConquianAction.FIRST_DISCARD])}"
    return f"OFFER_{action - ConquianAction.FIRST_OFFER}"


def offers(state: ConquianState, k: int) -> tuple[Offer, ...]:
    """The decision's first ``k`` offers (none where nothing is taken)."""
    phase, s = state.phase, state.current
    if phase not in (Phase.FACED, Phase.TURNED, Phase.FORCED):
        return ()
    rules, melds, hand = state.rules, state.melds[s], state.hands[s]
    found = [Offer(a, True) for a in arrangements(rules, melds, hand, state.faced, forced=phase is Phase.FORCED)]
    if phase is Phase.TURNED and rules.hand_melds_on_turn_up and len(found) < k:
        found += [Offer(a, False) for a in arrangements(rules, melds, hand, None)]
    return tuple(found[:k])


def fixed_actions(state: ConquianState) -> list[int]:
    """The legal actions besides the offers."""
    phase = state.phase
    if phase in (Phase.FACED, Phase.TURNED):
        return [ConquianAction.PASS]
    if phase is Phase.FORCE:
        return [ConquianAction.PASS, ConquianAction.FORCE]
    if phase is Phase.DISCARD:
        return [ConquianAction.FIRST_DISCARD + index_of(c) for c in state.hands[state.current]]
    return []


def decision(state: ConquianState, k: int) -> tuple[np.ndarray, tuple[Offer, ...]]:
    """The action mask of the player to act and the decision's offers."""
    mask = np.zeros(NUM_FIXED_ACTIONS + k, np.int8)
    if state.over:
        return mask, ()
    mask[fixed_actions(state)] = 1
    found = offers(state, k)
    mask[ConquianAction.FIRST_OFFER : ConquianAction.FIRST_OFFER + len(found)] = 1
    return mask, found


def engine_move(action: int, found: tuple[Offer, ...]) -> Move:
    """The engine's move for env ``action`` given the decision's offers."""
    if action == ConquianAction.PASS:
        return PASS
    if action == ConquianAction.FORCE:
        return FORCE
    if action < ConquianAction.FIRST_OFFER:
        return discard(CARDS[action - ConquianAction.FIRST_DISCARD])
    offer = found[action - ConquianAction.FIRST_OFFER]
    return take(offer.arrangement.melds) if offer.take else leave(offer.arrangement.melds)
