"""Rate checkpoints and baselines against each other with openskill.

:class:`RatingTable` is the rating code the tournament and the leaderboard
(``training.leaderboard``) share: a Plackett-Luce rating per agent, updated one game at a
time from the agents' finishing places (a draw is a shared place), with each agent's games
and wins beside it. Its table is sorted by the conservative ``ordinal`` (mu - 3 sigma), so
an agent with few games does not top it by luck.

``play_tournament``: every pair plays an evaluation match (see ``evaluate``: each deal
from every seat; mirror pairs heads-up) at the given table size, the first agent against the second
in every other seat, and each game updates the ratings; each pair's evaluation is kept, and
``format_pairs`` shows it in the game's units (Gin Rummy: matches won, points a hand for each
side, decided hands won, knock, gin and undercut rates, each with its interval).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from itertools import combinations
from pathlib import Path

from training.envs import EnvSpec
from training.evaluate import EvalResult, evaluate
from training.games import training_game

# The rating interval the leaderboard prints: mu +- INTERVAL_SIGMAS sigma (about 95%).
INTERVAL_SIGMAS = 2.0


@dataclass(frozen=True)
class Rating:
    """An agent's line of the table (and of ``tournament.json``). ``win_rate``: its share of
    the games won (a shared win counts its share)."""

    agent: str
    mu: float
    sigma: float
    ordinal: float
    games: int
    win_rate: float

    @property
    def interval(self) -> tuple[float, float]:
        """mu -+ ``INTERVAL_SIGMAS`` sigma."""
        return (self.mu - INTERVAL_SIGMAS * self.sigma, self.mu + INTERVAL_SIGMAS * self.sigma)


class RatingTable:
    """openskill Plackett-Luce ratings of named agents, with their games and wins, updated
    one game at a time (the order of the games matters: replay them in a fixed order)."""

    def __init__(self, agents: Sequence[str]) -> None:
        from openskill.models import PlackettLuce  # imported here: openskill is a training extra

        self.model = PlackettLuce()
        self.ratings = {a: self.model.rating(name=a) for a in agents}
        self.played = dict.fromkeys(agents, 0)
        self.wins = dict.fromkeys(agents, 0.0)

    def record(self, agents: Sequence[str], places: Sequence[int], wins: Sequence[float]) -> None:
        """One game: ``agents[i]`` finished in place ``places[i]`` (0 first; equal places
        tie) and won ``wins[i]`` of it (1, 0 or a shared win's share)."""
        if not len(agents) == len(places) == len(wins) or len(set(agents)) != len(agents):
            raise ValueError(f"a game needs distinct agents with a place and a win each: {agents}, {places}, {wins}")
        teams = self.model.rate([[self.ratings[a]] for a in agents], ranks=list(places))
        for agent, [rating], won in zip(agents, teams, wins):
            self.ratings[agent] = rating
            self.played[agent] += 1
            self.wins[agent] += won

    def rows(self) -> list[Rating]:
        """The table, best ordinal first."""
        rows = [
            Rating(a, r.mu, r.sigma, r.ordinal(), self.played[a], self.wins[a] / max(self.played[a], 1))
            for a, r in self.ratings.items()
        ]
        return sorted(rows, key=lambda row: -row.ordinal)


@dataclass(frozen=True)
class Tournament:
    """A tournament's ratings and each pair's evaluation (``EvalResult``: the match's win rate
    and its figures in the game's scoring unit, each with its interval), in play order."""

    rows: list[Rating]
    pairs: tuple[EvalResult, ...]


def play_tournament(
    agents: list[str],
    games: int = 20,
    num_players: int = 2,
    seed: int = 0,
    num_workers: int = 0,
    env_spec: EnvSpec | None = None,
) -> Tournament:
    """Every pair's match (``env_spec``: the game and rules; None: each pair's first agent's
    checkpoint says, or Carousel), the ratings updated game by game."""
    table = RatingTable(agents)
    pairs = []
    for k, (a, b) in enumerate(combinations(agents, 2)):
        res = evaluate(
            a,
            [b],
            games=games,
            num_players=num_players,
            seed=seed + 10_000 * k,
            env_spec=env_spec,
            num_workers=num_workers,
        )
        pairs.append(res)
        for score in res.per_game:
            places = [0, 1] if score == 1.0 else [1, 0] if score == 0.0 else [0, 0]
            table.record([a, b], places, [score, 1.0 - score])
    return Tournament(table.rows(), tuple(pairs))


def _cell(value: float, interval: tuple[float, float], digits: int) -> str:
    return f"{value:.{digits}f} ({interval[0]:.{digits}f}-{interval[1]:.{digits}f})"


def format_pairs(pairs: Sequence[EvalResult]) -> str:
    """Each pair's match, the first agent's side: games won and its figures in the game's
    scoring unit, each with its 95% interval (``training.evaluate``)."""
    if not pairs:
        return ""
    family = training_game(pairs[0].game)
    unit, names = family.unit, family.events_of(pairs[0].variant)
    header = ["pair", "games", "win rate", f"points a {unit}", f"opponent's points a {unit}", f"decided {unit}s won"]
    header += [f"{names.knocked} rate"] if names.knocked else []
    header += [f"{names.went_out} rate"] if names.went_out else []
    header += [f"{names.undercut} rate (of {names.knocked}s)"] if names.knocked and names.undercut else []
    rows = [header]
    for res in pairs:
        cells = [
            f"{res.candidate} vs {', '.join(res.opponents)}",
            str(res.games),
            _cell(res.win_rate, res.win_rate_ci, 3),
            _cell(res.points_per_unit, res.points_per_unit_ci, 2),
            _cell(res.opponents_points_per_unit, res.opponents_points_per_unit_ci, 2),
            _cell(res.decided_won_rate, res.decided_won_ci, 3),
        ]
        cells += [_cell(res.knock_rate, res.knock_rate_ci, 3)] if names.knocked else []
        cells += [_cell(res.go_out_rate, res.go_out_rate_ci, 3)] if names.went_out else []
        cells += [_cell(res.undercut_rate, res.undercut_rate_ci, 3)] if names.knocked and names.undercut else []
        rows.append(cells)
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows)


def format_table(rows: list[Rating]) -> str:
    width = max([len("agent")] + [len(r.agent) for r in rows])
    lines = [f"{'#':>2}  {'agent':<{width}}  {'ordinal':>8}  {'mu':>7}  {'sigma':>6}  {'games':>5}  {'win rate':>8}"]
    for i, r in enumerate(rows, 1):
        lines.append(
            f"{i:>2}  {r.agent:<{width}}  {r.ordinal:>8.2f}  {r.mu:>7.2f}  {r.sigma:>6.2f}  "
            f"{r.games:>5}  {r.win_rate:>8.3f}"
        )
    return "\n".join(lines)


def save(rows: list[Rating], out: str | Path, pairs: Sequence[EvalResult] = ()) -> None:
    """``tournament.json`` (the ratings), ``tournament.txt`` (the tables) and, with ``pairs``,
    ``tournament_pairs.json`` (each pair's ``carousel eval --json`` object)."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "tournament.json").write_text(json.dumps([asdict(r) for r in rows], indent=2))
    text = format_table(rows) + "\n" + (f"\n{format_pairs(pairs)}\n" if pairs else "")
    (out / "tournament.txt").write_text(text)
    if pairs:
        (out / "tournament_pairs.json").write_text(json.dumps([res.as_json() for res in pairs], indent=2))
