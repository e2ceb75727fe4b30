"""Carioca as a vector environment: ``N`` games stepped together, every row's acting seat
batched, over the compiled turns (:mod:`carousel_env.games.carioca.kernel`) and the family's
shared driver (:mod:`carousel_env.envkit.vector`).

.. code-block:: python

    import numpy as np
    from carousel_env.games.carioca.vector import CariocaVectorEnv

    venv = CariocaVectorEnv(num_envs=64, num_players=4)
    step = venv.reset(seed=0)                       # games seeded 0..63
    rng = np.random.default_rng(0)
    for _ in range(1000):
        legal = step.action_mask.astype(bool)        # (N, 1645 + K)
        step = venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in legal]))

Actions, observations, masks, rewards and the configuration are the AEC env's
(:mod:`carousel_env.games.carioca.env`): ``to_play[i]`` is the seat whose observation and
mask row ``i`` holds, decisions with one legal action are taken by the env, ``rewards[i, s]``
is what seat ``s`` earned in the step. Seeds, ``WAIT``, ``reset_rows`` and autoreset are the
shared driver's: with autoreset the row of an episode that ended already shows the next
episode, and ``info.finished`` holds the ended game with every seat's final observation.
``policy_moves`` gives the actions of seats played by policies
(:mod:`carousel_env.games.carioca.policies`). ``tests/games/carioca/test_carioca_vector.py``
requires both envs to agree at every step of seeded games.

How: draws, discards and lay-offs run compiled, with the masks, the distance to the contract
and the observations; the engine deals, lists the going-down arrangements where the contract
is held, and makes the moves that go down or end a round (a few times a round, in Python).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from carousel_env.core import compiled
from carousel_env.core.cards import JOKER, is_table_joker, joker_as
from carousel_env.envkit.engine_vector import EngineMoveDriver
from carousel_env.envkit.vector import WAIT
from carousel_env.games.carioca import distance, kernel, solver
from carousel_env.games.carioca.config import CariocaEnvConfig, CariocaEnvConfigError
from carousel_env.games.carioca.engine import CariocaState, GameResult, Phase, RoundResult, apply, new_game, next_round
from carousel_env.games.carioca.env import (
    INFO_KEYS,
    NUM_FIXED_ACTIONS,
    CariocaAction,
    action_name,
    engine_move,
    episode_ends,
    round_rewards,
)
from carousel_env.games.carioca.melds import Meld, MeldKind, trio_joker
from carousel_env.games.carioca.observation import ObservationLayout, encode, layout
from carousel_env.games.carioca.rules import CARD_KINDS, CONTRACTS, card_at, hand_points

__all__ = ["WAIT", "CariocaFinishedGame", "CariocaVectorEnv", "CariocaVectorInfo", "CariocaVectorStep"]


class CariocaFinishedGame(NamedTuple):
    """An episode that ended in a step: its row, game seed, rounds, scores, the game's result
    (None when the episode was a round) and every seat's final observation."""

    env: int
    seed: int
    rounds: tuple[RoundResult, ...]
    scores: tuple[int, ...]
    result: GameResult | None
    observations: np.ndarray  # (P, size) float32


class CariocaVectorInfo(NamedTuple):
    """Per row, the AEC env's infos (``INFO_KEYS``), the rows' game seeds and the episodes
    that ended."""

    num_auto_actions: np.ndarray  # (N,)
    rounds_ended: np.ndarray  # (N,)
    round_penalties: np.ndarray  # (N, P)
    game_over: np.ndarray  # (N,) bool
    seeds: np.ndarray  # (N,)
    finished: tuple[CariocaFinishedGame, ...]


class CariocaVectorStep(NamedTuple):
    observation: np.ndarray  # (N, size) float32: the acting seat's observation
    action_mask: np.ndarray  # (N, 1645 + K) int8
    to_play: np.ndarray  # (N,)
    rewards: np.ndarray  # (N, P) float64
    terminated: np.ndarray  # (N,) bool
    info: CariocaVectorInfo


assert CariocaVectorInfo._fields[:4] == INFO_KEYS  # the AEC env's info keys, in its order


def _cards_of(counts: np.ndarray) -> tuple[int, ...]:
    """The sorted cards of a count vector."""
    return tuple(c for c in range(CARD_KINDS) for _ in range(int(counts[c])))


