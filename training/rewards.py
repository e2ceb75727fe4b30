"""What the learner's rewards become before GAE: shaped by a game's measure of progress, and
scaled by the spread of the returns, both options of the training config.

* **Potential-based shaping** (``shaping_coef``): a game that declares a potential
  (``FamilyGame.progress``: Gin's deadwood, Carioca's distance to its contract, read from the
  observation the learner acts on) adds ``gamma * phi(next) - phi(now)`` to each learner
  decision's reward, ``phi`` after the episode's last decision being 0. Over an episode the
  added terms telescope to ``-phi(first)``, which no action changes, so the best policy is
  the same with or without it (Ng, Harada and Russell, 1999); it only tells the critic sooner
  which moves made progress. Evaluation plays the env's own rewards: the shaping lives here.
* **Return normalisation** (``normalize_returns``): rewards are divided by the running standard
  deviation of the learner's (shaped) episode returns, so that a game scored in hundreds of
  points and one scored +-1 train with the same learning rate, entropy and value settings. The
  running moments are part of the checkpoint, so a resumed run scales as an unbroken one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

MIN_SCALE = 1e-3  # below this spread the returns carry no scale worth dividing by


def shaped(rewards: Sequence[float], potentials: Sequence[float], gamma: float, coef: float) -> np.ndarray:
    """A trajectory's rewards plus ``coef * (gamma * phi[t+1] - phi[t])``, ``phi`` after the
    last decision 0 (the episode is over: nothing is left to make progress towards)."""
    rewards = np.asarray(rewards, np.float64)
    phi = coef * np.asarray(potentials, np.float64)
    if phi.shape != rewards.shape:
        raise ValueError(f"one potential per decision: {phi.shape} potentials for {rewards.shape} rewards")
    following = np.append(phi[1:], 0.0)
    return rewards + gamma * following - phi


@dataclass
class RunningMoments:
    """Count, mean and summed squared deviations of every value seen (Welford's, merged a
    batch at a time), kept in checkpoints as a dict (:meth:`as_dict`)."""

    count: int = 0
    mean: float = 0.0
    m2: float = 0.0

    def update(self, values: Sequence[float]) -> None:
        values = np.asarray(values, np.float64)
        if values.size == 0:
            return
        n, mean = values.size, float(values.mean())
        total = self.count + n
        delta = mean - self.mean
        self.m2 += float(((values - mean) ** 2).sum()) + delta * delta * self.count * n / total
        self.mean += delta * n / total
        self.count = total

    @property
    def std(self) -> float:
        return float(np.sqrt(self.m2 / self.count)) if self.count else 0.0

    def scale(self) -> float:
        """What rewards are divided by: the returns' spread, 1 while it is too small to use."""
        return self.std if self.std > MIN_SCALE else 1.0

    def as_dict(self) -> dict[str, float]:
        return {"count": self.count, "mean": self.mean, "m2": self.m2}

    @classmethod
    def from_dict(cls, data: dict) -> RunningMoments:
        moments = cls(int(data["count"]), float(data["mean"]), float(data["m2"]))
        if moments.count < 0 or moments.m2 < 0 or not np.isfinite([moments.mean, moments.m2]).all():
            raise ValueError(f"running moments out of range: {data}")
        return moments
