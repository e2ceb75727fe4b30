"""Carioca: a PettingZoo AEC environment (RULES.md, "Carioca"; source 003).

.. code-block:: python

    import carousel_env.games.carioca.env as carioca

    env = carioca.env(num_players=3, render_mode="ansi")
    env.reset(seed=42)
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        action = None if termination or truncation else env.action_space(agent).sample(observation["action_mask"])
        env.step(action)

==================== ==========================================================
Import               ``carousel_env.games.carioca.env.env(**config)`` (``raw_env`` unwrapped)
Agents               ``player_0`` .. ``player_{n-1}``, 2 to 5
Action space         ``Discrete(1645 + k_go_down)``
Observation space    ``Dict(observation=Box(0, 1, (size,), float32), action_mask=Box(0, 1, (1645 + K,), int8))``
==================== ==========================================================

Six rounds, each with its contract (two trios; a trio and an escalera; two escaleras;
three trios; two trios and an escalera; a trio and two escaleras). A turn: draw from the
stock or take the pile's top; then go down (once a round, exactly the contract), or lay
off (from the turn after going down), and discard. Discarding the last card goes out.
Engine: :mod:`carousel_env.games.carioca.engine`; exact solver:
:mod:`carousel_env.games.carioca.solver`.

Configuration (keyword arguments, validated; a bad value raises ``CariocaEnvConfigError`` naming the key)
---------------------------------------------------------------------------------------------------------
* ``num_players`` (2): 2 to 5.
* ``k_go_down`` (8): going-down arrangements offered per decision (= slots ``K``).
* ``episode`` ("game"): "round" ends the episode with the first round.
* ``reward`` ("score"): at each round's end, ``reward_scale * (mean penalty - own penalty)``
  (zero-sum); "result": at the episode's end, +1 for the lowest total .. -1 for the highest,
  tied seats sharing (by the round's penalties for ``episode="round"``). ``reward_scale``
  (None = 0.01 for score, 1.0 for result).
* ``render_mode`` (None | "ansi" | "human" | "rgb_array"); ``render_observer`` (None = the
  player to act).

Actions
-------
========================================= ======================= ==========================================
0                                         ``DRAW_STOCK``          draw the top of the stock
1                                         ``TAKE_DISCARD``        take the top of the discard pile
2 + c                                     ``DISCARD`` card c      c: the engine's card index, 52 the joker
55 + ((3 * s + m) * 2 + e) * 53 + c       ``LAY_OFF``             card c on meld m of relative seat s, end e
1645 + k                                  ``GO_DOWN`` k           go down with arrangement k (slot k)
========================================= ======================= ==========================================

A lay-off names its meld by the seat relative to the player (0: own melds, 1: the next
player's...) and its end (0 low, 1 high; a trio takes cards at end 0 only). Going-down
arrangements are the solver's, in its order: fewest jokers used, then the least value kept,
then their notation; the first ``K`` are offered. A decision with a single legal action is
not asked: the env takes it and reports it in ``env.unwrapped.auto_actions``.

Observation
-----------
:mod:`carousel_env.games.carioca.observation`: own hand, the pile's top and the cards under
it, every card on the table and each meld (kind, rank or suit, cells, end jokers), the cards
each player took from the pile and discarded this round, the round, the stage of the turn,
per seat whether it is down, its hand size, score and the dealer, the stock size, the
reshuffle, own distance to the contract and, until the observer is down, what its move
would do to it (while it draws: whether the pile's top brings the contract closer; while it
discards: the cards whose discard would take it further), once it is down, while it draws,
whether the pile's top can be laid off on the table, and ``K`` slots describing the
arrangements offered. Nothing hidden is in it.

Info (every agent, every step): ``num_auto_actions``, ``rounds_ended``, ``round_penalties``
(int64, per seat), ``game_over``. The detail is on the raw env: ``auto_actions`` and
``round_results`` (the engine's ``RoundResult``).
"""

from __future__ import annotations

from enum import IntEnum
from typing import ClassVar

import numpy as np
from pettingzoo import AECEnv