def final_observations(state: CariocaState, lay: ObservationLayout) -> np.ndarray:
    """Every seat's view of a finished ``state``, as the AEC env shows it."""
    return np.stack(
        [
            encode(state, s, (), solver.distance(state.hands[s], state.contract), False, lay)
            for s in range(state.num_players)
        ]
    )


class CariocaVectorEnv(EngineMoveDriver):
    """``num_envs`` Carioca games stepped together (see the module docstring)."""

    kernel = kernel
    info_keys = INFO_KEYS
    info_type, step_type, finished_type = CariocaVectorInfo, CariocaVectorStep, CariocaFinishedGame
    first_suggestion = CariocaAction.FIRST_GO_DOWN
    action_name = staticmethod(action_name)

    def __init__(self, num_envs: int, autoreset: bool = True, **config: object) -> None:
        super().__init__(num_envs, autoreset, CariocaEnvConfig.from_kwargs(**config), CariocaEnvConfigError)
        self.num_players = self.config.num_players
        self.k = self.config.k_go_down
        self.observation_layout: ObservationLayout = layout(self.k)
        self.num_actions = NUM_FIXED_ACTIONS + self.k
        self.arrays = kernel.CariocaArrays.empty(num_envs, self.num_players, self.num_actions)
        k = self.k
        # The going-down suggestions as arrays: their count, jokers, value kept and cards laid.
        self._slots = (
            np.zeros(num_envs, np.int64),
            np.zeros((num_envs, k), np.int64),
            np.zeros((num_envs, k), np.int64),
            np.zeros((num_envs, k, CARD_KINDS), np.int64),
        )
        self._rounds: list[list[RoundResult]] = [[] for _ in range(num_envs)]
        self._obs = np.zeros((num_envs, self.observation_layout.size), np.float32)

    # ------------------------------------------------------------ reading and writing rows

    def _meld(self, g: int, seat: int, m: int) -> Meld:
        a = self.arrays
        if a.kind[g, seat, m] == distance.TRIO:
            rank = int(a.key[g, seat, m]) + 1
            cards = _cards_of(a.meld_cards[g, seat, m])
            real = tuple(c for c in cards if c != JOKER)
            return Meld(MeldKind.TRIO, real + (trio_joker(rank),) * (len(cards) - len(real)))
        suit, low, high = int(a.key[g, seat, m]), int(a.low[g, seat, m]), int(a.high[g, seat, m])
        jokers = int(a.joker_cells[g, seat, m])
        units = tuple(
            joker_as(card_at(suit, cell)) if jokers >> cell & 1 else card_at(suit, cell)
            for cell in range(low, high + 1)
        )
        return Meld(MeldKind.ESCALERA, units, low)

    def game_state(self, g: int) -> CariocaState:
        """Row ``g``'s game as an engine state (for tests, policies and debugging). Trios list
        their real cards sorted, then their jokers; lists of cards taken and thrown, sorted."""
        if self._final[g] is not None:
            return self._final[g]
        a, n = self.arrays, self.num_players
        return CariocaState(
            num_players=n,
            round=int(a.round[g]),
            dealer=int(a.dealer[g]),
            current=int(a.current[g]),
            phase=kernel.PHASES[int(a.phase[g])],
            hands=tuple(_cards_of(a.hands[g, s]) for s in range(n)),
            stock=tuple(int(c) for c in a.stock[g, : a.stock_len[g]]),
            discards=tuple(int(c) for c in a.pile[g, : a.pile_len[g]]),
            melds=tuple(tuple(self._meld(g, s, m) for m in range(a.melds[g, s])) for s in range(n)),
            down=tuple(bool(a.down[g, s]) for s in range(n)),
            went_down_now=bool(a.went_down[g]),
            reshuffled=bool(a.reshuffled[g]),
            taken=tuple(_cards_of(a.taken[g, s]) for s in range(n)),
            thrown=tuple(_cards_of(a.thrown[g, s]) for s in range(n)),
            scores=tuple(int(x) for x in a.scores[g]),
            rounds=tuple(self._rounds[g]),
            seed=int(self._seeds[g]),
        )

    def _write(self, g: int, state: CariocaState) -> None:
        """Row ``g`` becomes ``state``."""
        a = self.arrays
        self._final[g] = None
        a.hands[g] = 0
        a.taken[g] = 0
        a.thrown[g] = 0
        for s in range(self.num_players):
            for card in state.hands[s]:
                a.hands[g, s, card] += 1
            for card in state.taken[s]:
                a.taken[g, s, card] += 1
            for card in state.thrown[s]:
                a.thrown[g, s, card] += 1
            a.melds[g, s] = len(state.melds[s])
            for m, meld in enumerate(state.melds[s]):
                self._write_meld(g, s, m, meld)
        a.stock_len[g] = len(state.stock)
        a.stock[g, : len(state.stock)] = state.stock
        a.pile_len[g] = len(state.discards)
        a.pile[g, : len(state.discards)] = state.discards
        a.down[g] = state.down
        a.went_down[g] = state.went_down_now
        a.reshuffled[g] = state.reshuffled
        a.phase[g] = kernel.PHASES.index(state.phase)
        a.current[g], a.dealer[g], a.round[g] = state.current, state.dealer, state.round
        a.scores[g] = state.scores
        self._rounds[g] = list(state.rounds)

    def _write_meld(self, g: int, s: int, m: int, meld: Meld) -> None:
        a = self.arrays
        trio = meld.kind is MeldKind.TRIO
        a.kind[g, s, m] = distance.TRIO if trio else distance.ESCALERA
        a.key[g, s, m] = meld.rank - 1 if trio else meld.suit
        a.low[g, s, m], a.high[g, s, m] = (0, 0) if trio else (meld.low, meld.high)
        a.length[g, s, m] = len(meld.units)
        a.jokers[g, s, m] = meld.jokers
        a.joker_cells[g, s, m] = (
            0 if trio else sum(1 << (meld.low + i) for i, u in enumerate(meld.units) if is_table_joker(u))
        )
        a.meld_cards[g, s, m] = 0
        for card in meld.cards():
            a.meld_cards[g, s, m, card] += 1

    # ------------------------------------------------------------ the driver's hooks

    def _new_game(self, seed: int) -> CariocaState:
        return new_game(self.num_players, seed)

    def _step_kernel(self, actions: np.ndarray) -> None:
        compiled.first_call(kernel.step_games, self.arrays, actions, self.num_players)

    def _engine_apply(self, state: CariocaState, action: int, suggestions: tuple) -> CariocaState:
        return apply(state, engine_move(state, action, suggestions))

    def _unit_result(self, g: int, state: CariocaState) -> RoundResult:
        return state.last_round

    def _unit_rewards(self, state: CariocaState) -> list[float]:
        return round_rewards(self.config, state.last_round, state)

    def _unit_points(self, result: RoundResult) -> tuple[int, ...]:
        return result.penalties

    def _episode_ends(self, state: CariocaState) -> bool:
        return episode_ends(self.config, state)

    def _game_over(self, state: CariocaState) -> bool:
        return state.phase is Phase.GAME_OVER

    def _next_unit(self, state: CariocaState) -> CariocaState:
        return next_round(state)

    def _units_of(self, g: int, state: CariocaState) -> tuple[RoundResult, ...]:
        return state.rounds

    def _list_suggestions(self, rows: list[int]) -> None:
        """The solver's going-down arrangements in ``rows`` where the contract is held (the
        slots and their mask); the other rows keep theirs."""
        a = self.arrays
        counts, jokers, kept, laid = self._slots
        for g in rows:
            counts[g] = 0
            self._suggestions[g] = ()
            if not a.can_go_down[g] or self._over[g]:
                continue
            seat = int(a.current[g])
            hand = _cards_of(a.hands[g, seat])
            found = tuple(solver.arrangements(hand, CONTRACTS[int(a.round[g])], self.k))
            self._suggestions[g] = found
            counts[g] = len(found)
            a.mask[g, CariocaAction.FIRST_GO_DOWN : CariocaAction.FIRST_GO_DOWN + len(found)] = 1
            value = hand_points(hand)
            for s, arrangement in enumerate(found):
                offer = solver.offer_of(arrangement, value)
                jokers[g, s], kept[g, s] = offer.jokers, offer.kept_value
                laid[g, s] = 0
                for c in offer.laid:
                    laid[g, s, c] += 1

    def _encode_rows(self) -> None:
        compiled.first_call(kernel.encode_rows, self._obs, self.arrays, self.num_players, self._slots)

    def _final_observations(self, state: CariocaState) -> np.ndarray:
        return final_observations(state, self.observation_layout)
