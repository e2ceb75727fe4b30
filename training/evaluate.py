"""Evaluation: seeded full games, every deal played from every seat.

Each deal (a game seed, which fixes the first dealer and every shuffle) is played once per
seat: N times at N players, the candidate one seat further on each time, its opponents
keeping their order around the table behind it (the whole table turns), so every seat's
cards and every dealer position go once to the candidate and once to each opponent, and
luck of the cards cancels out of the comparison. Heads-up this is mirror pairing: the
deal again with the two seats swapped. ``games`` is rounded up to a multiple of N (whole
deals), and the opponents rotate over the deals (deal ``d`` starts at opponent ``d``).

Reported: game win rate; the fair share ``1/N`` (what an agent no better than its table
wins); two 95% intervals for the win rate: Wilson's over the games, which treats them as
independent, and a normal interval over the deals' mean scores (``win_rate_ci_deals``),
which holds although a deal's N games share their cards (it needs some
``MIN_DEALS_FOR_INTERVAL`` deals or more to be trusted, and says ``(0, 1)`` below 2); mean
round-score difference (candidate's round points minus the opponents' mean), and the
candidate's knock, go-out and undercut rates (undercut: share of its knocks that were undercut).
In the unit the game scores (Gin's hands, the others' rounds), each with its 95% interval:
points a unit for the candidate and for its opponents (their mean), the share of the decided
units it won (decided: the seats' points differ; won: its points alone the highest), and the
event rates.

The games run on training's driver (``episodes.play_episodes``), not on a game's own match
runner (Carousel's ``agents.match``): a network candidate decides in batches across game
copies. Both leave the same ``EpisodeResult``, whose ``score`` (win, draw share, loss)
the win rate counts.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, TypeVar

import torch

from carousel_env.core.errors import CarouselError
from carousel_env.core.registry import DEFAULT_GAME
from carousel_env.core.stats import Z_95, mean_interval, wilson_interval
from carousel_env.envkit.episodes import Episode, EpisodeResult
from carousel_env.envkit.layout import ObservationLayout
from training import checkpoint
from training.checkpoint_names import is_checkpoint_name
from training.envs import EnvSpec, layout_for
from training.episodes import play_episodes
from training.games import training_game
from training.leaderboard_games import variant_of
from training.network import Agent
from training.policies import Controller, NetworkPolicy, load_network_policy, scripted_controller
from training.replays import write_replays
from training.runners import Driver
from training.unit_stats import UnitTally

C = TypeVar("C")


def deal_interval(deal_scores: Sequence[float], z: float = Z_95) -> tuple[float, float]:
    """Normal interval for the mean of per-deal mean scores (each in [0, 1]), clipped to
    [0, 1]; ``(0, 1)`` for fewer than 2 deals (no spread to estimate)."""
    return mean_interval(deal_scores, z, clip=(0.0, 1.0))


@dataclass(frozen=True)
class EvalGame(Episode[C]):
    """An evaluation game; ``opponent`` is the one its deal is reported under
    (``by_opponent``): the first of the deal's opponents."""

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
    deals: int
    fair_share: float  # 1 / players: the win rate of an agent as good as its table
    win_rate_ci_deals: tuple[float, float]  # over the deals' mean scores (module docstring)
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
    game: str = DEFAULT_GAME
    argmax: bool = False  # the networks played their most likely actions, not samples
    variant: str | None = None  # the variant played, where the game has variants
    # In the game's scoring unit (hands or rounds), each with its 95% interval (module docstring).
    points_per_unit: float = 0.0
    points_per_unit_ci: tuple[float, float] = (0.0, 0.0)
    opponents_points_per_unit: float = 0.0
    opponents_points_per_unit_ci: tuple[float, float] = (0.0, 0.0)
    units_decided: int = 0
    decided_won_rate: float = 0.0
    decided_won_ci: tuple[float, float] = (0.0, 1.0)
    knock_rate_ci: tuple[float, float] = (0.0, 1.0)
    go_out_rate_ci: tuple[float, float] = (0.0, 1.0)
    undercut_rate_ci: tuple[float, float] = (0.0, 1.0)
    mean_round_score_diff_ci: tuple[float, float] = (0.0, 0.0)  # normal, over the units

    def as_json(self) -> dict[str, Any]:
        """The ``carousel eval --json`` object."""
        return {k: v for k, v in asdict(self).items() if k != "per_game"}


