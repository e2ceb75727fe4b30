"""Kaluki and plain Rummy: a PettingZoo AEC environment (RULES.md, "Kaluki", "Rummy"; source 004).

.. code-block:: python

    import carousel_env.games.kaluki.env as kaluki

    env = kaluki.env(num_players=4, preset="book", render_mode="ansi")  # preset="rummy": plain Rummy
    env.reset(seed=42)
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        action = None if termination or truncation else env.action_space(agent).sample(observation["action_mask"])
        env.step(action)

==================== ==========================================================
Import               ``carousel_env.games.kaluki.env.env(**config)`` (``raw_env`` unwrapped)
Agents               ``player_0`` .. ``player_{n-1}``, 2 to 6
Action space         ``Discrete(55 + k_plays)``
Observation space    ``Dict(observation=Box(0, 1, (size,), float32), action_mask=Box(0, 1, (55 + K,), int8))``
==================== ==========================================================

A turn: draw the top of the stock or of the discard pile; then lay (open with melds worth the
opening requirement, lay further melds, lay off on anyone's melds, exchange table jokers) and
discard, or go out. Engine: :mod:`carousel_env.games.kaluki.engine`; exact solver:
:mod:`carousel_env.games.kaluki.solver`. Plain Rummy is the preset ``rummy`` (one deck, no
jokers, no opening requirement, ace low).

Configuration (keyword arguments, validated; a bad value raises ``KalukiEnvConfigError`` naming the key)
-------------------------------------------------------------------------------------------------------
:class:`~carousel_env.games.kaluki.config.KalukiEnvConfig`: ``preset`` and any rules option,
``num_players``, ``k_plays``, ``episode``, ``reward``, ``reward_scale``, ``render_mode``,
``render_observer`` (``carousel_env.options("kaluki")`` lists them with their docs).

Actions
-------
========================================= ======================= ==========================================
0                                         ``DRAW_STOCK``          draw the top of the stock
1                                         ``TAKE_DISCARD``        take the pile's top to keep (where allowed)
2 + c                                     ``DISCARD`` card c      c: the engine's card index, 52 the joker
55 + k                                    ``OFFER`` k             take the top with arrangement k, or make play k

========================================= ======================= ==========================================

Where the rules let the top of the pile be taken only to lay it this turn (before opening in
the book; always under the UK presets), the solver's arrangements that lay it (an opening
when the player has not opened) are the offers while the player draws, best first. In the
play phase the offers are the solver's best plays
(:func:`carousel_env.games.kaluki.solver.best_play`: new melds, lay-offs and joker exchanges
chosen together, least hand value left first; found by its compiled repetition,
:mod:`carousel_env.games.kaluki.kernel_solver`, which the first env of a machine compiles
once); after a play the player may play again or
discard. The ``K`` offer slots serve both: a take and a play are never legal together. A decision with a single legal
action is not asked: the env takes it and reports it in ``env.unwrapped.auto_actions``.

Rewards
-------
``reward="score"`` (per hand, zero-sum, times ``reward_scale``): under ``winner_collects`` the
player who went out gains what the hand scored and each other player pays its share in
proportion to its hand value (its cards are what the winner collects); under ``penalty``
``mean penalty - own penalty``; a hand nobody won pays nothing under ``winner_collects``.
``reward="result"``: at the episode's end, +1 for the winner .. -1 for the last, tied seats
sharing (the hand's score for ``episode="hand"``).

Info (every agent, every step): ``num_auto_actions``, ``hands_ended``, ``hand_points`` (int64,
per seat: what each seat's total changed by), ``game_over``. The detail is on the raw env:
``auto_actions`` and ``hand_results`` (the engine's ``HandResult``).
"""

from __future__ import annotations

from enum import IntEnum
from types import ModuleType
from typing import ClassVar

import numpy as np
from pettingzoo import AECEnv

from carousel_env.core.cards import card_str
from carousel_env.core.errors import IllegalAction
from carousel_env.envkit.aec import CardGameEnv, env_metadata
from carousel_env.envkit.seats import rank_rewards, wrap
from carousel_env.games.kaluki import kernel_solver, solver
from carousel_env.games.kaluki.config import KalukiEnvConfig
from carousel_env.games.kaluki.engine import apply, new_game, next_hand
from carousel_env.games.kaluki.legal import legal_discards
from carousel_env.games.kaluki.observation import ObservationLayout, encode, layout
from carousel_env.games.kaluki.rules import CARD_KINDS, Scoring
from carousel_env.games.kaluki.state import (
    DRAW_STOCK,
    HandResult,
    KalukiState,
    Move,
    Phase,
    discard,
    take_discard,
)


