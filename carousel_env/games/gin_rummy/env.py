"""Gin Rummy: a PettingZoo AEC environment.

.. code-block:: python

    import carousel_env

    env = carousel_env.env(game="gin_rummy", preset="openspiel", render_mode="ansi")
    env.reset(seed=42)
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        action = None if termination or truncation else env.action_space(agent).sample(observation["action_mask"])
        env.step(action)

==================== ==========================================================
Import               ``carousel_env.env(game="gin_rummy", **config)``, or ``carousel_env.games.gin_rummy.env``
Registry             ``pettingzoo.make("aec", "carousel/gin_rummy_v0", **config)`` after ``import carousel_env``
Agents               ``player_0``, ``player_1``
Action space         ``Discrete(55 + k_knocks)``
Observation space    ``Dict(observation=Box(0, 1, (size,), float32), action_mask=Box(0, 1, (55 + K,), int8))``
==================== ==========================================================

The rules are RULES.md's "Gin Rummy" (the engine: :mod:`carousel_env.games.gin_rummy.engine`).
The knocker's arrangement is theirs to choose, because it decides what the opponent can lay
off: the exact solver lists every qualifying arrangement and the env offers the first ``K``.
The opponent's lay-offs and melds are then decided exactly by the engine (least deadwood,
breaking their own melds where that helps) and reported in ``hand_results``.

Configuration (keyword arguments, validated; a bad value raises ``GinEnvConfigError`` naming the key)
----------------------------------------------------------------------------------------------------
* ``preset`` ("book" | "openspiel" | "eaai"; ``variant``, the family's word, is read as it) and any rules option of
  :class:`~carousel_env.games.gin_rummy.rules.GinRules` by name (``knock_limit=7``,
  ``game_length="match"``...; ``carousel_env.options("gin_rummy")`` lists them all).
* ``k_knocks`` (8): knock arrangements offered per decision (= slots ``K``).
* ``episode`` (None = the rules' game: "match" for book and eaai, "hand" for openspiel):
  "hand" ends the episode with the first hand.
* ``reward`` ("score"): each hand's points as they are scored, ``reward_scale * (own - opponent's)``,
  and the match bonuses at the end; "result": +1 / -1 / 0 at the end of the episode by the
  totals (or the hand's points). ``reward_scale`` (None = 0.01 for score, 1.0 for result).
* ``render_mode`` (None | "ansi" | "human" | "rgb_array"); ``render_observer`` (None = the
  player to act).

Actions
-------
========= ===================== =====================================================
0         ``DRAW_STOCK``        draw the top card of the stock
1         ``TAKE_UPCARD``       take the top card of the discard pile
2         ``PASS``              pass on the first upcard, or at the wall
3 + c     ``DISCARD`` card c    discard card c (the engine's index ``(rank - 1) * 4 + suit``)
55 + k    ``KNOCK`` k           knock with arrangement k (observation slot k)
========= ===================== =====================================================

Knock arrangements are ordered: least deadwood first (gin first), then fewest cards the
opponent might lay off on the melds (cards neither in the knocker's hand nor in the discard
pile), then by discard and melds. An arrangement never leaves a card that could join its
melds (that would only raise the knocker's count). A decision with a single legal action is
not asked: the env takes it and reports it in ``env.unwrapped.auto_actions``.

Observation
-----------
The global block (:data:`~carousel_env.games.gin_rummy.observation.GLOBAL_CHANNELS`): own hand,
the upcard, the pile under it, the upcard taken this turn, the cards each player passed on
and discarded, the cards the opponent took from the pile and still holds, the game's last
knock (melds, lay-offs, and both hands once the hand is over), while the observer discards
the deadwood each discard would leave, the phase, and the scalars to play, dealer, stock
size, scores, hands won, own deadwood, may knock, knock limit, upcard draws, the opponent's
pass on the first upcard and, while the observer may take the upcard, the deadwood taking it
would leave (after the best discard). A deadwood ``d`` a move would leave reads
``1 - min(d / 100, 1)``, 0 where it does not apply. Then ``K`` knock slots: valid, deadwood,
gin, lay-off spots, the discard, and the cards of sets and of runs. Nothing hidden is in it.

Info (every agent, every step): ``num_auto_actions``, ``hands_ended``, ``hand_points`` (int64,
per seat), ``game_over``. The detail is on the raw env: ``auto_actions`` and ``hand_results``
(the engine's ``HandResult``: the knocker's arrangement, the opponent's ``Layoffs``, points).
"""

