"""The leaderboard's records: who plays (``RosterAgent``), what is played (``MatchSpec``),
what a played game and match leave (``GameRecord``, ``PlayedMatch``), and what a run rates
(``Standings``, ``LeaderboardRun``). Apart from ``training.leaderboard``, which plays them,
so that ``training.leaderboard_page``, which writes them, imports no player."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from carousel_env.core.registry import DEFAULT_GAME
from carousel_env.envkit.episodes import Episode, EpisodeResult
from training.exploit import Exploitability, shipped_exploitability
from training.leaderboard_games import LeaderboardGame, is_openspiel_bot, leaderboard_game
from training.tournament import Rating
from training.unit_stats import UnitReport, UnitTally


def table_title(players: int) -> str:
    return "Heads-up" if players == 2 else f"{players} players"


@dataclass(frozen=True)
class RosterAgent:
    """An agent of the leaderboard. ``name``: what the tables call it; ``source``: what plays
    it (a scripted policy's name or a checkpoint path); ``digest``: the file's of the
    checkpoint it is or is guided by (None for a scripted policy), so that a retrained
    checkpoint makes a new agent for the state file; ``is_network``: whether it is that
    checkpoint's network (a guided search player is a scripted player with a network)."""

    name: str
    source: str
    digest: str | None = None
    is_network: bool = False

    @property
    def is_openspiel(self) -> bool:
        return is_openspiel_bot(self.source)

    @property
    def identity(self) -> str:
        """What the state file knows it by."""
        return self.name if self.digest is None else f"{self.name}#{self.digest}"


@dataclass(frozen=True)
class MatchSpec:
    """One match: ``agents`` at a table of ``players`` (``agents[0]`` is the evaluation's
    candidate, which only fixes the seating order), ``games`` (whole deals), dealt from
    ``seed`` on."""

    players: int
    agents: tuple[RosterAgent, ...]
    games: int
    seed: int

    @property
    def key(self) -> str:
        """The match's entry in the state file."""
        agents = ",".join(agent.identity for agent in self.agents)
        return f"{self.players}p {agents} games={self.games} seed={self.seed}"

    @property
    def label(self) -> str:
        return f"{table_title(self.players)}: " + " vs ".join(agent.name for agent in self.agents)


@dataclass(frozen=True)
class GameRecord:
    """A played game as the state file keeps it: its deal, the agent in each seat (by
    name), the final totals and the winner's seat; each scoring unit's points per seat (a
    round or a hand, higher better: ``FamilyGame.unit_points``) and each seat's knocks,
    goings out and undercut knocks over the game (empty in state files from before them)."""

    seed: int
    seats: tuple[str, ...]
    totals: tuple[int, ...]
    winner: int | None
    units: tuple[tuple[int, ...], ...] = ()
    events: tuple[tuple[int, int, int], ...] = ()

    @property
    def result(self) -> EpisodeResult[str]:
        """The game as the ``EpisodeResult`` it was (returns and round scores not kept)."""
        return EpisodeResult(Episode(self.seed, self.seats), (0.0,) * len(self.seats), (), self.totals, self.winner)

    def places(self) -> tuple[int, ...]:
        """Each seat's finishing place, 0 first: the winner, then the others by final total
        (equal totals share a place)."""
        key = [(seat == self.winner, total) for seat, total in enumerate(self.totals)]
        return tuple(sum(other > mine for other in key) for mine in key)

    def wins(self) -> tuple[float, ...]:
        """Each seat's share of the win (``EpisodeResult.score``)."""
        return tuple(self.result.score(seat) for seat in range(len(self.seats)))


@dataclass(frozen=True)
class PlayedMatch:
    """A finished match in the state file: its games, in play order, and how long it took."""

    games: tuple[GameRecord, ...]
    seconds: float

    @property
    def has_units(self) -> bool:
        """Whether its games kept their units (a state file from before them did not)."""
        return all(game.units for game in self.games)

    def tally(self, tallies: dict[str, UnitTally]) -> None:
        """Add each game's units and events to its agents' tallies (a game from a state file
        that kept neither adds nothing)."""
        for game in self.games:
            for seat, name in enumerate(game.seats):
                tally = tallies.setdefault(name, UnitTally())
                for points in game.units:
                    tally.add(points, seat)
                if game.events:
                    tally.add_events(*game.events[seat])

    def win_rates(self) -> dict[str, float]:
        """Each agent's share of the games won."""
        won: dict[str, float] = {}
        for game in self.games:
            for name, share in zip(game.seats, game.wins()):
                won[name] = won.get(name, 0.0) + share
        return {name: w / len(self.games) for name, w in won.items()}


@dataclass(frozen=True)
class Standings:
    """The ratings at one table size, each heads-up pair's win rate and each agent's
    figures in the game's scoring unit over its rated games (empty when a cached match
    lacks its units)."""

    players: int
    rows: tuple[Rating, ...]
    games_per_match: int
    matches: int
    # (row agent, column agent) -> the row agent's win rate against it (heads-up only)
    pairs: dict[tuple[str, str], float]
    units: Mapping[str, UnitReport] = field(default_factory=dict)


@dataclass(frozen=True)
class OpenSpielRow:
    """One of our agents against one of OpenSpiel's bots inside OpenSpiel's game, single
    hands: our agent's figures a hand (``report``)."""

    agent: str
    bot: str
    report: UnitReport


@dataclass(frozen=True)
class LeaderboardRun:
    """What a run leaves: the ratings, which matches it played and which the state file
    held, and the time all the schedule's matches took to play (over every run)."""

    roster: tuple[RosterAgent, ...]
    standings: tuple[Standings, ...]
    played: tuple[MatchSpec, ...]
    cached: tuple[MatchSpec, ...]
    play_seconds: float
    # (players, agent) -> its median milliseconds per decision (``training.decision_cost``)
    costs: Mapping[tuple[int, str], float] = field(default_factory=dict)
    board: LeaderboardGame = field(default_factory=lambda: leaderboard_game(DEFAULT_GAME))
    openspiel: tuple[OpenSpielRow, ...] = ()  # the matches with OpenSpiel's bots, apart from the ratings

    def exploitability(self, players: int) -> dict[str, Exploitability]:
        """Each shipped agent's strongest best response at ``players`` (``training.exploit``),
        where its folder keeps one."""
        found = {}
        for agent in self.roster:
            if agent.is_network:
                source = Path(agent.source)
                figure = shipped_exploitability(source if source.is_dir() else source.parent, players)
                if figure is not None:
                    found[agent.name] = figure
        return found
