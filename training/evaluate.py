"""Evaluation: seeded full games, rotating seats and dealers, mirror-paired deals.

Each deal (a game seed, which fixes the first dealer and every shuffle) is played twice:
the second time the candidate takes the seat its opponent had, so luck of the cards
cancels out of the comparison. Consecutive pairs move the candidate one seat on, so every
seat (and, through the seeds, every dealer position) comes up.

Reported: game win rate with a 95% Wilson interval, mean round-score difference
(candidate's round points minus the opponents' mean), and the candidate's knock, go-out
and undercut rates (undercut: share of its knocks that were undercut).

The games run on training's driver (``episodes.play_episodes``), not on the match runner
of ``carousel_env.agents.match``: a network candidate decides in batches across game
copies. Both leave the same ``EpisodeResult``, whose ``score`` (win, draw share, loss)
the win rate counts.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any, TypeVar

import torch

from carousel_env.agents.match import Episode, EpisodeResult
from carousel_env.engine.errors import CarouselError
from carousel_env.envs.observation import ObservationLayout
from training.envs import EnvSpec, layout_for
from training.episodes import play_episodes
from training.network import Agent
from training.policies import (
    Controller,
    NetworkPolicy,
    is_checkpoint_name,
    load_network_policy,
    scripted_controller,
)
from training.runners import Driver

Z_95 = 1.959963984540054
C = TypeVar("C")


def wilson_interval(wins: float, n: int, z: float = Z_95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion (draws may count as half wins)."""
    if n <= 0:
        return (0.0, 1.0)
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass(frozen=True)
class EvalGame(Episode[C]):
    """An evaluation game; ``opponent`` is the one its mirror pair is reported under
    (``by_opponent``): the first of the pair's opponents."""

    opponent: C


@dataclass(frozen=True)
class OpponentRecord:
    games: int
    win_rate: float


@dataclass(frozen=True)
class EvalResult:
    """An evaluation's statistics (see the module docstring). The fields, ``per_game``
    aside, are the keys of ``carousel eval --json``: a user-facing format, so add fields,
    never rename them."""

    games: int
    win_rate: float
    win_rate_ci: tuple[float, float]
    rounds: int
    mean_round_score_diff: float
    knock_rate: float
    go_out_rate: float
    undercut_rate: float
    per_game: tuple[float, ...]  # the candidate's score in each game, in play order
    by_opponent: dict[str, OpponentRecord]
    candidate: str
    opponents: tuple[str, ...]
    players: int
    seed: int

    def as_json(self) -> dict[str, Any]:
        """The ``carousel eval --json`` object."""
        return {k: v for k, v in asdict(self).items() if k != "per_game"}


