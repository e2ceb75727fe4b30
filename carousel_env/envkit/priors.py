"""A policy network as the guided searches use it: a batched callable ``(observations (B, D),
masks (B, A)) -> logits (B, A)`` (``training.policies.network_prior``), its moves taken
as its most likely action or sampled. Shared by every game's guided search."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

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
