"""Cards, point values and the text notation of the rules.

Representation (chosen for speed: everything is a small int, hands and tables are tuples):

* A real card is ``(rank - 1) * 4 + suit``: ``0..51``, rank-major so that the cards of
  one rank are adjacent (the solver sweeps ranks). Ranks are ``1..13`` (ace = 1),
  suits ``0..3`` in the order ``C D H S``.
* ``JOKER`` (52) is a joker in a hand.
* On the table every unit carries the card it stands for. A real card is itself; a joker
  declaring card ``c`` is ``joker_as(c) == TABLE_JOKER + c`` (64..115), so that
  ``face(unit)`` is a single mask and ``is_table_joker(unit)`` a single comparison.
* A hand is a sorted tuple of cards. A meld is a tuple of table units; a table is a
  tuple of melds.

Notation (docs/RULES.md "Notation"): ``10H``, ``QS``, ``AC``; ``JK`` in a hand, ``JK=7H``
on the table; a hand is cards separated by single spaces; a table is melds separated by
`` | ``, each meld one or more units separated by single spaces; ``""`` is the empty hand
and the empty table. Parsing ignores the case of ASCII letters and accepts ``T`` for 10;
printing always uses the canonical forms. Anything else (other whitespace, spaces before,
after or doubled, an empty meld, a non-str argument) raises :class:`NotationError` naming
the offending token (for an empty meld its position, for a non-str its type).
"""

from __future__ import annotations

import re
import reprlib
from collections import Counter
from collections.abc import Callable, Iterable

from carousel_env.core.errors import NotationError

SUITS = "CDHS"
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
NUM_CARDS = 52
JOKER = 52
TABLE_JOKER = 64
_FACE_MASK = 63

JOKER_POINTS = 25

Card = int
Unit = int
Hand = tuple[Card, ...]
Meld = tuple[Unit, ...]
Table = tuple[Meld, ...]


def make_card(rank: int, suit: int) -> Card:
    """The card of ``rank`` (1 = ace .. 13 = king) and ``suit`` (0..3 = C D H S)."""
    if not 1 <= rank <= 13 or not 0 <= suit <= 3:
        raise ValueError(f"no card with rank {rank} and suit {suit}")
    return (rank - 1) * 4 + suit


def rank_of(card: Card) -> int:
    """Rank 1..13 of a real card or of a table unit's face."""
    return ((card & _FACE_MASK) >> 2) + 1


def suit_of(card: Card) -> int:
    return card & 3


def joker_as(card: Card) -> Unit:
    """The table unit of a joker declaring ``card``."""
    return TABLE_JOKER + card


def is_table_joker(unit: Unit) -> bool:
    return unit >= TABLE_JOKER


