"""Gin Rummy's rules engine: an immutable state and a pure :func:`apply` (RULES.md, "Gin Rummy").

A hand runs through these phases:

* ``FIRST_UPCARD``: the non-dealer, then the dealer, may take the first upcard or pass; if
  both pass the non-dealer must draw from the stock.
* ``DRAW``: take the upcard or draw from the stock.
* ``DISCARD``: discard a card, or knock with an :class:`Arrangement`.
* ``WALL`` (``stock_end="wall"`` only): with 2 cards left in the stock, knock with the upcard
  or pass, which ends the hand dead.
* ``HAND_OVER`` / ``GAME_OVER``: :func:`next_hand` deals the next hand of a match.

Every hand and match is bounded (RULES.md): the upcard draw at ``rules.upcard_draw_limit``
ends the hand dead, and a match ends after ``rules.match_hand_limit`` hands.

After a knock the opponent's lay-offs and melds are decided exactly by
:func:`~carousel_env.games.gin_rummy.melds.best_layoffs`: they only ever aim at the least
deadwood. Every bad move raises :class:`~carousel_env.core.errors.IllegalAction` naming the
rule, and the state it was given is unchanged (states are frozen).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, fields
from enum import Enum, IntEnum
from typing import NamedTuple

from carousel_env.core.cards import NUM_CARDS, Card, card_str, hand_str, make_deck
from carousel_env.core.errors import IllegalAction
from carousel_env.games.gin_rummy import melds as gm
from carousel_env.games.gin_rummy.rules import (
    HAND_SIZE,
    NUM_PLAYERS,
    OPENSPIEL_RETURNED_UPCARDS,
    GameLength,
    GinRules,
    StockEnd,
)

DEAD_STOCK = 2  # cards left in the stock when the hand dies (or meets the wall)
GAME_BONUS = 100
SHUTOUT_BONUS = 100
LINE_BONUS = 20


class Phase(str, Enum):
    FIRST_UPCARD = "first_upcard"
    DRAW = "draw"
    DISCARD = "discard"
    WALL = "wall"
    HAND_OVER = "hand_over"
    GAME_OVER = "game_over"


class MoveKind(IntEnum):
    DRAW_STOCK = 0
    TAKE_UPCARD = 1
    PASS = 2
    DISCARD = 3
    KNOCK = 4


class Move(NamedTuple):
    """A player's move: ``card`` for a discard, ``arrangement`` for a knock."""

    kind: MoveKind
    card: Card = -1
    arrangement: gm.Arrangement | None = None

    def __str__(self) -> str:
        if self.kind is MoveKind.DISCARD:
            return f"discard {card_str(self.card)}"
        if self.kind is MoveKind.KNOCK:
            a = self.arrangement
            melds = " | ".join(str(m) for m in a.melds)
            return f"knock (discard {card_str(a.discard)}; {melds}; deadwood {a.deadwood})"
        return self.kind.name.lower().replace("_", " ")


DRAW_STOCK = Move(MoveKind.DRAW_STOCK)
TAKE_UPCARD = Move(MoveKind.TAKE_UPCARD)
PASS = Move(MoveKind.PASS)


class HandEnd(str, Enum):
    KNOCK = "knock"
    GIN = "gin"
    DEAD = "dead"  # the stock ran down to 2 (or the wall was passed)
    UPCARD_LIMIT = "upcard_limit"  # the limit on upcard draws (OpenSpiel's, or the project's bound)


@dataclass(frozen=True)
class HandResult:
    """How a hand ended and what each player scored (``points``: per seat, >= 0)."""

    end: HandEnd
    points: tuple[int, int]
    knocker: int = -1
    arrangement: gm.Arrangement | None = None
    layoffs: gm.Layoffs | None = None
    undercut: bool = False
    hands: tuple[tuple[Card, ...], tuple[Card, ...]] = ((), ())  # as they were at the end

    @property
    def winner(self) -> int:
        """The seat that scored, or -1."""
        return self.points.index(max(self.points)) if max(self.points) > 0 else -1