from carousel_env.core.cards import card_str
from carousel_env.envkit.aec import CardGameEnv, env_metadata
from carousel_env.envkit.seats import rank_rewards, wrap
from carousel_env.games.carioca import solver
from carousel_env.games.carioca.config import CariocaEnvConfig
from carousel_env.games.carioca.engine import (
    DRAW_STOCK,
    TAKE_DISCARD,
    CariocaState,
    Move,
    MoveKind,
    Phase,
    RoundResult,
    apply,
    go_down_options,
    layoff_options,
    legal_discards,
    new_game,
    next_round,
)
from carousel_env.games.carioca.melds import End, LayOff
from carousel_env.games.carioca.observation import MELDS_PER_SEAT, ObservationLayout, encode, layout
from carousel_env.games.carioca.rules import CARD_KINDS, MAX_PLAYERS


class CariocaAction(IntEnum):
    DRAW_STOCK = 0
    TAKE_DISCARD = 1
    FIRST_DISCARD = 2  # + card
    FIRST_LAY_OFF = 2 + CARD_KINDS  # + ((3 * seat + meld) * 2 + end) * 53 + card
    FIRST_GO_DOWN = 2 + CARD_KINDS + MAX_PLAYERS * MELDS_PER_SEAT * 2 * CARD_KINDS  # + slot


NUM_FIXED_ACTIONS = int(CariocaAction.FIRST_GO_DOWN)
INFO_KEYS = ("num_auto_actions", "rounds_ended", "round_penalties", "game_over")


def layoff_action(layoff: LayOff, actor: int, num_players: int) -> int:
    """The env action of ``layoff`` made by seat ``actor``."""
    relative = (layoff.seat - actor) % num_players
    target = (relative * MELDS_PER_SEAT + layoff.meld) * 2 + int(layoff.end)
    return CariocaAction.FIRST_LAY_OFF + target * CARD_KINDS + layoff.card


def layoff_of(action: int, actor: int, num_players: int) -> LayOff:
    """The lay-off of env ``action`` made by seat ``actor`` (the inverse of :func:`layoff_action`)."""
    target, card = divmod(action - CariocaAction.FIRST_LAY_OFF, CARD_KINDS)
    slot, end = divmod(target, 2)
    relative, meld = divmod(slot, MELDS_PER_SEAT)
    return LayOff(card, (actor + relative) % num_players, meld, End(end))


def action_name(action: int) -> str:
    if action < CariocaAction.FIRST_DISCARD:
        return CariocaAction(action).name
    if action < CariocaAction.FIRST_LAY_OFF:
        return f"DISCARD {card_str(action - CariocaAction.FIRST_DISCARD)}"
    if action < CariocaAction.FIRST_GO_DOWN:
        target, card = divmod(action - CariocaAction.FIRST_LAY_OFF, CARD_KINDS)
        slot, end = divmod(target, 2)
        relative, meld = divmod(slot, MELDS_PER_SEAT)
        return f"LAY_OFF {card_str(card)} on seat +{relative} meld {meld + 1} {End(end).name.lower()} end"
    return f"GO_DOWN_{action - CariocaAction.FIRST_GO_DOWN}"


def decision(state: CariocaState, k: int) -> tuple[np.ndarray, tuple]:
    """The action mask of the player to act and the going-down suggestions."""
    mask = np.zeros(NUM_FIXED_ACTIONS + k, np.int8)
    if state.over:
        return mask, ()
    if state.phase is Phase.DRAW:
        mask[CariocaAction.DRAW_STOCK] = mask[CariocaAction.TAKE_DISCARD] = 1
        return mask, ()
    for card in legal_discards(state):
        mask[CariocaAction.FIRST_DISCARD + card] = 1
    for layoff in layoff_options(state):
        mask[layoff_action(layoff, state.current, state.num_players)] = 1
    suggestions = tuple(go_down_options(state, k))
    mask[CariocaAction.FIRST_GO_DOWN : CariocaAction.FIRST_GO_DOWN + len(suggestions)] = 1
    return mask, suggestions


