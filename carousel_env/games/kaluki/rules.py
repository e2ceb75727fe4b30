"""The options and presets of Kaluki and of plain Rummy (RULES.md, "Kaluki", "Rummy").

:class:`KalukiRules` holds every option of RULES.md and what the presets change (decks,
jokers, card values, hand sizes, the ace's places in a run, the rule on taking the discard).
The default is the book (preset ``book``); ``uk40`` and ``uk51`` are the UK Kalooki rules;
``rummy`` is plain Rummy. ``KalukiRules.from_options("uk40", limit=100)`` starts from a
preset and changes options. A bad option or value raises :class:`KalukiRulesError` naming
the option and the values it allows.

Decisions where RULES.md is silent:

* ``ace_value`` also allows 1: the ``rummy`` preset's ace (RULES.md gives 11 or 15 for Kaluki).
* ``opening`` 0 means no opening requirement (the ``rummy`` preset): any meld opens.
* ``open_before_lay_off``: whether a player must have opened before laying off or exchanging
  a joker (Kaluki: yes; Rummy: no, unless ``lay_off_after_own_meld``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from enum import Enum

from carousel_env.core.cards import JOKER, NUM_CARDS, Card, rank_of
from carousel_env.core.errors import CarouselError
from carousel_env.envkit.options import documented, enum_option, preset_with

MIN_PLAYERS, MAX_PLAYERS = 2, 6
PLAYER_COUNTS = range(MIN_PLAYERS, MAX_PLAYERS + 1)
CARD_KINDS = NUM_CARDS + 1  # the 52 faces and the joker
MELD_MIN = 3  # a set or a run has at least 3 cards
SET_MAX = 4  # a set has at most 4 cards, one of each suit
RUN_MAX = 13  # a run never wraps and never holds two aces
LOW_ACE, HIGH_ACE = 1, 14  # a run's cells: 1 the low ace, 2..13 the ranks 2..K, 14 the high ace
LOW_ACE_MELD_VALUE = 1  # an ace at the low end of A-2-3 counts 1 toward the opening (the project's reading)
COURT_VALUE = 10  # J, Q and K in a hand
ACE_VALUES = (1, 11, 15)  # 11 the book, 15 Bicycle's, 1 plain Rummy's
MAX_JOKER_VALUE = 100
MAX_OPENING = 200
MAX_RESTOCKS = 10  # hands stay bounded: the stock is rebuilt at most this often
MAX_TARGET = 10_000
DECK_COUNTS = (1, 2)
MAX_JOKERS = 4
# The project's bounds (for bounded hands and matches, as Carioca's and Gin's): far beyond
# normal play, they end what a policy that only ever takes the discard, or a match of hands
# nobody wins, would play forever.
PILE_TAKE_LIMIT = 300  # the hand ends with no winner before the draw after this many discard takes
MATCH_HAND_LIMIT = 200  # a match ends after this many hands even if nobody reached its end


class KalukiRulesError(CarouselError):
    """A bad Kaluki rules option; ``option`` names it."""

    def __init__(self, option: str, message: str) -> None:
        super().__init__(f"kaluki rules {option!r}: {message}")
        self.option = option


class DiscardTake(str, Enum):
    OPENING = "opening"  # before opening only as part of the opening laid this turn (the book)
    MELD = "meld"  # only if laid in a meld this turn, before or after opening (UK)
    ANY = "any"  # no restriction (plain Rummy)


class RetrievedJoker(str, Enum):
    HAND = "hand"  # the joker goes to the hand for later (source 004)
    REUSE_NOW = "reuse_now"  # it must be laid this turn in a new meld with hand cards (UK)


class SetJokerRelease(str, Enum):
    DECLARED = "declared"  # the natural card the joker declares
    EITHER_MISSING = "either_missing"  # any natural of a suit the set's naturals lack
    ALL_MISSING = "all_missing"  # every missing suit, making the four naturals (UK)


class Scoring(str, Enum):
    WINNER_COLLECTS = "winner_collects"  # the player who went out scores the others' hands
    PENALTY = "penalty"  # each player adds their own hand value


class RummyBonus(str, Enum):
    NONE = "none"
    PLUS10 = "plus10"
    DOUBLE = "double"


class PenaltyEnd(str, Enum):
    ELIMINATE = "eliminate"  # over the limit is out; the last player left wins
    FIRST_TO_LIMIT = "first_to_limit"  # when a total reaches the limit, the fewest points win


class GameLength(str, Enum):
    MATCH = "match"
    HAND = "hand"  # each hand is a game of its own


class TwoPlayerDeal(str, Enum):
    ALTERNATE = "alternate"
    WINNER = "winner"  # the winner of a hand deals the next


RUMMY_BONUS_PLUS = 10

_ENUMS: dict[str, type[Enum]] = {
    "discard_take": DiscardTake,
    "retrieved_joker": RetrievedJoker,
    "set_joker_release": SetJokerRelease,
    "scoring": Scoring,
    "rummy_bonus": RummyBonus,
    "penalty_end": PenaltyEnd,
    "game_length": GameLength,
    "two_player_deal": TwoPlayerDeal,
}
_BOOLS = ("ace_low_runs", "ace_high_runs", "open_before_lay_off", "go_out_by_discard", "lay_off_after_own_meld")


@dataclass(frozen=True)
class KalukiRules:
    """Every Kaluki option of RULES.md; the defaults are the book's (preset ``book``)."""

    decks: int = documented(2, "52-card decks in the pack, 1 or 2")
    jokers: int = documented(4, "jokers in the pack, 0 to 4")
    joker_value: int = documented(25, "a joker left in a hand")
    ace_value: int = documented(11, "an ace left in a hand: 11 (book), 15 (Bicycle) or 1 (plain Rummy)")
    ace_low_runs: bool = documented(True, "a run may hold a low ace (A-2-3)")
    ace_high_runs: bool = documented(True, "a run may hold a high ace (Q-K-A)")
    hand_sizes: tuple[int, ...] = documented((15, 15, 15, 13, 11), "cards dealt to each player, for 2..6 players")
    opening: int = documented(51, "the meld value an opening needs (0: no opening requirement)")
    discard_take: DiscardTake = documented(
        DiscardTake.OPENING, "'opening' (before opening only into the opening), 'meld' (only into a meld) or 'any'"
    )
    open_before_lay_off: bool = documented(True, "a player must have opened to lay off or exchange a joker")
    retrieved_joker: RetrievedJoker = documented(RetrievedJoker.HAND, "'hand' or 'reuse_now' (a new meld this turn)")
    set_joker_release: SetJokerRelease = documented(
        SetJokerRelease.DECLARED, "what releases a set's joker: 'declared', 'either_missing' or 'all_missing'"
    )
    go_out_by_discard: bool = documented(False, "a player goes out only by discarding the last card")
    restocks: int = documented(1, "times a hand's stock is rebuilt from the discard pile")
    scoring: Scoring = documented(Scoring.WINNER_COLLECTS, "'winner_collects' or 'penalty'")
    rummy_bonus: RummyBonus = documented(RummyBonus.NONE, "going out in one turn: 'none', 'plus10' or 'double'")
    target: int = documented(250, "winner_collects: the total that wins the match")
    limit: int = documented(150, "penalty: the limit on a total")
    penalty_end: PenaltyEnd = documented(PenaltyEnd.ELIMINATE, "penalty: 'eliminate' or 'first_to_limit'")
    game_length: GameLength = documented(
        GameLength.MATCH, "'match' or 'hand' (each hand a game of its own); RULES.md's option game"
    )
    two_player_deal: TwoPlayerDeal = documented(TwoPlayerDeal.ALTERNATE, "heads-up, who deals: 'alternate' or 'winner'")
    lay_off_after_own_meld: bool = documented(False, "no lay-off until the player has laid a meld of their own")

    def __post_init__(self) -> None:
        for name, enum in _ENUMS.items():
            object.__setattr__(self, name, enum_option(enum, name, getattr(self, name), KalukiRulesError))
        for name in _BOOLS:
            if not isinstance(getattr(self, name), bool):
                raise KalukiRulesError(name, f"must be true or false, got {getattr(self, name)!r}")
        _check_int("decks", self.decks, min(DECK_COUNTS), max(DECK_COUNTS))
        _check_int("jokers", self.jokers, 0, MAX_JOKERS)
        _check_int("joker_value", self.joker_value, 0, MAX_JOKER_VALUE)
        _check_int("opening", self.opening, 0, MAX_OPENING)
        _check_int("restocks", self.restocks, 0, MAX_RESTOCKS)
        _check_int("target", self.target, 1, MAX_TARGET)
        _check_int("limit", self.limit, 1, MAX_TARGET)
        if self.ace_value not in ACE_VALUES or isinstance(self.ace_value, bool):
            raise KalukiRulesError("ace_value", f"must be one of {ACE_VALUES}, got {self.ace_value!r}")
        if not (self.ace_low_runs or self.ace_high_runs):
            raise KalukiRulesError("ace_high_runs", "an ace must have a place in runs: ace_low_runs or ace_high_runs")
        self._check_hand_sizes()

    def _check_hand_sizes(self) -> None:
        sizes = self.hand_sizes
        if isinstance(sizes, (str, bytes)) or not isinstance(sizes, Iterable):
            raise KalukiRulesError("hand_sizes", f"must be {len(PLAYER_COUNTS)} ints (2..6 players), got {sizes!r}")
        sizes = tuple(sizes)
        object.__setattr__(self, "hand_sizes", sizes)
        if len(sizes) != len(PLAYER_COUNTS):
            raise KalukiRulesError("hand_sizes", f"must be {len(PLAYER_COUNTS)} ints (2..6 players), got {sizes!r}")
        for players, size in zip(PLAYER_COUNTS, sizes):
            # Every hand and the upcard come out of the pack.
            most = (self.deck_size - 1) // players
            _check_int("hand_sizes", size, 1, most, f" with {players} players")

    @property
    def deck_size(self) -> int:
        return self.decks * NUM_CARDS + self.jokers

    def hand_size(self, num_players: int) -> int:
        """Cards dealt to each of ``num_players`` players."""
        return self.hand_sizes[num_players - MIN_PLAYERS]

    def card_value(self, card: Card) -> int:
        """A card left in a hand: joker ``joker_value``, ace ``ace_value``, J/Q/K 10, others face value."""
        if card == JOKER:
            return self.joker_value
        rank = rank_of(card)
        if rank == 1:
            return self.ace_value
        return min(rank, COURT_VALUE)

    def hand_value(self, hand: Iterable[Card]) -> int:
        return sum(self.card_value(c) for c in hand)

    @classmethod
    def from_options(cls, preset: str = "book", **options: object) -> KalukiRules:
        """The rules of ``preset`` (``book``, ``uk40``, ``uk51``, ``rummy``) with ``options``
        changed (``game``, RULES.md's name of ``game_length``, is read too: the family's
        ``carousel_env.env(game=...)`` names the game with it)."""
        if "game" in options:
            options["game_length"] = options.pop("game")
        return preset_with(PRESETS, preset, options, KalukiRulesError)