@dataclass(frozen=True)
class GameResult:
    """A finished game: totals with bonuses (``bonuses`` per seat) and the winner (-1: tie)."""

    totals: tuple[int, int]
    bonuses: tuple[int, int]
    winner: int


@dataclass(frozen=True)
class GinState:
    """A Gin Rummy position, with full information (observations hide what they must)."""

    rules: GinRules
    phase: Phase
    current: int
    dealer: int
    hands: tuple[gm.Mask, gm.Mask]
    stock: tuple[Card, ...]  # the whole stock order; the top is stock[stock_top]
    stock_top: int
    discards: tuple[Card, ...]  # the discard pile, bottom first: the upcard is the last
    passed: tuple[bool, bool] = (False, False)  # passes on the first upcard
    taken: Card = -1  # the upcard taken this turn
    known: tuple[gm.Mask, gm.Mask] = (0, 0)  # cards each took from the pile and still holds
    declined: tuple[gm.Mask, gm.Mask] = (0, 0)  # upcards each passed on or drew over
    discarded: tuple[gm.Mask, gm.Mask] = (0, 0)
    upcard_draws: int = 0
    returned_in_a_row: int = 0
    scores: tuple[int, int] = (0, 0)
    hands_won: tuple[int, int] = (0, 0)
    hand_index: int = 0
    seed: int = 0
    last_hand: HandResult | None = None
    game_result: GameResult | None = None

    @property
    def upcard(self) -> Card:
        return self.discards[-1] if self.discards else -1

    @property
    def stock_size(self) -> int:
        return len(self.stock) - self.stock_top

    @property
    def over(self) -> bool:
        return self.phase in (Phase.HAND_OVER, Phase.GAME_OVER)

    def hand(self, seat: int) -> tuple[Card, ...]:
        return gm.cards_of(self.hands[seat])

    def __str__(self) -> str:
        lines = [f"hand {self.hand_index + 1}, {self.phase.value}, player {self.current} to act, dealer {self.dealer}"]
        for seat in range(NUM_PLAYERS):
            lines.append(f"player {seat}: {hand_str(self.hand(seat))}  (score {self.scores[seat]})")
        upcard = card_str(self.upcard) if self.upcard >= 0 else "none"
        lines.append(f"upcard {upcard}, stock {self.stock_size}")
        return "\n".join(lines)


# ---------------------------------------------------------------- dealing


_STATE_FIELDS = frozenset(f.name for f in fields(GinState))


def new_game(rules: GinRules, seed: int, deck: tuple[Card, ...] | None = None) -> GinState:
    """The first hand of a game: the dealer drawn from ``seed`` (unless the rules fix it)
    and the cards shuffled by it, or dealt from ``deck`` (top first) when given."""
    rng = random.Random(seed)
    dealer = rules.first_dealer if rules.first_dealer is not None else rng.randrange(NUM_PLAYERS)
    return _deal(rules, dealer, seed, deck, scores=(0, 0), hands_won=(0, 0), hand_index=0)


def _deal(rules, dealer, seed, deck, scores, hands_won, hand_index) -> GinState:
    if deck is None:
        shuffled = make_deck(1, 0)
        random.Random(f"{seed}/{hand_index}").shuffle(shuffled)
        deck = tuple(shuffled)
    else:
        deck = tuple(deck)
        if sorted(deck) != list(range(NUM_CARDS)):
            raise IllegalAction(f"a Gin deck must hold each of the 52 cards once, got {len(deck)} cards")
    # The non-dealer's 10 cards, the dealer's 10, the upcard, then the stock (OpenSpiel's order).
    non_dealer = 1 - dealer
    hands = [0, 0]
    hands[non_dealer] = gm.mask_of(deck[:HAND_SIZE])
    hands[dealer] = gm.mask_of(deck[HAND_SIZE : 2 * HAND_SIZE])
    return GinState(
        rules=rules,
        phase=Phase.FIRST_UPCARD,
        current=non_dealer,
        dealer=dealer,
        hands=(hands[0], hands[1]),
        stock=deck,
        stock_top=2 * HAND_SIZE + 1,
        discards=(deck[2 * HAND_SIZE],),
        scores=scores,
        hands_won=hands_won,
        hand_index=hand_index,
        seed=seed,
    )