def eval_specs(num_players: int, games: int, seed: int, candidate: C, opponents: Sequence[C]) -> list[EvalGame[C]]:
    """Mirror pairs: pair ``g`` deals seed ``seed+g`` with the candidate in seat ``g % n``
    and again with the candidate swapped into the next seat. Opponents rotate over pairs."""
    specs = []
    for g in range((games + 1) // 2):
        seat = g % num_players
        mirror = (seat + 1) % num_players
        others = [opponents[(g + k) % len(opponents)] for k in range(num_players - 1)]
        for cand_seat in (seat, mirror):
            controllers: list[C | None] = [candidate if s == cand_seat else None for s in range(num_players)]
            # The opponent who sat in the mirror seat now takes the candidate's seat.
            order = [s for s in range(num_players) if s != seat]
            assigned = dict(zip(order, others))
            if cand_seat == mirror:
                assigned[seat] = assigned.pop(mirror)
            for s, c in assigned.items():
                controllers[s] = c
            specs.append(EvalGame(seed + g, tuple(controllers), opponent=others[0]))
    return specs


def summarise(
    results: Sequence[EpisodeResult[Controller]],
    candidate: Controller,
    names: Mapping[Controller, str],
    *,
    candidate_name: str,
    opponents: Sequence[str],
    players: int,
    seed: int,
) -> EvalResult:
    """The statistics of ``candidate``'s games; ``names`` gives the opponents' controllers
    the names they were asked for by."""
    per_game = []
    rounds = knocks = outs = undercuts = 0
    diff_sum = 0.0
    by_opponent: dict[Controller, list[float]] = {}
    for result in results:
        seat = result.episode.controllers.index(candidate)
        score = result.score(seat)
        per_game.append(score)
        by_opponent.setdefault(result.episode.opponent, []).append(score)
        for r in result.rounds:
            rounds += 1
            others = [p for i, p in enumerate(r.points) if i != seat]
            diff_sum += r.points[seat] - sum(others) / len(others)
            if r.knocker == seat:
                knocks += 1
                undercuts += bool(r.undercut)
            outs += r.went_out == seat
    n = len(results)
    wins = sum(per_game)
    return EvalResult(
        games=n,
        win_rate=wins / n if n else 0.0,
        win_rate_ci=wilson_interval(wins, n),
        rounds=rounds,
        mean_round_score_diff=diff_sum / rounds if rounds else 0.0,
        knock_rate=knocks / rounds if rounds else 0.0,
        go_out_rate=outs / rounds if rounds else 0.0,
        undercut_rate=undercuts / knocks if knocks else 0.0,
        per_game=tuple(per_game),
        by_opponent={names[c]: OpponentRecord(len(s), sum(s) / len(s)) for c, s in sorted(by_opponent.items())},
        candidate=candidate_name,
        opponents=tuple(opponents),
        players=players,
        seed=seed,
    )


def _controller(
    agent: Agent | NetworkPolicy | str,
    key: str,
    policies: dict[Controller, NetworkPolicy],
    layout: ObservationLayout,
    seed: int,
) -> Controller:
    """The controller of ``agent`` (an Agent, a NetworkPolicy, a checkpoint path or a
    scripted policy's name); a network is added to ``policies`` under key ``key``, with
    its own generator seeded by ``seed``."""
    gen = torch.Generator().manual_seed(seed)
    controller = Controller.network(key)
    if isinstance(agent, Agent):
        policies[controller] = NetworkPolicy(agent, key, generator=gen)
    elif isinstance(agent, NetworkPolicy):
        policies[controller] = NetworkPolicy(agent.agent, key, agent.greedy, generator=gen)
    elif is_checkpoint_name(agent):
        policies[controller] = load_network_policy(agent, layout, seed=seed)
    else:
        return scripted_controller(agent)
    return controller


def evaluate(
    candidate: Agent | NetworkPolicy | str,
    opponents: Sequence[str] | str,
    games: int = 100,
    num_players: int = 2,
    seed: int = 0,
    env_spec: EnvSpec | None = None,
    num_envs: int = 8,
    num_workers: int = 0,
) -> EvalResult:
    """Play ``games`` full games of ``candidate`` against ``opponents`` (names, a list or a
    comma-separated string) and summarise. Agents: an Agent, a checkpoint path, a scripted
    policy's name."""
    if isinstance(opponents, str):
        opponents = [o.strip() for o in opponents.split(",") if o.strip()]
    spec = replace(env_spec or EnvSpec(num_players=num_players), num_players=num_players, episode="game")
    layout = candidate.layout if isinstance(candidate, Agent) else layout_for(spec)
    policies: dict[Controller, NetworkPolicy] = {}
    cand = _controller(candidate, "candidate", policies, layout, seed)
    opps = [_controller(o, f"opponent{k}", policies, layout, seed + 1 + k) for k, o in enumerate(opponents)]
    if cand in opps:  # a scripted policy against itself: keep the seats apart
        raise CarouselError(f"candidate {candidate!r} is also an opponent; evaluate it against other agents")
    games_to_play = eval_specs(num_players, games, seed, cand, opps)
    driver = Driver(spec, min(num_envs, len(games_to_play)), num_workers)
    try:
        results = play_episodes(driver, games_to_play, policies)
    finally:
        driver.close()
    return summarise(
        results,
        cand,
        dict(zip(opps, opponents)),
        candidate_name=candidate if isinstance(candidate, str) else "network",
        opponents=opponents,
        players=num_players,
        seed=seed,
    )