def _check_int(option: str, value: object, low: int, high: int, where: str = "") -> None:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise KalukiRulesError(option, f"must be an int from {low} to {high}{where}, got {value!r}")


_UK40 = KalukiRules(
    jokers=2,
    joker_value=15,
    ace_low_runs=False,
    hand_sizes=(13,) * len(PLAYER_COUNTS),
    opening=40,
    discard_take=DiscardTake.MELD,
    retrieved_joker=RetrievedJoker.REUSE_NOW,
    set_joker_release=SetJokerRelease.ALL_MISSING,
    go_out_by_discard=True,
    scoring=Scoring.PENALTY,
)

PRESETS: dict[str, KalukiRules] = {
    "book": KalukiRules(),
    "uk40": _UK40,
    "uk51": replace(_UK40, opening=51, joker_value=25),
    "rummy": KalukiRules(
        decks=1,
        jokers=0,
        ace_value=1,
        ace_high_runs=False,
        hand_sizes=(10, 7, 7, 6, 6),
        opening=0,
        discard_take=DiscardTake.ANY,
        open_before_lay_off=False,
        target=100,
        limit=100,
        penalty_end=PenaltyEnd.FIRST_TO_LIMIT,
        two_player_deal=TwoPlayerDeal.WINNER,
    ),
}
