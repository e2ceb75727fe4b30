"""Dealing, the end of a hand, its scoring and the end of the game (RULES.md, "Kaluki":
"Deal and seating", "Scoring a hand", "The game"; "Rummy").

Deals come from the game's seed and the hand's number and nothing else. The deal passes one
seat to the left (to the next seat still in); heads-up, ``two_player_deal: winner`` has the
hand's winner deal the next. Hand sizes follow the number of players still in.

Decisions where RULES.md is silent:

* Heads-up under ``two_player_deal: winner``, a hand nobody won passes the deal as usual.
* ``rummy_bonus`` under ``scoring: penalty`` applies to each other player's penalty (+10 each,
  or each doubled).
* ``penalty_end: eliminate``: if every player still in exceeds the limit in one hand, the
  lowest of their totals wins (ties share the win).
* ``game: hand``: the player who went out wins; a hand nobody won has no winner.
* A match that reaches ``MATCH_HAND_LIMIT`` hands (the project's bound) ends: under
  ``winner_collects`` the highest total wins, under ``penalty`` the lowest of those still in.
"""

from __future__ import annotations

import random
from dataclasses import replace

from carousel_env.core.cards import make_deck
from carousel_env.core.errors import IllegalAction
from carousel_env.games.kaluki.rules import (
    MATCH_HAND_LIMIT,
    PLAYER_COUNTS,
    RUMMY_BONUS_PLUS,
    GameLength,
    KalukiRules,
    PenaltyEnd,
    RummyBonus,
    Scoring,
    TwoPlayerDeal,
)
from carousel_env.games.kaluki.state import GameResult, HandEnd, HandResult, KalukiState, Phase

HEADS_UP = 2


def hand_rng(seed: int, hand_number: int, what: str) -> random.Random:
    # A string seed is hashed the same way on every run and platform.
    return random.Random(f"kaluki/{seed}/{hand_number}/{what}")


def next_seat(seat: int, in_play: tuple[bool, ...]) -> int:
    """The next seat to the left of ``seat`` that is still in the game."""
    n = len(in_play)
    for step in range(1, n + 1):
        if in_play[(seat + step) % n]:
            return (seat + step) % n
    raise IllegalAction("no player is left in the game")


def _deal(state: KalukiState, hand_number: int, dealer: int) -> KalukiState:
    rules, n = state.rules, state.num_players
    seats = [s for s in range(n) if state.in_play[s]]
    size = rules.hand_size(len(seats))
    deck = make_deck(rules.decks, rules.jokers)
    hand_rng(state.seed, hand_number, "deal").shuffle(deck)
    hands: list[tuple] = [()] * n
    for i, seat in enumerate(seats):
        hands[seat] = tuple(sorted(deck[i * size : (i + 1) * size]))
    rest = deck[len(seats) * size :]
    return replace(
        state,
        hand_number=hand_number,
        dealer=dealer,
        current=next_seat(dealer, state.in_play),
        phase=Phase.DRAW,
        hands=tuple(hands),
        melds=((),) * n,
        stock=tuple(rest[1:]),
        discards=(rest[0],),  # the upcard
        opened=(False,) * n,
        restocks_used=0,
        pile_takes=0,
        taken=-1,
        laid_now=False,
        laid=(False,) * n,
        known=((),) * n,
    )


def new_game(rules: KalukiRules, num_players: int, seed: int) -> KalukiState:
    """Hand 1 of a game of ``num_players`` (2..6) under ``rules``, dealt from ``seed``; the
    first dealer is drawn from the seed."""
    if not isinstance(rules, KalukiRules):
        raise IllegalAction(f"a Kaluki game needs KalukiRules, got {rules!r}")
    if not isinstance(num_players, int) or isinstance(num_players, bool) or num_players not in PLAYER_COUNTS:
        raise IllegalAction(
            f"Kaluki is played by {PLAYER_COUNTS[0]} to {PLAYER_COUNTS[-1]} players, got {num_players!r}"
        )
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise IllegalAction(f"a game's seed is an int, got {seed!r}")
    dealer = random.Random(f"kaluki/{seed}/dealer").randrange(num_players)
    blank = KalukiState(
        rules=rules,
        num_players=num_players,
        seed=seed,
        hand_number=0,
        dealer=dealer,
        current=-1,
        phase=Phase.HAND_OVER,
        hands=((),) * num_players,
        melds=((),) * num_players,
        stock=(),
        discards=(),
        opened=(False,) * num_players,
        in_play=(True,) * num_players,
        totals=(0,) * num_players,
    )
    return _deal(blank, 0, dealer)


