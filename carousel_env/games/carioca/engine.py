"""Carioca's rules engine: an immutable state and a pure :func:`apply` (RULES.md, "Carioca").

A round runs through these phases:

* ``DRAW``: take the top of the discard pile or of the stock.
* ``PLAY``: go down on the round's contract (once a round), or lay off cards (a player who
  went down on an earlier turn), then discard. After going down only the discard is left.
  Discarding the last card goes out and ends the round.
* ``ROUND_OVER`` / ``GAME_OVER``: :func:`next_round` deals the next of the six rounds.

The stock (the project's reading, RULES.md): when a player is to draw and the stock is
empty, the discard pile but its top is shuffled into a new stock, once a round; when it is
empty again (or the pile had nothing to give), the round ends and every player scores the
cards in hand. So does a round whose pile has been drawn from ``PILE_DRAW_LIMIT`` times
(the project's bound). Deals and reshuffles come from the game's seed, the round and
nothing else.

Every bad move raises :class:`~carousel_env.core.errors.IllegalAction` naming the rule, and
the state it was given is unchanged (states are frozen).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from enum import Enum, IntEnum
from typing import NamedTuple

from carousel_env.core.cards import Card, card_str, hand_str, holds, is_hand_card, make_deck, without
from carousel_env.core.errors import IllegalAction
from carousel_env.games.carioca import melds as cm
from carousel_env.games.carioca import solver
from carousel_env.games.carioca.melds import End, LayOff, Meld, MeldError
from carousel_env.games.carioca.rules import (
    CONTRACTS,
    HAND_SIZE,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NUM_DECKS,
    NUM_JOKERS,
    NUM_ROUNDS,
    PILE_DRAW_LIMIT,
    Contract,
    hand_points,
)

Hand = tuple[Card, ...]
PLAYER_COUNTS = range(MIN_PLAYERS, MAX_PLAYERS + 1)


class Phase(str, Enum):
    DRAW = "draw"
    PLAY = "play"
    ROUND_OVER = "round_over"
    GAME_OVER = "game_over"


class MoveKind(IntEnum):
    DRAW_STOCK = 0
    TAKE_DISCARD = 1
    GO_DOWN = 2
    LAY_OFF = 3
    DISCARD = 4


class Move(NamedTuple):
    """A player's move: ``card`` for a discard, ``melds`` for going down, ``layoff`` for a
    lay-off."""

    kind: MoveKind
    card: Card = -1
    melds: tuple[Meld, ...] | None = None
    layoff: LayOff | None = None

    def __str__(self) -> str:
        if self.kind is MoveKind.DISCARD:
            return f"discard {card_str(self.card)}"
        if self.kind is MoveKind.GO_DOWN:
            return "go down: " + " | ".join(str(m) for m in self.melds or ())
        if self.kind is MoveKind.LAY_OFF:
            return str(self.layoff)
        return self.kind.name.lower().replace("_", " ")


DRAW_STOCK = Move(MoveKind.DRAW_STOCK)
TAKE_DISCARD = Move(MoveKind.TAKE_DISCARD)


class RoundEnd(str, Enum):
    OUT = "out"  # a player discarded the last card
    STOCK = "stock"  # the stock ran out after its one reshuffle
    PILE_LIMIT = "pile_limit"  # the pile was drawn from PILE_DRAW_LIMIT times (the project's bound)


@dataclass(frozen=True)
class RoundResult:
    """A finished round: how it ended, who went out (-1: nobody), each seat's penalty, the
    hands as they were at the end and who had gone down."""

    round: int  # 1..6
    end: RoundEnd
    out: int
    penalties: tuple[int, ...]
    hands: tuple[Hand, ...]
    down: tuple[bool, ...] = ()

    @property
    def points(self) -> tuple[int, ...]:
        """The round as the family scores rounds, higher better: each seat's penalty, negated."""
        return tuple(-p for p in self.penalties)


@dataclass(frozen=True)
class GameResult:
    """The game after six rounds: totals and the seats that share the lowest."""

    totals: tuple[int, ...]
    winners: tuple[int, ...]


