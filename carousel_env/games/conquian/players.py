"""Scripted Conquian players: ``random``, ``simple`` and ``search``.

A player decides at the env's decisions: a callable ``(state, offers) -> action`` for the
player to act, given the decision's offers as :func:`carousel_env.games.conquian.decision.decision`
makes them, and answering with an env action
(:class:`~carousel_env.games.conquian.decision.ConquianAction`). It reads only what its seat
may know: its own hand, both players' melds, the faced card, the dead pile, what was passed.

``simple`` plays as a casual player would: it takes every card it can meld, laying as many
cards as it can (the first offer), forces whenever it may, never lays from the hand without
taking, and discards the card that helps the opponent least: one that grows none of the
opponent's melds, then one that melds with no other card of its hand, then the one that
fewest unseen cards could meld with.

``search@N`` (``search``: N = 8) weighs every legal action (of the offers, the first four) on
the same N deals of the cards the seat has not seen (the opponent's hand and the stock, dealt
again uniformly), both seats then played by ``simple`` to the hand's end, each scored by the
hand's zero-sum points (the env's ``reward="score"``). It leaves ``simple``'s action only for
one whose gain over it, deal by deal, is clear of the noise.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace

import numpy as np

from carousel_env.core.cards import Card
from carousel_env.core.errors import CarouselError
from carousel_env.core.stats import clear_gain
from carousel_env.envkit.policies import scripted_name
from carousel_env.games.conquian.decision import ConquianAction, Offer, decision, engine_move, fixed_actions
from carousel_env.games.conquian.engine import apply, next_hand
from carousel_env.games.conquian.melds import could_meld
from carousel_env.games.conquian.observation import growing_cards, unseen_cards
from carousel_env.games.conquian.rules import index_of
from carousel_env.games.conquian.state import ConquianState, Phase

ConquianPlayer = Callable[[ConquianState, tuple[Offer, ...]], int]


class UnknownConquianPlayer(CarouselError):
    """A player name that is not one of :data:`PLAYERS`."""


def random_player(seed: int | None = None) -> ConquianPlayer:
    """Uniform over the legal actions, offers included."""
    rng = random.Random(seed)

    def play(state: ConquianState, offers: tuple[Offer, ...]) -> int:
        legal = [int(a) for a in fixed_actions(state)]
        return rng.choice(legal + [ConquianAction.FIRST_OFFER + i for i in range(len(offers))])

    return play


def discard_order(state: ConquianState) -> list[Card]:
    """The hand's cards as ``simple`` would discard them, its choice first."""
    s = state.current
    hand = state.hands[s]
    helps_opponent = growing_cards(state.melds[1 - s], state.rules)
    live = unseen_cards(state, s)

    def key(card: Card) -> tuple:
        keeps = any(could_meld(card, other) for other in hand if other != card)
        partners = sum(could_meld(card, other) for other in live)
        return (card in helps_opponent, keeps, partners, index_of(card))

    return sorted(hand, key=key)


def simple_player(seed: int | None = None) -> ConquianPlayer:
    """Takes what melds, forces when it may, discards what helps the opponent least (see the module docstring)."""

    def play(state: ConquianState, offers: tuple[Offer, ...]) -> int:
        phase = state.phase
        if phase is Phase.FORCE:
            return int(ConquianAction.FORCE)
        if phase is Phase.DISCARD:
            return int(ConquianAction.FIRST_DISCARD) + index_of(discard_order(state)[0])
        takes = [i for i, offer in enumerate(offers) if offer.take]
        if takes:
            return int(ConquianAction.FIRST_OFFER) + takes[0]
        return int(ConquianAction.PASS)

    return play


# ---------------------------------------------------------------- search

SEARCH_SAMPLES = 8  # deals a decision for ``search``
SEARCH_OFFERS = 4  # of the offers, the first ones weighed
SEARCH_MARGIN = 1.0  # standard errors a gain over simple's action must clear
ROLLOUT_OFFERS = 1  # simple takes the first offer: its playouts ask the solver for no more


