"""Carousel as a vector environment: ``N`` games stepped together, every seat's view batched.

.. code-block:: python

    import numpy as np
    from carousel_env.games.carousel.vector import CarouselVectorEnv

    venv = CarouselVectorEnv(num_envs=64, num_players=2)
    step = venv.reset(seed=0)                     # games seeded 0..63
    rng = np.random.default_rng(0)
    for _ in range(1000):
        legal = step.action_mask.astype(bool)      # (N, 3 + K): the acting seat's mask
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in legal])
        step = venv.step(actions)
        step.rewards                               # (N, players): every seat, acting or not

Each game advances by one decision of its acting seat per ``step``; ``to_play[i]`` is the
seat whose observation (``observation[i]``) and mask (``action_mask[i]``) the row holds.
Actions, observations, masks, rewards and the env's configuration are exactly the AEC
env's (:mod:`carousel_env.games.carousel.envs.aec`): decisions with one legal action are taken by the
env, ``rewards[i, s]`` is what seat ``s`` earned in the step (round ends, the game's end),
and ``tests/games/carousel/test_vector_env.py`` requires both envs to agree at every step of seeded games.

Episodes reset themselves in the step that ends them: ``terminated[i]`` is True, the
rewards are the episode's last, and the row's observation is already the next episode's
first decision; ``info.finished`` holds the ended game (its rounds, totals, result and
every seat's final observation). With ``autoreset=False`` a finished row keeps its final
state (empty mask) until ``reset_rows`` deals it a new game. A row given the action
``WAIT`` (-1) does not move in that step: drivers that decide some seats elsewhere step
the rows that are ready, and ``policy_moves`` gives the actions of seats played by
policies (scripted players, the search player). Game seeds follow the AEC env:
``reset(seed=s)`` gives game ``i`` the seed ``s + i`` and each later episode of game ``i``
a seed drawn from ``random.Random(s + i)``, so row ``i`` plays the games
``raw_env().reset(seed=s + i)`` and then ``reset()`` would.

How: the positions live in arrays (:class:`~carousel_env.games.carousel.vector.arrays.GameArrays`), and
one compiled call makes every game's action, takes the forced decisions, solves the next
decisions and another encodes the observations (``kernel``, ``encode``); Python runs only
once per round of a game (the engine deals and scores it). Both variants: Manipulation
Rummy's draws for a player who cannot play are forced actions, counted in
``num_auto_actions`` as the AEC env counts them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import NamedTuple

import numpy as np

from carousel_env.core import compiled
from carousel_env.core.cards import NUM_CARDS, hand_points
from carousel_env.envkit.vector import WAIT, VectorDriver
from carousel_env.games.carousel.agents.baselines import Policy
from carousel_env.games.carousel.agents.match import state_action
from carousel_env.games.carousel.engine.game import GameState, Phase, deal_round, new_game, round_outcome
from carousel_env.games.carousel.engine.scoring import GameResult, RoundScore
from carousel_env.games.carousel.envs.aec import INFO_KEYS, NUM_FIXED_ACTIONS, action_name, round_rewards
from carousel_env.games.carousel.envs.config import EnvConfig, EnvConfigError
from carousel_env.games.carousel.envs.observation import ObservationLayout, layout
from carousel_env.games.carousel.solver import can_play, compile_ahead
from carousel_env.games.carousel.vector import encode, kernel
from carousel_env.games.carousel.vector.arrays import GameArrays
from carousel_env.games.carousel.vector.kernel import CURRENT, DEALER, HAS_LAST, ROUND_INDEX


class FinishedGame(NamedTuple):
    """An episode that ended in a step: its row, its game seed, its rounds (the engine's
    scores), the running totals, the game's result when the game itself ended, and every
    seat's final observation (the AEC env's ``observe`` once the episode is over)."""

    env: int
    seed: int
    rounds: tuple[RoundScore, ...]
    scores: tuple[int, ...]
    result: GameResult | None
    observations: np.ndarray  # (players, size) float32


class VectorInfo(NamedTuple):
    """Per row, what the AEC env's infos hold (``INFO_KEYS``), plus the rows' game seeds
    and the episodes that ended. ``CarouselVectorEnv.solver_inexact`` sums
    ``solver_inexact`` over the env's life."""

    num_auto_actions: np.ndarray  # (N,) actions the env took since the last step
    rounds_ended: np.ndarray  # (N,)
    round_points: np.ndarray  # (N, players) points of those rounds, summed
    game_over: np.ndarray  # (N,) bool: the game ended in this step
    solver_inexact: np.ndarray  # (N,) solves of this step not proven exact (see carousel_env.games.carousel.solver)
    seeds: np.ndarray  # (N,) the game seed each row plays now (after any reset)
    finished: tuple[FinishedGame, ...]


