"""Playing Carousel policies against each other, and the match runner for policies that
decide one observation at a time.

What an episode is, how one is stepped and what it leaves are the family's
(:mod:`carousel_env.envkit.episodes`: :class:`Episode`, :class:`EpisodeResult`, the stepping
loop); here they get Carousel's policies (:func:`policy_action`, :func:`advance_to_decision`)
and its engine state (:func:`episode_result`). Training's driver is in ``training.runners``.

Why two drivers: :func:`play_match` plays one episode at a time and asks each policy for
one action at a time, which suits scripted policies and any callable, with nothing but
the environment. Training's networks instead decide in batches, one forward pass for the
same decision in many game copies (in worker processes too), and sample from torch
generators in that batched order; that driver lives above, in ``training``, where torch
is, and steps its copies with the same loop and reports the same result type.

View policies (:class:`carousel_env.games.carousel.agents.search.ViewPolicy`, e.g. the ``search`` player)
decide from their seat's :class:`~carousel_env.games.carousel.engine.information.SeatView` instead of the
observation vector: the stepping loop and ``engine_player`` build it from the engine state
(``seat_view(env.unwrapped.game_state, seat)``, in :func:`policy_action`), so every driver
here takes them as it takes any policy.

Matches rotate seats: game ``g`` is dealt with seed ``seed + g`` and policy ``i`` sits in
seat ``(i + g) % n``, so no policy keeps the first seat. Policies are built once per match,
``random`` seeded with ``seed + i``: the same seed plays the same games.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

from carousel_env.envkit import episodes
from carousel_env.envkit.episodes import Decision, Episode, EpisodeResult
from carousel_env.games.carousel.agents.baselines import Policy
from carousel_env.games.carousel.agents.registry import resolve_policy
from carousel_env.games.carousel.agents.search import is_view_policy
from carousel_env.games.carousel.engine.game import Action, GameState
from carousel_env.games.carousel.engine.information import seat_view
from carousel_env.games.carousel.envs.aec import decision, engine_move, raw_env
from carousel_env.games.carousel.envs.observation import encode, layout

C = TypeVar("C")  # who controls a seat: a policy index here, a training controller above

__all__ = ["Decision", "Episode", "EpisodeResult"]  # the family's types, as this module's users import them


def advance_to_decision(env: Any, policies: Mapping[int, Policy], rewards: np.ndarray) -> tuple[Decision | None, int]:
    """The family's stepping loop (``envkit.episodes.advance_to_decision``) with Carousel's
    policies: a view policy gets its seat's view of ``env.unwrapped.game_state`` (module
    docstring). Also returns the number of actions the policies took."""
    return episodes.advance_to_decision(env, policies, rewards, policy_action)


def policy_action(policy: Policy, env: Any, seat: int, observation: np.ndarray, action_mask: np.ndarray) -> int:
    """What ``policy`` plays at ``seat``'s decision in the AEC ``env``: a view policy decides
    from its seat's view of ``env.unwrapped.game_state``, any other policy from the
    observation. The one place every env-stepping driver (the loop above, the single-agent
    env's opponents, terminal play, the vector env's drivers through ``state_action``) tells
    the two kinds apart."""
    return state_action(policy, lambda: env.unwrapped.game_state, seat, observation, action_mask)


def state_action(
    policy: Policy, game_state: Callable[[], GameState], seat: int, observation: np.ndarray, action_mask: np.ndarray
) -> int:
    """:func:`policy_action` for a driver whose engine state comes from ``game_state()``
    (asked only for a view policy: the vector env builds it from its arrays)."""
    if is_view_policy(policy):
        return int(policy.decide(seat_view(game_state(), seat), action_mask))
    return int(policy(observation, action_mask))


def episode_result(episode: Episode[C], returns: Sequence[float], state: GameState | None) -> EpisodeResult[C]:
    """The result of ``episode`` ending in engine ``state`` (None: the env has none)."""
    if state is None:
        return EpisodeResult(episode, tuple(float(r) for r in returns))
    return EpisodeResult.of_game(episode, returns, state.round_scores, state.scores, state.game_result)


def play_episode(env: Any, episode: Episode[C], policies: Mapping[int, Policy]) -> EpisodeResult[C]:
    """Play ``episode`` in the raw Carousel env ``env`` with a policy for every seat."""
    env.reset(seed=episode.seed)
    returns = np.zeros(len(episode.controllers))
    decision, _ = advance_to_decision(env, policies, returns)
    if decision is not None:
        raise ValueError(f"seat {decision.seat} has no policy")
    return episode_result(episode, returns, env.game_state)


def rotated_seats(num_policies: int, games: int, seed: int) -> list[Episode[int]]:
    """The match schedule: game ``g`` dealt with ``seed + g``, policy ``i`` in seat ``(i + g) % n``
    (``controllers[seat]`` is the index of the policy in that seat)."""
    n = num_policies
    return [Episode(seed + g, tuple((seat - g) % n for seat in range(n))) for g in range(games)]


@dataclass(frozen=True)
class MatchResult:
    """The games of a match; ``names[i]`` is policy ``i``, and in each game's episode
    ``controllers[seat]`` is the index of the policy that sat there."""

    names: tuple[str, ...]
    games: tuple[EpisodeResult[int], ...]

    def _seat_results(self, policy: int) -> list[tuple[int, EpisodeResult[int]]]:
        return [(game.episode.controllers.index(policy), game) for game in self.games]

    def wins(self, policy: int) -> float:
        """Games won by policy ``policy`` (a shared win counts its share)."""
        return sum(game.score(seat) for seat, game in self._seat_results(policy))

    def win_rate(self, policy: int) -> float:
        return self.wins(policy) / len(self.games) if self.games else 0.0

    def mean_total(self, policy: int) -> float:
        """Policy ``policy``'s mean final total (its mean return where the env keeps no totals)."""
        if not self.games:
            return 0.0
        totals = [game.standings[seat] for seat, game in self._seat_results(policy)]
        return sum(totals) / len(totals)


