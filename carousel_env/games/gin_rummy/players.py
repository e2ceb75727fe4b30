"""Scripted Gin Rummy players over the engine: each reads only what its seat may know (its
own hand, the upcard, the discard pile) and returns a legal :class:`~carousel_env.games.gin_rummy.engine.Move`.

* ``random``: a uniformly random kind of move, then a random card or knock.
* ``greedy``: least deadwood. It takes the upcard when that lowers its deadwood, discards
  the card that leaves the least (the highest of those), and knocks as soon as it may,
  with the arrangement of least deadwood.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from carousel_env.core.cards import POINTS
from carousel_env.core.errors import CarouselError
from carousel_env.games.gin_rummy import melds as gm
from carousel_env.games.gin_rummy.engine import (
    DRAW_STOCK,
    PASS,
    TAKE_UPCARD,
    GinState,
    Move,
    MoveKind,
    knock_options,
    legal_discards,
    legal_kinds,
)

GinPlayer = Callable[[GinState], Move]


def random_player(seed: int | None = None) -> GinPlayer:
    rng = random.Random(seed)

    def play(state: GinState) -> Move:
        kind = rng.choice(sorted(legal_kinds(state)))
        if kind is MoveKind.DISCARD:
            return Move(kind, rng.choice(legal_discards(state)))
        if kind is MoveKind.KNOCK:
            return Move(kind, arrangement=rng.choice(knock_options(state)))
        return Move(kind)

    return play


def _best_knock(state: GinState) -> Move:
    best = min(knock_options(state), key=lambda a: (a.deadwood, a.discard, a.melds))
    return Move(MoveKind.KNOCK, arrangement=best)


def greedy_player(seed: int | None = None) -> GinPlayer:
    del seed  # deterministic

    def play(state: GinState) -> Move:
        kinds = legal_kinds(state)
        hand = state.hands[state.current]
        if MoveKind.KNOCK in kinds:
            return _best_knock(state)
        if MoveKind.DISCARD in kinds:
            card = min(legal_discards(state), key=lambda c: (gm.deadwood(hand ^ 1 << c), -POINTS[c], c))
            return Move(MoveKind.DISCARD, card)
        if MoveKind.TAKE_UPCARD in kinds:
            better = gm.deadwood_after_discard(hand | 1 << state.upcard, 1 << state.upcard) < gm.deadwood(hand)
            if better:
                return TAKE_UPCARD
        if MoveKind.DRAW_STOCK in kinds:
            return DRAW_STOCK
        return PASS

    return play


PLAYERS: dict[str, Callable[[int | None], GinPlayer]] = {"random": random_player, "greedy": greedy_player}


def get_player(name: str, seed: int | None = None) -> GinPlayer:
    """The scripted player ``name`` (``random`` or ``greedy``), seeded."""
    if name not in PLAYERS:
        raise CarouselError(f"unknown Gin Rummy player {name!r} (players: {', '.join(PLAYERS)})")
    return PLAYERS[name](seed)
