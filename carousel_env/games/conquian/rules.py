"""Conquian's cards, its options and presets (RULES.md, "Conquian"; source 004).

The pack is 40 cards: a 52-card deck without its 8s, 9s and 10s. Cards keep the family's
index (:mod:`carousel_env.core.cards`: ``(rank - 1) * 4 + suit``); :data:`CARDS` lists the
40 in order and :func:`index_of` gives a card's place among them (``position * 4 + suit``,
positions A=0 .. 7=6, J=7, Q=8, K=9), the index of observations and discard actions.

:class:`ConquianRules` holds every option of RULES.md; the default is the book (preset
``book``). ``ConquianRules.from_options("foster", game="match")`` starts from a preset and
changes options. A bad option or value raises :class:`ConquianRulesError` naming it.

Decisions where RULES.md is silent:

* ``hand_melds_on_turn_up`` is the option behind the ``bicycle`` preset's "after turning up a
  stock card and before leaving it, the player may meld or lay off from the hand".
* ``deal_in_pairs`` is the option behind the ``foster`` preset's deal.
* ``tableau_pool`` adds hands worth one: it needs ``scoring: unit``.
* A match that reaches ``MATCH_HAND_LIMIT`` hands (the project's bound) ends: the higher
  total wins, equal totals share it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from carousel_env.core.cards import Card, make_card, rank_of, suit_of
from carousel_env.core.errors import CarouselError
from carousel_env.envkit.options import documented, enum_option, preset_with

NUM_PLAYERS = 2
RANKS = (1, 2, 3, 4, 5, 6, 7, 11, 12, 13)  # A..7, J, Q, K: the 7 and the J are consecutive
POSITION = {rank: i for i, rank in enumerate(RANKS)}  # a rank's place in a run
NUM_SUITS = 4
CARDS: tuple[Card, ...] = tuple(make_card(rank, suit) for rank in RANKS for suit in range(NUM_SUITS))
NUM_CARDS = len(CARDS)  # 40
HAND_SIZE = 10  # dealt; cards in hand plus cards melded make 10 between turns
WINNING_MELDED = 11  # a player with this many cards melded wins at once
MELD_MIN = 3
SET_MAX = 4
RUN_MAX = len(RANKS)  # a run can hold every rank of its suit when max_run is lifted
BOOK_RUN_MAX = 8
MAX_TARGET = 10_000
MATCH_HAND_LIMIT = 1000  # the project's bound on a match's hands (a hand is rarely a tableau)
COURT_POINTS = 10
ACE_POINTS = 15

_INDEX = {card: i for i, card in enumerate(CARDS)}


class ConquianRulesError(CarouselError):
    """A bad Conquian rules option; ``option`` names it."""

    def __init__(self, option: str, message: str) -> None:
        super().__init__(f"conquian rules {option!r}: {message}")
        self.option = option


class Rearrange(str, Enum):
    FREE = "free"  # the player's own melds rearranged in any way that leaves valid melds (B, P)
    BORROW = "borrow"  # one card from a set of 4 or an end of a run of 4+, into the taken card's meld (F)
    NONE = "none"  # melds only grow


class Scoring(str, Enum):
    UNIT = "unit"  # the winner +1, the loser -1, a tableau 0 (F, B)
    POINTS = "points"  # the winner scores the cards left in the loser's hand (W)


class GameLength(str, Enum):
    HAND = "hand"  # each deal a game of its own (F, B)
    MATCH = "match"  # hands until a total reaches the target


_ENUMS: dict[str, type[Enum]] = {"rearrange": Rearrange, "scoring": Scoring, "game_length": GameLength}
_BOOLS = ("initial_upcard", "hand_melds_on_turn_up", "deal_in_pairs", "tableau_pool")


def is_conquian_card(value: object) -> bool:
    """Whether ``value`` is one of the 40 cards (an int card of the family's index)."""
    return isinstance(value, int) and not isinstance(value, bool) and value in _INDEX


def index_of(card: Card) -> int:
    """The card's place among the 40 (:data:`CARDS`)."""
    return _INDEX[card]


def position(card: Card) -> int:
    """The card's place in a run: A=0 .. 7=6, J=7, Q=8, K=9."""
    return POSITION[rank_of(card)]


def card_at(suit: int, place: int) -> Card:
    """The card of ``suit`` at run position ``place`` (0..9)."""
    return make_card(RANKS[place], suit)


def card_points(card: Card) -> int:
    """A card left in a hand under ``scoring: points``: A 15, J/Q/K 10, 2 to 7 face value."""
    rank = rank_of(card)
    if rank == 1:
        return ACE_POINTS
    return COURT_POINTS if rank > 10 else rank


def hand_points(hand) -> int:
    return sum(card_points(c) for c in hand)


@dataclass(frozen=True)
class ConquianRules:
    """Every Conquian option of RULES.md; the defaults are the book's (preset ``book``)."""

    max_run: int | None = documented(BOOK_RUN_MAX, f"the most cards in a run, {MELD_MIN} to {RUN_MAX} (None: no limit)")
    rearrange: Rearrange = documented(
        Rearrange.FREE, "the player's own melds when melding a taken card: 'free', 'borrow' or 'none'"
    )
    initial_upcard: bool = documented(True, "the card after the deal is turned up to start the pile")
    hand_melds_on_turn_up: bool = documented(
        False, "after turning up a stock card, the player may meld from the hand before leaving it (Bicycle)"
    )
    deal_in_pairs: bool = documented(False, "the 10 cards are dealt two at a time (Foster)")
    tableau_pool: bool = documented(False, "after tableaus the next decided hand is worth one more for each")
    scoring: Scoring = documented(Scoring.UNIT, "'unit' (+1 and -1 a hand) or 'points' (the loser's hand)")
    target: int = documented(100, "the total that wins a match")
    game_length: GameLength = documented(
        GameLength.HAND, "'hand' (each deal a game) or 'match'; RULES.md's option game"
    )

    def __post_init__(self) -> None:
        for name, enum in _ENUMS.items():
            object.__setattr__(self, name, enum_option(enum, name, getattr(self, name), ConquianRulesError))
        for name in _BOOLS:
            if not isinstance(getattr(self, name), bool):
                raise ConquianRulesError(name, f"must be true or false, got {getattr(self, name)!r}")
        if self.max_run is not None:
            _check_int("max_run", self.max_run, MELD_MIN, RUN_MAX)
        _check_int("target", self.target, 1, MAX_TARGET)
        if self.tableau_pool and self.scoring is not Scoring.UNIT:
            raise ConquianRulesError("tableau_pool", "adds hands worth one: it needs scoring 'unit'")

    @property
    def run_limit(self) -> int:
        """The most cards a run may hold."""
        return RUN_MAX if self.max_run is None else self.max_run

    @classmethod
    def from_options(cls, preset: str = "book", **options: object) -> ConquianRules:
        """The rules of ``preset`` (``book``, ``bicycle``, ``foster``) with ``options`` changed
        (``game``, RULES.md's name of ``game_length``, is read too)."""
        if "game" in options:
            options["game_length"] = options.pop("game")
        return preset_with(PRESETS, preset, options, ConquianRulesError)


def _check_int(option: str, value: object, low: int, high: int) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise ConquianRulesError(option, f"must be an int from {low} to {high}, got {value!r}")


PRESETS: dict[str, ConquianRules] = {
    "book": ConquianRules(),
    "bicycle": ConquianRules(initial_upcard=False, hand_melds_on_turn_up=True),
    "foster": ConquianRules(rearrange=Rearrange.BORROW, tableau_pool=True, deal_in_pairs=True),
}

__all__ = [
    "CARDS",
    "HAND_SIZE",
    "NUM_CARDS",
    "PRESETS",
    "WINNING_MELDED",
    "ConquianRules",
    "ConquianRulesError",
    "GameLength",
    "Rearrange",
    "Scoring",
    "card_at",
    "card_points",
    "hand_points",
    "index_of",
    "is_conquian_card",
    "position",
    "suit_of",
]
