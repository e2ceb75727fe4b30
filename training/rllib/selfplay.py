"""Self-play on RLlib: one learning module against a pool of its frozen past snapshots.

The multi-agent setup has ``pool_size + 1`` modules of the same network
(``training.rllib.module``): ``main``, the only one trained, and ``pool_0`` ..
``pool_{P-1}``, frozen. :class:`SeatMapping` seats ``main`` at one seat of each episode
(drawn from the episode id, so every seat is learned) and a pool module at each other
seat. :class:`SelfPlayCallback` copies ``main``'s weights into the pool every
``snapshot_interval`` iterations, round robin (the oldest snapshot goes), the way RLlib's
own self-play examples copy a module's state (``Algorithm.set_state`` on the learner group,
which also sends the new weights to every env runner). A fresh run starts with every pool
slot holding ``main``'s initial weights. Which slot is next follows from the iteration
count alone, so a resumed run carries on the same schedule.
"""

from __future__ import annotations

import zlib
from typing import Any

from ray.rllib.callbacks.callbacks import RLlibCallback

MAIN = "main"


def pool_module_id(slot: int) -> str:
    return f"pool_{slot}"


def module_ids(pool_size: int) -> list[str]:
    return [MAIN] + [pool_module_id(i) for i in range(pool_size)]


class SeatMapping:
    """RLlib's ``policy_mapping_fn``: ``main`` at one seat per episode, pool modules at the
    others, both drawn from the episode id (a picklable object, shipped to env runners)."""

    def __init__(self, num_players: int, pool_size: int) -> None:
        self.num_players = num_players
        self.pool_size = pool_size

    def __call__(self, agent_id: str, episode: Any, **kwargs: Any) -> str:
        digest = zlib.crc32(str(episode.id_).encode())
        seat = int(str(agent_id).rsplit("_", 1)[1])
        if seat == digest % self.num_players:
            return MAIN
        return pool_module_id((digest // self.num_players + seat) % self.pool_size)


def copy_main_into(algorithm: Any, slots: list[str]) -> None:
    """Copy the learner's ``main`` weights into the modules ``slots`` (learner and env runners)."""
    weights = algorithm.learner_group.get_weights(module_ids=[MAIN])[MAIN]
    algorithm.set_state({"learner_group": {"learner": {"rl_module": dict.fromkeys(slots, weights)}}})


class SelfPlayCallback(RLlibCallback):
    """Snapshots ``main`` into the pool; logs ``main``'s win rate against it.

    ``main_win_rate`` (in the results' ``env_runners`` section, over the last 200
    episodes): 1 for an episode where ``main`` scored more than the others' mean (a
    positive return), 0.5 for even, 0 otherwise.
    """

    def __init__(self, pool_size: int, snapshot_interval: int) -> None:
        super().__init__()
        self.pool_size = pool_size
        self.snapshot_interval = snapshot_interval

    def on_episode_end(self, *, episode: Any, metrics_logger: Any = None, **kwargs: Any) -> None:
        for agent_id, agent_episode in episode.agent_episodes.items():
            if episode.module_for(agent_id) == MAIN:
                ret = agent_episode.get_return()
                won = 1.0 if ret > 0 else 0.5 if ret == 0 else 0.0
                metrics_logger.log_value("main_win_rate", won, reduce="mean", window=200)

    def on_train_result(self, *, algorithm: Any, result: dict, **kwargs: Any) -> None:
        done = result["training_iteration"]  # this iteration included
        if done % self.snapshot_interval == 0:
            slot = pool_module_id((done // self.snapshot_interval - 1) % self.pool_size)
            copy_main_into(algorithm, [slot])
            result["snapshot"] = slot
