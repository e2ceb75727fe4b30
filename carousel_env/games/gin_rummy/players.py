"""Scripted Gin Rummy players over the engine: each reads only what its seat may know (its
own hand, the upcard, the discard pile, the cards the opponent took from it and the stock's
size) and returns a legal :class:`~carousel_env.games.gin_rummy.engine.Move`.

* ``random``: a uniformly random kind of move, then a random card or knock.
* ``greedy``: least deadwood. It takes the upcard when that lowers its deadwood, discards
  the card that leaves the least (the highest of those), and knocks as soon as it may,
  with the arrangement of least deadwood.
* ``simple``: the simple strategy of the EAAI 2021 challenge (its ``SimpleGinRummyPlayer``),
  which OpenSpiel's ``make_simple_gin_rummy_bot`` also plays. It takes the upcard when the
  upcard is melded in every least-deadwood arrangement of the eleven cards, or when taking
  it allows a knock; otherwise it draws from the stock (passes on the first upcard). It
  discards its highest deadwood card: the highest rank among the cards left unmelded by
  some least-deadwood arrangement, never the upcard just taken where the rules forbid it,
  rank ties broken by OpenSpiel's suit order (spades, clubs, diamonds, hearts: the last
  goes first). It knocks as soon as it may, with the arrangement of least deadwood (then
  fewest cards the opponent might lay off: the env's first knock). Where least-deadwood
  arrangements tie, OpenSpiel reads one of them, the first its search finds; ``simple``
  reads them all, so on those rare hands the two may differ by a card.
* ``expert``: plays for matches (:mod:`carousel_env.games.gin_rummy.expert`): it holds for
  gin while the stock is long, discards what draws best and gives the opponent least, and
  takes the upcard when its hand beats the stock's expected one.
* ``search`` / ``search@N``: determinized Monte Carlo search. At a decision with a choice
  it deals the cards it cannot see ``N`` times (default :data:`SEARCH_SAMPLES`), each deal
  consistent with what its seat has seen: the opponent holds the cards it took from the
  pile and still has, and the rest of its hand and the stock come from the cards neither
  in the seat's hand nor in the pile; the opponent's hand is drawn as play keeps one (see
  :func:`determinize`). Each candidate (every draw, discard or pass, and the first
  :data:`SEARCH_KNOCKS` knocks in the env's order) is played on every deal, then both seats
  play ``simple`` to the end of the hand. The candidate with the best mean hand score (own
  points minus the opponent's) is played when its gain over ``simple``'s own move, deal by
  deal, clears :data:`SEARCH_MARGIN` standard errors; otherwise ``simple``'s move is. The
  deals come from the player's seeded generator and never from the hidden cards, so the
  same seed at the same information makes the same move.

``get_player(name, seed)`` builds one by name (``search@32``: 32 deals a decision).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace

from carousel_env.core.cards import POINTS, rank_of, suit_of
from carousel_env.core.errors import CarouselError
from carousel_env.core.stats import clear_gain, is_margin
from carousel_env.envkit.policies import scripted_name
from carousel_env.games.gin_rummy import melds as gm
from carousel_env.games.gin_rummy.engine import (
    DRAW_STOCK,
    PASS,
    TAKE_UPCARD,
    GinState,
    Move,
    MoveKind,
    apply,
    knock_options,
    legal_discards,
    legal_kinds,
    ranked_knocks,
)
from carousel_env.games.gin_rummy.expert import expert_move

GinPlayer = Callable[[GinState], Move]

SEARCH_SAMPLES = 8  # deals per decision of plain ``search``
SEARCH_KNOCKS = 4  # knock arrangements tried per decision, in the env's order
SEARCH_MARGIN = 2.0  # standard errors a move's gain over simple's must clear
MAX_SIFTED = 10  # cards the opponent's drawn hand sifts through at most (see determinize)
# OpenSpiel breaks rank ties by its suit order s < c < d < h; our suits are C D H S.
OPENSPIEL_SUIT_ORDER = (1, 2, 3, 0)


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


# ---------------------------------------------------------------- simple


def simple_wants_upcard(state: GinState) -> bool:
    """Whether ``simple`` takes the upcard: it is melded in every least-deadwood arrangement
    of the eleven cards (it raises the melded value), or taking it allows a knock."""
    hand, upcard = state.hands[state.current], state.upcard
    eleven = hand | 1 << upcard
    if gm.melded_value(eleven) > gm.melded_value(hand):
        return True
    keep = 0 if state.rules.discard_taken_upcard else 1 << upcard
    return gm.deadwood_after_discard(eleven, keep) <= state.rules.knock_limit


def simple_discard(state: GinState) -> int:
    """``simple``'s discard: its highest deadwood card (see the module docstring)."""
    hand = state.hands[state.current]
    melded = gm.melded_value(hand)
    legal = legal_discards(state)
    # A card is deadwood in some best arrangement when the rest still melds as much.
    dead = [c for c in legal if gm.melded_value(hand ^ 1 << c) == melded]
    if dead:
        return max(dead, key=lambda c: (rank_of(c), OPENSPIEL_SUIT_ORDER[suit_of(c)]))
    # Every legal card is melded (eleven-card gin, or only the kept upcard is loose).
    return min(legal, key=lambda c: (gm.deadwood(hand ^ 1 << c), -rank_of(c), -OPENSPIEL_SUIT_ORDER[suit_of(c)]))


