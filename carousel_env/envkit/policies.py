"""Policies at a game's env decisions, for the games whose scripted players are engine
players (a move from the game's state): a scripted policy is the player with the rule that
makes its move the env's action; any other policy is a callable ``(observation,
action_mask) -> action`` handed its seat's observation vector and mask.

A decision is the engine state with the env's offers (its ``suggestions``: Gin's knocks,
Carioca's going-down arrangements); a scripted policy needs both, any other policy neither.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any

import numpy as np

ObservationPolicy = Callable[[np.ndarray, np.ndarray], int]


@dataclass(frozen=True)
class ScriptedPolicy:
    """A scripted engine player at the env's decisions (its ``name`` for messages); a game
    says how its move becomes the env's action (``action``)."""

    name: str
    player: Callable[[Any], Any]

    def action(self, state: Any, offers: tuple) -> int:
        """The env's action for the player's move in ``state``, given the decision's offers."""
        raise NotImplementedError


def scripted_name(name: Any, title: str, players: Collection[str], error: type[Exception]) -> tuple[str, int | None]:
    """A scripted player's name read: its base name and, for ``search@N``, N (None without
    ``@``). ``players``: the game's player names; ``title`` names the game in the ``error``
    raised for a name that is none of them or a budget that is not a whole number of at least 1."""
    base, at, budget = name.partition("@") if isinstance(name, str) else (name, "", "")
    if base not in players or (at and base != "search"):
        raise error(f"unknown {title} player {name!r} (players: {', '.join(players)}, search@N)")
    if not at:
        return base, None
    if not budget.isdigit() or int(budget) < 1:
        raise error(f"{title} player {name!r}: search@N needs N, the deals a decision, a whole number of at least 1")
    return base, int(budget)


def resolve_policy(spec: Any, seed: int | None, scripted: Callable[[str, int | None], ScriptedPolicy], what: str):
    """A policy from a scripted player's name (``scripted(name, seed)``), or a policy as it
    is; ``what`` names the game's policies in the error for anything else."""
    if isinstance(spec, str):
        return scripted(spec, seed)
    if isinstance(spec, ScriptedPolicy) or callable(spec):
        return spec
    raise TypeError(
        f"{what} is a scripted player's name or a callable (observation, action_mask) -> action, got {spec!r}"
    )


def policy_action(policy: Any, state: Callable[[], Any], offers: tuple, observation: np.ndarray, mask) -> int:
    """What ``policy`` plays at a decision: a scripted policy from ``state()`` (asked only for
    it: a vector env builds the state from its arrays) and ``offers``, a callable from the
    observation."""
    if isinstance(policy, ScriptedPolicy):
        return policy.action(state(), offers)
    return int(policy(observation, mask))


def env_action(policy: Any, env: Any, observation: np.ndarray, mask) -> int:
    """:func:`policy_action` at the decision of the AEC ``env`` (wrapped or bare): a scripted
    policy reads its engine state and offers."""
    raw = env.unwrapped
    return policy_action(policy, lambda: raw.game_state, raw.suggestions, observation, mask)
