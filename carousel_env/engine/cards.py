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

Notation (RULES.md): ``10H``, ``QS``, ``AC``; ``JK`` in a hand, ``JK=7H`` on the table;
a hand is cards separated by spaces; a table is melds separated by `` | ``. Parsing is
case-insensitive and accepts ``T`` for 10; printing always uses the canonical forms.
Anything else raises :class:`NotationError` naming the offending token.
"""

from __future__ import annotations

from collections.abc import Iterable

from carousel_env.engine.errors import NotationError

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


def _parse_real(token: str, original: str) -> Card:
    text = token.upper()
    if len(text) < 2 or text[-1] not in SUITS or text[:-1] not in _RANK_BY_TEXT:
        raise NotationError(f"malformed card {original!r}", token=original)
    return make_card(_RANK_BY_TEXT[text[:-1]], SUITS.index(text[-1]))


def parse_card(token: str) -> Card:
    """Parse one hand card: ``10H``, ``th``, ``JK``. Table-joker syntax is not a hand card."""
    if token.upper() == "JK":
        return JOKER
    if "=" in token:
        raise NotationError(f"{token!r}: a declared joker belongs on the table, not in a hand", token=token)
    return _parse_real(token, token)


def parse_unit(token: str) -> Unit:
    """Parse one table unit: a real card or ``JK=<card>``. A bare ``JK`` has no declaration."""
    upper = token.upper()
    if upper == "JK":
        raise NotationError(f"{token!r}: a joker on the table needs a declared card (JK=7H)", token=token)
    if upper.startswith("JK="):
        return joker_as(_parse_real(token[3:], token))
    return _parse_real(token, token)


def parse_hand(text: str) -> Hand:
    """Parse a hand (cards separated by whitespace) into a sorted tuple."""
    return tuple(sorted(parse_card(t) for t in text.split()))


def hand_str(hand: Iterable[Card]) -> str:
    return " ".join(card_str(c) for c in sorted(hand))


def parse_meld(text: str) -> Meld:
    tokens = text.split()
    if not tokens:
        raise NotationError("empty meld", token=text)
    return tuple(parse_unit(t) for t in tokens)


def parse_table(text: str) -> Table:
    """Parse a table: melds separated by ``|``. The empty string is the empty table.

    Melds are kept as written (order and unit order): validity is the meld module's job.
    """
    if not text.strip():
        return ()
    return tuple(parse_meld(part) for part in text.split("|"))


def meld_str(meld: Iterable[Unit]) -> str:
    return " ".join(unit_str(u) for u in meld)


def table_str(table: Iterable[Iterable[Unit]]) -> str:
    return " | ".join(meld_str(m) for m in table)


def counts(cards: Iterable[Card], size: int = NUM_CARDS + 1) -> list[int]:
    """Multiset as a count vector indexed by card."""
    result = [0] * size
    for c in cards:
        result[c] += 1
    return result