def deals_for(num_players: int, games: int) -> int:
    """How many deals ``games`` games take: each deal is played once per seat, so the games
    are rounded up to a multiple of ``num_players``."""
    return -(-games // num_players)


def eval_specs(num_players: int, games: int, seed: int, candidate: C, opponents: Sequence[C]) -> list[EvalGame[C]]:
    """Seat-rotated deals (the module docstring): deal ``d`` is seed ``seed + d``, played
    ``num_players`` times in a row; its game ``j`` seats the candidate in ``(d + j) % n`` and
    the deal's opponents clockwise after it, so the whole table turns one seat per game.
    The deal's opponents are ``opponents`` from index ``d`` on, cyclically. ``games`` is
    rounded up to a multiple of ``num_players`` (:func:`deals_for`)."""
    n = num_players
    specs = []
    for d in range(deals_for(n, games)):
        others = [opponents[(d + k) % len(opponents)] for k in range(n - 1)]
        for j in range(n):
            cand_seat = (d + j) % n
            controllers: list[C] = [candidate] * n
            for k, opponent in enumerate(others):
                controllers[(cand_seat + 1 + k) % n] = opponent
            specs.append(EvalGame(seed + d, tuple(controllers), opponent=others[0]))
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
    game: str = DEFAULT_GAME,
    variant: str | None = None,
) -> EvalResult:
    """The statistics of ``candidate``'s games of ``game`` (under ``variant``); ``names``
    gives the opponents' controllers the names they were asked for by."""
    unit_events, unit_points = training_game(game).unit_events, training_game(game).unit_points
    per_game = []
    tally = UnitTally()
    by_opponent: dict[Controller, list[float]] = {}
    by_deal: dict[int, list[float]] = {}
    for result in results:
        seat = result.episode.controllers.index(candidate)
        score = result.score(seat)
        per_game.append(score)
        by_opponent.setdefault(result.episode.opponent, []).append(score)
        by_deal.setdefault(result.episode.seed, []).append(score)
        for r in result.rounds:
            tally.add(unit_points(r), seat)
            events = unit_events(r, seat)
            tally.add_events(events.knocked, events.went_out, events.undercut)
    n = len(results)
    wins = sum(per_game)
    units = tally.report()
    return EvalResult(
        games=n,
        win_rate=wins / n if n else 0.0,
        win_rate_ci=wilson_interval(wins, n),
        rounds=units.units,
        deals=len(by_deal),
        fair_share=1.0 / players,
        win_rate_ci_deals=deal_interval([sum(s) / len(s) for s in by_deal.values()]),
        mean_round_score_diff=units.difference,
        knock_rate=units.knock_rate,
        go_out_rate=units.go_out_rate,
        undercut_rate=units.undercut_rate,
        per_game=tuple(per_game),
        by_opponent={names[c]: OpponentRecord(len(s), sum(s) / len(s)) for c, s in sorted(by_opponent.items())},
        candidate=candidate_name,
        opponents=tuple(opponents),
        players=players,
        seed=seed,
        game=game,
        variant=variant,
        points_per_unit=units.points,
        points_per_unit_ci=units.points_ci,
        opponents_points_per_unit=units.opponents_points,
        opponents_points_per_unit_ci=units.opponents_points_ci,
        units_decided=units.decided,
        decided_won_rate=units.decided_won_rate,
        decided_won_ci=units.decided_won_ci,
        knock_rate_ci=units.knock_rate_ci,
        go_out_rate_ci=units.go_out_rate_ci,
        undercut_rate_ci=units.undercut_rate_ci,
        mean_round_score_diff_ci=units.difference_ci,
    )


def _controller(
    agent: Agent | NetworkPolicy | str,
    key: str,
    policies: dict[Controller, NetworkPolicy],
    layout: ObservationLayout,
    seed: int,
    game: str,
    argmax: bool = False,
) -> Controller:
    """The controller of ``agent`` (an Agent, a NetworkPolicy, a checkpoint path or a
    scripted policy's name); a network is added to ``policies`` under key ``key``, with
    its own generator seeded by ``seed``, playing its most likely action if ``argmax``."""
    gen = torch.Generator().manual_seed(seed)
    controller = Controller.network(key)
    if isinstance(agent, Agent):
        policies[controller] = NetworkPolicy(agent, key, argmax, generator=gen)
    elif isinstance(agent, NetworkPolicy):
        policies[controller] = NetworkPolicy(agent.agent, key, agent.greedy or argmax, generator=gen)
    elif is_checkpoint_name(agent):
        policies[controller] = load_network_policy(agent, layout, greedy=argmax, seed=seed)
    else:
        return scripted_controller(agent, game)
    return controller