def next_hand(state: GinState, deck: tuple[Card, ...] | None = None) -> GinState:
    """The next hand of a match after ``HAND_OVER``: the deal alternates."""
    if state.phase is not Phase.HAND_OVER:
        raise IllegalAction(f"the next hand is dealt only after a hand ends, not in phase {state.phase.value}")
    return _deal(state.rules, 1 - state.dealer, state.seed, deck, state.scores, state.hands_won, state.hand_index + 1)


# ---------------------------------------------------------------- legality


def can_knock(state: GinState) -> bool:
    """Whether the player to act may knock now (exact deadwood, no shortcut)."""
    limit = state.rules.knock_limit
    hand = state.hands[state.current]
    if state.phase is Phase.DISCARD:
        return gm.deadwood_after_discard(hand, kept_upcard(state)) <= limit
    if state.phase is Phase.WALL:
        return gm.deadwood_after_discard(hand | 1 << state.upcard) <= limit
    return False


def kept_upcard(state: GinState) -> gm.Mask:
    """The card the player may not discard this turn (the upcard just taken), as a mask."""
    if state.taken < 0 or state.rules.discard_taken_upcard:
        return 0
    return 1 << state.taken


def knock_options(state: GinState) -> list[gm.Arrangement]:
    """Every knock the player to act may make (unordered; empty when none is legal)."""
    if not can_knock(state):
        return []
    hand = state.hands[state.current]
    if state.phase is Phase.WALL:
        hand |= 1 << state.upcard
    return gm.knock_arrangements(hand, state.rules.knock_limit, kept_upcard(state))


def ranked_knocks(state: GinState) -> list[gm.Arrangement]:
    """The knocks of the player to act in the env's order: least deadwood, then fewest cards
    the opponent might lay off (cards in neither the hand nor the pile), discard, melds."""
    unseen = gm.ALL_CARDS & ~gm.mask_of(state.discards) & ~state.hands[state.current]
    return sorted(
        knock_options(state),
        key=lambda a: (a.deadwood, gm.layoff_spots(a.melds, unseen), a.discard, a.melds),
    )


def legal_kinds(state: GinState) -> frozenset[MoveKind]:
    """The kinds of move the player to act may make."""
    phase = state.phase
    if phase is Phase.FIRST_UPCARD:
        if all(state.passed):
            return frozenset({MoveKind.DRAW_STOCK})
        return frozenset({MoveKind.TAKE_UPCARD, MoveKind.PASS})
    if phase is Phase.DRAW:
        return frozenset({MoveKind.TAKE_UPCARD, MoveKind.DRAW_STOCK})
    if phase is Phase.DISCARD:
        kinds = {MoveKind.DISCARD}
        if can_knock(state):
            kinds.add(MoveKind.KNOCK)
        return frozenset(kinds)
    if phase is Phase.WALL:
        return frozenset({MoveKind.PASS, MoveKind.KNOCK}) if can_knock(state) else frozenset({MoveKind.PASS})
    return frozenset()


def legal_discards(state: GinState) -> tuple[Card, ...]:
    if state.phase is not Phase.DISCARD:
        return ()
    return gm.cards_of(state.hands[state.current] & ~kept_upcard(state))


# ---------------------------------------------------------------- moves