@dataclass(frozen=True)
class CariocaState:
    """A Carioca position, with full information (observations hide what they must)."""

    num_players: int
    round: int  # 0..5: the contract is CONTRACTS[round]
    dealer: int
    current: int  # the seat to act, -1 between rounds
    phase: Phase
    hands: tuple[Hand, ...]
    stock: tuple[Card, ...]  # the top is the last
    discards: tuple[Card, ...]  # the pile, bottom first: the top is the last
    melds: tuple[tuple[Meld, ...], ...]  # each seat's melds, in the order laid
    down: tuple[bool, ...]
    went_down_now: bool = False  # the player to act went down this turn: only a discard is left
    reshuffled: bool = False
    taken: tuple[Hand, ...] = ()  # per seat, the cards taken from the pile this round, in order
    thrown: tuple[Hand, ...] = ()  # per seat, the cards discarded this round, in order
    scores: tuple[int, ...] = ()
    rounds: tuple[RoundResult, ...] = ()  # the finished rounds
    seed: int = 0

    @property
    def contract(self) -> Contract:
        return CONTRACTS[self.round]

    @property
    def over(self) -> bool:
        """Whether the round is over (and maybe the game)."""
        return self.phase in (Phase.ROUND_OVER, Phase.GAME_OVER)

    @property
    def pile_draws(self) -> int:
        """The cards taken from the pile this round, by every player."""
        return sum(len(cards) for cards in self.taken)

    @property
    def top(self) -> Card:
        """The top of the discard pile (-1 when it is empty)."""
        return self.discards[-1] if self.discards else -1

    @property
    def last_round(self) -> RoundResult | None:
        return self.rounds[-1] if self.rounds else None

    @property
    def game_result(self) -> GameResult | None:
        if self.phase is not Phase.GAME_OVER:
            return None
        low = min(self.scores)
        return GameResult(self.scores, tuple(s for s, t in enumerate(self.scores) if t == low))

    def __str__(self) -> str:
        lines = [f"round {self.round + 1} ({self.contract}), {self.phase.value}, player {self.current} to act"]
        for seat in range(self.num_players):
            table = " | ".join(str(m) for m in self.melds[seat]) or "-"
            lines.append(f"  player {seat}: {hand_str(self.hands[seat])}   melds: {table}")
        top = card_str(self.top) if self.discards else "-"
        lines.append(f"  pile top {top} ({len(self.discards)}), stock {len(self.stock)}")
        return "\n".join(lines)


# ---------------------------------------------------------------- the deal


def _round_rng(seed: int, round_index: int, what: str) -> random.Random:
    # A string seed is hashed the same way on every run and platform.
    return random.Random(f"carioca/{seed}/{round_index}/{what}")


def _deal(num_players: int, seed: int, round_index: int, dealer: int, scores, rounds) -> CariocaState:
    deck = make_deck(NUM_DECKS, NUM_JOKERS)
    _round_rng(seed, round_index, "deal").shuffle(deck)
    hands = tuple(tuple(sorted(deck[i * HAND_SIZE : (i + 1) * HAND_SIZE])) for i in range(num_players))
    rest = deck[num_players * HAND_SIZE :]
    empty = tuple(() for _ in range(num_players))
    return CariocaState(
        num_players=num_players,
        round=round_index,
        dealer=dealer,
        current=(dealer + 1) % num_players,
        phase=Phase.DRAW,
        hands=hands,
        stock=tuple(rest[1:]),
        discards=(rest[0],),
        melds=empty,
        down=(False,) * num_players,
        taken=empty,
        thrown=empty,
        scores=tuple(scores),
        rounds=tuple(rounds),
        seed=seed,
    )


def new_game(num_players: int, seed: int) -> CariocaState:
    """Round 1 of a game of ``num_players`` (2..5), dealt from ``seed``; the first dealer is
    drawn from the seed."""
    if (
        not isinstance(num_players, int)
        or isinstance(num_players, bool)
        or not MIN_PLAYERS <= num_players <= MAX_PLAYERS
    ):
        raise IllegalAction(f"Carioca is played by {MIN_PLAYERS} to {MAX_PLAYERS} players, got {num_players!r}")
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise IllegalAction(f"a game's seed is an int, got {seed!r}")
    dealer = random.Random(seed).randrange(num_players)
    return _deal(num_players, seed, 0, dealer, (0,) * num_players, ())


