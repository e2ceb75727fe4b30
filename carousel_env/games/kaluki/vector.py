"""Kaluki (and plain Rummy) as a vector environment: ``N`` games stepped together, every
row's acting seat batched, over the family's shared driver (:mod:`carousel_env.envkit.engine_vector`).

.. code-block:: python

    import numpy as np
    from carousel_env.games.kaluki.vector import KalukiVectorEnv

    venv = KalukiVectorEnv(num_envs=16, num_players=4, preset="book")
    step = venv.reset(seed=0)                       # games seeded 0..15
    rng = np.random.default_rng(0)
    for _ in range(1000):
        legal = step.action_mask.astype(bool)        # (N, 55 + K)
        step = venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in legal]))

Actions, observations, masks, rewards and the configuration are the AEC env's
(:mod:`carousel_env.games.kaluki.env`): ``to_play[i]`` is the seat whose observation and
mask row ``i`` holds, decisions with one legal action are taken by the env, ``rewards[i, s]``
is what seat ``s`` earned in the step. Seeds, ``WAIT``, ``reset_rows`` and autoreset are the
shared driver's: with autoreset the row of an episode that ended already shows the next
episode, and ``info.finished`` holds the ended game with every seat's final observation.
``policy_moves`` gives the actions of seats played by policies
(:mod:`carousel_env.games.kaluki.policies`). ``tests/games/kaluki/test_kaluki_vector.py``
requires both envs to agree at every step of seeded games.

Two more ways to fill and play rows, for searches (``search@N``'s playouts):

* ``load(rows, states)`` puts engine states (positions within a hand: a search's deals of the
  unseen cards, recorded positions) in rows, which then wait at their next decision;
* ``play_scripted("simple" | "wary", rows)`` plays every seat of those rows as the scripted
  player to the end of each row's episode, inside the kernel
  (:mod:`carousel_env.games.kaluki.kernel_players`), and returns what each seat earned: the
  engine's games (``tests/games/kaluki/test_kaluki_scripted.py``) at compiled speed.

How: the draws, takes, discards and plays, the masks, the offers (from the compiled search)
and the observations (the final views too) are compiled (:mod:`carousel_env.games.kaluki.kernel_rows`,
:mod:`carousel_env.games.kaluki.kernel_plays`, :mod:`carousel_env.games.kaluki.kernel_observation`).
The engine makes the moves that end a hand, a restock and the deals, on the row's state; the
few decisions the kernel leaves (offers the solver checks against the engine's order of moves,
or that the compiled search does not answer) are made as the AEC env makes them, and their
offers by the engine.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from carousel_env.core import compiled
from carousel_env.core.cards import JOKER, card_str, is_table_joker, make_deck
from carousel_env.core.errors import IllegalAction
from carousel_env.envkit.engine_vector import EngineMoveDriver
from carousel_env.envkit.policies import policy_action
from carousel_env.envkit.vector import SKIP, WAIT, check_row
from carousel_env.games.kaluki import kernel_observation, kernel_players, kernel_rows
from carousel_env.games.kaluki import kernel_table as kt
from carousel_env.games.kaluki.config import KalukiEnvConfig, KalukiEnvConfigError
from carousel_env.games.kaluki.engine import new_game, next_hand
from carousel_env.games.kaluki.env import (
    INFO_KEYS,
    NUM_FIXED_ACTIONS,
    KalukiAction,
    action_name,
    apply_moves,
    decision,
    engine_moves,
    episode_ends,
    hand_rewards,
    offers,
)
from carousel_env.games.kaluki.kernel_solver import play_at, table_rows
from carousel_env.games.kaluki.melds import Meld, MeldKind
from carousel_env.games.kaluki.observation import ObservationLayout, encode, layout
from carousel_env.games.kaluki.priors import PRIORS, ScriptedPrior
from carousel_env.games.kaluki.rules import Scoring
from carousel_env.games.kaluki.state import GameResult, HandResult, KalukiState, Phase

__all__ = ["WAIT", "KalukiFinishedGame", "KalukiVectorEnv", "KalukiVectorInfo", "KalukiVectorStep"]


# A scripted row's steps are its decisions the kernel leaves: a few a hand, and a hand ends.
MAX_SCRIPTED_STEPS = 10_000


class KalukiFinishedGame(NamedTuple):
    """An episode that ended in a step: its row, game seed, hands, the totals, the game's
    result (None when the episode was a hand of a match), every seat's final observation and
    the scoring (under ``penalty`` the lowest total is best)."""

    env: int
    seed: int
    hands: tuple[HandResult, ...]
    scores: tuple[int, ...]
    result: GameResult | None
    observations: np.ndarray  # (P, size) float32
    scoring: Scoring


class KalukiVectorInfo(NamedTuple):
    """Per row, the AEC env's infos (``INFO_KEYS``), the rows' game seeds and the episodes
    that ended."""

    num_auto_actions: np.ndarray  # (N,)
    hands_ended: np.ndarray  # (N,)
    hand_points: np.ndarray  # (N, P)
    game_over: np.ndarray  # (N,) bool
    seeds: np.ndarray  # (N,)
    finished: tuple[KalukiFinishedGame, ...]


class KalukiVectorStep(NamedTuple):
    observation: np.ndarray  # (N, size) float32: the acting seat's observation
    action_mask: np.ndarray  # (N, 55 + K) int8
    to_play: np.ndarray  # (N,)
    rewards: np.ndarray  # (N, P) float64
    terminated: np.ndarray  # (N,) bool
    info: KalukiVectorInfo


assert KalukiVectorInfo._fields[:4] == INFO_KEYS  # the AEC env's info keys, in its order


def write_arrays(a: kernel_rows.KalukiArrays, g: int, state: KalukiState) -> None:
    """Row ``g`` of ``a`` holds ``state`` (but the records of finished hands, which the env keeps)."""
    for s in range(state.num_players):
        a.hands[g, s] = _counts(state.hands[s])
        a.hand_n[g, s] = len(state.hands[s])
        a.known[g, s] = _counts(state.known[s])
        a.seat_melds[g, s] = len(state.melds[s])
    rows = table_rows(state)
    a.table_n[g] = len(rows)
    a.table[g, : len(rows)] = rows
    a.stock_n[g], a.discards_n[g] = len(state.stock), len(state.discards)
    a.stock[g, : len(state.stock)] = state.stock
    a.discards[g, : len(state.discards)] = state.discards
    a.opened[g], a.in_play[g], a.totals[g], a.laid[g] = state.opened, state.in_play, state.totals, state.laid
    a.dealer[g], a.current[g] = state.dealer, state.current
    a.phase[g] = kernel_rows.PHASES.index(state.phase)
    a.restocks_used[g], a.pile_takes[g], a.taken[g] = state.restocks_used, state.pile_takes, state.taken
    a.laid_now[g] = state.laid_now


def _cards_in(state: KalukiState) -> np.ndarray:
    """(53,) how many of each card ``state`` holds: the hands, the melds (a joker as a joker),
    the pile and the stock."""
    melds = [JOKER if is_table_joker(u) else u for seat in state.melds for meld in seat for u in meld.units]
    return _counts([*state.stock, *state.discards, *(c for hand in state.hands for c in hand), *melds])


def _counts(cards) -> np.ndarray:
    return np.bincount(np.asarray(cards, np.int64), minlength=JOKER + 1)


def _cards(counts: np.ndarray) -> tuple[int, ...]:
    return tuple(int(c) for c in np.repeat(np.arange(JOKER + 1), counts))


class _Row(NamedTuple):
    """What a row's engine state holds that its arrays do not: its seed, hand number, records
    of finished hands and the game's result."""

    seed: int
    hand_number: int
    results: tuple[HandResult, ...]
    game_result: GameResult | None