# What input may hold, checked at the public edge (bools are ints to Python, never cards).
def is_hand_card(value: object) -> bool:
    """Whether ``value`` can be in a hand: a card 0..51 or the joker (52)."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= JOKER


def is_table_unit(value: object) -> bool:
    """Whether ``value`` can be on the table: a real card 0..51 or a joker declaring one."""
    return (
        isinstance(value, int)
        and not isinstance(value, bool)
        and (0 <= value < NUM_CARDS or TABLE_JOKER <= value < TABLE_JOKER + NUM_CARDS)
    )


def units_in(value: object, what: str, error: Callable[[str], Exception]) -> tuple:
    """``value`` (a hand, a table or a meld, named ``what``) as a tuple, if it is a sequence
    that is not text; else ``error(message)`` is raised."""
    if isinstance(value, (str, bytes)):
        raise error(f"{what} is text {value!r}: parse it first (parse_hand, parse_table)")
    try:
        return tuple(value)
    except TypeError:
        raise error(f"{what} is {value!r} ({type(value).__name__}), not a sequence of cards") from None


def face(unit: Unit) -> Card:
    """The card a table unit stands for (itself for a real card, the declaration for a joker)."""
    return unit & _FACE_MASK


def card_points(card: Card) -> int:
    """Point value in a hand: joker 25, ace 1, J/Q/K 10, others face value."""
    if card == JOKER:
        return JOKER_POINTS
    return min(rank_of(card), 10)


def hand_points(hand: Iterable[Card]) -> int:
    return sum(card_points(c) for c in hand)


# Precomputed so the hot paths (solver, observations) index a tuple instead of calling.
POINTS: tuple[int, ...] = tuple(card_points(c) for c in range(NUM_CARDS + 1))


def make_deck(decks: int, jokers: int) -> list[Card]:
    """The full deck in a fixed order: ``decks`` copies of the 52 cards plus ``jokers``."""
    return [c for _ in range(decks) for c in range(NUM_CARDS)] + [JOKER] * jokers


# ---------------------------------------------------------------- notation


_RANK_BY_TEXT = {text: i + 1 for i, text in enumerate(RANKS)}
_RANK_BY_TEXT["T"] = 10
_CARD_FORM = "a rank (A 2-10 J Q K, or T for 10) then a suit (C D H S), e.g. 10H"
MELD_SEPARATOR = " | "
_BAR = "|"


def card_str(card: Card) -> str:
    """Canonical text of a hand card (``10H``, ``JK``)."""
    if card == JOKER:
        return "JK"
    if not 0 <= card < NUM_CARDS:
        raise ValueError(f"not a card: {card!r}")
    return RANKS[rank_of(card) - 1] + SUITS[suit_of(card)]


def unit_str(unit: Unit) -> str:
    """Canonical text of a table unit (``7H`` or ``JK=7H``)."""
    if is_table_joker(unit):
        return "JK=" + card_str(face(unit))
    return card_str(unit)


def _text(value: object, what: str) -> str:
    """``value`` itself if it is text; a non-str would otherwise fail deep inside with an
    AttributeError or TypeError that names neither the argument nor its type."""
    if not isinstance(value, str):
        kind = type(value).__name__
        raise NotationError(f"{what} must be text (str), not {kind}: {reprlib.repr(value)}", token=kind)
    return value


def _parse_real(text: str, token: str) -> Card:
    """The real card ``text`` (part or all of ``token``, which the error names)."""
    # ASCII only: str.upper() maps some other letters onto card letters ("ſ" -> "S").
    upper = text.upper() if text.isascii() else ""
    if len(upper) < 2 or upper[-1] not in SUITS or upper[:-1] not in _RANK_BY_TEXT:
        what = "empty text is no card" if not token else f"malformed card {token!r}"
        raise NotationError(f"{what}: a card is {_CARD_FORM}", token=token)
    return make_card(_RANK_BY_TEXT[upper[:-1]], SUITS.index(upper[-1]))


def parse_card(token: str) -> Card:
    """Parse one hand card: ``10H``, ``th``, ``JK``. Table-joker syntax is not a hand card."""
    token = _text(token, "a card")
    if token.upper() == "JK":
        return JOKER
    if token.upper().startswith("JK="):
        raise NotationError(f"{token!r}: a declared joker belongs on the table, not in a hand", token=token)
    return _parse_real(token, token)


def parse_unit(token: str) -> Unit:
    """Parse one table unit: a real card or ``JK=<card>``. A bare ``JK`` has no declaration."""
    token = _text(token, "a table unit")
    upper = token.upper()
    if upper == "JK":
        raise NotationError(f"{token!r}: a joker on the table needs a declared card (JK=7H)", token=token)
    if upper.startswith("JK="):
        return joker_as(_parse_real(token[3:], token))
    return _parse_real(token, token)


def _tokens(text: str, what: str) -> list[str]:
    """The tokens of non-empty ``text``, which separates them by single spaces and nothing else."""
    spacing = re.search(r"^ +| {2,}| +$", text)
    if spacing:
        start, end = spacing.span()
        while start > 0 and text[start - 1] != " ":
            start -= 1
        while end < len(text) and text[end] != " ":
            end += 1
        fragment = text[start:end]
        if not text.strip(" "):
            why = "a meld has at least one card" if what == "meld" else f"an empty {what} is the empty string"
        elif spacing.start() == 0:
            why = "a space before the first card"
        elif spacing.end() == len(text):
            why = "a space after the last card"
        else:
            why = "more than one space between cards"
        raise NotationError(f"{fragment!r} in {what} {text!r}: {why}", token=fragment)
    tokens = text.split(" ")
    for token in tokens:
        if any(c.isspace() for c in token):
            raise NotationError(f"{token!r} in {what} {text!r}: only single spaces separate cards", token=token)
    return tokens


def parse_hand(text: str) -> Hand:
    """Parse a hand (cards separated by single spaces; ``""`` is the empty hand) into a
    sorted tuple."""
    text = _text(text, "a hand")
    if not text:
        return ()
    tokens = _tokens(text, "hand")
    for token in tokens:
        if _BAR in token:
            raise NotationError(f"{token!r} in hand {text!r}: a hand has no melds, only cards", token=token)
    return tuple(sorted(parse_card(t) for t in tokens))


def hand_str(hand: Iterable[Card]) -> str:
    return " ".join(card_str(c) for c in sorted(hand))


def _parse_melds(text: str, what: str) -> Table:
    """The melds of non-empty ``text``: units separated by single spaces, melds by `` | ``."""
    melds: list[list[Unit]] = [[]]
    for token in _tokens(text, what):
        if token == _BAR:
            melds.append([])
        elif _BAR in token:
            raise NotationError(f"{token!r} in {what} {text!r}: melds are separated by {MELD_SEPARATOR!r}", token=token)
        else:
            melds[-1].append(parse_unit(token))
    for number, meld in enumerate(melds, 1):
        if not meld:
            name = f"meld {number}"
            raise NotationError(f"{name} of {len(melds)} is empty in {what} {text!r}", token=name)
    return tuple(tuple(meld) for meld in melds)


def parse_meld(text: str) -> Meld:
    """Parse one meld: one or more table units separated by single spaces."""
    text = _text(text, "a meld")
    if not text:
        raise NotationError("meld 1 of 1 is empty: a meld has at least one card", token="meld 1")
    tokens = _tokens(text, "meld")
    for token in tokens:
        if _BAR in token:
            raise NotationError(f"{token!r} in meld {text!r}: a meld has no {_BAR!r} (a table has)", token=token)
    return tuple(parse_unit(t) for t in tokens)


def parse_table(text: str) -> Table:
    """Parse a table: melds separated by `` | ``, each one or more units separated by single
    spaces. The empty string is the empty table.

    Melds are kept as written (order and unit order): validity is the meld module's job.
    """
    text = _text(text, "a table")
    if not text:
        return ()
    return _parse_melds(text, "table")


def meld_str(meld: Iterable[Unit]) -> str:
    return " ".join(unit_str(u) for u in meld)


def table_str(table: Iterable[Iterable[Unit]]) -> str:
    return MELD_SEPARATOR.join(meld_str(m) for m in table)


def counts(cards: Iterable[Card], size: int = NUM_CARDS + 1) -> list[int]:
    """Multiset as a count vector indexed by card."""
    result = [0] * size
    for c in cards:
        result[c] += 1
    return result


def holds(hand: Iterable[Card], cards: Iterable[Card]) -> bool:
    """Whether ``hand`` holds every card of ``cards``, copies counted (two decks: a card twice)."""
    return not Counter(cards) - Counter(hand)


def without(hand: Iterable[Card], cards: Iterable[Card]) -> Hand:
    """``hand`` less one copy of each of ``cards`` (all in it), in its order."""
    rest = list(hand)
    for card in cards:
        rest.remove(card)
    return tuple(rest)
