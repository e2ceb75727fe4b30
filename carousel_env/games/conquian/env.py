"""Conquian: a PettingZoo AEC environment (RULES.md, "Conquian"; source 004).

.. code-block:: python

    import carousel_env.games.conquian.env as conquian

    env = conquian.env(preset="book", render_mode="ansi")  # presets: book, bicycle, foster
    env.reset(seed=42)
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        action = None if termination or truncation else env.action_space(agent).sample(observation["action_mask"])
        env.step(action)

==================== ==========================================================
Import               ``carousel_env.games.conquian.env.env(**config)`` (``raw_env`` unwrapped)
Agents               ``player_0``, ``player_1``
Action space         ``Discrete(42 + k_plays)``
Observation space    ``Dict(observation=Box(0, 1, (size,), float32), action_mask=Box(0, 1, (42 + K,), int8))``
==================== ==========================================================

A turn: the faced card (the opponent's discard, or the stock card the opponent left) is taken
only to meld it at once, with hand cards and the player's own melds, rearranged as the rules
allow; a card passed goes face down and the player turns up the top of the stock, to take the
same way or leave to the opponent. A passed card that fits the player's melds alone may be
forced on them by the opponent. After a take the player discards, unless 11 cards are melded:
that wins the hand. An empty stock is a tableau, a draw. Engine:
:mod:`carousel_env.games.conquian.engine`; solver: :mod:`carousel_env.games.conquian.solver`.

Configuration (keyword arguments, validated; a bad value raises ``ConquianEnvConfigError`` naming the key)
---------------------------------------------------------------------------------------------------------
:class:`~carousel_env.games.conquian.config.ConquianEnvConfig`: ``preset`` and any rules
option, ``k_plays``, ``episode``, ``reward``, ``reward_scale``, ``render_mode``,
``render_observer`` (``carousel_env.options("conquian")`` lists them with their docs).

Actions
-------
======================= ========================== =============================================
0                       ``PASS``                   pass the faced card, leave the turned one, do not force
1                       ``FORCE``                  force the card just passed on the opponent
2 + i                   ``DISCARD`` card i         i: the card's place among the 40 (A..7 J Q K, suits C D H S)
42 + k                  ``OFFER`` k                take the card with arrangement k
======================= ========================== =============================================

The offers are the solver's arrangements of the player's melds after melding the card, most
cards laid first (:mod:`carousel_env.games.conquian.decision`); under the ``bicycle`` preset a
turned card may also be left after laying from the hand (those offers follow the takes). The
opponent is asked to force only where a forced play exists. A decision with a single legal
action is not asked: the env takes it and reports it in ``env.unwrapped.auto_actions`` (a card
nothing melds with is passed so).

Rewards
-------
``reward="score"`` (per hand, zero-sum, times ``reward_scale``): each seat's score less the
mean: +1 and -1 under ``scoring="unit"`` (more after pooled tableaus), half the loser's hand
each way under ``points``; a tableau pays nothing. ``reward="result"``: at the episode's end,
+1 for the winner, -1 for the loser, 0 to both on a tie or a tableau.

Info (every agent, every step): ``num_auto_actions``, ``hands_ended``, ``hand_points`` (int64,
per seat: what each seat's total changed by), ``game_over``. The detail is on the raw env:
``auto_actions`` and ``hand_results`` (the engine's ``HandResult``).
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from pettingzoo import AECEnv

from carousel_env.envkit.aec import CardGameEnv, env_metadata
from carousel_env.envkit.seats import wrap
from carousel_env.games.conquian.config import ConquianEnvConfig
from carousel_env.games.conquian.decision import (
    NUM_FIXED_ACTIONS,
    ConquianAction,
    Offer,
    action_name,
    decision,
    engine_move,
)
from carousel_env.games.conquian.engine import apply, new_game, next_hand
from carousel_env.games.conquian.observation import ObservationLayout, encode, layout
from carousel_env.games.conquian.rules import NUM_PLAYERS
from carousel_env.games.conquian.state import ConquianState, HandResult, Phase

INFO_KEYS = ("num_auto_actions", "hands_ended", "hand_points", "game_over")


def episode_ends(config: ConquianEnvConfig, state: ConquianState) -> bool:
    """Whether the episode ends with the hand just over in ``state``."""
    return state.phase is Phase.GAME_OVER or config.episode == "hand"


def hand_rewards(config: ConquianEnvConfig, result: HandResult, state: ConquianState) -> list[float]:
    """Both seats' rewards for the hand that ended with ``result`` (``state``: after it): zero-sum."""
    scale = config.reward_scale
    if config.reward == "score":
        mean = sum(result.scores) / NUM_PLAYERS
        return [scale * (s - mean) for s in result.scores]
    if not episode_ends(config, state):
        return [0.0, 0.0]
    points = result.scores if config.episode == "hand" else state.totals
    sign = (points[0] > points[1]) - (points[0] < points[1])
    return [scale * sign, -scale * sign]


class raw_env(CardGameEnv):
    """The bare Conquian AEC environment (see the module docstring)."""

    metadata: ClassVar[dict] = env_metadata("conquian_v0")
    info_keys = INFO_KEYS
    action_name = staticmethod(action_name)
    text_renderer = "carousel_env.games.conquian.render:render_text"
    picture_renderer = "carousel_env.games.conquian.render:draw_state"

    def __init__(self, render_mode: str | None = None, **config: object) -> None:
        super().__init__(ConquianEnvConfig.from_kwargs(render_mode=render_mode, **config))
        self.rules = self.config.rules
        k = self.config.k_plays
        self.observation_layout: ObservationLayout = layout(k)
        self._init_seats(NUM_PLAYERS, 1.0, self.observation_layout.size, NUM_FIXED_ACTIONS + k)

    @property
    def hand_results(self) -> tuple[HandResult, ...]:
        """The hands that ended in the last step (or reset), in order."""
        return tuple(self._units)

    def _new_game(self, game_seed: int) -> ConquianState:
        return new_game(self.rules, game_seed)

    def _encode(self, seat: int, acting: bool) -> np.ndarray:
        return encode(self._state, seat, self._suggestions if acting else (), self.observation_layout)

    def _describe(self, action: int) -> str:
        if action >= ConquianAction.FIRST_OFFER:
            return str(engine_move(action, self._suggestions))
        return action_name(action)

    def _unit_result(self, state: ConquianState) -> HandResult:
        return state.last_hand

    def _unit_rewards(self, state: ConquianState) -> list[float]:
        return hand_rewards(self.config, state.last_hand, state)

    def _episode_ends(self, state: ConquianState) -> bool:
        return episode_ends(self.config, state)

    def _next_unit(self, state: ConquianState) -> ConquianState:
        return next_hand(state)

    def _decide(self, state: ConquianState) -> tuple[np.ndarray, tuple[Offer, ...]]:
        return decision(state, self.config.k_plays)

    def _apply(self, state: ConquianState, action: int) -> ConquianState:
        return apply(state, engine_move(action, self._suggestions))

    def _unit_points(self, result: HandResult) -> tuple[int, ...]:
        return result.scores

    def _game_over(self, state: ConquianState) -> bool:
        return state.phase is Phase.GAME_OVER


def env(**config: object) -> AECEnv:
    """The Conquian AEC env wrapped like PettingZoo's classic games."""
    return wrap(raw_env(**config))


__all__ = ["ConquianAction", "action_name", "decision", "engine_move", "env", "raw_env"]
