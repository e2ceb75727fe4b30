"""Kaluki's ``simple`` and ``wary`` compiled, on the vector env's arrays
(:class:`~carousel_env.games.kaluki.kernel_rows.KalukiArrays`): the kernel plays every seat of a
row as the scripted player when asked (``kernel_rows.step_games``' ``scripted``), for a
search's playouts and scripted games at compiled speed (``KalukiVectorEnv.play_scripted``).

:func:`scripted_action` is :func:`carousel_env.games.kaluki.players.simple_action` (and
``wary_action``) read from the arrays, as :class:`carousel_env.games.kaluki.priors.ScriptedPrior`
reads it from the observation: the first offer, else the pile's top where it melds with the
hand or (once opened) fits the table, else the stock; after the draw, the first offer, else the
discard ``players.discard_order`` puts first. ``tests/games/kaluki/test_kaluki_scripted.py``
requires the engine's games.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from carousel_env.core.cards import JOKER, NUM_CARDS
from carousel_env.games.kaluki import kernel_table as kt
from carousel_env.games.kaluki.env import KalukiAction
from carousel_env.games.kaluki.priors import LOOSE_RANK, NATURAL_RANK, PRIORS, UNFED_RANK, VALUE_RANK
from carousel_env.games.kaluki.rules import CARD_KINDS

NO_PLAYER = 0  # ``scripted``: the kernel stops at every decision with a choice
SIMPLE, WARY = (1 + PRIORS.index(name) for name in ("simple", "wary"))
DRAW_STOCK, TAKE_DISCARD = int(KalukiAction.DRAW_STOCK), int(KalukiAction.TAKE_DISCARD)
FIRST_DISCARD, FIRST_OFFER = int(KalukiAction.FIRST_DISCARD), int(KalukiAction.FIRST_OFFER)


def player_code(name: str | None) -> int:
    """``scripted`` for the player ``name`` (None: none)."""
    return NO_PLAYER if name is None else 1 + PRIORS.index(name)


@njit(cache=True)
def _fitting(a, g: int, ace_low: bool, ace_high: bool):
    """The cards some meld on row ``g``'s table would take now (kernel_table.table_fits)."""
    found = np.zeros(CARD_KINDS, np.bool_)
    kt.table_fits(a.table[g], a.table_n[g], ace_low, ace_high, found)
    return found


@njit(cache=True)
def scripted_action(a, g: int, drawing: bool, after: int, scripted: int, p) -> int:
    """The action of the player ``scripted`` (SIMPLE or WARY) at row ``g``'s decision, the
    seat to act ``drawing`` or not, ``after`` the seat to draw next (module docstring). ``p``:
    kernel_rows.step_games' rules."""
    ace_low, ace_high = p[2][0], p[2][1]
    card_values = p[3]
    s = a.current[g]
    mask = a.mask[g]
    if mask[FIRST_OFFER]:
        return FIRST_OFFER
    partners = np.zeros(CARD_KINDS, np.bool_)
    kt.mark_partners(a.hands[g, s], partners)
    if drawing:
        if mask[TAKE_DISCARD]:
            top = a.discards[g, a.discards_n[g] - 1]
            if top == JOKER or partners[top]:
                return TAKE_DISCARD
            if a.opened[g, s] and _fitting(a, g, ace_low, ace_high)[top]:
                return TAKE_DISCARD
        return DRAW_STOCK
    feeds = np.zeros(CARD_KINDS, np.bool_)
    if scripted == WARY:  # observation.feeds: what the next player would take
        kt.mark_partners(a.known[g, after], feeds)
        if a.opened[g, after]:
            feeds |= _fitting(a, g, ace_low, ace_high)
    best, best_rank = -1, -1
    for c in range(CARD_KINDS):
        if not mask[FIRST_DISCARD + c]:
            continue
        rank = card_values[c] * VALUE_RANK + c
        if c < NUM_CARDS:
            rank += NATURAL_RANK
            if not partners[c]:
                rank += LOOSE_RANK
            if not feeds[c]:
                rank += UNFED_RANK
        if rank > best_rank:
            best, best_rank = c, rank
    return FIRST_DISCARD + best