def _meld(row: np.ndarray) -> Meld:
    """A meld of the kernel's table rows (kernel_table.MELD_COLUMNS) as the engine's."""
    units = tuple(int(u) for u in row[kt.UNITS : kt.UNITS + row[kt.SIZE]])
    if row[kt.KIND] == kt.RUN_KIND:
        return Meld(MeldKind.RUN, units, int(row[kt.LOW]))
    return Meld(MeldKind.SET, units)


class KalukiVectorEnv(EngineMoveDriver):
    """``num_envs`` Kaluki games stepped together (see the module docstring)."""

    kernel = kernel_rows
    info_keys = INFO_KEYS
    info_type, step_type, finished_type = KalukiVectorInfo, KalukiVectorStep, KalukiFinishedGame
    first_suggestion = KalukiAction.FIRST_OFFER
    action_name = staticmethod(action_name)

    def __init__(self, num_envs: int, autoreset: bool = True, **config: object) -> None:
        super().__init__(num_envs, autoreset, KalukiEnvConfig.from_kwargs(**config), KalukiEnvConfigError)
        rules = self.rules = self.config.rules
        self.num_players = self.config.num_players
        self.k = self.config.k_plays
        lay = layout(self.k)
        self.observation_layout: ObservationLayout = lay
        self.num_actions = NUM_FIXED_ACTIONS + self.k
        self.arrays = kernel_rows.KalukiArrays.empty(num_envs, self.num_players, self.num_actions, self.k)
        self._finals = kernel_rows.KalukiArrays.empty(1, self.num_players, self.num_actions, self.k)  # a finished hand
        params = kernel_rows.params_of(rules, self.k)
        # The kernel's arguments, as its functions unpack them.
        self._turn_rules = (
            params.discard_take,
            params.open_before_lay_off,
            params.lay_off_after_own_meld,
            params.reuse_now,
        )
        self._search = (
            params.opening,
            params.go_out_by_discard,
            params.search_rules,
            params.card_values,
            params.joker_value,
            self.k,
        )
        self._view = (
            rules.opening,
            rules.restocks,
            rules.ace_low_runs,
            rules.ace_high_runs,
            params.card_values,
            self.k,
        )
        self._at = np.array([start for start, _ in lay.offsets.values()], np.int64)
        self._slot_at = np.array([start for start, _ in lay.slot_offsets.values()], np.int64)
        self._obs = np.zeros((num_envs, lay.size), np.float32)
        self._rows_of: list[_Row | None] = [None] * num_envs
        self._scripted: str | None = None  # the player of every seat in the kernel (play_scripted)

    # ------------------------------------------------------------ reading and writing rows

    def game_state(self, g: int) -> KalukiState:
        """Row ``g``'s game as an engine state (a finished row's last state, while it waits)."""
        if self._final[g] is not None:
            return self._final[g]
        row = self._rows_of[g]
        if row is None:
            raise ValueError(f"game {g} has not been dealt (reset_rows deals it)")
        a, n = self.arrays, self.num_players
        return KalukiState(
            rules=self.rules,
            num_players=n,
            seed=row.seed,
            hand_number=row.hand_number,
            dealer=int(a.dealer[g]),
            current=int(a.current[g]),
            phase=kernel_rows.PHASES[int(a.phase[g])],
            hands=tuple(_cards(a.hands[g, s]) for s in range(n)),
            melds=self._melds(g),
            stock=tuple(int(c) for c in a.stock[g, : a.stock_n[g]]),
            discards=tuple(int(c) for c in a.discards[g, : a.discards_n[g]]),
            opened=tuple(bool(x) for x in a.opened[g]),
            in_play=tuple(bool(x) for x in a.in_play[g]),
            totals=tuple(int(x) for x in a.totals[g]),
            restocks_used=int(a.restocks_used[g]),
            pile_takes=int(a.pile_takes[g]),
            taken=int(a.taken[g]),
            laid_now=bool(a.laid_now[g]),
            laid=tuple(bool(x) for x in a.laid[g]),
            known=tuple(_cards(a.known[g, s]) for s in range(n)),
            results=row.results,
            game_result=row.game_result,
        )

    def load(self, rows: Sequence[int], states: Sequence[KalukiState]) -> KalukiVectorStep:
        """Row ``rows[j]`` becomes the engine state ``states[j]`` (a position within a hand of
        this env's rules and table size, whose cards are the pack's or some of them: a search's
        determinized position, a recorded one, one made by hand); it then takes its forced
        decisions, as after a deal, and waits for its next real one (or ends its episode there,
        with its rewards). The other rows do not move. The row's later
        hands and games are dealt from its state's seed. Bad rows or states raise before any row
        changes."""
        pack = _counts(make_deck(self.rules.decks, self.rules.jokers))

        def checked(g: int, state: KalukiState) -> KalukiState:
            if not isinstance(state, KalukiState):
                raise TypeError(f"load: row {g}: a state must be a KalukiState, got {type(state).__name__}")
            if state.rules != self.rules:
                raise ValueError(f"load: row {g}: the state's rules {state.rules} are not this env's {self.rules}")
            if state.num_players != self.num_players:
                players = f"{state.num_players} players, this env {self.num_players}"
                raise ValueError(f"load: row {g}: the state has {players}")
            if state.over:
                raise ValueError(f"load: row {g}: the state's hand is over (phase {state.phase.value})")
            extra = np.flatnonzero(_cards_in(state) > pack)
            if len(extra):
                cards = " ".join(card_str(int(c)) for c in extra)
                raise ValueError(f"load: row {g}: the state holds cards beyond the pack's: {cards}")
            return state

        return self._load(rows, states, checked, self._write)

    def play_scripted(
        self, name: str, rows: Sequence[int] | None = None, max_steps: int = MAX_SCRIPTED_STEPS
    ) -> np.ndarray:
        """Play every seat of ``rows`` (None: every row still playing) as the scripted player
        ``name`` (``simple`` or ``wary``) to the end of the row's episode, the other rows
        waiting; (N, P) what each seat earned, the steps' rewards summed. The players' moves are
        made inside the kernel (:mod:`~carousel_env.games.kaluki.kernel_players`), those at the
        decisions the kernel leaves from the observation
        (:class:`~carousel_env.games.kaluki.priors.ScriptedPrior`): the same games as
        :mod:`~carousel_env.games.kaluki.players` plays, at compiled speed (a search's playouts).
        Needs ``autoreset=False``, so that each row stops at its episode's end."""
        if name not in PRIORS:
            raise ValueError(f"play_scripted: name must be one of {', '.join(PRIORS)}, got {name!r}")
        if self.autoreset:
            raise ValueError("play_scripted: the env must not autoreset (each row stops at its episode's end)")
        if not self._ready:
            raise IllegalAction("call reset() or load() before play_scripted()")
        chosen = range(self.num_envs) if rows is None else [check_row(r, self.num_envs, "play_scripted") for r in rows]
        playing = np.zeros(self.num_envs, np.bool_)
        playing[list(chosen)] = True
        playing &= ~self._over
        prior = ScriptedPrior(name, self.rules, self.k)
        earned = np.zeros((self.num_envs, self.num_players))
        moves = np.full(self.num_envs, WAIT, np.int64)
        moves[playing] = prior.actions(self._obs[playing], self.arrays.mask[playing])
        self._scripted = name
        try:
            for _ in range(max_steps):
                if not playing.any():
                    return earned
                step = self.step(moves)
                earned += step.rewards
                playing &= ~step.terminated
                moves[:] = WAIT
                moves[playing] = prior.actions(step.observation[playing], step.action_mask[playing])
        finally:
            self._scripted = None
        raise RuntimeError(f"play_scripted: {int(playing.sum())} rows still playing after {max_steps} steps")

    def _melds(self, g: int) -> tuple[tuple[Meld, ...], ...]:
        """Row ``g``'s melds on the table, seat by seat (its rows are in that order)."""
        a = self.arrays
        rows = a.table[g, : a.table_n[g]]
        return tuple(tuple(_meld(row) for row in rows[rows[:, kt.SEAT] == seat]) for seat in range(self.num_players))

    def _write(self, g: int, state: KalukiState) -> None:
        """Row ``g`` becomes ``state``."""
        self._final[g] = None
        self._rows_of[g] = _Row(state.seed, state.hand_number, state.results, state.game_result)
        write_arrays(self.arrays, g, state)

    # ------------------------------------------------------------ the driver's hooks

    def _new_game(self, seed: int) -> KalukiState:
        return new_game(self.rules, self.num_players, seed)

    def _step_kernel(self, actions: np.ndarray) -> None:
        scripted = kernel_players.player_code(self._scripted)
        compiled.first_call(kernel_rows.step_games, self.arrays, actions, self._turn_rules, self._search, scripted)

    def _engine_apply(self, state: KalukiState, action: int, suggestions: tuple | None) -> KalukiState:
        if action >= KalukiAction.FIRST_OFFER and not suggestions:  # one of the kernel's offers
            slot = action - KalukiAction.FIRST_OFFER
            if state.phase is Phase.PLAY:  # the play alone, the same as the engine's list of offers
                return apply_moves(state, play_at(state, self.k, slot).moves)
            suggestions = offers(state, self.k)
        return apply_moves(state, engine_moves(state, action, suggestions or ()))

    def _decide_left(self, actions: np.ndarray, rewards: np.ndarray, info: dict, terminated: np.ndarray) -> None:
        for g in np.flatnonzero(self.arrays.python).tolist():
            self.arrays.python[g] = False
            actions[g] = self._python_decision(g, rewards, info, terminated)

    def _list_suggestions(self, rows: list[int]) -> None:
        """The kernel's offers are listed by the engine where a policy or a play needs them;
        the offers of a decision the env's Python made are its own."""
        for g in rows:
            if not self.arrays.python_offers[g]:
                self._suggestions[g] = None

    def _python_decision(self, g: int, rewards: np.ndarray, info: dict, terminated: np.ndarray) -> int:
        """The decision the kernel left in row ``g``, made as the AEC env makes it: one legal
        action is taken (and the row goes back to the kernel), else the row waits with the
        engine's offers and observation."""
        state = self.game_state(g)
        mask, found = decision(state, self.k)
        legal = np.flatnonzero(mask)
        if len(legal) == 1:
            if not terminated[g]:  # the AEC env counts a new game's forced decisions at its reset
                info["num_auto_actions"][g] += 1
            after = apply_moves(state, engine_moves(state, int(legal[0]), found))
            return self._after_engine(g, after, rewards, info, terminated)
        a = self.arrays
        a.mask[g] = mask
        a.offers_n[g] = len(found)
        a.python_offers[g] = True
        self._suggestions[g] = found
        self._obs[g] = encode(state, state.current, found, self.observation_layout)
        return SKIP

    def _policy_action(self, policy, g: int, seat: int, observation: np.ndarray, mask: np.ndarray) -> int:
        # A scripted player reads the row's engine state and offers, built only for it.
        state = self.game_state(g)
        found = self._suggestions[g]
        if found is None:  # the kernel's offers, listed by the engine (none where the kernel found none)
            found = self._suggestions[g] = tuple(offers(state, self.k)) if self.arrays.offers_n[g] else ()
        return policy_action(policy, lambda: state, found, observation, mask)

    def _wait_all(self) -> None:
        super()._wait_all()
        self._obs[:] = 0.0

    def _encode_rows(self) -> None:
        rows = np.flatnonzero(~self._over & ~self.arrays.python_offers)  # the env's Python encoded the others
        compiled.first_call(
            kernel_observation.encode_rows,
            self._obs,
            self.arrays,
            rows,
            self._at,
            self._slot_at,
            self.observation_layout.global_size,
            self.observation_layout.slot_size,
            self._view,
        )

    # the end of a hand

    def _unit_result(self, g: int, state: KalukiState) -> HandResult:
        return state.last_hand

    def _unit_rewards(self, state: KalukiState) -> list[float]:
        return hand_rewards(self.config, state.last_hand, state)

    def _unit_points(self, result: HandResult) -> tuple[int, ...]:
        return result.scores

    def _episode_ends(self, state: KalukiState) -> bool:
        return episode_ends(self.config, state)

    def _game_over(self, state: KalukiState) -> bool:
        return state.phase is Phase.GAME_OVER

    def _next_unit(self, state: KalukiState) -> KalukiState:
        return next_hand(state)

    def _units_of(self, g: int, state: KalukiState) -> tuple[HandResult, ...]:
        return state.results

    def _final_observations(self, state: KalukiState) -> np.ndarray:
        # Encoded by the kernel from a one-row copy of the arrays, the rows' own left as they are.
        write_arrays(self._finals, 0, state)
        out = np.zeros((self.num_players, self.observation_layout.size), np.float32)
        compiled.first_call(
            kernel_observation.encode_finals,
            out,
            self._finals,
            0,
            self._at,
            self._slot_at,
            self.observation_layout.global_size,
            self.observation_layout.slot_size,
            self._view,
        )
        return out

    def _finished_game(self, g: int, state: KalukiState) -> KalukiFinishedGame:
        self._final[g] = state
        finals = self._final_observations(state)
        # Every episode starts a new game (episode="hand" too), so the state's hands are the episode's.
        return KalukiFinishedGame(
            g, int(self._seeds[g]), state.results, state.totals, state.game_result, finals, self.rules.scoring
        )