def simple_move(state: GinState) -> Move:
    """The move of ``simple`` (deterministic)."""
    kinds = legal_kinds(state)
    if MoveKind.KNOCK in kinds:
        return Move(MoveKind.KNOCK, arrangement=ranked_knocks(state)[0])
    if MoveKind.DISCARD in kinds:
        return Move(MoveKind.DISCARD, simple_discard(state))
    if MoveKind.TAKE_UPCARD in kinds and simple_wants_upcard(state):
        return TAKE_UPCARD
    if MoveKind.DRAW_STOCK in kinds:
        return DRAW_STOCK
    return PASS


def simple_player(seed: int | None = None) -> GinPlayer:
    del seed  # deterministic
    return simple_move


# ---------------------------------------------------------------- search


def candidate_moves(state: GinState, knocks: int = SEARCH_KNOCKS) -> list[Move]:
    """The moves ``search`` compares: every draw, pass and discard, and the first ``knocks``
    knocks in the env's order."""
    kinds = legal_kinds(state)
    moves = [Move(kind) for kind in (MoveKind.TAKE_UPCARD, MoveKind.DRAW_STOCK, MoveKind.PASS) if kind in kinds]
    moves += [Move(MoveKind.DISCARD, card) for card in legal_discards(state)]
    if MoveKind.KNOCK in kinds:
        moves += [Move(MoveKind.KNOCK, arrangement=a) for a in ranked_knocks(state)[:knocks]]
    return moves


def _shed(hand: gm.Mask, keep: gm.Mask) -> int:
    """The card ``simple`` would throw from ``hand`` (never one of ``keep``)."""
    melded = gm.melded_value(hand)
    legal = gm.cards_of(hand & ~keep)
    dead = [c for c in legal if gm.melded_value(hand ^ 1 << c) == melded]
    if dead:
        return max(dead, key=lambda c: (rank_of(c), OPENSPIEL_SUIT_ORDER[suit_of(c)]))
    return min(legal, key=lambda c: (gm.deadwood(hand ^ 1 << c), -rank_of(c)))


