"""A policy network as the guided searches use it: a batched callable ``(observations (B, D),
masks (B, A)) -> logits (B, A)`` (``training.policies.network_prior``), its moves taken
as its most likely action or sampled, and the rollouts it plays in a game's vector env.
Shared by every game's guided search."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from carousel_env.envkit.vector import WAIT

Prior = Callable[[np.ndarray, np.ndarray], np.ndarray]  # (observations, masks) -> logits
ROLLOUTS = ("mode", "sample")  # a rollout's moves: the prior's most likely, or a sample of it


def prior_logits(prior: Prior, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """The prior's logits, checked to have the masks' shape."""
    logits = np.asarray(prior(observations, masks), np.float64)
    if logits.shape != masks.shape:
        raise ValueError(f"the prior returned logits of shape {logits.shape} for masks of shape {masks.shape}")
    return logits


def prior_actions(
    prior: Prior, observations: np.ndarray, masks: np.ndarray, rollout: str, rng: np.random.Generator | None
) -> np.ndarray:
    """One legal action per row: the most likely (``rollout="mode"``, ``rng`` unused) or a
    sample from the softmax of the logits over the legal actions (``"sample"``, from ``rng``)."""
    logits = prior_logits(prior, observations, masks)
    if rollout == "sample":
        logits = logits + rng.gumbel(size=logits.shape)  # Gumbel-max: a sample of softmax(logits)
    return np.where(masks != 0, logits, -np.inf).argmax(axis=1)


def prior_choice(prior: Prior, observation: np.ndarray, mask: np.ndarray) -> int:
    """The prior's most likely legal action at one decision."""
    return int(prior_actions(prior, observation[None], mask[None], "mode", None)[0])


class Rollout(NamedTuple):
    """What :func:`roll_out` played: each row's value for the searching seat, which rows were
    still playing when the steps ran out, and the env steps of every row summed."""

    values: np.ndarray  # (rows,)
    unfinished: np.ndarray  # (rows,) bool
    steps: int


def roll_out(
    venv: Any,
    first: np.ndarray,
    prior: Prior,
    rollout: str,
    rng: np.random.Generator | None,
    gain: Callable[[Any], np.ndarray],
    max_steps: int,
    leaf: Callable[[Any, np.ndarray, np.ndarray], None] | None = None,
) -> Rollout:
    """Play rows ``0..len(first) - 1`` of ``venv`` (each loaded at the searching seat's
    decision) from the move ``first[row]``, then the prior's moves (``rollout``) at every
    seat, until each row's episode ends, ``leaf`` stops it, or ``max_steps`` steps were
    played. ``gain(step)``: (num_envs,) what the step brought the searching seat in each row;
    ``leaf(step, playing, values)`` may value rows where they stand (adding to ``values``)
    and stop them (clearing ``playing``)."""
    rows = len(first)
    moves = np.full(venv.num_envs, WAIT, np.int64)
    moves[:rows] = first
    values = np.zeros(rows)
    playing = np.zeros(venv.num_envs, np.bool_)
    playing[:rows] = True
    steps = 0
    for _ in range(max_steps):
        step = venv.step(moves)
        steps += int(playing.sum())
        values += gain(step)[:rows]
        playing &= ~step.terminated
        if leaf is not None:
            leaf(step, playing, values)
        if not playing.any():
            break
        moves[:] = WAIT
        at = np.flatnonzero(playing)
        moves[at] = prior_actions(prior, step.observation[at], step.action_mask[at], rollout, rng)
    return Rollout(values, playing[:rows].copy(), steps)