from __future__ import annotations

from enum import IntEnum
from typing import ClassVar

import numpy as np
from pettingzoo import AECEnv

from carousel_env.core.cards import NUM_CARDS, card_str
from carousel_env.envkit.aec import CardGameEnv, env_metadata
from carousel_env.envkit.seats import wrap
from carousel_env.games.gin_rummy import melds as gm
from carousel_env.games.gin_rummy.config import GinEnvConfig
from carousel_env.games.gin_rummy.engine import (
    DRAW_STOCK,
    PASS,
    TAKE_UPCARD,
    GinState,
    HandResult,
    Move,
    MoveKind,
    Phase,
    apply,
    legal_discards,
    legal_kinds,
    new_game,
    next_hand,
    ranked_knocks,
)
from carousel_env.games.gin_rummy.observation import ObservationLayout, encode, layout
from carousel_env.games.gin_rummy.rules import NUM_PLAYERS


class GinAction(IntEnum):
    DRAW_STOCK = 0
    TAKE_UPCARD = 1
    PASS = 2
    FIRST_DISCARD = 3  # + card
    FIRST_KNOCK = 3 + NUM_CARDS  # + slot


NUM_FIXED_ACTIONS = int(GinAction.FIRST_KNOCK)
INFO_KEYS = ("num_auto_actions", "hands_ended", "hand_points", "game_over")
_FIXED = {
    MoveKind.DRAW_STOCK: GinAction.DRAW_STOCK,
    MoveKind.TAKE_UPCARD: GinAction.TAKE_UPCARD,
    MoveKind.PASS: GinAction.PASS,
}
_FIXED_MOVES = {GinAction.DRAW_STOCK: DRAW_STOCK, GinAction.TAKE_UPCARD: TAKE_UPCARD, GinAction.PASS: PASS}


def action_name(action: int) -> str:
    if action < GinAction.FIRST_DISCARD:
        return GinAction(action).name
    if action < GinAction.FIRST_KNOCK:
        return f"DISCARD {card_str(action - GinAction.FIRST_DISCARD)}"
    return f"KNOCK_{action - GinAction.FIRST_KNOCK}"


def ordered_knocks(state: GinState) -> list[tuple[gm.Arrangement, int]]:
    """Every knock of the player to act, in the env's order, each with its lay-off spots."""
    # The cards the knocker has not seen: neither in the hand nor in the pile (which holds the
    # upcard at the wall). Every arrangement's melds and discard come from those two.
    unseen = gm.ALL_CARDS & ~gm.mask_of(state.discards) & ~state.hands[state.current]
    return [(arrangement, gm.layoff_spots(arrangement.melds, unseen)) for arrangement in ranked_knocks(state)]


def decision(state: GinState, k: int) -> tuple[np.ndarray, tuple]:
    """The action mask of the player to act and the knock suggestions (arrangement, spots)."""
    mask = np.zeros(NUM_FIXED_ACTIONS + k, np.int8)
    if state.over:
        return mask, ()
    kinds = legal_kinds(state)
    for kind, action in _FIXED.items():
        if kind in kinds:
            mask[action] = 1
    for card in legal_discards(state):
        mask[GinAction.FIRST_DISCARD + card] = 1
    knocks: tuple = ()
    if MoveKind.KNOCK in kinds:
        knocks = tuple(ordered_knocks(state)[:k])
        mask[GinAction.FIRST_KNOCK : GinAction.FIRST_KNOCK + len(knocks)] = 1
    return mask, knocks


def engine_move(action: int, knocks: tuple) -> Move:
    """The engine's move for env ``action`` given the decision's knock suggestions."""
    if action < GinAction.FIRST_DISCARD:
        return _FIXED_MOVES[GinAction(action)]
    if action < GinAction.FIRST_KNOCK:
        return Move(MoveKind.DISCARD, action - GinAction.FIRST_DISCARD)
    return Move(MoveKind.KNOCK, arrangement=knocks[action - GinAction.FIRST_KNOCK][0])