def _name(policy: str | Policy) -> str:
    return policy if isinstance(policy, str) else getattr(policy, "__name__", type(policy).__name__)


def play_match(policies: Sequence[str | Policy], games: int, seed: int = 0, **config: object) -> MatchResult:
    """Play ``games`` games between ``policies`` (names or callables, one per seat) in the
    raw env built with ``config``; seats rotate every game (see the module docstring)."""
    n = len(policies)
    env = raw_env(num_players=n, **config)
    resolved = [resolve_policy(p, seed=seed + i) for i, p in enumerate(policies)]
    results = []
    for episode in rotated_seats(n, games, seed):
        seated = {seat: resolved[i] for seat, i in enumerate(episode.controllers)}
        results.append(play_episode(env, episode, seated))
    env.close()
    return MatchResult(tuple(_name(p) for p in policies), tuple(results))


def round_robin(names: Sequence[str], games: int, seed: int = 0, **config: object) -> list[MatchResult]:
    """A two-player match between every pair of ``names``, in order."""
    return [play_match([a, b], games, seed=seed, **config) for i, a in enumerate(names) for b in names[i + 1 :]]


def engine_player(policy: str | Policy, k: int = 8, seed: int | None = None) -> Callable[[GameState], Action]:
    """Adapt a policy to the engine: a callable ``GameState -> Action`` that plays for the
    player to act from that player's observation only (for ``carousel demo`` and scripts)."""
    chosen = resolve_policy(policy, seed=seed)
    lay = layout(k)

    def play(state: GameState) -> Action:
        mask, suggestions = decision(state, k)
        if is_view_policy(chosen):
            action = chosen.decide(seat_view(state, state.current), mask)
        else:
            action = chosen(encode(state, state.current, suggestions, lay), mask)
        return engine_move(action, suggestions)

    return play
