"""Episodes between seats, for any game of the family: what an episode is, how an AEC env
is stepped through the seats that have a policy, and what a finished episode leaves.

* :class:`Episode`: one episode to play, its deal seed and who controls each seat.
* :func:`advance_to_decision`: the stepping loop. Seats with a policy at hand act (through
  the game's ``act``, which knows how its policies read a decision), finished seats are
  stepped out, every seat's rewards are collected, until a seat without a policy here must
  decide or the episode ends.
* :class:`EpisodeResult`: returns, the rounds or hands the engine scored, totals, winner,
  and the score (win, draw share, loss) of any seat.

Each game's drivers (Carousel's ``agents.match``, training's runners) build on these.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import numpy as np

C = TypeVar("C")  # who controls a seat: a policy index, a training controller, ...
P = TypeVar("P")  # a policy, as the game's ``act`` takes it

# How a game's policy plays at a seat's decision in an AEC env:
# ``act(policy, env, seat, observation, action_mask) -> action``.
Act = Callable[[Any, Any, int, np.ndarray, np.ndarray], int]


@dataclass(frozen=True)
class Episode(Generic[C]):
    """One episode to play: the seed it is dealt with and who controls each seat."""

    seed: int
    controllers: tuple[C, ...]


@dataclass(frozen=True)
class Decision:
    """A seat that must decide, and what it sees."""

    seat: int
    observation: np.ndarray
    action_mask: np.ndarray


def next_decision(env: Any, rewards: np.ndarray | None = None) -> Decision | None:
    """Step the AEC ``env`` past the finished seats until a seat must decide (its
    :class:`Decision`) or the episode ends (None). Every reward ``last()`` reports on the
    way is added to that seat in ``rewards``, where given."""
    while env.agents:
        seat = env.possible_agents.index(env.agent_selection)
        obs, reward, terminated, truncated, _ = env.last()
        if rewards is not None:
            rewards[seat] += reward
        if not (terminated or truncated):
            return Decision(seat, obs["observation"], obs["action_mask"])
        env.step(None)
    return None


def advance_to_decision(
    env: Any, policies: Mapping[int, P], rewards: np.ndarray, act: Act
) -> tuple[Decision | None, int]:
    """Step the AEC ``env`` while the seat to act has a policy in ``policies`` (by seat) or
    has finished, until another seat must decide (its :class:`Decision`) or the episode
    ends (None). Every reward ``last()`` reports is added to that seat in ``rewards``.
    Also returns the number of actions the policies took."""
    steps = 0
    while (decision := next_decision(env, rewards)) is not None:
        policy = policies.get(decision.seat)
        if policy is None:
            return decision, steps
        env.step(act(policy, env, decision.seat, decision.observation, decision.action_mask))
        steps += 1
    return None, steps


@dataclass(frozen=True)
class EpisodeResult(Generic[C]):
    """A finished episode.

    ``returns``: each seat's summed reward. ``rounds``: what the engine scored of each round
    (Carousel's ``RoundScore``) or hand (Gin's ``HandResult``) played. ``totals``: final
    totals with bonuses once the game is over, the running scores otherwise. ``winner``:
    the game's winner, None while the game goes on or when it ended level. The last three
    are empty or None for an environment that exposes no engine state."""

    episode: Episode[C]
    returns: tuple[float, ...]
    rounds: tuple = ()
    totals: tuple[int, ...] | None = None
    winner: int | None = None

    @classmethod
    def of_game(
        cls, episode: Episode[C], returns: Sequence[float], rounds: Sequence, scores: Sequence[int], game: Any
    ) -> EpisodeResult[C]:
        """The result of ``episode`` whose rounds ended ``rounds`` with running ``scores``,
        and ``game`` (with ``totals`` and ``winner``, -1 for a level game) when the game
        itself ended."""
        returns = tuple(float(r) for r in returns)
        if game is None:
            return cls(episode, returns, tuple(rounds), tuple(scores))
        winner = int(game.winner)
        return cls(episode, returns, tuple(rounds), tuple(game.totals), winner if winner >= 0 else None)

    @property
    def standings(self) -> tuple[float, ...]:
        """What the seats are ranked by: the totals, or the returns where there are none."""
        return self.totals if self.totals is not None else self.returns

    def score(self, seat: int) -> float:
        """1 if ``seat`` won, 0 if it lost; without a winner the seats level on top of the
        standings share the point."""
        if self.winner is not None:
            return float(self.winner == seat)
        top = max(self.standings)
        leaders = [s for s, value in enumerate(self.standings) if value == top]
        return 1.0 / len(leaders) if seat in leaders else 0.0
