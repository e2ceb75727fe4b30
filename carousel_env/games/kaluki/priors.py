"""``simple`` and ``wary`` read from the env's observation and mask, many decisions at once:
the priors that play a search's playouts in the compiled vector env.

A :class:`ScriptedPrior` is a batched callable ``(observations (B, D), masks (B, A)) ->
logits (B, A)`` (the family's prior, :mod:`carousel_env.envkit.priors`) whose most likely
legal action in each row is the scripted player's own
(:func:`~carousel_env.games.kaluki.players.simple_action`,
:func:`~carousel_env.games.kaluki.players.wary_action`). Everything those players read is in
the observation of the player to act: whether it draws, the first offer, whether the pile's
top melds with the hand (``top_melds``) or fits the table (``top_fits``) and whether it has
opened, the hand's loose cards and the cards the next player would take (``feeds``); the mask
leaves out the card taken this turn. ``tests/games/kaluki/test_kaluki_scripted.py`` requires
the same action at every decision of played games.
"""

from __future__ import annotations

import numpy as np

from carousel_env.core.cards import JOKER
from carousel_env.games.kaluki.env import KalukiAction
from carousel_env.games.kaluki.observation import SCALARS, SEAT_FEATURES, layout
from carousel_env.games.kaluki.rules import CARD_KINDS, KalukiRules

PRIORS = ("simple", "wary")
# A discard's rank among the hand's cards, in the order of players.discard_order: a natural
# before a joker, a loose card before one with partners, (wary) one that does not feed the next
# player before one that does, then the highest value, then the highest card index.
NATURAL_RANK, LOOSE_RANK, UNFED_RANK, VALUE_RANK = 1 << 16, 1 << 15, 1 << 14, 1 << 6


class ScriptedPrior:
    """``name``'s action (``simple`` or ``wary``) as logits over the vector env's observations
    of ``k`` offer slots under ``rules``: 1 at the player's action, 0 elsewhere."""

    def __init__(self, name: str, rules: KalukiRules, k: int) -> None:
        if name not in PRIORS:
            raise ValueError(f"a Kaluki scripted prior is one of {', '.join(PRIORS)}, got {name!r}")
        lay = layout(k)
        scalars = lay.offsets["scalars"][0]
        self.name = name
        self._draw = scalars + SCALARS.index("draw")
        self._top_melds = scalars + SCALARS.index("top_melds")
        self._top_fits = scalars + SCALARS.index("top_fits")
        self._opened = lay.offsets["seats"][0] + SEAT_FEATURES.index("opened")  # relative seat 0: the player
        self._loose = slice(*lay.offsets["loose"])
        self._feeds = slice(*lay.offsets["feeds"])
        cards = np.arange(CARD_KINDS)
        values = np.array([rules.card_value(int(c)) for c in cards], np.int64)
        self._discard_rank = np.where(cards != JOKER, NATURAL_RANK, 0) + values * VALUE_RANK + cards

    def actions(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """(B,) the player's action in each row."""
        draw = observations[:, self._draw] > 0
        offer = masks[:, KalukiAction.FIRST_OFFER] != 0
        helps = (observations[:, self._top_melds] > 0) | (
            (observations[:, self._opened] > 0) & (observations[:, self._top_fits] > 0)
        )
        take = (masks[:, KalukiAction.TAKE_DISCARD] != 0) & helps
        rank = self._discard_rank + np.where(observations[:, self._loose] > 0, LOOSE_RANK, 0)
        if self.name == "wary":
            rank = rank + np.where(observations[:, self._feeds] > 0, 0, UNFED_RANK)
        legal = masks[:, KalukiAction.FIRST_DISCARD : KalukiAction.FIRST_DISCARD + CARD_KINDS] != 0
        discard = KalukiAction.FIRST_DISCARD + np.where(legal, rank, -1).argmax(axis=1)
        drawn = np.where(take, KalukiAction.TAKE_DISCARD, KalukiAction.DRAW_STOCK)
        return np.where(offer, KalukiAction.FIRST_OFFER, np.where(draw, drawn, discard))

    def __call__(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        logits = np.zeros(masks.shape)
        logits[np.arange(len(masks)), self.actions(observations, masks)] = 1.0
        return logits

    def __repr__(self) -> str:
        return f"ScriptedPrior({self.name})"


__all__ = ["PRIORS", "ScriptedPrior"]