class VectorStep(NamedTuple):
    observation: np.ndarray  # (N, size) float32: the acting seat's observation
    action_mask: np.ndarray  # (N, 3 + K) int8
    to_play: np.ndarray  # (N,) the acting seat
    rewards: np.ndarray  # (N, players) float64
    terminated: np.ndarray  # (N,) bool: the episode ended (the row now plays the next one)
    info: VectorInfo


assert VectorInfo._fields[:5] == INFO_KEYS  # the AEC env's info keys, in its order


class CarouselVectorEnv(VectorDriver):
    """``num_envs`` Carousel games stepped together (see the module docstring)."""

    def __init__(self, num_envs: int, autoreset: bool = True, **config: object) -> None:
        super().__init__(num_envs, autoreset, error=EnvConfigError)
        self.config = EnvConfig.from_kwargs(**config)
        if self.config.render_mode is not None:
            raise EnvConfigError("render_mode", "the vector env does not render (render one game with env())")
        self.rules = self.config.rules
        self.num_players = self.rules.num_players
        self.k = self.config.k_suggestions
        self.observation_layout: ObservationLayout = layout(self.k)
        self.num_actions = NUM_FIXED_ACTIONS + self.k
        self.arrays = GameArrays.empty(num_envs, self.rules, self.k)
        rules = self.rules
        self._rule = kernel.rule_array(rules, self.config.solve_time_budget)
        # Manipulation Rummy's deals draw for a player who cannot play: the engine asks the solver.
        self._can_play = can_play if rules.must_play else None
        # Copies per card (the observation's "unseen" channel), then the deck size.
        self._deck = np.array([rules.decks] * NUM_CARDS + [rules.jokers, rules.deck_size], np.float64)
        self._rounds: list[list[RoundScore]] = [[] for _ in range(num_envs)]
        self._results: list[GameResult | None] = [None] * num_envs
        self._obs = np.zeros((num_envs, self.observation_layout.size), np.float32)
        self._acting = np.ones(num_envs, np.bool_)
        self.solver_inexact = 0  # solves not proven exact within the time budget, over every step

    # ------------------------------------------------------------ API

    @staticmethod
    def compile_ahead(**config: object) -> None:
        """Compile (or load from numba's cache) every compiled part a vector env of this
        config uses: its turns, its observations and the solver's witness search, which
        a game otherwise compiles at its first crowded table (``solver.compile_ahead``: on
        a cold cache with two CPUs, a second process compiles the witness search while this
        one compiles the rest). For a trainer before its first step, and before it starts
        workers that build vector envs: they then load the code from the cache instead of
        each compiling it at the same time."""
        venv = CarouselVectorEnv(1, **config)  # a bad config raises here, before a process starts
        compile_ahead(lambda: venv.reset(seed=0))

    def load(self, rows: Sequence[int], states: Sequence[GameState]) -> VectorStep:
        """Row ``rows[j]`` becomes the engine state ``states[j]`` (a position within a round,
        of this env's rules: a search's determinized position, a recorded one); it then takes
        its forced decisions, as after a deal, and waits for its next real one. The other
        rows do not move. Each such row's later rounds are dealt from its state's seed, and
        its round history is the state's. Bad rows or states raise before any row changes."""

        def checked(g: int, state: GameState) -> GameState:
            if not isinstance(state, GameState):
                raise TypeError(f"load: row {g}: a state must be a GameState, got {type(state).__name__}")
            if state.rules != self.rules:
                raise ValueError(f"load: row {g}: the state's rules {state.rules} are not this env's {self.rules}")
            if state.phase in (Phase.ROUND_OVER, Phase.GAME_OVER):
                raise ValueError(f"load: row {g}: the state's round is over (phase {state.phase.value})")
            return state

        def write(g: int, state: GameState) -> None:
            self._rounds[g] = list(state.round_scores)
            self._results[g] = None
            self.arrays.write(g, state, state.round_scores[-1] if state.round_scores else None)

        return self._load(rows, states, checked, write)

    def game_state(self, g: int) -> GameState:
        """Game ``g`` as an engine state (for view policies, tests and debugging)."""
        state = self.arrays.read(g, self.rules, int(self._seeds[g]), tuple(self._rounds[g]))
        return replace(state, game_result=self._results[g], can_play=self._can_play)

    # ------------------------------------------------------------ the driver's hooks

    def _masks(self) -> np.ndarray:
        return self.arrays.mask

    def _action_name(self, action: int) -> str:
        return action_name(action)

    def _policy_action(self, policy: Policy, g: int, seat: int, observation: np.ndarray, mask: np.ndarray) -> int:
        # A view policy gets its seat's view of the row's game, built only for it.
        return state_action(policy, lambda: self.game_state(g), seat, observation, mask)

    def _wait_all(self) -> None:
        super()._wait_all()
        self.arrays.phase[:] = kernel.GAME_OVER

    # ------------------------------------------------------------ internals

    def _blank_info(self) -> dict:
        n, p = self.num_envs, self.num_players
        return {
            "num_auto_actions": np.zeros(n, np.int64),
            "rounds_ended": np.zeros(n, np.int64),
            "round_points": np.zeros((n, p), np.int64),
            "game_over": np.zeros(n, np.bool_),
            "solver_inexact": np.zeros(n, np.int64),
            "finished": [],
        }

    def _start_game(self, g: int, seed: int) -> int:
        """Deal game ``seed`` in row ``g``; returns the draws the deal forced (Manipulation Rummy)."""
        self._seeds[g] = seed
        self._rounds[g] = []
        self._over[g] = False
        self._results[g] = None
        state = new_game(self.rules, seed, can_play=self._can_play)
        self.arrays.write(g, state, None)
        return len(state.forced_draws)

    def _kernel(self, actions: np.ndarray) -> None:
        kernel.inexact_games.clear()
        args = (self.arrays, actions, np.int64(self.k), np.int64(self.num_players), self._rule)
        compiled.first_call(kernel.step_games, *args)

    def _run(self, actions: np.ndarray, rewards: np.ndarray, info: dict) -> np.ndarray:
        """Make ``actions`` (-1: a fresh deal), then end, score and deal rounds (Python,
        once per round) until every row waits for a decision; returns which episodes ended."""
        terminated = np.zeros(self.num_envs, np.bool_)
        a = self.arrays
        while True:
            self._kernel(actions)
            np.add.at(info["solver_inexact"], kernel.inexact_games, 1)
            # A new episode's forced actions belong to it, not to the step that ended the last.
            info["num_auto_actions"] += np.where((actions != kernel.SKIP) & ~terminated, a.auto, 0)
            ended = np.flatnonzero((a.phase == kernel.ROUND_OVER) & ~self._over)
            if not len(ended):
                return terminated
            actions = np.full(self.num_envs, kernel.SKIP, np.int64)
            for g in ended.tolist():
                self._end_round(int(g), rewards, info, terminated)
                actions[g] = kernel.DEALT

    def _end_round(self, g: int, rewards: np.ndarray, info: dict, terminated: np.ndarray) -> None:
        """Score game ``g``'s round (the engine's scoring), pay it, then deal the next round
        or, at the episode's end, the next game."""
        a, rules = self.arrays, self.rules
        end = kernel.END_CODES[a.round_end[g]]
        who = int(a.who[g])
        values = [hand_points(a.hand(g, p)) for p in range(self.num_players)]
        outcome = round_outcome(
            rules,
            values,
            tuple(a.scores[g].tolist()),
            tuple(a.rounds_won[g].tolist()),
            int(a.board[g, ROUND_INDEX]),
            int(a.board[g, DEALER]),
            end,
            knocker=who if end is kernel.END_CODES[kernel.KNOCKED] else None,
            went_out=who if end is kernel.END_CODES[kernel.WENT_OUT] else None,
        )
        self._rounds[g].append(outcome.result)
        rewards[g] += round_rewards(self.config, outcome.result, outcome.game)
        info["rounds_ended"][g] += 1
        info["round_points"][g] += outcome.result.points
        over = outcome.game is not None or self.config.episode == "round"
        if over:
            # The row becomes the engine's final state (totals, rounds won, the round's points,
            # phase), which every seat's final observation shows; then, with autoreset, a new game.
            a.scores[g], a.rounds_won[g], a.last_points[g] = outcome.scores, outcome.rounds_won, outcome.result.points
            a.board[g, HAS_LAST] = 1
            a.phase[g] = kernel.GAME_OVER if outcome.game is not None else kernel.ROUND_OVER
            self._over[g], self._results[g] = True, outcome.game
            info["game_over"][g] = outcome.game is not None
            rounds = tuple(self._rounds[g])
            finished = FinishedGame(g, int(self._seeds[g]), rounds, outcome.scores, outcome.game, self._final(g))
            info["finished"].append(finished)
            terminated[g] = True
            if self.autoreset:
                self._start_game(g, self._next_seed(g))
            return
        dealer = (int(a.board[g, DEALER]) + 1) % self.num_players
        round_index = int(a.board[g, ROUND_INDEX]) + 1
        state = deal_round(
            rules, int(self._seeds[g]), round_index, dealer, outcome.scores, outcome.rounds_won, self._can_play
        )
        a.write(g, state, outcome.result)
        info["num_auto_actions"][g] += len(state.forced_draws)

    def _final(self, g: int) -> np.ndarray:
        """Every seat's observation of row ``g``'s final state (no suggestions)."""
        seats = np.arange(self.num_players, dtype=np.int64)
        out = np.zeros((self.num_players, self.observation_layout.size), np.float32)
        self._encode(out, np.full(self.num_players, g, np.int64), seats, np.zeros(self.num_players, np.bool_))
        return out

    def _encode(self, out: np.ndarray, games: np.ndarray, observers: np.ndarray, acting: np.ndarray) -> None:
        args = (self.arrays, out, games, observers, acting, self._deck, np.int64(self._rule[kernel.KNOCK_LIMIT_RULE]))
        compiled.first_call(encode.encode_rows, *args)

    def _result(self, rewards: np.ndarray, terminated: np.ndarray, info: dict) -> VectorStep:
        a = self.arrays
        self.solver_inexact += int(info["solver_inexact"].sum())
        to_play = a.turn[:, CURRENT].copy()
        self._encode(self._obs, self._rows, to_play, self._acting)
        vector_info = VectorInfo(
            info["num_auto_actions"],
            info["rounds_ended"],
            info["round_points"],
            info["game_over"],
            info["solver_inexact"],
            self._seeds.copy(),
            tuple(info["finished"]),
        )
        return VectorStep(self._obs.copy(), a.mask.copy(), to_play, rewards, terminated, vector_info)


__all__ = ["WAIT", "CarouselVectorEnv", "FinishedGame", "VectorInfo", "VectorStep"]
