"""What a decision costs each agent: the leaderboard's cost column.

An agent's cost is the median wall-clock time it takes to decide, one position at a time
in this process, over the same :data:`COST_POSITIONS` positions for every agent of a game:
decisions with more than one legal action, recorded from seeded games of the game's
reference player at every seat (:func:`recorded_positions`: Carousel's ``smart``; Gin
Rummy's ``simple``, single hands under OpenSpiel's rules; Carioca's ``simple``). A network decides as in
``carousel play`` (one forward pass per decision; training and the leaderboard's games
batch them, which costs less); a scripted or search player as the match runner asks it.
(OpenSpiel's bots decide inside OpenSpiel: the leaderboard does not time them.) The time is
this machine's, under its load when measured: compare rows, not machines.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from training.games import training_game
from training.network import Agent
from training.policies import NetworkPolicy

COST_POSITIONS = 24  # positions each agent decides, per table size
RECORD_EVERY = 3  # keep every 3rd decision, so that the positions spread over a game
K_SUGGESTIONS = 8  # the leaderboard's env (the shipped agents')


class Decision(NamedTuple):
    """A recorded position as an agent meets it: the engine state, the env's observation
    and mask for the player to act, and the env's suggestions (plays or knocks)."""

    state: Any
    observation: np.ndarray
    mask: np.ndarray
    suggestions: tuple


class CostGame(NamedTuple):
    """How one game's positions are recorded and decided."""

    record: Callable[[int, int, int], list[Decision]]  # (players, count, seed)
    decide: Callable[[Any, Decision], int]  # (policy, decision) -> the action


Reads = Callable[[Any, dict], Any]  # (AEC env, its observation dict) -> an action, or a Decision


def _record(env: Any, reference: Reads, count: int, seed: int, read: Reads) -> list[Decision]:
    """``count`` decisions with more than one legal action (every :data:`RECORD_EVERY`-th),
    from seeded games of ``reference`` at every seat of ``env``; ``read`` records one."""
    positions: list[Decision] = []
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
                    positions.append(read(env, obs))
                seen += 1
            env.step(int(reference(env, obs)))
        game += 1
    env.close()
    return positions


def _carousel() -> CostGame:
    from carousel_env.games.carousel.agents.match import state_action
    from carousel_env.games.carousel.envs.aec import decision, raw_env
    from carousel_env.games.carousel.envs.observation import encode, layout

    lay = layout(K_SUGGESTIONS)

    def record(players: int, count: int, seed: int) -> list[Decision]:
        smart = training_game("carousel").scripted_policy("smart", None)

        def read(env: Any, obs: dict) -> Decision:
            state = env.unwrapped.game_state
            mask, suggestions = decision(state, K_SUGGESTIONS)
            return Decision(state, encode(state, state.current, suggestions, lay), mask, suggestions)

        reference = lambda env, obs: smart(obs["observation"], obs["action_mask"])  # noqa: E731
        env = raw_env(num_players=players, k_suggestions=K_SUGGESTIONS)
        return _record(env, reference, count, seed, read)

    def decide(policy: Any, d: Decision) -> int:
        return state_action(policy, lambda: d.state, d.state.current, d.observation, d.mask)

    return CostGame(record, decide)


def _gin_rummy() -> CostGame:
    from carousel_env.games.gin_rummy.engine import Phase
    from carousel_env.games.gin_rummy.env import decision, own_deadwood, raw_env
    from carousel_env.games.gin_rummy.observation import encode
    from carousel_env.games.gin_rummy.policies import GinDecision, env_action, policy_action, resolve_policy

    def record(players: int, count: int, seed: int) -> list[Decision]:
        del players  # heads-up only
        simple = resolve_policy("simple")

        def read(env: Any, obs: dict) -> Decision:
            raw = env.unwrapped
            state = raw.game_state
            mask, knocks = decision(state, K_SUGGESTIONS)
            eleven = state.phase is Phase.DISCARD
            observation = encode(
                state, state.current, knocks, own_deadwood(state.hands[state.current], eleven), raw.observation_layout
            )
            return Decision(state, observation, mask, knocks)

        reference = lambda env, obs: env_action(simple, env, obs["observation"], obs["action_mask"])  # noqa: E731
        env = raw_env(preset="openspiel", k_knocks=K_SUGGESTIONS)
        return _record(env, reference, count, seed, read)

    def decide(policy: Any, d: Decision) -> int:
        return policy_action(policy, lambda: GinDecision(d.state, d.suggestions), d.observation, d.mask)

    return CostGame(record, decide)


def _carioca() -> CostGame:
    from carousel_env.games.carioca.env import raw_env
    from carousel_env.games.carioca.policies import CariocaDecision, env_action, policy_action, resolve_policy

    def record(players: int, count: int, seed: int) -> list[Decision]:
        simple = resolve_policy("simple", seed)

        def read(env: Any, obs: dict) -> Decision:
            raw = env.unwrapped
            return Decision(raw.game_state, obs["observation"].copy(), obs["action_mask"].copy(), raw.suggestions)

        reference = lambda env, obs: env_action(simple, env, obs["observation"], obs["action_mask"])  # noqa: E731
        return _record(raw_env(num_players=players), reference, count, seed, read)

    def decide(policy: Any, d: Decision) -> int:
        return policy_action(policy, lambda: CariocaDecision(d.state, d.suggestions), d.observation, d.mask)

    return CostGame(record, decide)


COST_GAMES: dict[str, Callable[[], CostGame]] = {"carousel": _carousel, "gin_rummy": _gin_rummy, "carioca": _carioca}


def recorded_positions(players: int, count: int = COST_POSITIONS, seed: int = 0, game: str = "carousel") -> list:
    """``count`` decisions of ``game`` at ``players`` players with more than one legal action,
    from seeded games of its reference player at every seat."""
    return COST_GAMES[game]().record(players, count, seed)


def decision_ms(
    source: str, network: Agent | None, positions: Sequence[Decision], seed: int = 0, game: str = "carousel"
) -> float:
    """The median milliseconds ``source`` (a player's name, or ``network`` where it is a
    checkpoint) takes to decide at each of ``positions`` (recorded for ``game``)."""
    cost_game = COST_GAMES[game]()
    if network is not None:
        net = NetworkPolicy(network, source)
        policy = lambda observation, mask: int(net.act(observation[None], mask[None])[0])  # noqa: E731
    else:
        policy = training_game(game).scripted_policy(source, seed)
    times = []
    for d in positions:
        start = time.perf_counter()
        cost_game.decide(policy, d)
        times.append(time.perf_counter() - start)
    return 1000 * statistics.median(times)