def next_round(state: CariocaState) -> CariocaState:
    """The next round's deal, after a round is over; the deal passes one seat on."""
    if state.phase is not Phase.ROUND_OVER:
        raise IllegalAction(f"the next round is dealt when a round is over (phase is {state.phase.value})")
    n = state.num_players
    return _deal(n, state.seed, state.round + 1, (state.dealer + 1) % n, state.scores, state.rounds)


# ---------------------------------------------------------------- what is legal


def may_go_down(state: CariocaState) -> bool:
    s = state.current
    return state.phase is Phase.PLAY and not state.down[s]


def may_lay_off(state: CariocaState) -> bool:
    s = state.current
    return state.phase is Phase.PLAY and state.down[s] and not state.went_down_now and len(state.hands[s]) >= 2


def go_down_options(state: CariocaState, limit: int | None = None) -> list[tuple[Meld, ...]]:
    """The arrangements the player to act can go down with, in the solver's order."""
    if not may_go_down(state):
        return []
    return solver.arrangements(state.hands[state.current], state.contract, limit)


def layoff_options(state: CariocaState) -> list[LayOff]:
    """The lay-offs the player to act can make now."""
    if not may_lay_off(state):
        return []
    return solver.legal_layoffs(state.hands[state.current], state.melds)


def legal_discards(state: CariocaState) -> list[Card]:
    return sorted(set(state.hands[state.current])) if state.phase is Phase.PLAY else []


# ---------------------------------------------------------------- moves


def _set(values: tuple, seat: int, value) -> tuple:
    return (*values[:seat], value, *values[seat + 1 :])


def _draw(state: CariocaState, from_pile: bool) -> CariocaState:
    s = state.current
    if from_pile:
        card = state.discards[-1]
        return replace(
            state,
            hands=_set(state.hands, s, tuple(sorted((*state.hands[s], card)))),
            discards=state.discards[:-1],
            taken=_set(state.taken, s, (*state.taken[s], card)),
            phase=Phase.PLAY,
        )
    card = state.stock[-1]
    return replace(
        state,
        hands=_set(state.hands, s, tuple(sorted((*state.hands[s], card)))),
        stock=state.stock[:-1],
        phase=Phase.PLAY,
    )


def _go_down(state: CariocaState, melds) -> CariocaState:
    s = state.current
    if state.down[s]:
        raise IllegalAction(f"player {s} already went down this round: going down is once a round")
    melds = tuple(melds) if melds is not None else ()
    for meld in melds:
        if not isinstance(meld, Meld):
            raise IllegalAction(f"going down takes melds (carioca.melds.Meld), got {meld!r}")
    try:
        # Each meld is checked anew from its cards: a Meld built by hand may be anything.
        checked = tuple(cm.trio(m.units) if m.kind is cm.MeldKind.TRIO else cm.escalera(m.units, m.low) for m in melds)
        cm.check_contract(checked, state.contract)
    except MeldError as exc:
        raise IllegalAction(f"player {s} cannot go down: {exc}") from None
    laid = [c for m in checked for c in m.cards()]
    if not holds(state.hands[s], laid):
        raise IllegalAction(f"player {s} cannot go down: the melds use cards not in hand ({hand_str(laid)})")
    if len(state.hands[s]) - len(laid) < 1:
        raise IllegalAction(f"player {s} cannot go down: a card must be kept to discard")
    return replace(
        state,
        hands=_set(state.hands, s, without(state.hands[s], laid)),
        melds=_set(state.melds, s, checked),
        down=_set(state.down, s, True),
        went_down_now=True,
    )


