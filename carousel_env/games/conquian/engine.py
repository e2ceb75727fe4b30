"""Conquian's rules engine: the deal, a turn phase by phase, the end of a hand and of the
game (RULES.md, "Conquian"; source 004). Pure: every function returns a new state, and a
move that breaks a rule raises :class:`~carousel_env.core.errors.IllegalAction` naming it,
changing nothing.

A turn (:class:`~carousel_env.games.conquian.state.Phase`): the player takes the faced card
by melding it (:func:`~carousel_env.games.conquian.legal.arrangement_problem` checks the
melds it ends at) or passes it; a passed card goes face down and the top of the stock is
turned up, which the player takes or leaves to the opponent. A passed card that fits the
player's own melds may be forced by the opponent. After a take the player discards, unless
11 cards are melded: that wins the hand. A stock card needed from an empty stock makes the
hand a tableau (a draw).

Decisions where RULES.md is silent: hand 1's dealer is drawn from the seed
(``random.Random("conquian/<seed>/dealer")``); each deal shuffles with
``random.Random("conquian/<seed>/<hand>/deal")``; the non-dealer is dealt first; the stock's
top is the card after the upcard.
"""

from __future__ import annotations

import random
from dataclasses import replace

from carousel_env.core.cards import Card, card_str
from carousel_env.core.errors import IllegalAction
from carousel_env.games.conquian.legal import arrangement_problem
from carousel_env.games.conquian.melds import Melds, cards_in, melds_of
from carousel_env.games.conquian.rules import (
    CARDS,
    HAND_SIZE,
    MATCH_HAND_LIMIT,
    WINNING_MELDED,
    ConquianRules,
    GameLength,
    Scoring,
    hand_points,
)
from carousel_env.games.conquian.solver import can_force
from carousel_env.games.conquian.state import (
    NO_CARD,
    ConquianState,
    GameResult,
    HandEnd,
    HandResult,
    Move,
    MoveKind,
    Phase,
)

PAIR = 2  # Foster deals two cards at a time


def _check_seed(seed: object) -> int:
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise IllegalAction(f"a game's seed is an int, got {seed!r}")
    return seed


def new_game(rules: ConquianRules, seed: int) -> ConquianState:
    """The first hand of game ``seed``, dealt."""
    if not isinstance(rules, ConquianRules):
        raise IllegalAction(f"rules must be ConquianRules, got {type(rules).__name__}")
    seed = _check_seed(seed)
    dealer = random.Random(f"conquian/{seed}/dealer").randrange(2)
    empty = ConquianState(
        rules=rules,
        seed=seed,
        hand_number=0,
        dealer=dealer,
        current=-1,
        phase=Phase.HAND_OVER,
        hands=((), ()),
        melds=((), ()),
        stock=(),
        dead=(),
        faced=NO_CARD,
        faced_by=-1,
        upcard=False,
        left_card=False,
        declined=((), ()),
        totals=(0, 0),
    )
    return _deal(empty, 0, dealer)


