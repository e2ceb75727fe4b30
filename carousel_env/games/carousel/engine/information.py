"""What one seat may know, and full game states consistent with it (determinization).

A :class:`SeatView` is the part of a :class:`~carousel_env.games.carousel.engine.game.GameState` that
one seat may know at any moment: its own hand, the table, every seat's hand size, the
stock size, the public history (scores, rounds won, past rounds' results), whose turn it
is and in which phase, and the cards it has not seen (the deck minus its own hand minus
the table; a table joker counts as a joker). Never another hand, the stock order, or the
game's seed (the seed fixes every deal, so it is hidden information too).

:func:`determinize` deals the unseen cards at random to the other hands (each keeps its
size) and the stock (which keeps its size): a full state with the same view for that
seat, from which the engine's ``apply``/``allowed``/``next_round`` continue the game
legally. Search players sample these to look ahead without peeking.

What a view does not record: who drew which card in Manipulation Rummy's forced draws
(``GameState.forced_draws``, the cards of other seats are hidden) and what other seats
could or could not play (their forced draws say they could not, before each draw). A
determinization ignores both: it is a uniform deal of the unseen cards, not a posterior;
or, with ``kept``, a deal of hands that hold no play on the table, as players keep them.
A determinized state taken where another seat is in ``Phase.MUST_PLAY`` can give that
seat a hand with no play; at the viewing seat's own decision (what search asks) it is a
position the engine could have reached.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field

from carousel_env.core.cards import JOKER, Card, Hand, Table, is_table_joker, make_deck
from carousel_env.games.carousel.engine.game import GameState, Phase, PlayCheck
from carousel_env.games.carousel.engine.rules import Rules
from carousel_env.games.carousel.engine.scoring import GameResult, RoundScore


@dataclass(frozen=True)
class SeatView:
    """Everything seat ``seat`` may know (see the module docstring). ``unseen`` is sorted;
    its cards are exactly the other hands and the stock. ``can_play`` is the game's
    must-play hook, carried so that determinized states keep it (not compared)."""

    rules: Rules
    seat: int
    hand: Hand
    table: Table
    hand_sizes: tuple[int, ...]
    stock_size: int
    unseen: tuple[Card, ...]
    round_index: int
    dealer: int
    current: int
    phase: Phase
    draws_this_turn: int
    turns_this_round: int
    final_turns_left: int | None
    scores: tuple[int, ...]
    rounds_won: tuple[int, ...]
    round_scores: tuple[RoundScore, ...] = ()
    game_result: GameResult | None = None
    can_play: PlayCheck | None = field(default=None, compare=False, repr=False)

    @property
    def num_players(self) -> int:
        return self.rules.num_players

    @property
    def is_decision(self) -> bool:
        """Whether the viewing seat is the one to act now."""
        return self.current == self.seat and self.phase not in (Phase.ROUND_OVER, Phase.GAME_OVER)


KEPT_TRIES = 20  # deals of one seat's hand tried for one with no play (determinize's ``kept``)


def _kept_hand(cards: list[Card], size: int, view: SeatView, rng: random.Random, kept: PlayCheck) -> Hand:
    """``size`` cards taken out of ``cards`` at random: the first of :data:`KEPT_TRIES`
    draws with no play on the table by ``kept``, or the last."""
    for _ in range(KEPT_TRIES):
        picks = rng.sample(range(len(cards)), size)
        hand = tuple(sorted(cards[i] for i in picks))
        if not kept(view.table, hand, view.rules):
            break
    for i in sorted(picks, reverse=True):
        del cards[i]
    return hand


def unseen_cards(rules: Rules, hand: Hand, table: Table) -> tuple[Card, ...]:
    """The deck minus ``hand`` minus the table's cards (a table joker is a joker), sorted."""
    left = Counter(make_deck(rules.decks, rules.jokers))
    left.subtract(hand)
    left.subtract(JOKER if is_table_joker(u) else u for meld in table for u in meld)
    if any(n < 0 for n in left.values()):
        raise ValueError("the hand and the table hold more copies of a card than the deck")
    return tuple(sorted(left.elements()))


def seat_view(state: GameState, seat: int) -> SeatView:
    """What ``seat`` may know of ``state``."""
    if not 0 <= seat < state.num_players:
        raise ValueError(f"seat must be in 0..{state.num_players - 1}, got {seat!r}")
    hand = state.hands[seat]
    return SeatView(
        rules=state.rules,
        seat=seat,
        hand=hand,
        table=state.table,
        hand_sizes=tuple(len(h) for h in state.hands),
        stock_size=len(state.stock),
        unseen=unseen_cards(state.rules, hand, state.table),
        round_index=state.round_index,
        dealer=state.dealer,
        current=state.current,
        phase=state.phase,
        draws_this_turn=state.draws_this_turn,
        turns_this_round=state.turns_this_round,
        final_turns_left=state.final_turns_left,
        scores=state.scores,
        rounds_won=state.rounds_won,
        round_scores=state.round_scores,
        game_result=state.game_result,
        can_play=state.can_play,
    )


def determinize(view: SeatView, rng: random.Random, kept: PlayCheck | None = None) -> GameState:
    """A full state whose view for ``view.seat`` is ``view``: the unseen cards shuffled by
    ``rng`` and dealt to the other hands (their sizes kept) and the stock (its size kept).
    The state's seed (which only deals later rounds) is drawn from ``rng`` too.

    ``kept`` (a play check ``(table, hand, rules) -> bool``, the solver's ``can_play``) deals
    hands as players keep them: each other seat's hand is dealt again, up to
    :data:`KEPT_TRIES` times, until it holds no play on the table (the last deal otherwise).
    Players play what they can and keep what they cannot, so their hands fit the table far
    less often than a uniform deal does (``benchmarks/bench_determinization.py``)."""
    cards = list(view.unseen)
    others = sum(size for seat, size in enumerate(view.hand_sizes) if seat != view.seat)
    if others + view.stock_size != len(cards):
        raise ValueError(
            f"inconsistent view: {len(cards)} unseen cards for {others} cards in other hands "
            f"and a stock of {view.stock_size}"
        )
    rng.shuffle(cards)
    hands: list[Hand] = []
    at = 0
    for seat, size in enumerate(view.hand_sizes):
        if seat == view.seat:
            hands.append(view.hand)
        elif kept is None:
            hands.append(tuple(sorted(cards[at : at + size])))
            at += size
        else:  # its cards leave ``cards`` (``at`` stays 0): the rest, in random order, is the stock
            hands.append(_kept_hand(cards, size, view, rng, kept))
    return GameState(
        rules=view.rules,
        seed=rng.getrandbits(62),
        round_index=view.round_index,
        dealer=view.dealer,
        hands=tuple(hands),
        table=view.table,
        stock=tuple(cards[at:]),
        current=view.current,
        phase=view.phase,
        draws_this_turn=view.draws_this_turn,
        turns_this_round=view.turns_this_round,
        final_turns_left=view.final_turns_left,
        scores=view.scores,
        rounds_won=view.rounds_won,
        round_scores=view.round_scores,
        game_result=view.game_result,
        can_play=view.can_play,
    )
