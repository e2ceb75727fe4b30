"""What a training run logs to show whether it learns, beside PPO's losses: how often the
learner takes each kind of action its game names (``actions/``), how long its episodes are
and the scale of its returns (``charts/``).

A run that does not learn usually shows why here: Gin's learner that never knocks while it
may (``actions/knock`` near 0), returns whose spread dwarfs or vanishes beside the value's
error, episodes that run to the game's caps. The plot of a run (``learning_curves.png``)
draws these beside the evaluation against the game's scripted yardstick.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from carousel_env.envkit.family import ActionKind


def action_rates(masks: np.ndarray, actions: np.ndarray, kinds: Sequence[ActionKind]) -> dict[str, float]:
    """For each kind, of the decisions (rows of ``masks``, legal actions nonzero) where one of
    its actions was legal, the share whose action (``actions``) was one of them, as
    ``actions/<name>``; a kind legal nowhere is left out (a rate of nothing is no figure)."""
    masks = np.asarray(masks)
    actions = np.asarray(actions)
    if masks.ndim != 2 or actions.shape != (masks.shape[0],):
        shapes = f"{masks.shape} and {actions.shape}"
        raise ValueError(f"masks must be (decisions, actions) and actions (decisions,), got {shapes}")
    rates = {}
    for kind in kinds:
        span = kind.actions(masks.shape[1])
        legal = masks[:, span.start : span.stop].any(axis=1)
        if legal.any():
            taken = (actions >= span.start) & (actions < span.stop)
            rates[f"actions/{kind.name}"] = float(taken[legal].mean())
    return rates


def episode_figures(
    returns: Sequence[float], decisions: Sequence[int], env_steps: int, episodes: int
) -> dict[str, float]:
    """The learner's episodes in a rollout: their returns' spread and mean size
    (``charts/return_std``, ``charts/return_abs_mean``), its decisions per episode
    (``charts/episode_decisions``) and the env's steps per episode (``charts/episode_env_steps``)."""
    figures: dict[str, float] = {}
    if len(returns):
        values = np.asarray(returns, np.float64)
        figures["charts/return_std"] = float(values.std())
        figures["charts/return_abs_mean"] = float(np.abs(values).mean())
    if len(decisions):
        figures["charts/episode_decisions"] = float(np.mean(decisions))
    if episodes:
        figures["charts/episode_env_steps"] = env_steps / episodes
    return figures
