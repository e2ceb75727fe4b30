"""Scripted Kaluki players: ``random`` and ``simple``.

A player decides at the env's decisions: a callable ``(state, offers) -> action`` for the
player to act, given the decision's offers as :func:`carousel_env.games.kaluki.env.decision`
makes them (the arrangements to take the pile's top with, or the plays), and answering with an
env action (:class:`~carousel_env.games.kaluki.env.KalukiAction`). It reads only what that
seat may know: its own hand, the pile, the table.

``simple`` plays as a casual player would: it opens as soon as it can (taking the pile's top
when an opening lays it, the solver's best), then lays whatever it can (the solver's best
play: melds, lay-offs and joker exchanges, least value left), takes the pile's top to keep
only when it melds with its hand or fits the table, and discards its highest card that melds
with nothing (no card of its rank, no card of its suit within two ranks; never a joker).
"""

from __future__ import annotations

import random
from collections.abc import Callable

import numpy as np

from carousel_env.core.cards import JOKER, Card, rank_of, suit_of
from carousel_env.core.errors import CarouselError
from carousel_env.games.kaluki.engine import next_hand
from carousel_env.games.kaluki.env import KalukiAction, apply_moves, decision, engine_moves, fixed_actions
from carousel_env.games.kaluki.melds import fits
from carousel_env.games.kaluki.state import KalukiState, Phase

KalukiPlayer = Callable[[KalukiState, tuple], int]
NEAR_RANKS = 2  # a card of the same suit this close in rank could make a run with it


class UnknownKalukiPlayer(CarouselError):
    """A player name that is not one of :data:`PLAYERS`."""


def random_player(seed: int | None = None) -> KalukiPlayer:
    """Uniform over the legal actions: the draws or discards, and the offers."""
    rng = random.Random(seed)

    def play(state: KalukiState, offers: tuple) -> int:
        legal = [int(a) for a in fixed_actions(state)]
        return rng.choice(legal + [KalukiAction.FIRST_OFFER + i for i in range(len(offers))])

    return play


def melds_with(others, card: Card) -> bool:
    """Whether ``card`` could meld with the cards ``others``: another suit of its rank, or its
    suit within :data:`NEAR_RANKS` ranks (a joker melds with anything, and helps any card)."""
    if card == JOKER:
        return True
    for other in others:
        if other == JOKER:
            return True
        same_rank = rank_of(other) == rank_of(card) and suit_of(other) != suit_of(card)
        near = suit_of(other) == suit_of(card) and 0 < abs(rank_of(other) - rank_of(card)) <= NEAR_RANKS
        if same_rank or near:
            return True
    return False


def simple_discard(state: KalukiState) -> Card:
    """The highest card that melds with nothing else in hand (else the highest), never the
    card taken from the pile this turn nor a joker while another card may go."""
    hand, rules = list(state.hands[state.current]), state.rules
    allowed = [c for c in set(hand) if c != state.taken]
    plain = [c for c in allowed if c != JOKER] or allowed

    def naturals_besides(card: Card) -> list[Card]:
        others = [c for c in hand if c != JOKER]
        others.remove(card)
        return others

    loose = [c for c in plain if c == JOKER or not melds_with(naturals_besides(c), c)]
    return max(loose or plain, key=lambda c: (rules.card_value(c), c))


def _top_helps(state: KalukiState) -> bool:
    """Whether the pile's top melds with the hand or, once opened, fits a meld on the table."""
    top = state.top
    if melds_with([c for c in state.hands[state.current] if c != JOKER], top):
        return True
    return state.opened[state.current] and any(fits(meld, top, state.rules) for meld in state.table())


def simple_action(state: KalukiState, offers: tuple) -> int:
    """``simple``'s action (see the module docstring)."""
    if state.phase is Phase.DRAW:
        if offers:  # an opening (or melds) that lays the top: the solver's best
            return KalukiAction.FIRST_OFFER
        if KalukiAction.TAKE_DISCARD in fixed_actions(state) and _top_helps(state):
            return KalukiAction.TAKE_DISCARD
        return KalukiAction.DRAW_STOCK
    if offers:
        return KalukiAction.FIRST_OFFER  # the best play
    return KalukiAction.FIRST_DISCARD + simple_discard(state)


def simple_player(seed: int | None = None) -> KalukiPlayer:
    del seed  # simple is deterministic
    return simple_action


PLAYERS: dict[str, Callable[..., KalukiPlayer]] = {"random": random_player, "simple": simple_player}


def get_player(name: str, seed: int | None = None) -> KalukiPlayer:
    """The scripted player ``name`` (built with ``seed``)."""
    if name not in PLAYERS:
        raise UnknownKalukiPlayer(f"unknown Kaluki player {name!r} (players: {', '.join(PLAYERS)})")
    return PLAYERS[name](seed)


def play_hand_or_game(players: list[KalukiPlayer], state: KalukiState, k: int = 8, hand_only: bool = False):
    """Play ``state`` on with ``players`` (one per seat) to the hand's end (``hand_only``) or
    the game's; returns the last state."""
    while True:
        if state.over:
            if hand_only or state.phase is Phase.GAME_OVER:
                return state
            state = next_hand(state)
            continue
        mask, offers = decision(state, k)
        legal = np.flatnonzero(mask)
        action = int(legal[0]) if len(legal) == 1 else players[state.current](state, offers)
        if not mask[action]:
            raise CarouselError(f"a player chose {action}, not legal at {state}")
        state = apply_moves(state, engine_moves(state, action, offers))


__all__ = ["PLAYERS", "KalukiPlayer", "get_player", "play_hand_or_game", "random_player", "simple_player"]