def apply(state: GinState, move: Move) -> GinState:
    """The state after the player to act makes ``move``."""
    if not isinstance(move, Move):
        raise IllegalAction(f"a move must be a Move, got {move!r}")
    kinds = legal_kinds(state)
    if move.kind not in kinds:
        allowed = ", ".join(sorted(k.name for k in kinds)) or "none (the hand is over)"
        raise IllegalAction(f"{move.kind.name} is not allowed in phase {state.phase.value}; allowed: {allowed}")
    if move.kind is MoveKind.TAKE_UPCARD:
        return _take_upcard(state)
    if move.kind is MoveKind.DRAW_STOCK:
        return _draw_stock(state)
    if move.kind is MoveKind.PASS:
        return _pass(state)
    if move.kind is MoveKind.DISCARD:
        return _discard(state, move.card)
    return _knock(state, move.arrangement)


def _evolve(state: GinState, **changes) -> GinState:
    """``dataclasses.replace`` for states, without the frozen ``__init__``'s per-field
    ``object.__setattr__`` (a tenth of a move's cost in random play)."""
    if not changes.keys() <= _STATE_FIELDS:
        raise TypeError(f"GinState has no field {sorted(changes.keys() - _STATE_FIELDS)[0]!r}")
    new = object.__new__(GinState)
    new.__dict__.update(state.__dict__, **changes)
    return new


def _set(pair: tuple, seat: int, value) -> tuple:
    return (value, pair[1]) if seat == 0 else (pair[0], value)


def _take_upcard(state: GinState) -> GinState:
    seat, card = state.current, state.upcard
    if state.phase is Phase.DRAW and state.upcard_draws + 1 >= state.rules.upcard_draw_limit:
        return _end_dead(state, HandEnd.UPCARD_LIMIT)  # the hand ends instead of the draw, as OpenSpiel's
    return _evolve(
        state,
        phase=Phase.DISCARD,
        hands=_set(state.hands, seat, state.hands[seat] | 1 << card),
        discards=state.discards[:-1],
        taken=card,
        known=_set(state.known, seat, state.known[seat] | 1 << card),
        upcard_draws=state.upcard_draws + (state.phase is Phase.DRAW),
    )


def _draw_stock(state: GinState) -> GinState:
    seat, card = state.current, state.stock[state.stock_top]
    declined = state.declined
    if state.phase is Phase.DRAW:  # drawing over an upcard declines it (the first one was passed)
        declined = _set(declined, seat, declined[seat] | 1 << state.upcard)
    return _evolve(
        state,
        phase=Phase.DISCARD,
        hands=_set(state.hands, seat, state.hands[seat] | 1 << card),
        stock_top=state.stock_top + 1,
        taken=-1,
        declined=declined,
    )


def _pass(state: GinState) -> GinState:
    seat = state.current
    if state.phase is Phase.WALL:
        return _end_dead(state, HandEnd.DEAD)
    return _evolve(
        state,
        passed=_set(state.passed, seat, True),
        current=1 - seat,
        declined=_set(state.declined, seat, state.declined[seat] | 1 << state.upcard),
    )


def _discard(state: GinState, card: Card) -> GinState:
    seat, hand = state.current, state.hands[state.current]
    if not isinstance(card, int) or isinstance(card, bool) or not 0 <= card < NUM_CARDS or not hand >> card & 1:
        raise IllegalAction(f"discard: {card!r} is not a card in player {seat}'s hand ({hand_str(state.hand(seat))})")
    if card == state.taken and not state.rules.discard_taken_upcard:
        raise IllegalAction(
            f"discard: {card_str(card)} was just taken from the discard pile and may not be discarded this turn"
        )
    returned = state.returned_in_a_row + 1 if card == state.taken else 0
    after = _evolve(
        state,
        phase=Phase.DRAW,
        current=1 - seat,
        hands=_set(state.hands, seat, hand ^ 1 << card),
        discards=(*state.discards, card),
        taken=-1,
        known=_set(state.known, seat, state.known[seat] & ~(1 << card)),
        discarded=_set(state.discarded, seat, state.discarded[seat] | 1 << card),
        returned_in_a_row=returned,
    )
    if state.rules.upcard_limits and returned >= OPENSPIEL_RETURNED_UPCARDS:
        return _end_dead(after, HandEnd.UPCARD_LIMIT)
    if after.stock_size <= DEAD_STOCK:
        if state.rules.stock_end is StockEnd.DEAD:
            return _end_dead(after, HandEnd.DEAD)
        return _evolve(after, phase=Phase.WALL)
    return after


