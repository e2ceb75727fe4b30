"""The game: deal, turns, round ends, scoring, games to 150 (RULES.md).

States are immutable (`GameState` is a frozen dataclass of tuples), so a state is its own
exact copy and a failed action cannot leave anything half-changed. Every transition is a
pure function ``apply(state, action) -> new state``. A game is reproducible from its seed
and its sequence of actions: each round's shuffle comes from ``(seed, round_index)``.

Turn structure (Carousel):

* At the start of a turn the engine draws the first card (mandatory, not a decision).
* ``Phase.DRAWN``: the player has drawn and not played. Allowed: a play (unless three
  cards were drawn this turn), knock (hand value <= 5), draw again (fewer than three drawn
  and stock not empty). End turn is allowed only when drawing again is not: declining to
  play means drawing again, and after the third card (or with the stock empty) the turn
  ends.
* ``Phase.PLAYED``: after a play. Allowed: play again, knock, end turn. No more draws.
* ``Phase.FINAL_TURN``: the stock is exhausted; each player in turn gets one more turn
  without drawing. Allowed: play, knock, end turn.
* ``Phase.ROUND_OVER``: call :func:`next_round` to deal the next round.
* ``Phase.GAME_OVER``: ``state.game_result`` holds the totals and standings.

Manipulation Rummy (source 004): no first draw; a player who can play is in
``Phase.MUST_PLAY`` (only plays allowed); one who cannot draws one card at a time until
they can; with the stock empty and no play the turn passes. After a play:
``Phase.PLAYED`` without knocking. These forced draws happen inside a transition, so the
state it makes lists them in ``forced_draws`` (the env reports them from there).

Why every round ends: every turn but the final ones draws at least one card from a finite
stock, and a round has exactly one final turn per player once the stock is empty. Within
a turn there are at most three draws and every play moves at least one card from the
hand to the table. So a round lasts at most ``stock size + players`` turns and each turn
a bounded number of actions. ``MAX_TURNS_PER_ROUND`` is a belt-and-braces cap on top.
A game could in principle repeat zero-point rounds (every hand tied with no knocker), so
``MAX_ROUNDS`` caps a game; it is never reached in practice (see docs/RULES.md).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from functools import cache
from typing import NamedTuple

from carousel_env.core.cards import POINTS, Card, Hand, Table, hand_points, make_deck
from carousel_env.core.errors import IllegalAction
from carousel_env.games.carousel.engine.manipulation import Play, check_play, remaining_hand
from carousel_env.games.carousel.engine.rules import Rules
from carousel_env.games.carousel.engine.scoring import GameResult, RoundEnd, RoundScore, finish_game, score_round

MAX_ROUNDS = 200
MAX_TURNS_PER_ROUND = 500

PlayCheck = Callable[[Table, Hand, Rules], bool]
"""Whether ``hand`` has a legal play on ``table``: ``carousel_env.games.carousel.solver.has_play``. The
engine takes it as an argument so that it never imports the solver built on top of it."""


class Phase(str, Enum):
    DRAWN = "drawn"
    PLAYED = "played"
    FINAL_TURN = "final_turn"
    MUST_PLAY = "must_play"
    ROUND_OVER = "round_over"
    GAME_OVER = "game_over"


class ActionKind(str, Enum):
    PLAY = "play"
    KNOCK = "knock"
    DRAW_AGAIN = "draw_again"
    END_TURN = "end_turn"


# The non-play actions are their kinds; a play is a `Play`.
Action = ActionKind | Play


@dataclass(frozen=True)
class GameState:
    rules: Rules
    seed: int
    round_index: int
    dealer: int
    hands: tuple[Hand, ...]
    table: Table
    stock: tuple[Card, ...]  # the top of the stock is the last element
    current: int
    phase: Phase
    draws_this_turn: int
    turns_this_round: int
    # Once the stock is exhausted: final turns still to be finished, the current one included.
    final_turns_left: int | None
    scores: tuple[int, ...]
    rounds_won: tuple[int, ...]
    round_scores: tuple[RoundScore, ...] = ()
    game_result: GameResult | None = None
    # ``(seat, card)`` of every card that Manipulation Rummy's "draw until able to play"
    # drew during the transition (``apply``, ``new_game``, ``next_round``) that made this
    # state, in order. More than one seat's turn can begin in one transition (a player who
    # draws the stock out passes), so ``draws_this_turn`` alone cannot say who drew what.
    # A record of how the state was reached, not part of the position: not compared.
    forced_draws: tuple[tuple[int, Card], ...] = field(default=(), compare=False)
    # Asked by Manipulation Rummy's "must play if able" (None in Carousel, which never asks).
    can_play: PlayCheck | None = field(default=None, compare=False, repr=False)

    @property
    def num_players(self) -> int:
        return self.rules.num_players

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.GAME_OVER

    def hand_value(self, player: int) -> int:
        return hand_points(self.hands[player])

    @property
    def last_round(self) -> RoundScore | None:
        return self.round_scores[-1] if self.round_scores else None


def _replace(state: GameState, **changes: object) -> GameState:
    """``dataclasses.replace`` for a state, without its per-field bookkeeping (the engine
    replaces a few fields several times per action). ``GameState`` has no
    ``__post_init__``, so copying the fields is all that ``replace`` would do."""
    new = object.__new__(GameState)
    fields = new.__dict__
    fields.update(state.__dict__)
    fields.update(changes)
    return new


# ---------------------------------------------------------------- setup


def _round_rng(seed: int, round_index: int) -> random.Random:
    # String seeds hash with SHA-512 inside `random`, so shuffles are stable across runs
    # and Python versions.
    return random.Random(f"carousel:{seed}:round:{round_index}")


def new_game(rules: Rules, seed: int, can_play: PlayCheck | None = None) -> GameState:
    """A new game with round 1 dealt and the first player's turn begun.

    Manipulation Rummy (``rules.must_play``) needs ``can_play``, the solver's own:
    ``new_game(manipulation_rummy(3), seed, can_play=carousel_env.games.carousel.solver.can_play)``."""
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise IllegalAction(f"seed must be an int, got {seed!r}")
    n = rules.num_players
    dealer = random.Random(f"carousel:{seed}:dealer").randrange(n)
    return _deal(rules, seed, 0, dealer, (0,) * n, (0,) * n, (), can_play)


def _deal(
    rules: Rules,
    seed: int,
    round_index: int,
    dealer: int,
    scores: tuple[int, ...],
    rounds_won: tuple[int, ...],
    round_scores: tuple[RoundScore, ...],
    can_play: PlayCheck | None,
) -> GameState:
    if rules.must_play and can_play is None:
        raise TypeError(
            "Manipulation Rummy's must-play rule needs can_play:"
            " pass can_play=carousel_env.games.carousel.solver.can_play"
        )
    n = rules.num_players
    deck = make_deck(rules.decks, rules.jokers)
    _round_rng(seed, round_index).shuffle(deck)
    hands: list[list[Card]] = [[] for _ in range(n)]
    # One card at a time, starting with the player to the dealer's left.
    for k in range(rules.hand_size * n):
        hands[(dealer + 1 + k) % n].append(deck.pop())
    state = GameState(
        rules=rules,
        seed=seed,
        round_index=round_index,
        dealer=dealer,
        hands=tuple(tuple(sorted(h)) for h in hands),
        table=(),
        stock=tuple(deck),
        current=(dealer + 1) % n,
        phase=Phase.DRAWN,
        draws_this_turn=0,
        turns_this_round=0,
        final_turns_left=None,
        scores=scores,
        rounds_won=rounds_won,
        round_scores=round_scores,
        can_play=can_play,
    )
    return _begin_turn(state)


def deal_round(
    rules: Rules,
    seed: int,
    round_index: int,
    dealer: int,
    scores: tuple[int, ...],
    rounds_won: tuple[int, ...],
    can_play: PlayCheck | None = None,
) -> GameState:
    """Round ``round_index`` of game ``seed`` dealt by ``dealer``, its first turn begun, with
    these totals (Manipulation Rummy needs ``can_play``, as :func:`new_game`). The vector
    env deals its rounds here; the state keeps no earlier round's score."""
    return _deal(rules, seed, round_index, dealer, scores, rounds_won, (), can_play)


