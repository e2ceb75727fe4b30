"""Sets and runs (RULES.md "Melds").

A meld is judged on the faces of its units: a joker counts as the card it declares.

* Set: 3 or 4 units of one rank, no two of the same suit.
* Run: 3 or more units of one suit in consecutive ranks. The ace is low (A-2-3) when the
  rules allow it, or high (Q-K-A), never both in one run; runs never wrap, so 13 units is
  the longest run.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum
from functools import lru_cache

from carousel_env.core.cards import Meld, Table, Unit, face, meld_str, rank_of, suit_of
from carousel_env.games.carousel.engine.rules import Rules


class MeldKind(str, Enum):
    SET = "set"
    RUN = "run"


def meld_kind(meld: Sequence[Unit], ace_low: bool = True, ace_high: bool = True) -> MeldKind | None:
    """``SET`` or ``RUN`` if ``meld`` is valid, else ``None``."""
    if len(meld) < 3:
        return None
    faces = [face(u) for u in meld]
    ranks = [rank_of(f) for f in faces]
    suits = [suit_of(f) for f in faces]
    if len(set(ranks)) == 1:
        return MeldKind.SET if len(meld) <= 4 and len(set(suits)) == len(suits) else None
    if len(set(suits)) != 1 or len(set(ranks)) != len(ranks):
        return None
    if _consecutive(ranks, ace_low=ace_low, ace_high=ace_high):
        return MeldKind.RUN
    return None


def _consecutive(ranks: list[int], ace_low: bool, ace_high: bool) -> bool:
    ordered = sorted(ranks)
    if 1 in ranks:
        if ace_low and ordered[-1] - ordered[0] == len(ordered) - 1:
            return True
        if not ace_high:
            return False
        ordered = sorted(14 if r == 1 else r for r in ranks)
    return ordered[-1] - ordered[0] == len(ordered) - 1


def is_valid_meld(meld: Sequence[Unit], rules: Rules) -> bool:
    return meld_kind(meld, rules.ace_low, rules.ace_high) is not None


@lru_cache(maxsize=1 << 16)
def is_valid_meld_cached(meld: Meld, ace_low: bool, ace_high: bool) -> bool:
    """``is_valid_meld`` for a hashable meld, remembered: the same melds stay on the table
    turn after turn and every play is checked against all of them."""
    return meld_kind(meld, ace_low, ace_high) is not None


def _run_position(unit: Unit, ace_high: bool) -> int:
    r = rank_of(unit)
    return 14 if (r == 1 and ace_high) else r


def sort_meld(meld: Sequence[Unit], rules: Rules) -> Meld:
    """The meld in reading order: a run by rank (an ace after a king when it is high),
    a set by suit. Raises ``ValueError`` for an invalid meld."""
    kind = meld_kind(meld, rules.ace_low, rules.ace_high)
    if kind is None:
        raise ValueError(f"not a valid meld: {meld_str(meld)}")
    if kind is MeldKind.SET:
        return tuple(sorted(meld, key=lambda u: (suit_of(u), u)))
    high = any(rank_of(u) == 13 for u in meld) or not rules.ace_low
    return tuple(sorted(meld, key=lambda u: _run_position(u, high)))


def meld_order_key(meld: Meld) -> tuple:
    """Where a meld (already in reading order) stands in a canonical table: sets first,
    then by suit and faces."""
    return (len(set(map(rank_of, meld))) > 1, suit_of(meld[0]), [face(u) for u in meld], meld)


def canonical_table(table: Table, rules: Rules) -> Table:
    """Each meld in reading order and the melds sorted: equal tables compare equal."""
    return tuple(sorted((sort_meld(m, rules) for m in table), key=meld_order_key))
