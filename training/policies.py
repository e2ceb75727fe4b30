"""Who plays each seat of training's games, and the network policies.

A seat's :class:`Controller` is the learner, a scripted policy (by its name among its
game's players: ``training.games``), a past learner from the opponent pool (by its entry
id) or another network the caller holds (evaluation's candidate and checkpoint opponents,
the fixed opponent of a best response, by a key). Network policies are batched across game
copies in the learner process. Scripted policies act inside whichever process steps their
environment (see ``runners.Runner``): the cheap ones save a round trip per decision, and
the search player (``search@N``, a view policy the runner hands its seat's view) runs its
rollouts in the worker processes, in parallel.

Agents by name (``carousel eval``, ``tournament``, ``play``, ``leaderboard``) are a
checkpoint path (a network) or a scripted policy's name (``search@N`` included).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

import numpy as np
import torch

from carousel_env.core.registry import DEFAULT_GAME
from carousel_env.envkit.layout import ObservationLayout
from training import checkpoint
from training.checkpoint_names import ARGMAX_TAG, checkpoint_file, find_checkpoint, is_checkpoint_name, split_guided
from training.games import is_player_name, training_game, unknown_player
from training.network import Agent


class ControllerKind(str, Enum):
    LEARNER = "learner"
    NETWORK = "net"  # a network held by the caller, by key
    POOL = "pool"  # a pool entry, by id
    SCRIPTED = "script"  # a scripted policy, by name, played inside the runner


@dataclass(frozen=True, order=True)
class Controller:
    """Who plays a seat. Ordered (kind, then name) because network decisions are batched
    one controller after another in sorted order, and pool opponents sample from the
    global torch RNG: a fixed order keeps runs reproducible."""

    kind: ControllerKind
    name: str = ""

    @classmethod
    def scripted(cls, name: str, also_not: str = "", game: str = DEFAULT_GAME) -> Controller:
        """A scripted policy's seat (any name ``game``'s players go by, ``search@N`` included);
        an unknown name is an error naming the known ones (``also_not``: what else the name
        was tried as)."""
        family = training_game(game)
        if not is_player_name(family, name):
            raise unknown_player(family, name, also_not)
        return cls(ControllerKind.SCRIPTED, name)

    @classmethod
    def pool(cls, entry_id: str) -> Controller:
        return cls(ControllerKind.POOL, entry_id)

    @classmethod
    def network(cls, key: str) -> Controller:
        return cls(ControllerKind.NETWORK, key)


LEARNER = Controller(ControllerKind.LEARNER)


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


def load_network_policy(
    name: str, layout: ObservationLayout | None = None, greedy: bool = False, seed: int | None = None
) -> NetworkPolicy:
    """The network in a checkpoint; ``layout`` (if given) must match the one it was trained
    on. ``seed``: sample from a generator of its own, seeded so, instead of torch's global one."""
    path = find_checkpoint(name)
    agent = checkpoint.build_agent(checkpoint.load(path), path, expect_layout=layout)
    generator = None if seed is None else torch.Generator().manual_seed(seed)
    return NetworkPolicy(agent, name=str(name), greedy=greedy, generator=generator)


def has_card_head(source: str) -> bool:
    """Whether checkpoint ``source``'s network scores its discards with a card head (read
    from its spec, without building the network)."""
    return checkpoint.load(find_checkpoint(source))["spec"].get("card_actions") is not None


def load_start_network(
    source: str, layout: ObservationLayout, hidden_size: int, slot_hidden_size: int, card_head: bool = False
) -> Agent:
    """The network a new training run starts from (config key ``init_checkpoint``, in both
    backends): checkpoint ``source``'s, which must fit ``layout`` and the config's network
    sizes, with a card head where it has one and not where it has none (``card_head``); a
    CheckpointError naming the key otherwise."""
    try:
        agent = load_network_policy(source, layout).agent
    except checkpoint.CheckpointError as exc:
        raise checkpoint.CheckpointError(f"config key 'init_checkpoint': {exc}") from None
    sizes = (agent.hidden_size, agent.slot_hidden_size)
    if sizes != (hidden_size, slot_hidden_size):
        raise checkpoint.CheckpointError(
            f"config key 'init_checkpoint': {checkpoint_file(source)} has hidden_size/slot_hidden_size {sizes}, "
            f"this config {(hidden_size, slot_hidden_size)}"
        )
    headed = agent.card_actions is not None
    if headed != card_head:
        # Its discards live in the card head, or in the trunk's outputs that a card head replaces.
        has = "scores its discards with a card head" if headed else "has no card head"
        raise checkpoint.CheckpointError(
            f"config key 'card_head': {checkpoint_file(source)} {has}; "
            f"set card_head: {str(headed).lower()} to start from it"
        )
    return agent


