"""Seats, automatic decisions, reset seeds, rank rewards and registration, for every game's env."""

from __future__ import annotations

import random
from typing import NamedTuple

from pettingzoo import AECEnv

from carousel_env.envkit import wrappers


def agent_names(num_players: int) -> list[str]:
    """The agents of a game of ``num_players``: ``player_0`` .. ``player_{n-1}``, by seat."""
    return [f"player_{i}" for i in range(num_players)]


class AutoAction(NamedTuple):
    """An action the env took for ``agent``: its only legal action, or a forced draw."""

    agent: str
    action: int
    name: str


class GameSeeds:
    """The engine's game seed for each ``reset``: ``reset(seed=s)`` plays game ``s``; later
    ``reset()`` calls draw seeds from an RNG seeded by ``s`` (or by the OS when never seeded)."""

    def __init__(self) -> None:
        self._rng: random.Random | None = None

    def next(self, seed: int | None) -> int:
        if seed is not None:
            self._rng = random.Random(seed)
            return int(seed)
        if self._rng is None:
            self._rng = random.Random()
        return self._rng.getrandbits(62)


def rank_rewards(order: list[list[int]], n: int) -> list[float]:
    """Zero-sum rewards from groups of tied seats, best group first: +1 first .. -1 last,
    tied seats sharing the average of their ranks."""
    rewards = [0.0] * n
    rank = 0
    for group in order:
        mean_rank = rank + (len(group) - 1) / 2
        for seat in group:
            rewards[seat] = 1.0 - 2.0 * mean_rank / (n - 1)
        rank += len(group)
    return rewards


def wrap(raw: AECEnv) -> AECEnv:
    """``raw`` wrapped like PettingZoo's classic games: an illegal action ends the episode
    with reward -1 for its author, actions are bounds-checked, and the API call order is
    enforced."""
    wrapped = wrappers.TerminateIllegalWrapper(raw, illegal_reward=-1)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)


def register(env_id: str, entry_point: str) -> None:
    """Registers ``env_id`` (``carousel/<game>_v0``) with PettingZoo where it has a registry
    (1.27 on): ``entry_point`` is a ``module:function`` path, imported only when the env is made."""
    import pettingzoo

    if hasattr(pettingzoo, "register") and env_id not in pettingzoo.aec_registry:
        pettingzoo.register("aec", env_id, entry_point=entry_point)