def _deal(state: ConquianState, hand_number: int, dealer: int) -> ConquianState:
    rules = state.rules
    deck = list(CARDS)
    random.Random(f"conquian/{state.seed}/{hand_number}/deal").shuffle(deck)
    first = 1 - dealer  # the non-dealer is dealt first and plays first
    step = PAIR if rules.deal_in_pairs else 1
    hands: list[list[Card]] = [[], []]
    for i in range(0, 2 * HAND_SIZE, step):
        hands[(first + i // step) % 2] += deck[i : i + step]
    rest = deck[2 * HAND_SIZE :]
    state = replace(
        state,
        hand_number=hand_number,
        dealer=dealer,
        hands=(tuple(sorted(hands[0])), tuple(sorted(hands[1]))),
        melds=((), ()),
        dead=(),
        declined=((), ()),
        left_card=False,
    )
    if rules.initial_upcard:
        stock = tuple(reversed(rest[1:]))
        return replace(state, current=first, phase=Phase.FACED, stock=stock, faced=rest[0], faced_by=-1, upcard=True)
    return _turn_up(replace(state, stock=tuple(reversed(rest)), faced=NO_CARD, upcard=False), first)


def _turn_up(state: ConquianState, seat: int) -> ConquianState:
    """``seat`` turns up the top of the stock; an empty stock ends the hand in a tableau."""
    if not state.stock:
        return _end_hand(replace(state, current=seat), -1)
    return replace(
        state,
        current=seat,
        phase=Phase.TURNED,
        stock=state.stock[:-1],
        faced=state.stock[-1],
        faced_by=seat,
        upcard=False,
        left_card=False,
    )


def _turn_down(state: ConquianState) -> ConquianState:
    return replace(state, dead=(*state.dead, state.faced), faced=NO_CARD)


def _after_decline(state: ConquianState, seat: int) -> ConquianState:
    """``seat`` passed the faced card (not a turned one) and was not forced: the card goes face
    down and ``seat`` turns up the stock; the deal's upcard goes to the dealer first, and when
    both pass it the non-dealer turns up the stock."""
    if state.upcard:
        if seat != state.dealer:
            return replace(state, current=state.dealer, phase=Phase.FACED)
        seat = 1 - state.dealer
    return _turn_up(_turn_down(state), seat)


def _after_leave(state: ConquianState, seat: int) -> ConquianState:
    """``seat`` left the turned card and was not forced: it stays face up for the opponent."""
    return replace(state, current=1 - seat, phase=Phase.FACED, left_card=False)


def _record_pass(state: ConquianState) -> ConquianState:
    s = state.current
    declined = list(state.declined)
    declined[s] = (*declined[s], state.faced)
    return replace(state, declined=tuple(declined))


def _meld(state: ConquianState, melds: Melds, taken: Card | None, forced: bool) -> ConquianState:
    """The player to act ends the turn's melding at ``melds`` (checked), melding ``taken``."""
    s = state.current
    melds = melds_of(melds)
    problem = arrangement_problem(state.rules, state.melds[s], state.hands[s], taken, melds, forced=forced)
    if problem is not None:
        raise IllegalAction(f"player {s}: {problem}")
    laid = set(cards_in(melds)) - set(cards_in(state.melds[s]))
    hands, table = list(state.hands), list(state.melds)
    hands[s] = tuple(c for c in state.hands[s] if c not in laid)
    table[s] = melds
    return replace(state, hands=tuple(hands), melds=tuple(table))


def _take(state: ConquianState, melds: Melds, forced: bool) -> ConquianState:
    s = state.current
    state = replace(_meld(state, melds, state.faced, forced), faced=NO_CARD, upcard=False)
    if not state.hands[s]:
        assert state.melded(s) == WINNING_MELDED
        return _end_hand(state, s)
    return replace(state, phase=Phase.DISCARD)


def apply(state: ConquianState, move: Move) -> ConquianState:
    """The state after ``move`` of the player to act."""
    if not isinstance(move, Move):
        raise IllegalAction(f"a move is a Move, got {move!r}")
    if state.over:
        raise IllegalAction(f"the hand is over ({state.phase.value}): deal the next with next_hand")
    s, phase, kind = state.current, state.phase, move.kind
    if phase is Phase.DISCARD:
        if kind is not MoveKind.DISCARD:
            raise IllegalAction(f"player {s} must discard, not {kind.name.lower()}")
        if move.card not in state.hands[s]:
            raise IllegalAction(f"player {s} cannot discard {_card(move.card)}: not in the hand")
        hands = list(state.hands)
        hands[s] = tuple(c for c in state.hands[s] if c != move.card)
        return replace(state, hands=tuple(hands), faced=move.card, faced_by=s, current=1 - s, phase=Phase.FACED)
    if phase is Phase.FORCE:
        if kind is MoveKind.FORCE:
            return replace(state, current=1 - s, phase=Phase.FORCED)
        if kind is not MoveKind.PASS or move.melds:
            raise IllegalAction(f"player {s} forces the card or passes, not {kind.name.lower()}")
        passer = 1 - s
        return (
            _after_leave(state, passer) if state.left_card else _after_decline(replace(state, current=passer), passer)
        )
    if phase is Phase.FORCED:
        if kind is not MoveKind.TAKE:
            raise IllegalAction(f"player {s} is forced: the {card_str(state.faced)} must be taken and melded")
        return _take(state, move.melds, forced=True)
    # FACED or TURNED
    if kind is MoveKind.TAKE:
        return _take(state, move.melds, forced=False)
    if kind is not MoveKind.PASS:
        raise IllegalAction(f"player {s} takes the {card_str(state.faced)} or passes, not {kind.name.lower()}")
    if move.melds:
        if phase is not Phase.TURNED or not state.rules.hand_melds_on_turn_up:
            raise IllegalAction(f"player {s}: melds from the hand are laid only with a taken card")
        state = _meld(state, move.melds, None, forced=False)
    state = _record_pass(state)
    if can_force(state.rules, state.melds[s], state.faced):
        return replace(state, current=1 - s, phase=Phase.FORCE, left_card=phase is Phase.TURNED)
    return _after_leave(state, s) if phase is Phase.TURNED else _after_decline(state, s)


def _card(card: object) -> str:
    return card_str(card) if isinstance(card, int) and 0 <= card < 52 else repr(card)


# ---------------------------------------------------------------- the end of a hand


def _end_hand(state: ConquianState, winner: int) -> ConquianState:
    rules = state.rules
    if winner < 0:
        worth, scores = 0, (0, 0)
        pool = state.pool + 1 if rules.tableau_pool else 0
        end = HandEnd.TABLEAU
    else:
        loser = 1 - winner
        worth = 1 + state.pool if rules.scoring is Scoring.UNIT else hand_points(state.hands[loser])
        scores = [0, 0]
        scores[winner] = worth
        if rules.scoring is Scoring.UNIT:
            scores[loser] = -worth
        scores = tuple(scores)
        pool = 0
        end = HandEnd.OUT
    result = HandResult(state.hand_number + 1, end, winner, worth, scores, state.hands)
    totals = (state.totals[0] + scores[0], state.totals[1] + scores[1])
    state = replace(
        state, phase=Phase.HAND_OVER, current=-1, totals=totals, pool=pool, results=(*state.results, result)
    )
    if rules.game_length is GameLength.HAND:
        winners = (winner,) if winner >= 0 else ()
        return replace(state, phase=Phase.GAME_OVER, game_result=GameResult(totals, winners))
    if max(totals) >= rules.target or len(state.results) >= MATCH_HAND_LIMIT:
        best = max(totals)
        return replace(
            state,
            phase=Phase.GAME_OVER,
            game_result=GameResult(totals, tuple(s for s in range(2) if totals[s] == best)),
        )
    return state


def next_hand(state: ConquianState) -> ConquianState:
    """The next hand of a match, dealt by the other player."""
    if state.phase is not Phase.HAND_OVER:
        raise IllegalAction(f"next_hand is for a finished hand of a match, not {state.phase.value}")
    return _deal(state, state.hand_number + 1, 1 - state.dealer)
