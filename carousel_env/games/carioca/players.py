"""Scripted Carioca players: ``random`` and ``simple`` (issue 33's baselines).

A player is a callable ``state -> Move`` for the player to act; it reads only what that
seat may know: its own hand, the pile's top, the table and the contract.

``simple`` goes down as soon as the contract is met (the solver's first arrangement: jokers
spared, least value kept), lays off whatever fits (the most valuable card first), takes the
discard only when it brings the contract closer (once down: when it can be laid off), and
discards the highest card that helps no contract (the one whose loss leaves the distance to
the contract the same; jokers always help). Once down, it discards its highest card.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from carousel_env.core.cards import JOKER, Card
from carousel_env.core.errors import CarouselError
from carousel_env.games.carioca import solver
from carousel_env.games.carioca.engine import (
    DRAW_STOCK,
    TAKE_DISCARD,
    CariocaState,
    Move,
    MoveKind,
    Phase,
    apply,
    go_down_options,
    layoff_options,
    legal_discards,
    new_game,
    next_round,
)
from carousel_env.games.carioca.rules import POINTS

CariocaPlayer = Callable[[CariocaState], Move]
RANDOM_GO_DOWN_OPTIONS = 8  # random picks among the first arrangements, as the env offers them


def legal_moves(state: CariocaState, go_down_limit: int | None = RANDOM_GO_DOWN_OPTIONS) -> list[Move]:
    """Every move of the player to act (the first ``go_down_limit`` arrangements)."""
    if state.over:
        return []
    if state.phase is Phase.DRAW:
        return [DRAW_STOCK, TAKE_DISCARD]
    moves = [Move(MoveKind.GO_DOWN, melds=m) for m in go_down_options(state, go_down_limit)]
    moves += [Move(MoveKind.LAY_OFF, layoff=layoff) for layoff in layoff_options(state)]
    moves += [Move(MoveKind.DISCARD, card) for card in legal_discards(state)]
    return moves


def random_player(seed: int | None = None) -> CariocaPlayer:
    rng = random.Random(seed)

    def play(state: CariocaState) -> Move:
        return rng.choice(legal_moves(state))

    return play


def _without(hand, card: Card) -> tuple:
    rest = list(hand)
    rest.remove(card)
    return tuple(rest)


def simple_wants_top(state: CariocaState) -> bool:
    """Whether ``simple`` takes the pile's top: closer to the contract, or, once down, a card
    it can lay off at once."""
    seat = state.current
    hand, top = state.hands[seat], state.top
    with_top = tuple(sorted((*hand, top)))
    if state.down[seat]:
        return any(layoff.card == top for layoff in solver.legal_layoffs(with_top, state.melds))
    return solver.distance(with_top, state.contract) < solver.distance(hand, state.contract)


def simple_discard(state: CariocaState) -> Card:
    """The card ``simple`` throws: the highest that helps no contract (see the module)."""
    seat = state.current
    hand = state.hands[seat]
    cards = sorted(set(hand), key=lambda c: (-POINTS[c], c))
    if state.down[seat]:
        return cards[0]
    now = solver.distance(hand, state.contract)
    costs = {}
    for card in cards:
        if card == JOKER:
            continue
        cost = solver.distance(_without(hand, card), state.contract) - now
        if cost == 0:
            return card
        costs[card] = cost
    if not costs:
        return cards[0]  # nothing but jokers
    return min(costs, key=lambda c: (costs[c], -POINTS[c], c))


def simple_move(state: CariocaState) -> Move:
    if state.phase is Phase.DRAW:
        return TAKE_DISCARD if simple_wants_top(state) else DRAW_STOCK
    if not state.went_down_now:
        arrangements = go_down_options(state, limit=1)
        if arrangements:
            return Move(MoveKind.GO_DOWN, melds=arrangements[0])
        layoffs = layoff_options(state)
        if layoffs:
            best = max(layoffs, key=lambda lay: (POINTS[lay.card], -lay.seat, -lay.meld, -int(lay.end)))
            return Move(MoveKind.LAY_OFF, layoff=best)
    return Move(MoveKind.DISCARD, simple_discard(state))


def simple_player(seed: int | None = None) -> CariocaPlayer:
    return simple_move


PLAYERS: dict[str, Callable[[int | None], CariocaPlayer]] = {
    "random": random_player,
    "simple": simple_player,
}


def get_player(name: str, seed: int | None = None) -> CariocaPlayer:
    """The scripted player ``name`` (``random`` or ``simple``), seeded."""
    if not isinstance(name, str) or name not in PLAYERS:
        raise CarouselError(f"unknown Carioca player {name!r} (players: {', '.join(PLAYERS)})")
    return PLAYERS[name](seed)


def play_game(players: list[CariocaPlayer], seed: int) -> CariocaState:
    """A whole game of six rounds, seat ``i`` played by ``players[i]``, dealt from ``seed``:
    the final state (``game_result``, ``rounds``)."""
    state = new_game(len(players), seed)
    while state.phase is not Phase.GAME_OVER:
        state = next_round(state) if state.phase is Phase.ROUND_OVER else apply(state, players[state.current](state))
    return state
