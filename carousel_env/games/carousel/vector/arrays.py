"""The vector env's games as arrays: :class:`GameArrays` holds ``N`` games' positions (what
the compiled turns in ``kernel`` read and write) and converts one game to and from the
engine's :class:`~carousel_env.games.carousel.engine.game.GameState`."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from carousel_env.games.carousel.engine.game import GameState
from carousel_env.games.carousel.engine.rules import Rules
from carousel_env.games.carousel.engine.scoring import RoundScore
from carousel_env.games.carousel.solver.answer import packed_size
from carousel_env.games.carousel.vector.kernel import (
    CURRENT,
    DEALER,
    DRAWS,
    FINAL_LEFT,
    HAS_LAST,
    NO_END,
    PHASE_CODES,
    ROUND_INDEX,
    TURNS,
)


class GameArrays(NamedTuple):
    """``N`` games of ``P`` seats: hands (sorted, ``hand_len`` used), the table (units in
    meld order, ``meld_len`` per meld), the stock (top last), turn state, totals, and the
    current decision (the solver's packed answer, its slots' offsets, the mask). One typed
    value: the compiled turns and observations take it whole."""

    hands: np.ndarray  # (N, P, deck) card codes
    hand_len: np.ndarray  # (N, P)
    units: np.ndarray  # (N, deck)
    n_units: np.ndarray  # (N,)
    meld_len: np.ndarray  # (N, deck)
    n_melds: np.ndarray  # (N,)
    stock: np.ndarray  # (N, deck)
    stock_len: np.ndarray  # (N,)
    turn: np.ndarray  # (N, 4): current, draws this turn, turns this round, final turns left (-1: none)
    phase: np.ndarray  # (N,) index into PHASE_CODES
    round_end: np.ndarray  # (N,) kernel.END_CODES index: how the round ended (0: it goes on)
    who: np.ndarray  # (N,) the knocker or the player who went out (-1: none)
    scores: np.ndarray  # (N, P)
    rounds_won: np.ndarray  # (N, P)
    last_points: np.ndarray  # (N, P) the last round's points
    board: np.ndarray  # (N, 3): dealer, round index, has a last round
    packed: np.ndarray  # (N, packed_size(K))
    slot_at: np.ndarray  # (N, K)
    mask: np.ndarray  # (N, 3 + K) int8
    auto: np.ndarray  # (N,) forced actions taken in the last kernel call

    @classmethod
    def empty(cls, num_games: int, rules: Rules, k: int) -> GameArrays:
        n, p, d = num_games, rules.num_players, rules.deck_size

        def ints(*shape: int) -> np.ndarray:
            return np.zeros(shape, np.int64)

        return cls(
            hands=ints(n, p, d),
            hand_len=ints(n, p),
            units=ints(n, d),
            n_units=ints(n),
            meld_len=ints(n, d),
            n_melds=ints(n),
            stock=ints(n, d),
            stock_len=ints(n),
            turn=ints(n, 4),
            phase=ints(n),
            round_end=ints(n),
            who=ints(n),
            scores=ints(n, p),
            rounds_won=ints(n, p),
            last_points=ints(n, p),
            board=ints(n, 3),
            packed=ints(n, packed_size(k)),
            slot_at=ints(n, k),
            mask=np.zeros((n, 3 + k), np.int8),
            auto=ints(n),
        )

    def write(self, g: int, state: GameState, last: RoundScore | None) -> None:
        """Game ``g`` becomes ``state`` (a Carousel state within a round); ``last``: the
        round before it, whose points the observation shows."""
        for p, hand in enumerate(state.hands):
            self.hands[g, p, : len(hand)] = hand
            self.hand_len[g, p] = len(hand)
        units = [u for meld in state.table for u in meld]
        self.units[g, : len(units)] = units
        self.n_units[g] = len(units)
        self.meld_len[g, : len(state.table)] = [len(m) for m in state.table]
        self.n_melds[g] = len(state.table)
        self.stock[g, : len(state.stock)] = state.stock
        self.stock_len[g] = len(state.stock)
        final = -1 if state.final_turns_left is None else state.final_turns_left
        self.turn[g, [CURRENT, DRAWS, TURNS, FINAL_LEFT]] = (
            state.current,
            state.draws_this_turn,
            state.turns_this_round,
            final,
        )
        self.phase[g] = PHASE_CODES.index(state.phase)
        self.round_end[g] = NO_END
        self.who[g] = -1
        self.scores[g] = state.scores
        self.rounds_won[g] = state.rounds_won
        self.last_points[g] = 0 if last is None else last.points
        self.board[g, [DEALER, ROUND_INDEX, HAS_LAST]] = (state.dealer, state.round_index, last is not None)

    def hand(self, g: int, p: int) -> tuple[int, ...]:
        return tuple(self.hands[g, p, : self.hand_len[g, p]].tolist())

    def table(self, g: int) -> tuple[tuple[int, ...], ...]:
        units = self.units[g, : self.n_units[g]].tolist()
        melds, at = [], 0
        for size in self.meld_len[g, : self.n_melds[g]].tolist():
            melds.append(tuple(units[at : at + size]))
            at += size
        return tuple(melds)

    def read(self, g: int, rules: Rules, seed: int, round_scores: tuple[RoundScore, ...]) -> GameState:
        """Game ``g`` as an engine state (within a round; ``round_scores``: the rounds before)."""
        final = int(self.turn[g, FINAL_LEFT])
        return GameState(
            rules=rules,
            seed=seed,
            round_index=int(self.board[g, ROUND_INDEX]),
            dealer=int(self.board[g, DEALER]),
            hands=tuple(self.hand(g, p) for p in range(rules.num_players)),
            table=self.table(g),
            stock=tuple(self.stock[g, : self.stock_len[g]].tolist()),
            current=int(self.turn[g, CURRENT]),
            phase=PHASE_CODES[self.phase[g]],
            draws_this_turn=int(self.turn[g, DRAWS]),
            turns_this_round=int(self.turn[g, TURNS]),
            final_turns_left=None if final < 0 else final,
            scores=tuple(self.scores[g].tolist()),
            rounds_won=tuple(self.rounds_won[g].tolist()),
            round_scores=round_scores,
        )
