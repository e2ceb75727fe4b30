"""The games that have a leaderboard (``carousel leaderboard --game G``): what each plays,
its page and its README markers. Apart from ``training.leaderboard`` so that the command's
``--help`` can name them without importing torch."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from carousel_env.core.errors import CarouselError
from carousel_env.integrations import OPENSPIEL_PREFIX
from training.envs import EnvSpec
from training.leaderboard_defaults import BASELINES, CARIOCA_BASELINES, GIN_BASELINES, GIN_OPENSPIEL_BOTS, STATE_NAME


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
    openspiel_bots: tuple[str, ...] = ()  # OpenSpiel's bots of the default roster (open_spiel installed)
    timed: bool = False  # agents' decisions timed on the game's own positions (``training.decision_cost``)

    @property
    def state_name(self) -> str:
        """The state file's default name, beside the page."""
        return (
            STATE_NAME if self.game == "carousel" else STATE_NAME.replace("leaderboard_", f"leaderboard_{self.game}_")
        )

    def env_spec(self, players: int) -> EnvSpec:
        return EnvSpec.of(players, game=self.game, **dict(self.options))

    @property
    def readme_markers(self) -> tuple[str, str]:
        """The README's markers around this game's tables."""
        tag = "leaderboard" if self.game == "carousel" else f"leaderboard {self.game}"
        return f"<!-- {tag}:start -->", f"<!-- {tag}:end -->"


LEADERBOARD_GAMES = {
    "carousel": LeaderboardGame(
        "carousel", (2, 4), (("episode", "game"),), BASELINES, True, "Leaderboard", "docs/LEADERBOARD.md", timed=True
    ),
    # Single hands under OpenSpiel's rules: what OpenSpiel's bots play.
    "gin_rummy": LeaderboardGame(
        "gin_rummy",
        (2,),
        (("preset", "openspiel"),),
        GIN_BASELINES,
        True,
        "Gin Rummy leaderboard",
        "docs/LEADERBOARD_GIN.md",
        openspiel_bots=GIN_OPENSPIEL_BOTS,
        timed=True,
    ),
    # Whole games of six rounds (the env's default episode), with no guided search of its own.
    "carioca": LeaderboardGame(
        "carioca",
        (2, 4),
        (),
        CARIOCA_BASELINES,
        False,
        "Carioca leaderboard",
        "docs/LEADERBOARD_CARIOCA.md",
        timed=True,
    ),
}


def leaderboard_game(game: str) -> LeaderboardGame:
    if game not in LEADERBOARD_GAMES:
        raise LeaderboardError(f"no leaderboard for game {game!r} (the games with one: {', '.join(LEADERBOARD_GAMES)})")
    return LEADERBOARD_GAMES[game]


def is_openspiel_bot(source: str) -> bool:
    """An agent played by OpenSpiel inside its own game (``openspiel:simple``)."""
    return source.startswith(OPENSPIEL_PREFIX)