class KalukiAction(IntEnum):
    DRAW_STOCK = 0
    TAKE_DISCARD = 1
    FIRST_DISCARD = 2  # + card
    FIRST_OFFER = 2 + CARD_KINDS  # + slot: drawing, a take with an arrangement; after, a play


NUM_FIXED_ACTIONS = int(KalukiAction.FIRST_OFFER)
INFO_KEYS = ("num_auto_actions", "hands_ended", "hand_points", "game_over")


def action_name(action: int) -> str:
    if action < KalukiAction.FIRST_DISCARD:
        return KalukiAction(action).name
    if action < KalukiAction.FIRST_OFFER:
        return f"DISCARD {card_str(action - KalukiAction.FIRST_DISCARD)}"
    return f"OFFER_{action - KalukiAction.FIRST_OFFER}"


def _free_take(state: KalukiState) -> bool:
    """Whether the top of the pile may be taken to keep (the engine's rule, asked of it)."""
    try:
        apply(state, take_discard())
    except IllegalAction:
        return False
    return True


def _keep(state: KalukiState) -> int:
    """Cards a lay-down must leave in hand: one to discard where going out needs a discard."""
    return 1 if state.rules.go_out_by_discard else 0


def take_arrangements(state: KalukiState, k: int, answers: ModuleType = kernel_solver) -> tuple[solver.Layout, ...]:
    """The first ``k`` arrangements that lay the top of the pile with it, where taking it
    needs them: an opening when the player has not opened, else melds that hold it.
    ``answers``: the module that finds them (the compiled search, or the solver it repeats)."""
    top, s = state.top, state.current
    hand = (*state.hands[s], top)
    threshold = 0 if state.opened[s] else state.rules.opening
    found = answers.arrangements(
        hand, state.rules, threshold=threshold, must_use=top, keep=_keep(state), limit=k, taken=top
    )
    return tuple(found)


def fixed_actions(state: KalukiState) -> list[int]:
    """The legal actions of the player to act besides the offers: the draws while it draws
    (the pile's top where it may be kept), the discards after."""
    if state.over:
        return []
    if state.phase is Phase.DRAW:
        free = bool(state.discards) and _free_take(state)
        return [KalukiAction.DRAW_STOCK, KalukiAction.TAKE_DISCARD] if free else [KalukiAction.DRAW_STOCK]
    return [KalukiAction.FIRST_DISCARD + card for card in legal_discards(state)]


def asks_solver(state: KalukiState) -> bool:
    """Whether the decision's offers come from the solver: every play phase, and a draw where
    the pile's top may be taken only to lay it."""
    if state.over:
        return False
    return state.phase is Phase.PLAY or (bool(state.discards) and not _free_take(state))


def offers(state: KalukiState, k: int, answers: ModuleType = kernel_solver) -> tuple:
    """The decision's first ``k`` offers: the arrangements that lay the pile's top where
    taking it needs them, while the player draws; the solver's best plays after. ``answers``:
    :mod:`~carousel_env.games.kaluki.kernel_solver` (the compiled search, the solver where it
    does not answer) or :mod:`~carousel_env.games.kaluki.solver` (the same offers, slower)."""
    if not asks_solver(state):
        return ()
    if state.phase is Phase.DRAW:
        return take_arrangements(state, k, answers)
    return tuple(answers.best_play(state, k))


def decision(state: KalukiState, k: int) -> tuple[np.ndarray, tuple]:
    """The action mask of the player to act and the decision's offers (:func:`offers`)."""
    mask = np.zeros(NUM_FIXED_ACTIONS + k, np.int8)
    mask[fixed_actions(state)] = 1
    found = offers(state, k)
    mask[KalukiAction.FIRST_OFFER : KalukiAction.FIRST_OFFER + len(found)] = 1
    return mask, found


def engine_moves(state: KalukiState, action: int, suggestions: tuple) -> tuple[Move, ...]:
    """The engine's moves for env ``action`` given the decision's offers (a play is several:
    its melds, lay-offs and exchanges, in order)."""
    if action == KalukiAction.DRAW_STOCK:
        return (DRAW_STOCK,)
    if action == KalukiAction.TAKE_DISCARD:
        return (take_discard(),)
    if action < KalukiAction.FIRST_OFFER:
        return (discard(action - KalukiAction.FIRST_DISCARD),)
    offer = suggestions[action - KalukiAction.FIRST_OFFER]
    return (take_discard(offer.melds),) if state.phase is Phase.DRAW else offer.moves


def apply_moves(state: KalukiState, moves: tuple[Move, ...]) -> KalukiState:
    for move in moves:
        state = apply(state, move)
    return state


def episode_ends(config: KalukiEnvConfig, state: KalukiState) -> bool:
    """Whether the episode ends with the hand just over in ``state``."""
    return state.phase is Phase.GAME_OVER or config.episode == "hand"


