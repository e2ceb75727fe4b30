"""Agents by name: a checkpoint path (a network) or a scripted baseline name.

Network policies are batched across game copies in the learner process. Scripted
baselines (``carousel_env.agents.baselines``) are cheap, so they act inside whichever process
steps their environment (see ``selfplay.Runner``) and save a round trip per decision.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from carousel_env.engine.errors import CarouselError
from training import checkpoint
from training.network import Agent, ObsLayout


class UnknownAgentError(CarouselError):
    """An agent name that is neither a checkpoint file nor a known baseline."""


def baseline_names() -> list[str]:
    from carousel_env.agents import baselines

    return list(baselines.policy_names())


def make_scripted(name: str, seed: int | None = None):
    """A baseline: a callable ``(observation_vector, action_mask) -> action``."""
    from carousel_env.agents import baselines

    try:
        return baselines.resolve_policy(name, seed=seed)
    except ValueError:
        raise UnknownAgentError(
            f"unknown agent {name!r}: not a checkpoint file, and not a baseline ({', '.join(baseline_names())})"
        ) from None


class NetworkPolicy:
    """A frozen network; ``act`` takes a batch. ``greedy`` plays the most likely action."""

    def __init__(
        self, agent: Agent, name: str = "net", greedy: bool = False, generator: torch.Generator | None = None
    ) -> None:
        self.agent = agent
        self.name = name
        self.greedy = greedy
        # Evaluation passes its own generator so that it leaves the training RNG untouched.
        self.generator = generator

    @torch.no_grad()
    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        dist = self.agent.distribution(torch.as_tensor(obs), torch.as_tensor(mask))
        action = dist.mode() if self.greedy else dist.sample(self.generator)
        return action.numpy()


def is_checkpoint_name(name: str) -> bool:
    return name.endswith(".pt") or Path(name).is_file() or Path(name).is_dir()


def checkpoint_file(name: str) -> Path:
    """A run directory means its latest checkpoint; a shipped agent's folder (no
    ``latest.pt``) its exported ``model.pt``."""
    path = Path(name)
    if path.is_dir():
        path = (
            path / "latest.pt"
            if (path / "latest.pt").exists() or not (path / "model.pt").exists()
            else path / "model.pt"
        )
    return path


def load_network_policy(name: str, layout: ObsLayout | dict | None = None, greedy: bool = False) -> NetworkPolicy:
    """The network in a checkpoint; ``layout`` (if given) must match the one it was trained on."""
    path = checkpoint_file(name)
    data = checkpoint.load(path)
    expect = layout.as_dict() if isinstance(layout, ObsLayout) else layout
    agent = checkpoint.build_agent(data, path, expect_layout=expect)
    return NetworkPolicy(agent, name=str(name), greedy=greedy)
