"""Carousel: a PettingZoo AEC environment.

.. code-block:: python

    import carousel_env

    env = carousel_env.env(num_players=2, render_mode="ansi")
    env.reset(seed=42)
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        if termination or truncation:
            action = None
        else:
            mask = observation["action_mask"]
            action = env.action_space(agent).sample(mask)  # a policy goes here
        env.step(action)
    env.close()

==================== ==========================================================
Import               ``carousel_env.env(**config)`` (wrapped), ``carousel_env.raw_env(**config)``
Registry             ``pettingzoo.make("aec", "carousel/carousel_v0", **config)`` after ``carousel_env.env()``
Agents               ``player_0`` .. ``player_{n-1}`` (seats; ``num_players`` 2..5)
Action space         ``Discrete(3 + k_suggestions)``
Observation space    ``Dict(observation=Box(0, high, (size,), float32), action_mask=Box(0, 1, (3 + K,), int8))``
==================== ==========================================================

Carousel is manipulation rummy with cards (the rules: ``RULES.md``). On a turn a player draws,
then plays (rearranging the whole table), knocks with a hand worth 5 or less, or draws again
(at most three cards a turn). The engine (:mod:`carousel_env.games.carousel.engine.game`) decides legality; this
module is a thin layer over it. Plays are not enumerated: the exact solver proposes up to
``K`` distinct plays per decision and the agent picks one of them.

Configuration (keyword arguments, validated; a bad value raises ``EnvConfigError`` naming the key)
-----------------------------------------------------------------------------------------------
* ``num_players`` (2): 2 to 5 (3 to 5 for the ``manipulation_rummy`` variant).
* ``variant`` ("carousel") and ``round_bonus`` ("losers" | "everyone"): the rules options.
* ``k_suggestions`` (8): solver suggestions offered per decision (= slots ``K``).
* ``episode`` ("game"): "game" plays rounds until someone reaches 150 (the next round is dealt
  inside the env); "round" ends the episode with the first round.
* ``reward`` ("round_score"): see Rewards. ``reward_scale`` (None = 0.01 for round_score,
  1.0 for game_result).
* ``render_mode`` (None | "ansi" | "human" | "rgb_array"); ``render_observer`` (None = the
  player to act): whose hand the picture shows.
* The seed is given to ``reset(seed=...)``: ``reset(seed=s)`` plays the engine's game
  ``new_game(rules, s)``; later ``reset()`` calls draw game seeds from an RNG seeded by ``s``.

Actions (``CarouselAction``, an ``IntEnum``)
--------------------------------------------
====== ====================== =====================================================
0      ``DRAW_AGAIN``         draw another card (declines to play)
1      ``KNOCK``              end the round (hand value <= 5)
2      ``END_TURN``           end the turn (after a play, or when no more draws)
3 + k  ``FIRST_SUGGESTION+k`` make the solver's suggestion ``k`` (observation slot ``k``)
====== ====================== =====================================================

The action mask marks the legal actions of the player to act (all zeros for the others and
after the end). A decision with a single legal action is not asked: the env takes it and
reports it in ``env.unwrapped.auto_actions`` (e.g. drawing again when nothing else is allowed).
So are the Manipulation Rummy draws of a player who cannot play, one entry per card.

Observation (``observation_layout(K)`` / ``raw_env.observation_layout`` give the slices)
----------------------------------------------------------------------------------------
A float32 vector ``[global block][K slot blocks of F features]``; every value is >= 0.
Card-indexed channels use the engine's card index ``(rank - 1) * 4 + suit`` (suits C D H S),
with index 52 = joker. Seats are relative to the observer (0 = self, 1 = the next seat
clockwise, ...). Only what the observer may know is encoded: never another hand or the
stock order.

Global block (size 265):

======================== ===== ==============================================================
channel                  width meaning
======================== ===== ==============================================================
``hand``                 53    own hand: copies of each card (0..2), index 52 = jokers
``table_cards``          52    real cards on the table (copies)
``table_jokers``         52    table jokers by their declared card (copies)
``unseen``               53    deck minus own hand minus table (other hands + stock)
``self``                 6     hand size/20, hand value/100, may knock, score/150,
                               rounds won/10, last round's points/100
``opponents``            20    4 seats x (present, hand size/20, score/150, rounds won/10,
                               last round's points/100), seat order after the observer
``dealer``               5     relative seat of the dealer (one-hot)
``to_play``              5     relative seat of the player to act (one-hot)
``stock``                1     stock size / deck size
``draws``                4     cards drawn this turn: 0, 1, 2, 3+ (one-hot)
``phase``                6     drawn, played, final_turn, must_play, round_over, game_over
``final_turns``          2     stock exhausted flag, final turns left/5
``round``                1     round index/10
``table_melds``          1     melds on the table/20
``solver``               4     suggestions/K, best points/100, most cards/20, has a play
======================== ===== ==============================================================

Slot ``k`` (F = 68 features; zero when there is no suggestion ``k`` or it is not the
observer's decision):

======================== ===== ==============================================================
``valid``                1     the slot holds a suggestion (its action is legal)
``cards``                53    cards the play adds from the hand
``num_cards``            1     cards played/20
``points``               1     points shed/100
``hand_after_points``    1     hand value after the play/100
``hand_after_size``      1     hand size after/20
``jokers_used``          1     hand jokers played/2
``goes_out``             1     the play empties the hand
``can_knock_after``      1     hand value after <= knock limit
``reason``               5     why the solver lists it: max_points, max_cards, keep_jokers,
                               knock, size_n (one-hot)
``melds_after``          1     melds on the table after/20
``changes_melds``        1     the play changes melds already on the table
======================== ===== ==============================================================

With K = 8 the vector has 265 + 8 x 68 = 809 values.

Rewards
-------
* ``round_score`` (default): when a round ends, every player gets
  ``reward_scale * (own round points - mean of the other players' round points)``; when the
  game ends, the end-of-game bonuses are paid the same way. So a whole game returns
  ``reward_scale * (own final total - mean of the others' final totals)``. Zero-sum.
* ``game_result``: at the end of the episode, ``reward_scale * (1 - 2 * rank / (n - 1))``
  (+1 first, -1 last, linear between) by the engine's final standings; with
  ``episode="round"``, by the round's points with tied players sharing the average rank.
  Zero-sum.
Rewards reach every agent through ``_cumulative_rewards`` as PettingZoo expects. The
wrapped env ends the episode on an illegal action with reward -1 for its author
(``TerminateIllegalWrapper``); the raw env raises ``IllegalAction``.

Info (every agent, every step: the same keys, numeric, fixed shape)
--------------------------------------------------------------------
Generic wrappers (TorchRL, Tianshou, vector envs) batch infos, so they hold only numbers:

* ``num_auto_actions`` (int): actions the env took since the last step (see Actions).
* ``rounds_ended`` (int): rounds that ended in this step (usually 0 or 1).
* ``round_points`` (int64 array, one per seat): the points of those rounds, summed.
* ``game_over`` (bool): the game ended in this step.
* ``solver_inexact`` (int): solves in this step whose answer the solver could not prove
  exact within ``solve_time_budget`` (it then offers the best plays it found; see
  ``carousel_env.games.carousel.solver``). 0 on every position the shipped agents reach.

The detail is on the raw env (``env.unwrapped``), for the step just taken:

* ``auto_actions``: tuple of ``AutoAction(agent, action, name)``, in order. Manipulation
  Rummy's forced draws (a player who cannot play draws one card at a time until able) are
  in it too, one ``(agent, DRAW_AGAIN, "DRAW_AGAIN")`` per card; the card is not named.
* ``round_results``: tuple of the engine's ``RoundScore`` of each round that ended
  (``end``, ``hand_values``, ``points``, ``winners``, ``knocker``, ``went_out``, ``undercut``).
* ``game_state.game_result`` once the game is over: ``winner``, ``totals``, ``bonuses``,
  ``standings``.

Episodes end by termination only (the engine guarantees every round and game ends).
"""