def _knock(state: GinState, arrangement: gm.Arrangement | None) -> GinState:
    seat = state.current
    options = knock_options(state)
    if arrangement not in options:
        raise IllegalAction(
            f"knock: {arrangement!r} is not a legal knock of player {seat}"
            f" (there are {len(options)}: a discard and melds leaving at most {state.rules.knock_limit} deadwood,"
            " with no card left over that could join them)"
        )
    hand = state.hands[seat]
    if state.phase is Phase.WALL:
        hand |= 1 << state.upcard
    ten = hand ^ 1 << arrangement.discard
    opponent = 1 - seat
    gin = arrangement.deadwood == 0
    answer = gm.best_layoffs(arrangement.melds, state.hands[opponent], gin)
    rules = state.rules
    points = [0, 0]
    undercut = False
    if gin:
        points[seat] = answer.deadwood + rules.gin_bonus
    elif arrangement.deadwood < answer.deadwood:
        points[seat] = answer.deadwood - arrangement.deadwood
    elif arrangement.deadwood > answer.deadwood or rules.tie_is_undercut:
        undercut = True
        points[opponent] = arrangement.deadwood - answer.deadwood + rules.undercut_bonus
    result = HandResult(
        end=HandEnd.GIN if gin else HandEnd.KNOCK,
        points=(points[0], points[1]),
        knocker=seat,
        arrangement=arrangement,
        layoffs=answer,
        undercut=undercut,
        hands=_set((gm.cards_of(state.hands[0]), gm.cards_of(state.hands[1])), seat, gm.cards_of(ten)),
    )
    discards = state.discards[:-1] if state.phase is Phase.WALL else state.discards
    after = _evolve(state, hands=_set(state.hands, seat, ten), discards=(*discards, arrangement.discard))
    return _score_hand(after, result)


def _end_dead(state: GinState, end: HandEnd) -> GinState:
    hands = (gm.cards_of(state.hands[0]), gm.cards_of(state.hands[1]))
    return _score_hand(state, HandResult(end=end, points=(0, 0), hands=hands))


def _score_hand(state: GinState, result: HandResult) -> GinState:
    rules = state.rules
    scores = (state.scores[0] + result.points[0], state.scores[1] + result.points[1])
    won = result.winner
    hands_won = _set(state.hands_won, won, state.hands_won[won] + 1) if won >= 0 else state.hands_won
    after = _evolve(state, scores=scores, hands_won=hands_won, last_hand=result, taken=-1, current=-1)
    if (
        rules.game_length is GameLength.HAND
        or max(scores) >= rules.target
        or state.hand_index + 1 >= rules.match_hand_limit
    ):
        return _evolve(after, phase=Phase.GAME_OVER, game_result=_game_result(rules, scores, hands_won))
    return _evolve(after, phase=Phase.HAND_OVER)


def _game_result(rules: GinRules, scores: tuple[int, int], hands_won: tuple[int, int]) -> GameResult:
    bonuses = [0, 0]
    if rules.game_length is GameLength.MATCH and rules.match_bonuses:
        if max(scores) >= rules.target:  # a match ended by its hand limit has no game bonus
            leader = 0 if scores[0] >= rules.target else 1
            bonuses[leader] += GAME_BONUS + (SHUTOUT_BONUS if scores[1 - leader] == 0 else 0)
        for seat in range(NUM_PLAYERS):
            bonuses[seat] += LINE_BONUS * hands_won[seat]
    totals = (scores[0] + bonuses[0], scores[1] + bonuses[1])
    winner = -1 if totals[0] == totals[1] else (0 if totals[0] > totals[1] else 1)
    return GameResult(totals=totals, bonuses=(bonuses[0], bonuses[1]), winner=winner)