def scripted_controller(name: str, game: str = DEFAULT_GAME) -> Controller:
    """The controller of an agent name that is no checkpoint: its scripted policy, or an
    error saying the name is neither."""
    return Controller.scripted(name, also_not="a checkpoint file or run directory", game=game)


def network_callable(
    name: str, layout: ObservationLayout, seed: int, argmax: bool = False
) -> Callable[[np.ndarray, np.ndarray], int]:
    """A checkpoint's network deciding one observation at a time, ``(observation,
    action_mask) -> action``, sampling from its own generator seeded with ``seed`` (or, with
    ``argmax``, playing its most likely action); named (``__name__``) by the checkpoint, for
    the reports that name their agents."""
    policy = load_network_policy(name, layout, greedy=argmax, seed=seed)

    def act(observation: np.ndarray, action_mask: np.ndarray) -> int:
        return int(policy.act(observation[None], action_mask[None])[0])

    act.__name__ = str(name) + (ARGMAX_TAG if argmax else "")
    return act


def network_prior(name: str) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """A checkpoint's policy head as a batched callable ``(observations, masks) -> logits``:
    the prior and rollout policy of a guided search (``search@N+CHECKPOINT``). The network
    is loaded once per process and checkpoint file; observations of another size than it
    was trained on (another ``k_suggestions``) are an error naming both sizes."""
    path = find_checkpoint(name)
    agent = _frozen_agent(str(path))
    size = agent.layout.size

    @torch.no_grad()
    def logits(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        if observations.shape[-1] != size:
            raise checkpoint.CheckpointError(
                f"{path} was trained on observations of {size} values; this env's have {observations.shape[-1]} "
                "(another k_suggestions?)"
            )
        return agent.logits(torch.as_tensor(observations)).numpy()

    return logits


def network_value(name: str) -> Callable[[np.ndarray], np.ndarray]:
    """A checkpoint's value head as a batched callable ``observations -> values`` (the
    acting seat's expected reward to come, in the reward units it was trained on): a guided
    search's leaf evaluation."""
    agent = _frozen_agent(str(find_checkpoint(name)))
    if agent.state_critic:
        raise checkpoint.CheckpointError(
            f"{find_checkpoint(name)}: its critic reads the other hands' cards (trained with critic: state), which a "
            "player cannot see: it gives no value for a search's leaves (its policy plays as any network's)"
        )

    @torch.no_grad()
    def value(observations: np.ndarray) -> np.ndarray:
        return agent.get_value(torch.as_tensor(observations)).numpy()

    return value


@functools.lru_cache(maxsize=8)
def _frozen_agent(path: str) -> Agent:
    return load_network_policy(path).agent.eval()


def guided_search_player(name: str, seed: int | None = None, game: str | None = None):
    """The guided search player ``search@N+CHECKPOINT`` (``search+CHECKPOINT``: the search's
    default budget) of the checkpoint's game: ``N`` determinizations per decision, the
    checkpoint's network as its prior and rollout policy, its own random stream seeded with
    ``seed``. ``game``, where given, must be the checkpoint's."""
    guided = split_guided(name)
    if guided is None:
        raise ValueError(f"{name!r} is not a guided search player's name (search@N+CHECKPOINT)")
    search, network = guided
    plays = checkpoint.saved_env_keys(network).game
    if game is not None and plays != game:
        raise checkpoint.CheckpointError(
            f"guided search player {name!r}: {checkpoint_file(network)} plays {plays}, not {game}"
        )
    family = training_game(plays)
    if family.guided_search is None:
        raise checkpoint.CheckpointError(f"guided search player {name!r}: {plays} has no guided search")
    slots = _frozen_agent(str(find_checkpoint(network))).layout.num_slots
    return family.guided_search(network_prior(network), search, slots, seed, name)


def scripted_player(game: str, name: str, seed: int | None = None):
    """The policy of ``game``'s player ``name`` as the game's ``act`` plays it: a scripted
    player, or a guided search with its network (torch: only where one plays)."""
    if split_guided(name) is not None:
        return guided_search_player(name, seed, game)
    return training_game(game).player(name, seed)


def load_policy(name: str, layout: ObservationLayout, seed: int, game: str = DEFAULT_GAME):
    """An agent of ``game`` by name deciding one position at a time (terminal play): a
    checkpoint's network as a callable ``(observation, action_mask) -> action``, sampling
    from its own generator seeded with ``seed``, or a scripted player seeded with ``seed``
    (play it with the game's ``act``)."""
    if not is_checkpoint_name(name):
        return scripted_player(game, scripted_controller(name, game).name, seed)
    return network_callable(name, layout, seed)