from __future__ import annotations

from enum import IntEnum
from functools import cache
from typing import ClassVar

import numpy as np
from pettingzoo import AECEnv

from carousel_env.core.cards import hand_str
from carousel_env.envkit.aec import CardGameEnv, env_metadata
from carousel_env.envkit.seats import AutoAction, rank_rewards, wrap
from carousel_env.games.carousel.engine.game import ActionKind, GameState, Phase, allowed, apply, new_game, next_round
from carousel_env.games.carousel.engine.scoring import GameResult, RoundScore
from carousel_env.games.carousel.envs.config import EnvConfig
from carousel_env.games.carousel.envs.observation import ObservationLayout, encode, layout, upper_bounds
from carousel_env.games.carousel.solver import TIME_BUDGET_S, can_play, solve, solve_counts


class CarouselAction(IntEnum):
    """The env's actions: three fixed ones, then one per suggestion slot (``FIRST_SUGGESTION + k``)."""

    DRAW_AGAIN = 0
    KNOCK = 1
    END_TURN = 2
    FIRST_SUGGESTION = 3


# Plain ints of the same values, for the compiled kernel and for indexing arrays.
DRAW_AGAIN, KNOCK, END_TURN, FIRST_SUGGESTION = (int(a) for a in CarouselAction)
NUM_FIXED_ACTIONS = FIRST_SUGGESTION  # the actions before the suggestion slots (networks size their heads by it)
FIXED_ACTION_NAMES = tuple(a.name for a in CarouselAction)[:NUM_FIXED_ACTIONS]
FORCED_DRAW_NAME = FIXED_ACTION_NAMES[DRAW_AGAIN]  # a forced draw is reported as drawing a card
_KINDS = (ActionKind.DRAW_AGAIN, ActionKind.KNOCK, ActionKind.END_TURN)
INFO_KEYS = (
    "num_auto_actions",
    "rounds_ended",
    "round_points",
    "game_over",
    "solver_inexact",
)  # every info, every step