def _players(result: HandResult) -> list[int]:
    """The seats dealt into the hand (one eliminated before it holds no cards and did not go out)."""
    return [s for s in range(len(result.hands)) if result.hands[s] or s == result.out]


def hand_rewards(config: KalukiEnvConfig, result: HandResult, state: KalukiState) -> list[float]:
    """Every seat's reward for the hand that ended with ``result`` (``state``: after it): zero-sum."""
    n, scale = state.num_players, config.reward_scale
    if config.reward == "result":
        if not episode_ends(config, state):
            return [0.0] * n
        return [scale * r for r in rank_rewards(_standing(config, result, state), n)]
    paid = [0.0] * n
    players = _players(result)
    if state.rules.scoring is Scoring.PENALTY:
        mean = sum(result.scores[s] for s in players) / len(players)
        for s in players:
            paid[s] = scale * (mean - result.scores[s])
        return paid
    if result.out < 0:
        return paid
    won = result.scores[result.out]
    losers = [s for s in players if s != result.out]
    held = sum(result.values[s] for s in losers)
    for s in losers:  # each pays its share of what the winner collected, by what it held
        paid[s] = -scale * won * (result.values[s] / held if held else 1 / len(losers))
    paid[result.out] = -sum(paid)
    return paid


def _standing(config: KalukiEnvConfig, result: HandResult, state: KalukiState) -> list[list[int]]:
    """The seats in groups of equals, best first: the game's winners, then by total (the
    hand's score for ``episode="hand"``), higher better under ``winner_collects``."""
    n = state.num_players
    points = result.scores if config.episode == "hand" else state.totals
    sign = -1 if state.rules.scoring is Scoring.WINNER_COLLECTS else 1
    winners = set(state.game_result.winners) if state.game_result and config.episode != "hand" else set()
    if config.episode == "hand" and result.out >= 0:
        winners = {result.out}

    def key(s: int) -> tuple:
        return (s not in winners, sign * points[s])

    keys = sorted({key(s) for s in range(n)})
    return [[s for s in range(n) if key(s) == k] for k in keys]


class raw_env(CardGameEnv):
    """The bare Kaluki AEC environment (see the module docstring)."""

    metadata: ClassVar[dict] = env_metadata("kaluki_v0")
    info_keys = INFO_KEYS
    action_name = staticmethod(action_name)
    text_renderer = "carousel_env.games.kaluki.render:render_text"
    picture_renderer = "carousel_env.games.kaluki.render:draw_state"

    def __init__(self, render_mode: str | None = None, **config: object) -> None:
        super().__init__(KalukiEnvConfig.from_kwargs(render_mode=render_mode, **config))
        self.rules = self.config.rules
        k = self.config.k_plays
        self.observation_layout: ObservationLayout = layout(k)
        self._init_seats(self.config.num_players, 1.0, self.observation_layout.size, NUM_FIXED_ACTIONS + k)

    @property
    def hand_results(self) -> tuple[HandResult, ...]:
        """The hands that ended in the last step (or reset), in order."""
        return tuple(self._units)

    def _new_game(self, game_seed: int) -> KalukiState:
        return new_game(self.rules, self.config.num_players, game_seed)

    def _encode(self, seat: int, acting: bool) -> np.ndarray:
        return encode(self._state, seat, self._suggestions if acting else (), self.observation_layout)

    def _describe(self, action: int) -> str:
        if action >= KalukiAction.FIRST_OFFER:
            moves = engine_moves(self._state, action, self._suggestions)
            return "; ".join(str(m) for m in moves)
        return action_name(action)

    def _unit_result(self, state: KalukiState) -> HandResult:
        return state.last_hand

    def _unit_rewards(self, state: KalukiState) -> list[float]:
        return hand_rewards(self.config, state.last_hand, state)

    def _episode_ends(self, state: KalukiState) -> bool:
        return episode_ends(self.config, state)

    def _next_unit(self, state: KalukiState) -> KalukiState:
        return next_hand(state)

    def _decide(self, state: KalukiState) -> tuple[np.ndarray, tuple]:
        return decision(state, self.config.k_plays)

    def _apply(self, state: KalukiState, action: int) -> KalukiState:
        return apply_moves(state, engine_moves(state, action, self._suggestions))

    def _unit_points(self, result: HandResult) -> tuple[int, ...]:
        return result.scores

    def _game_over(self, state: KalukiState) -> bool:
        return state.phase is Phase.GAME_OVER


def env(**config: object) -> AECEnv:
    """The Kaluki AEC env wrapped like PettingZoo's classic games."""
    return wrap(raw_env(**config))


__all__ = ["KalukiAction", "action_name", "decision", "engine_moves", "env", "fixed_actions", "offers", "raw_env"]