def next_round(state: GameState) -> GameState:
    """Deal the next round (the deal passes one seat to the left)."""
    if state.phase is not Phase.ROUND_OVER:
        raise IllegalAction(f"next_round is only allowed when a round is over (phase is {state.phase.value})")
    return _deal(
        state.rules,
        state.seed,
        state.round_index + 1,
        (state.dealer + 1) % state.num_players,
        state.scores,
        state.rounds_won,
        state.round_scores,
        state.can_play,
    )


# ---------------------------------------------------------------- turns


def _draw(state: GameState) -> GameState:
    card = state.stock[-1]
    hands = list(state.hands)
    hands[state.current] = tuple(sorted((*hands[state.current], card)))
    return _replace(state, hands=tuple(hands), stock=state.stock[:-1], draws_this_turn=state.draws_this_turn + 1)


def _can_play(state: GameState) -> bool:
    return state.can_play(state.table, state.hands[state.current], state.rules)


def _begin_turn(state: GameState) -> GameState:
    state = _replace(state, draws_this_turn=0, turns_this_round=state.turns_this_round + 1)
    if state.turns_this_round > MAX_TURNS_PER_ROUND:
        return _end_round(state, RoundEnd.TURN_CAP)
    final = state.final_turns_left is not None
    if not state.rules.must_play:
        if final:
            return _replace(state, phase=Phase.FINAL_TURN)
        return _replace(_draw(state), phase=Phase.DRAWN)
    # Manipulation Rummy: draw one at a time until a play is possible or the stock is empty.
    # Draws already recorded in this transition stay: they are an earlier seat's, who drew
    # the stock out and passed.
    forced = list(state.forced_draws)
    while not _can_play(state):
        if not state.stock:
            phase = Phase.FINAL_TURN if final else Phase.DRAWN
            return _end_turn(_replace(state, phase=phase, forced_draws=tuple(forced)))
        forced.append((state.current, state.stock[-1]))
        state = _draw(state)
    return _replace(state, phase=Phase.MUST_PLAY, forced_draws=tuple(forced))


