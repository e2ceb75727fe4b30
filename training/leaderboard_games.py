"""The games' leaderboards (``carousel leaderboard --game G``): what each plays, its page
and its README markers, read from the game's family contract (``LeaderboardFacts``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from carousel_env.core.errors import CarouselError
from carousel_env.core.registry import DEFAULT_GAME, GAMES
from carousel_env.envkit.family import LeaderboardFacts, family_game
from carousel_env.integrations import OPENSPIEL_PREFIX
from training.envs import EnvSpec


class LeaderboardError(CarouselError):
    """A leaderboard that cannot be run as asked: a bad roster, state file or README."""


@dataclass(frozen=True)
class LeaderboardGame(LeaderboardFacts):
    """A game's leaderboard (its ``LeaderboardFacts``), with the game's name, the variant its
    matches play (None for a game without variants) and OpenSpiel's bots by the names our
    agents' command line gives them (``openspiel:simple``)."""

    game: str = DEFAULT_GAME
    variant: str | None = None

    def env_spec(self, players: int) -> EnvSpec:
        return EnvSpec.of(players, game=self.game, **dict(self.options))

    @property
    def readme_markers(self) -> tuple[str, str]:
        """The README's markers around this game's tables."""
        return f"<!-- {self.readme_tag}:start -->", f"<!-- {self.readme_tag}:end -->"


def leaderboard_game(game: str, variant: str | None = None) -> LeaderboardGame:
    """The leaderboard of registered game ``game``, of its variant ``variant`` where given (a
    ``LeaderboardError`` for a game or variant without one)."""
    family = family_game(game)
    facts = family.leaderboard
    if facts is None:
        with_one = ", ".join(leaderboard_names())
        raise LeaderboardError(f"no leaderboard for game {game!r} (the games with one: {with_one})")
    boards = {variant_of(game, dict(facts.options)): facts, **dict(family.variant_leaderboards)}
    if variant is not None:
        if family.variant_key is None:
            raise LeaderboardError(f"--variant {variant!r}: {GAMES[game].title} has no variants")
        if variant not in boards:
            listed = ", ".join(str(v) for v in boards)
            raise LeaderboardError(f"no leaderboard for {game}'s variant {variant!r} (its leaderboards: {listed})")
        facts = boards[variant]
    bots = tuple(OPENSPIEL_PREFIX + bot for bot in facts.openspiel_bots)
    played = variant_of(game, dict(facts.options))
    return LeaderboardGame(**{**vars(facts), "openspiel_bots": bots}, game=game, variant=played)


def variant_of(game: str, options: Mapping[str, Any]) -> str | None:
    """The variant env ``options`` of ``game`` play: the value of the game's variant key, else
    its first variant (None for a game without variants). A leaderboard's options and a
    checkpoint's trained env options are read alike."""
    family, variants = family_game(game), GAMES[game].variants
    if family.variant_key is None or not variants:
        return None
    return options.get(family.variant_key, variants[0])


def leaderboard_names() -> tuple[str, ...]:
    """The registered games that have a leaderboard (each game's contract imported now)."""
    return tuple(name for name in GAMES if family_game(name).leaderboard is not None)


def is_openspiel_bot(source: str) -> bool:
    """An agent played by OpenSpiel inside its own game (``openspiel:simple``)."""
    return source.startswith(OPENSPIEL_PREFIX)
