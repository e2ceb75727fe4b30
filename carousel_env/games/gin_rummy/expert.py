"""``expert``: a Gin Rummy player that plays for matches, not for single hands.

Where ``simple`` knocks at its first chance, discards its highest deadwood card and takes the
upcard only to meld it, ``expert`` looks one draw ahead and at what it gives away:

* **Knocking** weighs knocking now against holding for gin, by its deadwood and the stock
  left (:class:`ExpertParams`). Measured against ``simple`` in matches to 100 under
  ``eaai``, holding pays the more the longer it holds (``benchmarks/tune_gin_expert.py``,
  benchmarks/RESULTS.md): a hand kept low while the opponent knocks at its first chance
  undercuts it for 25, and gin earns 25. So by default it knocks only with gin until the
  stock is down to :attr:`ExpertParams.gin_hold_stock` cards, then at the first chance.
* **Discarding** keeps the hand that draws best: each card it may throw is scored by the
  deadwood left, less the expected gain of the next draw over the cards it has not seen
  (how many of them would meld, and by how much), plus the card's danger to the opponent
  (cards next to or of the rank of those it took from the pile are dangerous; those it threw
  or passed on are safe).
* **Drawing**: the upcard is taken when the hand after its best discard is better than the
  hand the stock is expected to give, by the same one-draw reckoning.

Its seat reads only what it may know: its hand, the pile, the cards the opponent took from
the pile, threw and passed on, and the stock's size.
"""

from __future__ import annotations

from dataclasses import dataclass

from carousel_env.core.cards import POINTS, rank_of, suit_of
from carousel_env.games.gin_rummy import melds as gm
from carousel_env.games.gin_rummy.engine import (
    DRAW_STOCK,
    PASS,
    TAKE_UPCARD,
    GinState,
    Move,
    MoveKind,
    kept_upcard,
    legal_kinds,
    ranked_knocks,
)


@dataclass(frozen=True)
class ExpertParams:
    """What ``expert`` weighs (defaults: the best measured, benchmarks/RESULTS.md)."""

    gin_hold: int = 10  # with deadwood from 1 to this, hold for gin while the stock is long
    gin_hold_stock: int = 6  # ... at least this many cards
    late_stock: int = 12  # from this many stock cards down, knock only with ...
    late_knock: int = 10  # ... at most this deadwood
    draw_weight: float = 1.0  # weight of the next draw's expected gain in a discard's score
    danger_weight: float = 2.0  # points of danger a card the opponent can use costs
    take_margin: float = 0.0  # the upcard must beat the stock's expectation by this much


def unseen(state: GinState) -> gm.Mask:
    """The cards the player to act has not seen: neither in its hand, the pile, nor among
    those the opponent took from the pile."""
    seat = state.current
    return gm.ALL_CARDS & ~state.hands[seat] & ~gm.mask_of(state.discards) & ~state.known[1 - seat]


def draw_gain(hand: gm.Mask, pool: gm.Mask) -> float:
    """The expected drop in deadwood of ten-card ``hand`` when it draws a card of ``pool``
    (each equally likely) and throws its best discard."""
    cards = gm.cards_of(pool)
    if not cards:
        return 0.0
    now = gm.deadwood(hand)
    return sum(max(0, now - gm.deadwood_after_discard(hand | 1 << c)) for c in cards) / len(cards)


def danger(state: GinState, card: int) -> float:
    """How much ``card`` may help the opponent, from what it took, threw and passed on."""
    opponent = 1 - state.current
    rank, suit = rank_of(card), suit_of(card)
    risk = 0.0
    for held in gm.cards_of(state.known[opponent]):
        if rank_of(held) == rank:
            risk += 1.0
        elif suit_of(held) == suit and abs(rank_of(held) - rank) <= 2:
            risk += 1.0 if abs(rank_of(held) - rank) == 1 else 0.5
    shed = state.discarded[opponent] | state.declined[opponent]
    for other in gm.cards_of(shed):
        if rank_of(other) == rank or (suit_of(other) == suit and abs(rank_of(other) - rank) == 1):
            risk -= 0.5
    return max(risk, 0.0)


def expert_discard(state: GinState, params: ExpertParams) -> int:
    """The discard whose ten cards draw best and give the opponent least."""
    hand = state.hands[state.current]
    pool = unseen(state)
    keep = kept_upcard(state)
    scores = {}
    for card in gm.cards_of(hand & ~keep):
        left = hand ^ 1 << card
        score = gm.deadwood(left) - params.draw_weight * draw_gain(left, pool)
        scores[card] = score + params.danger_weight * danger(state, card)
    return min(scores, key=lambda c: (scores[c], -POINTS[c], c))


def expert_takes_upcard(state: GinState, params: ExpertParams) -> bool:
    """Whether the upcard's hand (after its best discard) beats the stock's expected one."""
    hand, upcard = state.hands[state.current], state.upcard
    keep = 0 if state.rules.discard_taken_upcard else 1 << upcard
    with_upcard = gm.deadwood_after_discard(hand | 1 << upcard, keep)
    expected = gm.deadwood(hand) - draw_gain(hand, unseen(state) & ~(1 << upcard))
    return with_upcard + params.take_margin < expected


def expert_knocks(state: GinState, deadwood: int, params: ExpertParams) -> bool:
    """Whether to knock now with ``deadwood`` (at most the rules' limit)."""
    if deadwood == 0:
        return True
    stock = state.stock_size
    if deadwood <= params.gin_hold and stock >= params.gin_hold_stock:
        return False
    return not (stock <= params.late_stock and deadwood > params.late_knock)


def expert_move(state: GinState, params: ExpertParams = ExpertParams()) -> Move:
    """``expert``'s move (deterministic)."""
    kinds = legal_kinds(state)
    if MoveKind.KNOCK in kinds:
        best = ranked_knocks(state)[0]
        if expert_knocks(state, best.deadwood, params):
            return Move(MoveKind.KNOCK, arrangement=best)
    if MoveKind.DISCARD in kinds:
        return Move(MoveKind.DISCARD, expert_discard(state, params))
    if MoveKind.TAKE_UPCARD in kinds and expert_takes_upcard(state, params):
        return TAKE_UPCARD
    if MoveKind.DRAW_STOCK in kinds:
        return DRAW_STOCK
    return PASS
