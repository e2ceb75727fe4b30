"""Scripted Carioca players: ``random``, ``simple``, ``outs`` and ``search`` (issue 33's baselines).

A player is a callable ``state -> Move`` for the player to act; it reads only what that
seat may know: its own hand, the pile's top, the table and the contract.

``simple`` goes down as soon as the contract is met (the solver's first arrangement: jokers
spared, least value kept), lays off whatever fits (the most valuable card first), takes the
discard only when it brings the contract closer (once down: when it can be laid off), and
discards the highest card that helps no contract (the one whose loss leaves the distance to
the contract the same; jokers always help). Once down, it discards its highest card.

``outs`` plays as ``simple`` but for its discard before going down: of the cards whose loss
leaves the distance the same, it throws the one that leaves the most *outs*, the copies of
cards it has not seen (nor seen taken) whose draw would bring the hand closer to the
contract; the highest on a tie. ``simple`` throws the highest of them, whatever it leaves to
draw to; ``outs`` keeps the pairs and near-escaleras that more cards complete.

``search@N`` (``search``: N = 4) weighs ``simple``'s move against its alternatives where
they matter: the draw (the stock or the pile's top), going down now or not, and the
discard (``simple``'s first three choices). Each is tried on the same N deals of the cards
the seat has not seen, every seat played out by ``simple`` to the round's end, and scored by
the round's penalties (the others' mean less its own). It leaves ``simple``'s move only for
one whose gain over it, deal by deal, is clear of the noise. Deals keep what the table
knows: each opponent holds the cards it took from the pile and has not thrown since.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from dataclasses import replace

from carousel_env.core.cards import JOKER, NUM_CARDS, Card, is_table_joker
from carousel_env.core.errors import CarouselError
from carousel_env.core.stats import clear_gain
from carousel_env.envkit.policies import scripted_name
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
    without,
)
from carousel_env.games.carioca.rules import NUM_DECKS, NUM_JOKERS, POINTS, Contract

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


def simple_wants_top(state: CariocaState) -> bool:
    """Whether ``simple`` takes the pile's top: closer to the contract, or, once down, a card
    it can lay off at once."""
    seat = state.current
    hand, top = state.hands[seat], state.top
    if state.down[seat]:  # the hand and the top are at least two cards: the top may be laid off
        return solver.fits_table(top, state.melds)
    return solver.distance(tuple(sorted((*hand, top))), state.contract) < solver.distance(hand, state.contract)


def discard_order(state: CariocaState) -> list[Card]:
    """The cards ``simple`` would throw, best first: the highest that helps no contract
    (its loss leaves the distance the same), then by the distance lost, then the highest;
    jokers last. Once down, the highest first."""
    seat = state.current
    hand = state.hands[seat]
    cards = sorted(set(hand), key=lambda c: (-POINTS[c], c))
    if state.down[seat]:
        return cards
    now = solver.distance(hand, state.contract)
    cost = {c: solver.distance(without(hand, (c,)), state.contract) - now for c in cards if c != JOKER}
    return sorted(cards, key=lambda c: (c == JOKER, cost.get(c, 0), -POINTS[c], c))


def simple_discard(state: CariocaState) -> Card:
    """The card ``simple`` throws: the highest that helps no contract (see the module)."""
    return discard_order(state)[0]


def simple_move(state: CariocaState, discard: Callable[[CariocaState], Card] = simple_discard) -> Move:
    """``simple``'s move; ``discard`` picks the card thrown (``outs`` passes its own)."""
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
    return Move(MoveKind.DISCARD, discard(state))


def simple_player(seed: int | None = None) -> CariocaPlayer:
    return simple_move


# ---------------------------------------------------------------- outs


def unseen_counts(state: CariocaState) -> Counter:
    """The copies of each card the player to act may yet draw, as far as it knows: the pack
    less its own hand, the table's cards (a joker there counted as a joker), the discard
    pile, and the cards each other seat is known to hold (taken from the pile, not thrown)."""
    seat = state.current
    counts = Counter({card: NUM_DECKS for card in range(NUM_CARDS)})
    counts[JOKER] = NUM_JOKERS
    seen = Counter(state.hands[seat])
    seen.update(JOKER if is_table_joker(u) else u for melds in state.melds for meld in melds for u in meld.units)
    seen.update(state.discards)
    for other in range(state.num_players):
        if other != seat:
            seen.update(_known(state, other))
    counts.subtract(seen)
    return +counts  # positive counts only


def outs(hand, contract: Contract, unseen: Counter) -> int:
    """The unseen copies of cards whose draw would bring ``hand`` closer to ``contract``
    (jokers left out: one helps every hand short of its contract alike)."""
    now = solver.distance(hand, contract)
    if now == 0:
        return 0
    return sum(n for card, n in unseen.items() if card != JOKER and solver.distance((*hand, card), contract) < now)


def outs_discard(state: CariocaState) -> Card:
    """The card ``outs`` throws (see the module): ``simple``'s once down; before, of the cards
    whose loss leaves the distance the same (or costs least), the one leaving the most outs."""
    seat = state.current
    if state.down[seat]:
        return simple_discard(state)
    hand, contract = state.hands[seat], state.contract
    unseen = unseen_counts(state)
    now = solver.distance(hand, contract)

    def key(card: Card) -> tuple:
        rest = without(hand, (card,))
        return (solver.distance(rest, contract) - now, -outs(rest, contract, unseen), -POINTS[card], card)

    cards = [c for c in set(hand) if c != JOKER]
    return min(cards, key=key) if cards else JOKER