observation_layout = layout  # observation_layout(K) -> ObservationLayout


def layout_for_mask(action_mask: np.ndarray) -> ObservationLayout:
    """The observation layout matching an action mask (``NUM_FIXED_ACTIONS + K`` actions),
    for policies given only the observation and the mask."""
    return layout(len(action_mask) - NUM_FIXED_ACTIONS)


def action_name(action: int) -> str:
    return FIXED_ACTION_NAMES[action] if action < FIRST_SUGGESTION else f"PLAY_{action - FIRST_SUGGESTION}"


def decision(state: GameState, k: int, time_budget: float = TIME_BUDGET_S) -> tuple[np.ndarray, tuple]:
    """The action mask and the solver's suggestions of the player to act in ``state``
    (each solve within ``time_budget`` seconds)."""
    kinds = allowed(state)
    suggestions: tuple = ()
    if ActionKind.PLAY in kinds:
        # The engine built this position (it is reachable): skip the public edge's check.
        hand = state.hands[state.current]
        found = solve(state.table, hand, state.rules, k=k, check_position=False, time_budget=time_budget)
        suggestions = found.suggestions[:k]
    return _mask(kinds, len(suggestions), k).copy(), suggestions


@cache  # a handful of distinct arguments
def _mask(kinds: frozenset, num_suggestions: int, k: int) -> np.ndarray:
    """The (read-only) action mask for these kinds and this many suggestions."""
    mask = np.zeros(NUM_FIXED_ACTIONS + k, np.int8)
    for action, kind in enumerate(_KINDS):
        if kind in kinds:
            mask[action] = 1
    mask[FIRST_SUGGESTION : FIRST_SUGGESTION + num_suggestions] = 1
    mask.flags.writeable = False
    return mask


def engine_move(action: int, suggestions: tuple):
    """The engine action of env action ``action`` given the decision's ``suggestions``."""
    return _KINDS[action] if action < FIRST_SUGGESTION else suggestions[action - FIRST_SUGGESTION].play


def round_rewards(config: EnvConfig, result: RoundScore, game: GameResult | None) -> list[float]:
    """Every seat's reward for a round that ended with ``result`` (``game``: the game's
    result when the round ended it), by ``config.reward`` (see Rewards)."""
    n = len(result.points)
    rewards = [0.0] * n
    scale = config.reward_scale
    if config.reward == "round_score":
        paid = [result.points] + ([game.bonuses] if game is not None else [])
        for points in paid:
            total = sum(points)
            for seat in range(n):
                rewards[seat] += scale * (points[seat] - (total - points[seat]) / (n - 1))
    elif game is not None or config.episode == "round":
        if game is not None and config.episode == "game":
            order = [[seat] for seat in game.standings]
        else:
            by_points = sorted(set(result.points), reverse=True)
            order = [[s for s in range(n) if result.points[s] == p] for p in by_points]
        for seat, r in enumerate(rank_rewards(order, n)):
            rewards[seat] += scale * r
    return rewards


