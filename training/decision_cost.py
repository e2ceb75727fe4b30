"""What a decision costs each agent: the leaderboard's cost column.

An agent's cost is the median wall-clock time it takes to decide, one position at a time
in this process, over the same :data:`COST_POSITIONS` positions for every agent of a game:
decisions with more than one legal action, recorded from seeded games of the game's
reference player at every seat (:func:`recorded_positions`, the game's ``cost.record``:
Carousel's ``smart``, Gin Rummy's ``simple`` in single hands under OpenSpiel's rules,
Carioca's ``simple``). A network decides as in
``carousel play`` (one forward pass per decision; training and the leaderboard's games
batch them, which costs less); a scripted or search player as the match runner asks it.
(OpenSpiel's bots decide inside OpenSpiel: the leaderboard does not time them.) The time is
this machine's, on one torch thread, under its load when measured: compare rows, not
machines.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Sequence

import torch

from carousel_env.core.registry import DEFAULT_GAME
from carousel_env.envkit.family import CostDecision
from training.games import training_game
from training.network import Agent
from training.policies import NetworkPolicy, scripted_player

COST_POSITIONS = 24  # positions each agent decides, per table size
# A network decides on one torch thread: more fight over a small machine's cores and make
# one run's figure ten times another's.
TIMING_THREADS = 1


def recorded_positions(
    players: int, count: int = COST_POSITIONS, seed: int = 0, game: str = DEFAULT_GAME
) -> list[CostDecision]:
    """``count`` decisions of ``game`` at ``players`` players with more than one legal action,
    from seeded games of its reference player at every seat (the game's ``cost.record``)."""
    return training_game(game).cost.record(players, count, seed)


def decision_ms(
    source: str, network: Agent | None, positions: Sequence[CostDecision], seed: int = 0, game: str = DEFAULT_GAME
) -> float:
    """The median milliseconds ``source`` (a player's name, or ``network`` where it is a
    checkpoint) takes to decide at each of ``positions`` (recorded for ``game``)."""
    decide = training_game(game).cost.decide
    if network is not None:
        net = NetworkPolicy(network, source)
        policy = lambda observation, mask: int(net.act(observation[None], mask[None])[0])  # noqa: E731
    else:
        policy = scripted_player(game, source, seed)
    times = []
    threads = torch.get_num_threads()
    torch.set_num_threads(TIMING_THREADS)
    try:
        for d in positions:
            start = time.perf_counter()
            decide(policy, d)
            times.append(time.perf_counter() - start)
    finally:
        torch.set_num_threads(threads)
    return 1000 * statistics.median(times)
