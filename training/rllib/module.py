"""The RLlib module: our own network (``training.network.Agent``) inside a TorchRLModule.

``CarouselRLModule`` is a PPO-ready ``TorchRLModule`` (with RLlib's ``ValueFunctionAPI``)
for the observations of ``carousel_env.integrations.rllib.CarouselMultiAgentEnv``. Its
only parameters are those of an ``Agent`` held as ``self.net``, so its state dict is the
``Agent``'s with every key prefixed ``net.``: the mapping to and from our checkpoints
(``training.checkpoint``) is one to one, and an RLlib-trained module exports to a
checkpoint that ``carousel eval``, ``tournament`` and ``play`` load unchanged
(:func:`export_checkpoint`), or starts from one (:func:`module_state`).

Illegal actions are masked as in the in-house trainer (``training.network.MaskedCategorical``:
their logits become the dtype's most negative value), so RLlib's categorical distribution
gives them probability 0 and its entropy counts legal actions only.

``model_config`` keys: ``hidden_size`` (128) and ``slot_hidden_size`` (64), the ``Agent``'s
widths; ``layout`` and ``num_fixed_actions``, the game's shape (``training.envs.EnvShape``,
which :func:`module_spec` fills in). Without them the shape is Carousel's, read from the
spaces (``K = action_space.n - 3``). ``card_actions`` (config key ``card_head``): the card
head's actions and channels (``CardActions.as_dict()``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.core.rl_module.torch import TorchRLModule

from carousel_env.envkit.layout import CardActions, ObservationLayout
from carousel_env.games.carousel.envs.aec import NUM_FIXED_ACTIONS, observation_layout
from carousel_env.integrations.rllib import MASK_KEY, OBS_KEY
from training import checkpoint
from training.envs import EnvShape
from training.network import Agent

PREFIX = "net."  # the module's state-dict keys are the Agent's, under this prefix


class CarouselRLModule(TorchRLModule, ValueFunctionAPI):
    """Masked policy and value of one ``Agent`` (see the module docstring)."""

    def setup(self) -> None:
        config = self.model_config or {}
        fixed = config.get("num_fixed_actions", NUM_FIXED_ACTIONS)
        if "layout" in config:
            layout = ObservationLayout.from_dict(config["layout"])
        else:
            layout = observation_layout(self.action_space.n - NUM_FIXED_ACTIONS)
        size = self.observation_space[OBS_KEY].shape[0]
        if size != layout.size or self.action_space.n != fixed + layout.num_slots:
            raise ValueError(
                f"spaces ({size} observations, {self.action_space.n} actions) do not fit the layout "
                f"{layout.as_dict()} with {fixed} fixed actions"
            )
        cards = config.get("card_actions")
        self.net = Agent(
            layout,
            config.get("hidden_size", 128),
            config.get("slot_hidden_size", 64),
            fixed,
            card_actions=None if cards is None else CardActions.from_dict(cards),
        )

    def _logits_and_values(self, batch: dict[str, Any]) -> tuple[torch.Tensor, torch.Tensor]:
        obs = batch[Columns.OBS]
        logits, values = self.net.policy_and_value(obs[OBS_KEY].float())
        # Masked as MaskedCategorical does: the most negative value, not -inf (no NaN).
        masked = torch.where(obs[MASK_KEY].bool(), logits, torch.finfo(logits.dtype).min)
        return masked, values

    def _forward(self, batch: dict[str, Any], **kwargs) -> dict[str, Any]:
        return {Columns.ACTION_DIST_INPUTS: self._logits_and_values(batch)[0]}

    def _forward_train(self, batch: dict[str, Any], **kwargs) -> dict[str, Any]:
        # One pass gives both heads; PPO's loss hands the "embeddings" back to compute_values.
        logits, values = self._logits_and_values(batch)
        return {Columns.ACTION_DIST_INPUTS: logits, Columns.EMBEDDINGS: values}

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        if embeddings is not None:
            return embeddings
        return self.net.get_value(batch[Columns.OBS][OBS_KEY].float())


def module_spec(
    hidden_size: int = 128,
    slot_hidden_size: int = 64,
    shape: EnvShape | None = None,
    card_actions: CardActions | None = None,
) -> RLModuleSpec:
    """The spec of one ``CarouselRLModule`` for a game of ``shape`` (None: Carousel's, read
    from the spaces, which RLlib fills in from the env), with a card head over ``card_actions``."""
    model_config: dict[str, Any] = {"hidden_size": hidden_size, "slot_hidden_size": slot_hidden_size}
    if shape is not None:
        model_config.update(layout=shape.layout.as_dict(), num_fixed_actions=shape.num_fixed_actions)
    if card_actions is not None:
        model_config["card_actions"] = card_actions.as_dict()
    return RLModuleSpec(module_class=CarouselRLModule, model_config=model_config)


def agent_from_state(state: dict[str, Any], spec: dict[str, Any]) -> Agent:
    """The ``Agent`` of a module state (``module.get_state()`` or the learner's weights;
    numpy arrays or tensors); ``spec`` is ``Agent.spec()``. Every key must match."""
    with torch.random.fork_rng(devices=[]):  # the initial weights it overwrites leave torch's RNG alone
        agent = Agent.from_spec(spec)
    agent.load_state_dict({key.removeprefix(PREFIX): torch.as_tensor(np.asarray(v)) for key, v in state.items()})
    agent.eval()
    return agent


def module_state(agent: Agent) -> dict[str, np.ndarray]:
    """A module state holding ``agent``'s weights (for ``module.set_state``)."""
    return {PREFIX + key: value.detach().cpu().numpy() for key, value in agent.state_dict().items()}


def export_checkpoint(state: dict[str, Any], spec: dict[str, Any], path: str | Path, **extra: Any) -> Path:
    """Write a module state as a checkpoint of ours (the slim one ``carousel export``
    writes), which ``carousel eval``, ``tournament`` and ``play`` read; ``extra`` entries
    (``counters``, ...) are stored beside the network."""
    agent = agent_from_state(state, spec)
    checkpoint.atomic_torch_save(checkpoint.make(agent, agent.spec(), **extra), path)
    return Path(path)


def export_module(algorithm: Any, path: str | Path, module_id: str = "main", **extra: Any) -> Path:
    """Write the learner's module ``module_id`` of an RLlib ``Algorithm`` to ``path`` as a
    checkpoint of ours (see :func:`export_checkpoint`)."""
    results = algorithm.learner_group.foreach_learner(lambda learner: _spec_and_state(learner.module[module_id]))
    spec, state = next(iter(results)).get()  # every learner holds the same weights: the first
    return export_checkpoint(state, spec, path, **extra)


def _spec_and_state(module: CarouselRLModule) -> tuple[dict[str, Any], dict[str, Any]]:
    return module.net.spec(), module.get_state()
