"""The games' leaderboards (``carousel leaderboard --game G``): what each plays, its page
and its README markers, read from the game's family contract (``LeaderboardFacts``)."""

from __future__ import annotations

from dataclasses import dataclass

from carousel_env.core.errors import CarouselError
from carousel_env.core.registry import DEFAULT_GAME, GAMES
from carousel_env.envkit.family import LeaderboardFacts, family_game
from carousel_env.integrations import OPENSPIEL_PREFIX
from training.envs import EnvSpec


class LeaderboardError(CarouselError):
    """A leaderboard that cannot be run as asked: a bad roster, state file or README."""


@dataclass(frozen=True)
class LeaderboardGame(LeaderboardFacts):
    """A game's leaderboard (its ``LeaderboardFacts``), with the game's name and OpenSpiel's
    bots by the names our agents' command line gives them (``openspiel:simple``)."""

    game: str = DEFAULT_GAME

    def env_spec(self, players: int) -> EnvSpec:
        return EnvSpec.of(players, game=self.game, **dict(self.options))

    @property
    def readme_markers(self) -> tuple[str, str]:
        """The README's markers around this game's tables."""
        return f"<!-- {self.readme_tag}:start -->", f"<!-- {self.readme_tag}:end -->"


def leaderboard_game(game: str) -> LeaderboardGame:
    """The leaderboard of registered game ``game`` (a ``LeaderboardError`` for a game without one)."""
    facts = family_game(game).leaderboard
    if facts is None:
        with_one = ", ".join(leaderboard_names())
        raise LeaderboardError(f"no leaderboard for game {game!r} (the games with one: {with_one})")
    bots = tuple(OPENSPIEL_PREFIX + bot for bot in facts.openspiel_bots)
    return LeaderboardGame(**{**vars(facts), "openspiel_bots": bots}, game=game)


def leaderboard_names() -> tuple[str, ...]:
    """The registered games that have a leaderboard (each game's contract imported now)."""
    return tuple(name for name in GAMES if family_game(name).leaderboard is not None)


def is_openspiel_bot(source: str) -> bool:
    """An agent played by OpenSpiel inside its own game (``openspiel:simple``)."""
    return source.startswith(OPENSPIEL_PREFIX)