def checkpoint_env_spec(name: str, num_players: int) -> EnvSpec:
    """The env a checkpoint's network was trained on (its config's game and env keys), at a
    table of ``num_players``: where it is evaluated unless told otherwise. A checkpoint from
    before the family (no ``game`` key) is Carousel's; one without a config, the defaults."""
    keys = replace(checkpoint.saved_env_keys(name), num_players=num_players)
    options = {k: v for k, v in keys.env_options().items() if k != "num_players"}
    return EnvSpec.of(num_players, game=keys.game, **options)


def evaluate(
    candidate: Agent | NetworkPolicy | str,
    opponents: Sequence[str] | str,
    games: int = 100,
    num_players: int = 2,
    seed: int = 0,
    env_spec: EnvSpec | None = None,
    num_envs: int = 8,
    num_workers: int = 0,
    argmax: bool = False,
    replays: str | Path | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> EvalResult:
    """Play ``games`` full games (rounded up to whole deals, one game per seat each: the
    module docstring) of ``candidate`` against ``opponents`` (names, a list or a
    comma-separated string) and summarise. Agents: an Agent, a checkpoint path, a scripted
    policy's name. ``argmax``: every network plays its policy's most likely action instead
    of sampling one (a NetworkPolicy made greedy stays so). ``replays``: a folder that every
    game is written to as a replay (``training.replays``). ``progress(done, total)`` hears
    each game's end (``carousel eval`` prints every tenth of a long evaluation)."""
    if isinstance(opponents, str):
        opponents = [o.strip() for o in opponents.split(",") if o.strip()]
    if not opponents:
        raise CarouselError("evaluation needs at least one opponent (a checkpoint or a scripted policy's name)")
    if games < 1:
        raise CarouselError(f"evaluation needs at least 1 game, got {games}")
    if env_spec is None:  # a checkpoint is evaluated in the env it learned
        env_spec = (
            checkpoint_env_spec(candidate, num_players)
            if isinstance(candidate, str) and is_checkpoint_name(candidate)
            else None
        )
    # Whole games: the env's own default episode (Carousel's game; Gin Rummy's rules' game).
    spec = replace(env_spec or EnvSpec(num_players), num_players=num_players).with_options(episode=None)
    layout = candidate.layout if isinstance(candidate, Agent) else layout_for(spec)
    policies: dict[Controller, NetworkPolicy] = {}
    cand = _controller(candidate, "candidate", policies, layout, seed, spec.game, argmax)
    opps = [
        _controller(o, f"opponent{k}", policies, layout, seed + 1 + k, spec.game, argmax)
        for k, o in enumerate(opponents)
    ]
    if cand in opps:  # a scripted policy against itself: keep the seats apart
        raise CarouselError(f"candidate {candidate!r} is also an opponent; evaluate it against other agents")
    games_to_play = eval_specs(num_players, games, seed, cand, opps)
    driver = Driver(spec, min(num_envs, len(games_to_play)), num_workers)
    record: dict[int, list[int]] | None = {} if replays is not None else None
    try:
        results = play_episodes(driver, games_to_play, policies, record, progress)
        inexact = driver.solver_inexact
    finally:
        driver.close()
    if inexact:  # the games stay legal; the players chose among the best plays found
        print(
            f"carousel: {inexact} solver answers in these games were not proven exact within the time budget "
            "(the env option solve_time_budget)",
            file=sys.stderr,
            flush=True,
        )
    candidate_name = candidate if isinstance(candidate, str) else "network"
    if replays is not None:
        names = {cand: candidate_name, **dict(zip(opps, opponents))}
        write_replays(replays, spec, games_to_play, names, record, results)
    result = summarise(
        results,
        cand,
        dict(zip(opps, opponents)),
        candidate_name=candidate_name,
        opponents=opponents,
        players=num_players,
        seed=seed,
        game=spec.game,
        variant=variant_of(spec.game, dict(spec.options)),
    )
    return replace(result, argmax=argmax)