def outs_move(state: CariocaState) -> Move:
    return simple_move(state, outs_discard)


def outs_player(seed: int | None = None) -> CariocaPlayer:
    return outs_move


# ---------------------------------------------------------------- search

SEARCH_SAMPLES = 4  # deals a decision for ``search``
SEARCH_DISCARDS = 3  # of simple's discards, the first ones weighed
SEARCH_MARGIN = 1.0  # standard errors a gain over simple's move must clear


def candidate_moves(state: CariocaState, discards: int = SEARCH_DISCARDS) -> list[Move]:
    """The moves ``search`` weighs, ``simple``'s first: the draws; going down (the solver's
    first arrangement) or not; ``simple``'s first ``discards`` discards. A lay-off is
    ``simple``'s alone (laying a card off only lowers the hand)."""
    own = simple_move(state)
    if state.phase is Phase.DRAW:
        moves = [DRAW_STOCK, TAKE_DISCARD]
    elif own.kind is MoveKind.LAY_OFF:
        return [own]
    else:
        moves = [Move(MoveKind.GO_DOWN, melds=m) for m in go_down_options(state, limit=1)]
        moves += [Move(MoveKind.DISCARD, c) for c in discard_order(state)[:discards]]
    return [own, *(m for m in moves if m != own)]


def _known(state: CariocaState, seat: int) -> list[Card]:
    """The cards ``seat`` is known to hold: taken from the pile and not thrown since (as a
    multiset: a card taken twice and thrown once is held once)."""
    held = list(state.taken[seat])
    for card in state.thrown[seat]:
        if card in held:
            held.remove(card)
    return held


def determinize(state: CariocaState, rng: random.Random) -> CariocaState:
    """``state`` with the cards its player to act cannot see (the others' hands, the stock)
    dealt again from ``rng``: each other seat keeps the cards it is known to hold (as far as
    the unseen cards still have them), the rest is drawn uniformly."""
    seat = state.current
    others = [s for s in range(state.num_players) if s != seat]
    pool = [c for s in others for c in state.hands[s]] + list(state.stock)
    pool.sort()  # the draw depends on rng alone
    hands = list(state.hands)
    kept = {}
    for s in others:
        kept[s] = []
        for card in _known(state, s)[: len(state.hands[s])]:
            if card in pool:
                pool.remove(card)
                kept[s].append(card)
    rng.shuffle(pool)
    for s in others:
        take = len(state.hands[s]) - len(kept[s])
        hands[s] = tuple(sorted(kept[s] + pool[:take]))
        pool = pool[take:]
    return replace(state, hands=tuple(hands), stock=tuple(pool))


def playout(state: CariocaState) -> CariocaState:
    """``state`` played by ``simple`` at every seat to the end of the round."""
    while not state.over:
        state = apply(state, simple_move(state))
    return state


Deal = Callable[[CariocaState, random.Random], CariocaState]  # a state with the unseen cards dealt again


def search_player(seed: int | None = None, samples: int = SEARCH_SAMPLES, deal: Deal = determinize) -> CariocaPlayer:
    """``search@N`` (module docstring); ``deal``: how the unseen cards are dealt (a yardstick
    may pass another, as ``benchmarks.bench_carioca --deal`` does)."""
    if not isinstance(samples, int) or isinstance(samples, bool) or samples < 1:
        raise CarouselError(f"Carioca player search@N: N (deals a decision) must be at least 1, got {samples!r}")
    rng = random.Random(seed)

    def play(state: CariocaState) -> Move:
        moves = candidate_moves(state)
        if len(moves) == 1:
            return moves[0]
        seat = state.current
        worlds = [deal(state, rng) for _ in range(samples)]
        scores = []
        for move in moves:
            row = []
            for world in worlds:
                penalties = playout(apply(world, move)).last_round.penalties
                others = [p for s, p in enumerate(penalties) if s != seat]
                row.append(sum(others) / len(others) - penalties[seat])
            scores.append(row)
        best = max(range(len(moves)), key=lambda i: (sum(scores[i]), -i))
        # Leave simple's move only for a gain over it, deal by deal, clear of the noise.
        gains = [a - b for a, b in zip(scores[best], scores[0])]
        return moves[best] if clear_gain(gains, SEARCH_MARGIN) else moves[0]

    return play


PLAYERS: dict[str, Callable[[int | None], CariocaPlayer]] = {
    "random": random_player,
    "simple": simple_player,
    "outs": outs_player,
    "search": search_player,
}


def get_player(name: str, seed: int | None = None, deal: Deal = determinize) -> CariocaPlayer:
    """The scripted player ``name`` (``random``, ``simple``, ``outs``, ``search`` or ``search@N``),
    seeded; a search deals the unseen cards with ``deal`` (see :func:`search_player`)."""
    base, samples = scripted_name(name, "Carioca", PLAYERS, CarouselError)
    if base == "search":
        return search_player(seed, samples=samples or SEARCH_SAMPLES, deal=deal)
    return PLAYERS[base](seed)


def play_game(players: list[CariocaPlayer], seed: int) -> CariocaState:
    """A whole game of six rounds, seat ``i`` played by ``players[i]``, dealt from ``seed``:
    the final state (``game_result``, ``rounds``)."""
    state = new_game(len(players), seed)
    while state.phase is not Phase.GAME_OVER:
        state = next_round(state) if state.phase is Phase.ROUND_OVER else apply(state, players[state.current](state))
    return state