def next_hand(state: KalukiState) -> KalukiState:
    """The next hand's deal, after a hand is over (not the game)."""
    if state.phase is not Phase.HAND_OVER:
        raise IllegalAction(f"the next hand is dealt when a hand is over (phase is {state.phase.value})")
    last = state.results[-1]
    heads_up = sum(state.in_play) == HEADS_UP
    if heads_up and state.rules.two_player_deal is TwoPlayerDeal.WINNER and last.out >= 0:
        dealer = last.out
    else:
        dealer = next_seat(state.dealer, state.in_play)
    return _deal(state, state.hand_number + 1, dealer)


def _hand_scores(state: KalukiState, out: int, values: tuple[int, ...], rummy: bool) -> tuple[int, ...]:
    rules, n = state.rules, state.num_players
    bonus = rules.rummy_bonus if rummy else RummyBonus.NONE

    def boosted(points: int) -> int:
        if bonus is RummyBonus.PLUS10:
            return points + RUMMY_BONUS_PLUS
        return points * 2 if bonus is RummyBonus.DOUBLE else points

    if rules.scoring is Scoring.WINNER_COLLECTS:
        if out < 0:
            return (0,) * n
        collected = boosted(sum(values[s] for s in range(n) if s != out))
        return tuple(collected if s == out else 0 for s in range(n))
    if out < 0:
        return values
    return tuple(0 if s == out or not state.in_play[s] else boosted(values[s]) for s in range(n))


def _lowest(totals: tuple[int, ...], seats) -> tuple[int, ...]:
    seats = list(seats)
    low = min(totals[s] for s in seats)
    return tuple(s for s in seats if totals[s] == low)


def _game_end(state: KalukiState, out: int) -> tuple[tuple[bool, ...], GameResult | None]:
    """Who is still in after the hand, and the game's result if it is over."""
    rules, totals, n = state.rules, state.totals, state.num_players
    playing = [s for s in range(n) if state.in_play[s]]
    at_bound = len(state.results) >= MATCH_HAND_LIMIT
    if rules.game_length is GameLength.HAND:
        return state.in_play, GameResult(totals, (out,) if out >= 0 else ())
    if rules.scoring is Scoring.WINNER_COLLECTS:
        reached = [s for s in range(n) if totals[s] >= rules.target]
        if reached or at_bound:
            high = max(totals)
            return state.in_play, GameResult(totals, tuple(s for s in range(n) if totals[s] == high))
        return state.in_play, None
    if rules.penalty_end is PenaltyEnd.FIRST_TO_LIMIT:
        if at_bound or any(totals[s] >= rules.limit for s in playing):
            return state.in_play, GameResult(totals, _lowest(totals, playing))
        return state.in_play, None
    in_play = tuple(state.in_play[s] and totals[s] <= rules.limit for s in range(n))
    left = [s for s in range(n) if in_play[s]]
    if not left:
        return in_play, GameResult(totals, _lowest(totals, playing))
    if len(left) == 1 or at_bound:
        return in_play, GameResult(totals, _lowest(totals, left))
    return in_play, None


def end_hand(state: KalukiState, end: HandEnd, out: int) -> KalukiState:
    """The hand ends (``out``: the seat that went out, -1 for none): score it and see whether
    the game is over."""
    values = tuple(state.rules.hand_value(h) if state.in_play[s] else 0 for s, h in enumerate(state.hands))
    rummy = out >= 0 and not state.laid[out]
    scores = _hand_scores(state, out, values, rummy)
    penalties = state.rules.scoring is Scoring.PENALTY
    result = HandResult(state.hand_number + 1, end, out, values, scores, rummy, state.hands, penalties)
    state = replace(
        state,
        totals=tuple(a + b for a, b in zip(state.totals, scores)),
        results=(*state.results, result),
        current=-1,
        taken=-1,
        laid_now=False,
    )
    in_play, game = _game_end(state, out)
    phase = Phase.GAME_OVER if game is not None else Phase.HAND_OVER
    return replace(state, in_play=in_play, game_result=game, phase=phase)