def engine_move(state: CariocaState, action: int, suggestions: tuple) -> Move:
    """The engine's move for env ``action`` given the decision's going-down suggestions."""
    if action == CariocaAction.DRAW_STOCK:
        return DRAW_STOCK
    if action == CariocaAction.TAKE_DISCARD:
        return TAKE_DISCARD
    if action < CariocaAction.FIRST_LAY_OFF:
        return Move(MoveKind.DISCARD, action - CariocaAction.FIRST_DISCARD)
    if action < CariocaAction.FIRST_GO_DOWN:
        return Move(MoveKind.LAY_OFF, layoff=layoff_of(action, state.current, state.num_players))
    return Move(MoveKind.GO_DOWN, melds=suggestions[action - CariocaAction.FIRST_GO_DOWN])


def episode_ends(config: CariocaEnvConfig, state: CariocaState) -> bool:
    """Whether the episode ends with the round just over in ``state``."""
    return state.phase is Phase.GAME_OVER or config.episode == "round"


def round_rewards(config: CariocaEnvConfig, result: RoundResult, state: CariocaState) -> list[float]:
    """Every seat's reward for the round that ended with ``result`` (``state``: after it): zero-sum."""
    n = state.num_players
    if config.reward == "score":
        mean = sum(result.penalties) / n
        return [config.reward_scale * (mean - p) for p in result.penalties]
    if not episode_ends(config, state):
        return [0.0] * n
    standing = result.penalties if config.episode == "round" else state.scores
    order = [[s for s in range(n) if standing[s] == value] for value in sorted(set(standing))]
    return [config.reward_scale * r for r in rank_rewards(order, n)]


class raw_env(CardGameEnv):
    """The bare Carioca AEC environment (see the module docstring)."""

    metadata: ClassVar[dict] = env_metadata("carioca_v0")
    info_keys = INFO_KEYS
    action_name = staticmethod(action_name)
    text_renderer = "carousel_env.games.carioca.render:render_text"
    picture_renderer = "carousel_env.games.carioca.render:draw_state"

    def __init__(self, render_mode: str | None = None, **config: object) -> None:
        super().__init__(CariocaEnvConfig.from_kwargs(render_mode=render_mode, **config))
        k = self.config.k_go_down
        self.observation_layout: ObservationLayout = layout(k)
        self._init_seats(self.config.num_players, 1.0, self.observation_layout.size, NUM_FIXED_ACTIONS + k)

    @property
    def round_results(self) -> tuple[RoundResult, ...]:
        """The rounds that ended in the last step (or reset), in order."""
        return tuple(self._units)

    def _new_game(self, game_seed: int) -> CariocaState:
        return new_game(self.config.num_players, game_seed)

    def _encode(self, seat: int, acting: bool) -> np.ndarray:
        state = self._state
        distance = solver.distance(state.hands[seat], state.contract)
        lays = acting and bool(self._mask[CariocaAction.FIRST_LAY_OFF : CariocaAction.FIRST_GO_DOWN].any())
        return encode(state, seat, self._suggestions if acting else (), distance, lays, self.observation_layout)

    def _describe(self, action: int) -> str:
        if action >= CariocaAction.FIRST_LAY_OFF:
            return str(engine_move(self._state, action, self._suggestions))
        return action_name(action)

    def _unit_result(self, state: CariocaState) -> RoundResult:
        return state.last_round

    def _unit_rewards(self, state: CariocaState) -> list[float]:
        return round_rewards(self.config, state.last_round, state)

    def _episode_ends(self, state: CariocaState) -> bool:
        return episode_ends(self.config, state)

    def _next_unit(self, state: CariocaState) -> CariocaState:
        return next_round(state)

    def _decide(self, state: CariocaState) -> tuple[np.ndarray, tuple]:
        return decision(state, self.config.k_go_down)

    def _apply(self, state: CariocaState, action: int) -> CariocaState:
        return apply(state, engine_move(state, action, self._suggestions))

    def _unit_points(self, result: RoundResult) -> tuple[int, ...]:
        return result.penalties

    def _game_over(self, state: CariocaState) -> bool:
        return state.phase is Phase.GAME_OVER


def env(**config: object) -> AECEnv:
    """The Carioca AEC env wrapped like PettingZoo's classic games."""
    return wrap(raw_env(**config))


__all__ = ["CariocaAction", "action_name", "decision", "engine_move", "env", "layoff_action", "layoff_of", "raw_env"]