def candidate_actions(state: ConquianState, offers: tuple[Offer, ...]) -> list[int]:
    """The actions ``search`` weighs, ``simple``'s first."""
    own = simple_player()(state, offers)
    actions = [int(a) for a in fixed_actions(state)]
    actions += [ConquianAction.FIRST_OFFER + i for i in range(min(len(offers), SEARCH_OFFERS))]
    return [own, *(a for a in actions if a != own)]


def determinize(state: ConquianState, rng: random.Random) -> ConquianState:
    """``state`` with what its player to act cannot see (the opponent's hand, the stock) dealt
    again from ``rng``: the hand and the stock keep their sizes."""
    other = 1 - state.current
    pool = sorted([*state.hands[other], *state.stock])  # the draw depends on rng alone
    rng.shuffle(pool)
    size = len(state.hands[other])
    hands = list(state.hands)
    hands[other] = tuple(sorted(pool[:size]))
    return replace(state, hands=tuple(hands), stock=tuple(pool[size:]))


def playout_value(state: ConquianState, seat: int) -> float:
    """What the hand brings ``seat`` (its score less the mean) when ``simple`` plays both
    seats from ``state`` to its end."""
    if not state.over:
        state = play_out([simple_player()] * 2, state, k=ROLLOUT_OFFERS, hand_only=True)
    scores = state.last_hand.scores
    return scores[seat] - sum(scores) / 2


Deal = Callable[[ConquianState, random.Random], ConquianState]  # a state with the unseen cards dealt again


def search_player(seed: int | None = None, samples: int = SEARCH_SAMPLES, deal: Deal = determinize) -> ConquianPlayer:
    """``search@N`` (module docstring), its deals drawn from ``seed``; ``deal``: how the unseen
    cards are dealt (a yardstick may pass another that sees them)."""
    if not isinstance(samples, int) or isinstance(samples, bool) or samples < 1:
        raise CarouselError(f"Conquian player search@N: N (deals a decision) must be at least 1, got {samples!r}")
    rng = random.Random(seed)

    def play(state: ConquianState, offers: tuple[Offer, ...]) -> int:
        actions = candidate_actions(state, offers)
        if len(actions) == 1:
            return actions[0]
        seat = state.current
        worlds = [deal(state, rng) for _ in range(samples)]
        scores = []
        for action in actions:
            move = engine_move(action, offers)  # the seat's own cards: the same in every world
            scores.append([playout_value(apply(world, move), seat) for world in worlds])
        best = max(range(len(actions)), key=lambda i: (sum(scores[i]), -i))
        # Leave simple's action only for a gain over it, deal by deal, clear of the noise.
        gains = [a - b for a, b in zip(scores[best], scores[0])]
        return actions[best] if clear_gain(gains, SEARCH_MARGIN) else actions[0]

    return play


PLAYERS: dict[str, Callable[..., ConquianPlayer]] = {
    "random": random_player,
    "simple": simple_player,
    "search": search_player,
}


def get_player(name: str, seed: int | None = None, deal: Deal = determinize) -> ConquianPlayer:
    """The scripted player ``name`` (``random``, ``simple``, ``search`` or ``search@N``), built
    with ``seed``; a search deals the unseen cards with ``deal``."""
    base, samples = scripted_name(name, "Conquian", PLAYERS, UnknownConquianPlayer)
    if base == "search":
        return search_player(seed, samples=samples or SEARCH_SAMPLES, deal=deal)
    return PLAYERS[base](seed)


def play_out(players: list[ConquianPlayer], state: ConquianState, k: int = 8, hand_only: bool = False) -> ConquianState:
    """Play ``state`` on with ``players`` (one per seat) to the hand's end (``hand_only``) or
    the game's, taking single legal actions as the env does; returns the last state."""
    while True:
        if state.over:
            if hand_only or state.phase is Phase.GAME_OVER:
                return state
            state = next_hand(state)
            continue
        mask, found = decision(state, k)
        legal = np.flatnonzero(mask)
        action = int(legal[0]) if len(legal) == 1 else players[state.current](state, found)
        state = apply(state, engine_move(action, found))


__all__ = [
    "PLAYERS",
    "ConquianPlayer",
    "discard_order",
    "get_player",
    "play_out",
    "random_player",
    "search_player",
    "simple_player",
]
