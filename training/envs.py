"""How training reaches the Carousel environment: construction, layout, episode summaries.

Kept in one small module so the rest of the training code depends only on the PettingZoo
AEC API (``reset``, ``agent_selection``, ``last``, ``step``, ``rewards``, ``agents``) plus
the few Carousel-specific facts gathered here. Tests swap in a fake environment through
``env_factory`` ("module:function"), which also works in spawned worker processes because
it is a name, not an object.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

from training.network import ObsLayout

DEFAULT_ENV_FACTORY = "carousel_env:env"


@dataclass(frozen=True)
class EnvSpec:
    """Everything needed to build an environment copy (picklable, sent to workers)."""

    num_players: int = 2
    k_suggestions: int = 8
    episode: str = "round"
    reward: str = "round_score"
    reward_scale: float | None = None
    factory: str = DEFAULT_ENV_FACTORY

    def kwargs(self) -> dict[str, Any]:
        kw: dict[str, Any] = {
            "num_players": self.num_players,
            "k_suggestions": self.k_suggestions,
            "episode": self.episode,
            "reward": self.reward,
        }
        if self.reward_scale is not None:
            kw["reward_scale"] = self.reward_scale
        return kw


def _resolve(name: str):
    module, _, attr = name.partition(":")
    return getattr(importlib.import_module(module), attr)


def make_env(spec: EnvSpec, **extra: Any):
    return _resolve(spec.factory)(**spec.kwargs(), **extra)


def seat_of(agent: str) -> int:
    """``player_3`` -> 3."""
    return int(agent.rsplit("_", 1)[1])


def obs_layout(env) -> ObsLayout:
    """The observation layout of an environment, as the network needs it."""
    lay = env.unwrapped.observation_layout
    return ObsLayout(int(lay.global_size), int(lay.slots_start), int(lay.num_slots), int(lay.slot_features))


def layout_for(spec: EnvSpec) -> ObsLayout:
    env = make_env(spec)
    try:
        return obs_layout(env)
    finally:
        env.close()


def game_state(env):
    """The engine state behind an environment (None if it exposes none)."""
    try:
        return env.unwrapped.game_state
    except (AttributeError, AssertionError):  # a fake env, or one never reset
        return None


def round_records(env) -> list[dict[str, Any]]:
    """The rounds finished so far in the current game: end kind, winners, knocker, undercut, points."""
    state = game_state(env)
    if state is None:
        return []
    return [
        {
            "end": r.end.value,
            "winners": list(r.winners),
            "knocker": r.knocker,
            "went_out": r.went_out,
            "undercut": bool(r.undercut),
            "points": list(r.points),
        }
        for r in state.round_scores
    ]


def game_totals(env) -> list[int] | None:
    """Final totals (with bonuses) of a finished game, or the running scores."""
    state = game_state(env)
    if state is None:
        return None
    if state.game_result is not None:
        return list(state.game_result.totals)
    return list(state.scores)


def game_winner(env) -> int | None:
    """The seat that won the game (None while it runs or when the env exposes no state)."""
    state = game_state(env)
    if state is None or state.game_result is None:
        return None
    return int(state.game_result.winner)
