"""The opponent pool: frozen past versions of the learner, drawn by prioritised fictitious
self-play (PFSP).

Every ``pool_snapshot_interval`` updates the learner is saved into the pool (the oldest
entry leaves once it is full: it is the easiest to beat). Each finished training episode
credits the pool opponents in it with the learner's score against them, and PFSP draws
the opponents the learner beats least often most often. The entries (not the networks)
are the manifest a checkpoint stores, so ``--resume`` continues with the same pool.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from carousel_env.envkit.episodes import EpisodeResult
from training import checkpoint
from training.network import Agent
from training.policies import LEARNER, Controller, ControllerKind, NetworkPolicy


@dataclass
class PoolEntry:
    id: str
    path: str
    update: int
    games: float = 0.0
    learner_wins: float = 0.0

    def learner_win_rate(self) -> float:
        # Laplace prior: a fresh entry counts as even, never as certainly beaten or unbeaten.
        return (self.learner_wins + 1.0) / (self.games + 2.0)


@dataclass
class OpponentPool:
    """Frozen past versions of the learner, saved under ``directory``."""

    directory: Path
    max_size: int
    entries: list[PoolEntry] = field(default_factory=list)
    _cache: dict[str, NetworkPolicy] = field(default_factory=dict, repr=False)

    def add(self, agent: Agent, update: int) -> PoolEntry:
        entry = PoolEntry(id=f"u{update:06d}", path=f"pool/u{update:06d}.pt", update=update)
        checkpoint.atomic_torch_save(checkpoint.make(agent, agent.spec(), update=update), self.directory / entry.path)
        self.entries = [e for e in self.entries if e.id != entry.id] + [entry]
        while len(self.entries) > self.max_size:
            self.entries.pop(0)  # the oldest goes first: it is the easiest to beat
        return entry

    def weights(self, power: float) -> np.ndarray:
        """PFSP: opponents the learner beats less often are drawn more often."""
        w = np.array([(1.0 - e.learner_win_rate()) ** power for e in self.entries])
        return w / w.sum()

    def sample(self, rng: np.random.Generator, power: float) -> PoolEntry:
        return self.entries[int(rng.choice(len(self.entries), p=self.weights(power)))]

    def record(self, entry_id: str, learner_score: float) -> None:
        for e in self.entries:
            if e.id == entry_id:
                e.games += 1.0
                e.learner_wins += learner_score

    def record_episode(self, result: EpisodeResult[Controller]) -> None:
        """Credit every pool opponent in a finished training episode with the learner's score
        against it."""
        for seat, score in learner_scores(result).items():
            controller = result.episode.controllers[seat]
            if controller.kind is ControllerKind.POOL:
                self.record(controller.name, score)

    def policies(self, greedy: bool = False) -> dict[Controller, NetworkPolicy]:
        live = {e.id for e in self.entries}
        self._cache = {k: v for k, v in self._cache.items() if k in live}
        for e in self.entries:
            if e.id not in self._cache:
                path = self.directory / e.path
                self._cache[e.id] = NetworkPolicy(checkpoint.build_agent(checkpoint.load(path), path), e.id, greedy)
        return {Controller.pool(k): v for k, v in self._cache.items()}

    def manifest(self) -> list[dict]:
        return [asdict(e) for e in self.entries]

    def load_manifest(self, manifest: list[dict]) -> None:
        self.entries = [PoolEntry(**m) for m in manifest]
        self._cache = {}


def learner_scores(result: EpisodeResult[Controller]) -> dict[int, float]:
    """For each opponent seat: 1 if the learner (its best seat) finished ahead, 0.5 level, 0 behind."""
    controllers = result.episode.controllers
    returns = result.returns
    best = max(returns[s] for s, c in enumerate(controllers) if c == LEARNER)
    return {
        s: 1.0 if best > returns[s] else 0.5 if best == returns[s] else 0.0
        for s, c in enumerate(controllers)
        if c != LEARNER
    }
