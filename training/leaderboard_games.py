"""The games' leaderboards (``carousel leaderboard --game G``): what each plays, its page
and its README markers, read from the game's family contract (``LeaderboardFacts``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from carousel_env.core.errors import CarouselError
from carousel_env.core.registry import GAMES
from carousel_env.envkit.family import family_game
from carousel_env.integrations import OPENSPIEL_PREFIX
from training.envs import EnvSpec


class LeaderboardError(CarouselError):
    """A leaderboard that cannot be run as asked: a bad roster, state file or README."""


@dataclass(frozen=True)
class LeaderboardGame:
    """What one game's leaderboard plays: its table sizes, the env options every match plays
    under, its baselines, whether its shipped agents guide a search, its page's title."""

    game: str
    table_sizes: tuple[int, ...]
    options: tuple[tuple[str, Any], ...]
    baselines: tuple[str, ...]
    guided: bool
    title: str
    page: str  # ``--out``'s default
    state_name: str  # the state file's default name, beside the page
    readme_tag: str
    how: str = ""  # how the game's matches are played, for its page (empty: the family's way)
    played_unit: str = "game"  # what one of its games is: a whole "game", or a single "hand"
    openspiel_bots: tuple[str, ...] = ()  # OpenSpiel's bots of the default roster (open_spiel installed)
    timed: bool = True  # agents' decisions timed on the game's own positions (``training.decision_cost``)

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
        raise LeaderboardError(
            f"no leaderboard for game {game!r} (the games with one: {', '.join(leaderboard_names())})"
        )
    return LeaderboardGame(
        game=game,
        table_sizes=facts.table_sizes,
        options=facts.options,
        baselines=facts.baselines,
        guided=facts.guided,
        title=facts.title,
        page=facts.page,
        state_name=facts.state_name,
        readme_tag=facts.readme_tag,
        how=facts.how,
        played_unit=facts.played_unit,
        openspiel_bots=tuple(OPENSPIEL_PREFIX + bot for bot in facts.openspiel_bots),
        timed=facts.timed,
    )


def leaderboard_names() -> tuple[str, ...]:
    """The registered games that have a leaderboard (each game's contract imported now)."""
    return tuple(name for name in GAMES if family_game(name).leaderboard is not None)


def is_openspiel_bot(source: str) -> bool:
    """An agent played by OpenSpiel inside its own game (``openspiel:simple``)."""
    return source.startswith(OPENSPIEL_PREFIX)
