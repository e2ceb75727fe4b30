"""Playing whole episodes on the driver's game copies, network seats decided in batches.

``play_episodes`` keeps every copy busy with the next episode of a list until all are
played (evaluation); ``act_batched`` decides every pending network seat with one forward
pass per policy (evaluation and the learner's rollouts alike).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from carousel_env.envkit.episodes import Episode, EpisodeResult
from training.policies import Controller, NetworkPolicy
from training.runners import Driver, Report


def play_episodes(
    driver: Driver,
    episodes: list[Episode[Controller]],
    policies: dict[Controller, NetworkPolicy],
    record: dict[int, list[int]] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> list[EpisodeResult[Controller]]:
    """Play every episode (network seats batched per policy); the results in episode order.
    ``record``: each episode's network decisions are added to it, by episode index (what a
    replay needs besides the seed: ``training.replays``). ``progress(done, total)`` hears
    each episode's end."""
    queue = list(enumerate(episodes))[::-1]
    running: dict[int, int] = {}  # game copy -> index of the episode it plays
    results: list[EpisodeResult[Controller] | None] = [None] * len(episodes)
    actions: dict[int, int] = {}
    resets: dict[int, Episode[Controller]] = {}
    finished = 0
    while True:
        for i in range(driver.num_envs):
            if i not in running and queue:
                k, episode = queue.pop()
                running[i] = k
                resets[i] = episode
        if not actions and not resets:
            return results
        pending = {}
        for rep in driver.step(actions, resets):
            if rep.done:
                results[running.pop(rep.env)] = rep.result
                finished += 1
                if progress is not None:
                    progress(finished, len(episodes))
            else:
                pending[rep.env] = rep
        resets = {}
        actions = act_batched(pending, policies)
        if record is not None:
            for env, action in actions.items():
                record.setdefault(running[env], []).append(action)


def act_batched(pending: dict[int, Report], policies: dict[Controller, NetworkPolicy]) -> dict[int, int]:
    """Actions for every pending decision, one forward pass per policy, in controller order."""
    groups: dict[Controller, list[Report]] = {}
    for rep in pending.values():
        groups.setdefault(rep.controller, []).append(rep)
    actions = {}
    for controller in sorted(groups):
        reps = groups[controller]
        acts = policies[controller].act(np.stack([r.obs for r in reps]), np.stack([r.mask for r in reps]))
        actions.update({r.env: int(a) for r, a in zip(reps, acts)})
    return actions