def _end_turn(state: GameState) -> GameState:
    n = state.num_players
    if state.final_turns_left is not None:
        left = state.final_turns_left - 1
        if left == 0:
            return _end_round(state, RoundEnd.STOCK_EXHAUSTED)
        state = _replace(state, final_turns_left=left)
    elif not state.stock:
        # The stock ran out during this turn: every player, starting with the next one,
        # takes exactly one more turn without drawing.
        state = _replace(state, final_turns_left=n)
    return _begin_turn(_replace(state, current=(state.current + 1) % n))


def _end_round(state: GameState, end: RoundEnd, knocker: int | None = None, went_out: int | None = None) -> GameState:
    values = [hand_points(h) for h in state.hands]
    outcome = round_outcome(
        state.rules, values, state.scores, state.rounds_won, state.round_index, state.dealer, end, knocker, went_out
    )
    state = _replace(
        state,
        scores=outcome.scores,
        rounds_won=outcome.rounds_won,
        round_scores=(*state.round_scores, outcome.result),
        phase=Phase.ROUND_OVER,
    )
    if outcome.game is not None:
        state = _replace(state, phase=Phase.GAME_OVER, game_result=outcome.game)
    return state


class RoundOutcome(NamedTuple):
    """What a round's end makes of a game: the round's score, the new totals and rounds
    won, and the game's result when the round ended it (else None)."""

    result: RoundScore
    scores: tuple[int, ...]
    rounds_won: tuple[int, ...]
    game: GameResult | None


def round_outcome(
    rules: Rules,
    hand_values: list[int],
    scores: tuple[int, ...],
    rounds_won: tuple[int, ...],
    round_index: int,
    dealer: int,
    end: RoundEnd,
    knocker: int | None = None,
    went_out: int | None = None,
) -> RoundOutcome:
    """The end of a round that ends ``end`` with these hand values, given the totals and
    rounds won before it (the vector env, which keeps its games in arrays, ends its rounds
    here too)."""
    result = score_round(hand_values, rules, knocker=knocker, went_out=went_out, end=end)
    scores = tuple(s + p for s, p in zip(scores, result.points))
    rounds_won = tuple(w + (i in result.winners) for i, w in enumerate(rounds_won))
    game = None
    if max(scores) >= rules.target_score or round_index + 1 >= MAX_ROUNDS:
        game = finish_game(scores, rounds_won, dealer, rules)
    return RoundOutcome(result, scores, rounds_won, game)