def episode_ends(config: GinEnvConfig, state: GinState) -> bool:
    """Whether the episode ends with the hand just over in ``state``."""
    return state.phase is Phase.GAME_OVER or config.episode == "hand"


def hand_rewards(config: GinEnvConfig, result: HandResult, state: GinState) -> list[float]:
    """Both seats' rewards for the hand that ended with ``result`` (``state``: after it), by
    ``config.reward`` (see Rewards): zero-sum."""
    scale = config.reward_scale
    paid = [0.0, 0.0]
    if config.reward == "score":
        for points in [result.points] + ([state.game_result.bonuses] if state.game_result else []):
            paid = [paid[s] + scale * (points[s] - points[1 - s]) for s in range(NUM_PLAYERS)]
    elif episode_ends(config, state):
        final = state.game_result.totals if state.game_result else result.points
        sign = (final[0] > final[1]) - (final[0] < final[1])
        paid = [scale * sign, -scale * sign]
    return paid


def own_deadwood(hand: gm.Mask, eleven: bool) -> int:
    """The observer's deadwood: of 11 cards after the best discard while it discards."""
    return gm.deadwood_after_discard(hand) if eleven else gm.deadwood(hand)


class raw_env(CardGameEnv):
    """The bare Gin Rummy AEC environment (see the module docstring)."""

    metadata: ClassVar[dict] = env_metadata("gin_rummy_v0")
    info_keys = INFO_KEYS
    action_name = staticmethod(action_name)
    text_renderer = "carousel_env.games.gin_rummy.render:render_text"
    picture_renderer = "carousel_env.games.gin_rummy.render:draw_state"

    def __init__(self, render_mode: str | None = None, **config: object) -> None:
        super().__init__(GinEnvConfig.from_kwargs(render_mode=render_mode, **config))
        self.rules = self.config.rules
        k = self.config.k_knocks
        self.observation_layout: ObservationLayout = layout(k)
        self._init_seats(NUM_PLAYERS, 1.0, self.observation_layout.size, NUM_FIXED_ACTIONS + k)

    @property
    def knocks(self) -> tuple:
        """The knock suggestions at the current decision: ``(arrangement, spots)`` per slot."""
        return self._suggestions

    @property
    def hand_results(self) -> tuple[HandResult, ...]:
        """The hands that ended in the last step (or reset), in order."""
        return tuple(self._units)

    @property
    def episode_hands(self) -> tuple[HandResult, ...]:
        """Every hand the episode has ended so far, in order (as a finished game of the
        vector env lists them)."""
        return tuple(self._episode_hands)

    def _start(self, game_seed: int) -> None:
        self._episode_hands: list[HandResult] = []
        super()._start(game_seed)

    def _new_game(self, game_seed: int) -> GinState:
        return new_game(self.rules, game_seed)

    def _encode(self, seat: int, acting: bool) -> np.ndarray:
        state = self._state
        own = own_deadwood(state.hands[seat], state.phase is Phase.DISCARD and seat == state.current)
        return encode(state, seat, self._suggestions if acting else (), own, self.observation_layout)

    def _describe(self, action: int) -> str:
        if action >= GinAction.FIRST_KNOCK:
            return str(engine_move(action, self._suggestions))
        return action_name(action)

    def _unit_result(self, state: GinState) -> HandResult:
        self._episode_hands.append(state.last_hand)
        return state.last_hand

    def _unit_rewards(self, state: GinState) -> list[float]:
        return hand_rewards(self.config, state.last_hand, state)

    def _episode_ends(self, state: GinState) -> bool:
        return episode_ends(self.config, state)

    def _next_unit(self, state: GinState) -> GinState:
        return next_hand(state)

    def _decide(self, state: GinState) -> tuple[np.ndarray, tuple]:
        return decision(state, self.config.k_knocks)

    def _apply(self, state: GinState, action: int) -> GinState:
        return apply(state, engine_move(action, self._suggestions))

    def _unit_points(self, result: HandResult) -> tuple[int, ...]:
        return result.points

    def _game_over(self, state: GinState) -> bool:
        return state.phase is Phase.GAME_OVER


def env(**config: object) -> AECEnv:
    """The Gin Rummy AEC env wrapped like PettingZoo's classic games."""
    return wrap(raw_env(**config))


__all__ = ["GinAction", "action_name", "decision", "engine_move", "env", "raw_env"]
