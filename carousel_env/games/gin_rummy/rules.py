"""The options and presets of Gin Rummy (RULES.md, "Gin Rummy").

The default is the book (source 004); ``openspiel`` plays OpenSpiel's ``gin_rummy`` with its
default parameters, so that games can run in lock-step with it; ``eaai`` plays the EAAI 2021
challenge's rules. ``GinRules(preset="openspiel", knock_limit=7)`` starts from a preset and
changes one option. A bad option or value raises :class:`GinRulesError` naming it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from carousel_env.core.errors import CarouselError
from carousel_env.envkit.options import documented, enum_option, preset_with

NUM_PLAYERS = 2
HAND_SIZE = 10
MAX_KNOCK_LIMIT = 10  # "more than ten must wait" (RULES.md): a limit above 10 is not Gin
OPENSPIEL_UPCARD_DRAWS = 50  # OpenSpiel ends the hand at its 50th upcard draw after the first turn
OPENSPIEL_RETURNED_UPCARDS = 2  # ... or when two discards in a row return the upcard just taken
# The project's bounds (RULES.md, "Bounded hands and matches"): far beyond normal play, they
# end what a policy that never gives up the upcard, or never knocks, would play forever.
UPCARD_DRAW_LIMIT = 100  # without OpenSpiel's limits, the 100th upcard draw after the first turn ends the hand dead
MIN_MATCH_HANDS = 200  # a match ends after this many hands ...
MATCH_HANDS_PER_TARGET_POINT = 2  # ... or 2 per point of its target, where that is more


class GinRulesError(CarouselError):
    """A bad Gin Rummy rules option; ``option`` names it."""

    def __init__(self, option: str, message: str) -> None:
        super().__init__(f"gin rummy rules {option!r}: {message}")
        self.option = option


class GameLength(str, Enum):
    MATCH = "match"  # hands until a player reaches the target (source 004)
    HAND = "hand"  # every hand is a game of its own (the reference engines)


class StockEnd(str, Enum):
    DEAD = "dead"  # the book: a discard with 2 cards left in the stock ends the hand, nobody scores
    WALL = "wall"  # OpenSpiel: the next player may knock with the upcard, or pass and end it


@dataclass(frozen=True)
class GinRules:
    """Every Gin Rummy option of RULES.md; the defaults are the book's."""

    knock_limit: int = documented(10, "the most deadwood a knock may leave, 0 to 10 (0: gin only)")
    gin_bonus: int = documented(20, "points for going gin, over the opponent's deadwood")
    undercut_bonus: int = documented(10, "points for undercutting the knocker, over the difference")
    tie_is_undercut: bool = documented(True, "equal deadwood after a knock is an undercut (else both score 0)")
    discard_taken_upcard: bool = documented(False, "the upcard just taken may be discarded on the same turn")
    game_length: GameLength = documented(
        GameLength.MATCH, "'match' (hands until a total reaches the target) or 'hand' (RULES.md's option game)"
    )
    target: int = documented(100, "the total that ends a match")
    match_bonuses: bool = documented(True, "a match's game bonus 100, shutout 100 more, line bonus 20 a hand won")
    first_dealer: int | None = documented(None, "the first hand's dealer, 0 or 1 (None: drawn from the seed)")
    stock_end: StockEnd = documented(
        StockEnd.DEAD, "'dead' (2 cards left after a discard end the hand) or 'wall' (OpenSpiel's: a last knock)"
    )
    upcard_limits: bool = documented(
        False, f"OpenSpiel's two limits on upcard draws (else the hand is dead at the {UPCARD_DRAW_LIMIT}th)"
    )

    def __post_init__(self) -> None:
        for name in ("knock_limit", "gin_bonus", "undercut_bonus", "target"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool):
                raise GinRulesError(name, f"must be an int, got {value!r}")
        if not 0 <= self.knock_limit <= MAX_KNOCK_LIMIT:
            raise GinRulesError("knock_limit", f"must be from 0 to {MAX_KNOCK_LIMIT}, got {self.knock_limit}")
        for name in ("gin_bonus", "undercut_bonus"):
            if not 0 <= getattr(self, name) <= 1000:
                raise GinRulesError(name, f"must be from 0 to 1000, got {getattr(self, name)}")
        if not 1 <= self.target <= 10_000:
            raise GinRulesError("target", f"must be from 1 to 10000, got {self.target}")
        for name in ("tie_is_undercut", "discard_taken_upcard", "match_bonuses", "upcard_limits"):
            if not isinstance(getattr(self, name), bool):
                raise GinRulesError(name, f"must be true or false, got {getattr(self, name)!r}")
        if self.first_dealer is not None and (
            not isinstance(self.first_dealer, int)
            or isinstance(self.first_dealer, bool)
            or self.first_dealer not in (0, 1)
        ):
            raise GinRulesError(
                "first_dealer", f"must be None (drawn from the seed), 0 or 1, got {self.first_dealer!r}"
            )
        object.__setattr__(self, "game_length", enum_option(GameLength, "game_length", self.game_length, GinRulesError))
        object.__setattr__(self, "stock_end", enum_option(StockEnd, "stock_end", self.stock_end, GinRulesError))

    @property
    def upcard_draw_limit(self) -> int:
        """The upcard draw after the first turn that ends the hand dead instead of being made."""
        return OPENSPIEL_UPCARD_DRAWS if self.upcard_limits else UPCARD_DRAW_LIMIT

    @property
    def match_hand_limit(self) -> int:
        """The hands after which a match ends even if nobody reached the target."""
        return max(MIN_MATCH_HANDS, MATCH_HANDS_PER_TARGET_POINT * self.target)

    @classmethod
    def from_options(cls, preset: str = "book", **options: object) -> GinRules:
        """The rules of ``preset`` with ``options`` changed (names as the fields; ``game``,
        ``game_length``'s name before 0.5, is read for one version)."""
        if "game" in options:
            options["game_length"] = options.pop("game")
        return preset_with(PRESETS, preset, options, GinRulesError)


PRESETS: dict[str, GinRules] = {
    "book": GinRules(),
    "openspiel": GinRules(
        gin_bonus=25,
        undercut_bonus=25,
        tie_is_undercut=False,
        discard_taken_upcard=True,
        game_length=GameLength.HAND,
        first_dealer=1,  # OpenSpiel's player 0 always acts first: the non-dealer
        stock_end=StockEnd.WALL,
        upcard_limits=True,
    ),
    "eaai": GinRules(gin_bonus=25, undercut_bonus=25, match_bonuses=False),
}