def determinize(state: GinState, rng: random.Random, sifted: int | None = None) -> GinState:
    """``state`` with the cards its player to act cannot see dealt again from ``rng``.

    The opponent keeps the cards it took from the pile; the rest of its hand and the stock
    are drawn from the cards in neither the player's hand nor the pile nor those. A uniform
    draw gives the opponent a far looser hand than one kept by play, so the opponent's
    hidden cards are drawn as play keeps them: its hand is dealt, then it sees ``sifted``
    more cards (default: as many as it has discarded, at most :data:`MAX_SIFTED`) and sheds
    one after each as ``simple`` would; the shed cards go back to the stock.
    """
    seat = state.current
    opponent = 1 - seat
    known = state.known[opponent]
    seen = state.hands[seat] | gm.mask_of(state.discards) | known
    pool = list(gm.cards_of(gm.ALL_CARDS & ~seen))  # in card order: the draw depends on rng alone
    rng.shuffle(pool)
    hidden = bin(state.hands[opponent]).count("1") - bin(known).count("1")
    if sifted is None:
        sifted = min(MAX_SIFTED, bin(state.discarded[opponent]).count("1"))
    sifted = min(sifted, len(pool) - hidden)
    hand = known | gm.mask_of(pool[:hidden])
    shed = []
    for card in pool[hidden : hidden + sifted]:
        thrown = _shed(hand | 1 << card, known)
        hand = (hand | 1 << card) & ~(1 << thrown)
        shed.append(thrown)
    stock = shed + pool[hidden + sifted :]
    rng.shuffle(stock)
    hands = [0, 0]
    hands[seat] = state.hands[seat]
    hands[opponent] = hand
    return replace(state, hands=(hands[0], hands[1]), stock=tuple(stock), stock_top=0)


def playout(state: GinState, policy: GinPlayer = simple_move) -> GinState:
    """``state`` played by ``policy`` in both seats to the end of the hand."""
    while not state.over:
        state = apply(state, policy(state))
    return state


Deal = Callable[[GinState, random.Random], GinState]  # a state with the unseen cards dealt again


def search_player(
    seed: int | None = None,
    samples: int = SEARCH_SAMPLES,
    knocks: int = SEARCH_KNOCKS,
    margin: float = SEARCH_MARGIN,
    deal: Deal = determinize,
) -> GinPlayer:
    """``search@N`` (module docstring); ``margin``: standard errors a move's gain over
    ``simple``'s must clear; ``deal``: how the unseen cards are dealt (a yardstick may pass
    another, as ``benchmarks.bench_gin_opponent_model`` does)."""
    if not isinstance(samples, int) or isinstance(samples, bool) or samples < 1:
        raise CarouselError(f"Gin Rummy player search@N: N (deals a decision) must be at least 1, got {samples!r}")
    if not is_margin(margin):
        raise CarouselError(f"Gin Rummy player search: margin must be a number >= 0, got {margin!r}")
    rng = random.Random(seed)

    def play(state: GinState) -> Move:
        own = simple_move(state)
        moves = candidate_moves(state, knocks)
        moves = [own, *(m for m in moves if m != own)]
        if len(moves) == 1:
            return own
        seat = state.current
        worlds = [deal(state, rng) for _ in range(samples)]
        scores = []
        for move in moves:
            points = [playout(apply(world, move)).last_hand.points for world in worlds]
            scores.append([p[seat] - p[1 - seat] for p in points])
        best = max(range(len(moves)), key=lambda i: (sum(scores[i]), -i))
        # Leave simple's move only when the gain over it, deal by deal, is clear of the noise.
        gains = [a - b for a, b in zip(scores[best], scores[0])]
        return moves[best] if clear_gain(gains, margin) else own

    return play


def expert_player(seed: int | None = None) -> GinPlayer:
    del seed  # deterministic
    return expert_move


PLAYERS: dict[str, Callable[[int | None], GinPlayer]] = {
    "random": random_player,
    "greedy": greedy_player,
    "simple": simple_player,
    "expert": expert_player,
    "search": search_player,
}


def get_player(name: str, seed: int | None = None) -> GinPlayer:
    """The scripted player ``name`` (``random``, ``greedy``, ``simple``, ``expert``,
    ``search`` or ``search@N``), seeded."""
    base, samples = scripted_name(name, "Gin Rummy", PLAYERS, CarouselError)
    if samples is not None:
        return search_player(seed, samples=samples)
    return PLAYERS[base](seed)