class raw_env(CardGameEnv):
    """The bare Carousel AEC environment (see the module docstring)."""

    metadata: ClassVar[dict] = env_metadata("carousel_v0")
    info_keys = INFO_KEYS
    action_name = staticmethod(action_name)
    text_renderer = "carousel_env.games.carousel.envs.render_text:render_text"
    picture_renderer = "carousel_env.games.carousel.envs.render_image:draw_state"  # Pillow is only needed here

    def __init__(self, render_mode: str | None = None, **config: object) -> None:
        super().__init__(EnvConfig.from_kwargs(render_mode=render_mode, **config))
        self.rules = self.config.rules
        k = self.config.k_suggestions
        self.observation_layout: ObservationLayout = layout(k)
        high = upper_bounds(k)
        self._init_seats(self.config.num_players, high, len(high), NUM_FIXED_ACTIONS + k)

    # ------------------------------------------------------------ read-only views

    @property
    def round_results(self) -> tuple[RoundScore, ...]:
        """The rounds that ended in the last step (or reset), in order."""
        return tuple(self._units)

    # ------------------------------------------------------------ AEC API

    def _start(self, game_seed: int) -> None:
        self._inexact_at = solve_counts().inexact  # the solver's count when this step began
        super()._start(game_seed)

    def _new_game(self, game_seed: int) -> GameState:
        # The must-play hook only sees positions the engine built: no position check.
        return new_game(self.rules, game_seed, can_play=can_play)

    def _encode(self, seat: int, acting: bool) -> np.ndarray:
        return encode(self._state, seat, self._suggestions if acting else (), self.observation_layout)

    def _make(self, agent: str, action: int) -> None:
        self._inexact_at = solve_counts().inexact
        super()._make(agent, action)

    def _record_step(self, agent: str, action: int) -> tuple:
        # Named only when rendered: describing a play costs more than the rest of a step.
        return agent, action, self._suggestions

    def _describe(self, action: int, suggestions: tuple | None = None) -> str:
        """The name of ``action`` at the decision with ``suggestions`` (default: the current one)."""
        if action < FIRST_SUGGESTION:
            return action_name(action)
        if suggestions is None:
            suggestions = self._suggestions
        return f"PLAY {hand_str(suggestions[action - FIRST_SUGGESTION].play.added)}"

    def _last_action(self) -> tuple[str, int, str] | None:
        """``(agent, action, name)`` of the last step's action."""
        if self._last_step is None:
            return None
        agent, action, suggestions = self._last_step
        return agent, action, self._describe(action, suggestions)

    def _arrived(self, state: GameState) -> None:
        # Report the draws the transition into ``state`` forced (Manipulation Rummy), one entry
        # per card. The card stays unnamed: infos reach every agent, and only the drawer may see it.
        for seat, _card in state.forced_draws:
            self._auto.append(AutoAction(self.possible_agents[seat], DRAW_AGAIN, FORCED_DRAW_NAME))

    def _unit_over(self, state: GameState) -> bool:
        return state.phase is Phase.ROUND_OVER or state.phase is Phase.GAME_OVER

    def _unit_result(self, state: GameState) -> RoundScore:
        return state.last_round

    def _unit_rewards(self, state: GameState) -> list[float]:
        return round_rewards(self.config, state.last_round, state.game_result)

    def _episode_ends(self, state: GameState) -> bool:
        return state.phase is Phase.GAME_OVER or self.config.episode == "round"

    def _next_unit(self, state: GameState) -> GameState:
        return next_round(state)

    def _decide(self, state: GameState) -> tuple[np.ndarray, tuple]:
        return decision(state, self.config.k_suggestions, self.config.solve_time_budget)

    def _apply(self, state: GameState, action: int) -> GameState:
        return apply(state, engine_move(action, self._suggestions))

    def _unit_points(self, result: RoundScore) -> tuple[int, ...]:
        return result.points

    def _game_over(self, state: GameState) -> bool:
        return state.phase is Phase.GAME_OVER

    def _more_infos(self) -> tuple[int]:
        return (solve_counts().inexact - self._inexact_at,)  # solves of this step not proven exact


def env(**config: object) -> AECEnv:
    """The Carousel AEC env wrapped like PettingZoo's classic games (see ``envkit.seats.wrap``)."""
    return wrap(raw_env(**config))
