"""What a decision costs each agent: the leaderboard's cost column.

An agent's cost is the median wall-clock time it takes to decide, one position at a time
in this process, over the same :data:`COST_POSITIONS` positions for every agent: decisions
with more than one legal action, recorded from seeded games of ``smart`` at every seat
(:func:`recorded_positions`). A network decides as in ``carousel play`` (one forward pass
per decision; training and the leaderboard's games batch them, which costs less); a
scripted or search player as the match runner asks it (a view policy from the seat's view).
The time is this machine's, under its load when measured: compare rows, not machines.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Sequence

import numpy as np

from carousel_env.games.carousel.agents.match import state_action
from carousel_env.games.carousel.engine.game import GameState
from carousel_env.games.carousel.envs.aec import decision, raw_env
from carousel_env.games.carousel.envs.observation import encode, layout
from training.games import training_game
from training.network import Agent
from training.policies import NetworkPolicy

COST_POSITIONS = 24  # positions each agent decides, per table size
RECORD_EVERY = 3  # keep every 3rd decision, so that the positions spread over a game
K_SUGGESTIONS = 8  # the leaderboard's env (the shipped agents')


def recorded_positions(players: int, count: int = COST_POSITIONS, seed: int = 0) -> list[GameState]:
    """``count`` positions at a decision with more than one legal action, from seeded games
    of ``smart`` at every seat (every :data:`RECORD_EVERY`-th such decision)."""
    env = raw_env(num_players=players, k_suggestions=K_SUGGESTIONS)
    smart = training_game("carousel").scripted_policy("smart", None)
    positions: list[GameState] = []
    seen = 0
    game = seed
    while len(positions) < count:
        env.reset(seed=game)
        for _ in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            if np.count_nonzero(obs["action_mask"]) > 1:
                if seen % RECORD_EVERY == 0 and len(positions) < count:
                    positions.append(env.unwrapped.game_state)
                seen += 1
            env.step(int(smart(obs["observation"], obs["action_mask"])))
        game += 1
    env.close()
    return positions


def decision_ms(source: str, network: Agent | None, positions: Sequence[GameState], seed: int = 0) -> float:
    """The median milliseconds ``source`` (a scripted player's name, or ``network`` where
    it is a checkpoint) takes to decide at each of ``positions``."""
    lay = layout(K_SUGGESTIONS)
    if network is not None:
        net = NetworkPolicy(network, source)
        policy = lambda observation, mask: int(net.act(observation[None], mask[None])[0])  # noqa: E731
    else:
        policy = training_game("carousel").scripted_policy(source, seed)
    times = []
    for state in positions:
        mask, suggestions = decision(state, K_SUGGESTIONS)
        observation = encode(state, state.current, suggestions, lay)
        start = time.perf_counter()
        state_action(policy, lambda state=state: state, state.current, observation, mask)
        times.append(time.perf_counter() - start)
    return 1000 * statistics.median(times)