def _lay_off(state: CariocaState, layoff: LayOff | None) -> CariocaState:
    s = state.current
    if not isinstance(layoff, LayOff):
        raise IllegalAction(f"a lay-off takes a LayOff(card, seat, meld, end), got {layoff!r}")
    if not state.down[s]:
        raise IllegalAction(f"player {s} has not gone down: only a player who went down may lay off")
    if state.went_down_now:
        raise IllegalAction(f"player {s} went down this turn: lay-offs start on a later turn")
    if len(state.hands[s]) < 2:
        raise IllegalAction(f"player {s} holds one card: it must be kept to discard")
    card, seat, index, end = layoff
    if not is_hand_card(card) or card not in state.hands[s]:
        raise IllegalAction(f"player {s} cannot lay off {card!r}: not in hand")
    if not isinstance(seat, int) or not 0 <= seat < state.num_players or not 0 <= index < len(state.melds[seat]):
        raise IllegalAction(f"no meld {index!r} of player {seat!r} on the table")
    if end not in (End.LOW, End.HIGH):
        raise IllegalAction(f"a lay-off's end is End.LOW or End.HIGH, got {end!r}")
    meld = state.melds[seat][index]
    grown = cm.laid_off(meld, card, End(end))
    if grown is None:
        raise IllegalAction(f"{card_str(card)} does not go on {meld} at its {End(end).name.lower()} end")
    table = _set(state.melds[seat], index, grown)
    return replace(
        state, hands=_set(state.hands, s, without(state.hands[s], [card])), melds=_set(state.melds, seat, table)
    )


def _discard(state: CariocaState, card: Card) -> CariocaState:
    s = state.current
    if not is_hand_card(card) or card not in state.hands[s]:
        raise IllegalAction(f"player {s} cannot discard {card!r}: not in hand ({hand_str(state.hands[s])})")
    state = replace(
        state,
        hands=_set(state.hands, s, without(state.hands[s], [card])),
        discards=(*state.discards, card),
        thrown=_set(state.thrown, s, (*state.thrown[s], card)),
        went_down_now=False,
    )
    if not state.hands[s]:
        return _end_round(state, RoundEnd.OUT, s)
    state = replace(state, current=(s + 1) % state.num_players, phase=Phase.DRAW)
    return _stock_check(state)


def _stock_check(state: CariocaState) -> CariocaState:
    """Before a draw: the round ends at the pile draw limit; an empty stock is rebuilt once
    from the pile; after that, the round ends."""
    if state.pile_draws >= PILE_DRAW_LIMIT:
        return _end_round(state, RoundEnd.PILE_LIMIT, -1)
    if state.stock:
        return state
    if state.reshuffled or len(state.discards) < 2:
        return _end_round(state, RoundEnd.STOCK, -1)
    stock = list(state.discards[:-1])
    _round_rng(state.seed, state.round, "reshuffle").shuffle(stock)
    return replace(state, stock=tuple(stock), discards=state.discards[-1:], reshuffled=True)


def _end_round(state: CariocaState, end: RoundEnd, out: int) -> CariocaState:
    penalties = tuple(hand_points(hand) for hand in state.hands)
    result = RoundResult(state.round + 1, end, out, penalties, state.hands, state.down)
    last = state.round == NUM_ROUNDS - 1
    return replace(
        state,
        phase=Phase.GAME_OVER if last else Phase.ROUND_OVER,
        current=-1,
        scores=tuple(a + b for a, b in zip(state.scores, penalties)),
        rounds=(*state.rounds, result),
    )


def apply(state: CariocaState, move: Move) -> CariocaState:
    """The state after the player to act makes ``move``; :class:`IllegalAction` if it breaks
    a rule."""
    if not isinstance(move, Move):
        raise IllegalAction(f"a move is a carioca.engine.Move, got {move!r}")
    if state.over:
        raise IllegalAction(f"the round is over ({state.phase.value}): no moves until the next deal")
    kind = move.kind
    if state.phase is Phase.DRAW:
        if kind is MoveKind.DRAW_STOCK:
            return _draw(state, from_pile=False)
        if kind is MoveKind.TAKE_DISCARD:
            return _draw(state, from_pile=True)
        raise IllegalAction(f"player {state.current} must first draw (from the stock or the pile), not {kind.name}")
    if kind in (MoveKind.DRAW_STOCK, MoveKind.TAKE_DISCARD):
        raise IllegalAction(f"player {state.current} has drawn this turn: one draw a turn")
    if kind is MoveKind.DISCARD:
        return _discard(state, move.card)
    if state.went_down_now:
        raise IllegalAction(f"player {state.current} went down this turn: nothing else that turn but the discard")
    if kind is MoveKind.GO_DOWN:
        return _go_down(state, move.melds)
    if kind is MoveKind.LAY_OFF:
        return _lay_off(state, move.layoff)
    raise IllegalAction(f"unknown move kind {kind!r}")