# ---------------------------------------------------------------- decisions


def allowed(state: GameState) -> frozenset[ActionKind]:
    """The kinds of action allowed now. ``PLAY`` means a play may be proposed; whether
    one exists is the solver's question (any proposal passing the manipulation check)."""
    phase = state.phase
    if phase is Phase.ROUND_OVER or phase is Phase.GAME_OVER:
        return frozenset()
    rules = state.rules
    knock_limit = rules.knock_limit
    # Engine hands hold only cards, so the point table can be indexed directly.
    can_knock = knock_limit is not None and sum(map(POINTS.__getitem__, state.hands[state.current])) <= knock_limit
    max_draws = rules.max_draws
    drawn_out = max_draws is not None and state.draws_this_turn >= max_draws
    return allowed_kinds(phase, drawn_out, bool(state.stock), can_knock)


@cache  # called on every decision and every action, with a handful of distinct arguments
def allowed_kinds(phase: Phase, drawn_out: bool, stock_left: bool, can_knock: bool) -> frozenset[ActionKind]:
    """The rule of :func:`allowed` for a round under way, over its inputs: the phase, the
    turn's draws used up, cards left in the stock, a hand worth the knock (the vector
    kernel reads it as a table)."""
    if phase is Phase.MUST_PLAY:
        return frozenset({ActionKind.PLAY})
    kinds: set[ActionKind] = set()
    if phase is Phase.DRAWN:
        if not drawn_out:
            kinds.add(ActionKind.PLAY)
        if not drawn_out and stock_left:
            kinds.add(ActionKind.DRAW_AGAIN)
        else:
            kinds.add(ActionKind.END_TURN)
    else:  # PLAYED or FINAL_TURN
        kinds.update((ActionKind.PLAY, ActionKind.END_TURN))
    if can_knock:
        kinds.add(ActionKind.KNOCK)
    return frozenset(kinds)


def apply(state: GameState, action: Action, player: int | None = None) -> GameState:
    """The state after ``action`` by the current player (``player``, if given, must be the
    current player). Raises :class:`IllegalAction` or :class:`IllegalPlay` and changes
    nothing when the action is not allowed."""
    if state.phase in (Phase.ROUND_OVER, Phase.GAME_OVER):
        raise IllegalAction(f"no action is allowed: the {'game' if state.is_over else 'round'} is over")
    if player is not None and player != state.current:
        raise IllegalAction(f"it is player {state.current}'s turn, not player {player}'s")
    kind = ActionKind.PLAY if isinstance(action, Play) else action
    if not isinstance(kind, ActionKind):
        raise IllegalAction(f"not an action: {action!r}")
    allowed_now = allowed(state)
    if kind not in allowed_now:
        names = ", ".join(sorted(k.value for k in allowed_now)) or "nothing"
        raise IllegalAction(f"{kind.value} is not allowed now (phase {state.phase.value}; allowed: {names})")
    if state.forced_draws:  # the previous transition's record: this one starts its own
        state = _replace(state, forced_draws=())

    if kind is ActionKind.DRAW_AGAIN:
        return _draw(state)
    if kind is ActionKind.END_TURN:
        return _end_turn(state)
    if kind is ActionKind.KNOCK:
        return _end_round(state, RoundEnd.KNOCK, knocker=state.current)
    assert isinstance(action, Play)
    hand = state.hands[state.current]
    # The table and hand are the engine's own; the play, the caller's, is checked in full.
    check_play(state.table, hand, action, state.rules, check_position=False)
    hands = list(state.hands)
    hands[state.current] = remaining_hand(hand, action)
    phase = Phase.FINAL_TURN if state.phase is Phase.FINAL_TURN else Phase.PLAYED
    state = _replace(state, hands=tuple(hands), table=action.table, phase=phase)
    if not hands[state.current]:
        return _end_round(state, RoundEnd.GOING_OUT, went_out=state.current)
    return state


def card_count(state: GameState) -> int:
    """Cards in hands, on the table and in the stock (conservation checks)."""
    return sum(len(h) for h in state.hands) + sum(len(m) for m in state.table) + len(state.stock)
