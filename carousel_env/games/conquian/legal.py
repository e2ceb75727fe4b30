"""The rule a turn's melding must keep, checked on where it ends (RULES.md, "Conquian": "A
turn", 4 and 5): :func:`arrangement_problem` names the broken rule, or gives None.

It is the engine's check of a move and the reference the solver is tested against: it reads
the rule on the result (which old meld each new meld holds, what was borrowed) and builds
nothing, where :mod:`carousel_env.games.conquian.solver` builds the results.
"""

from __future__ import annotations

from collections.abc import Iterable

from carousel_env.core.cards import Card, card_str, hand_str
from carousel_env.games.conquian.melds import Meld, Melds, is_meld, is_set
from carousel_env.games.conquian.rules import ConquianRules, Rearrange


def _home(old: Meld, new: Melds) -> int:
    """The new meld holding all of ``old`` but at most one card (-1: none does)."""
    for i, meld in enumerate(new):
        if len(set(old) & set(meld)) >= len(old) - 1:
            return i
    return -1


def _may_lend(old: Meld, card: Card) -> bool:
    """``borrow``: a card of a set of 4, or an end of a run of 4 or more."""
    return len(old) >= 4 and (is_set(old) or card in (old[0], old[-1]))


def _kept_problem(
    rules: ConquianRules, old: Melds, new: Melds, taken: Card | None, forced: bool, borrow: bool
) -> str | None:
    """``none`` and ``borrow``: each old meld lies whole in its own new meld (under ``borrow``
    but one lent card, which goes to the taken card's new meld)."""
    homes: list[int] = []
    lent: list[Card] = []
    for meld in old:
        home = _home(meld, new) if borrow else next((i for i, m in enumerate(new) if set(meld) <= set(m)), -1)
        if home < 0:
            return f"the meld {hand_str(meld)} was split (rearrange {'borrow' if borrow else 'none'})"
        if home in homes:
            return f"the meld {hand_str(meld)} was joined to another"
        homes.append(home)
        out = [c for c in meld if c not in new[home]]
        if out and not _may_lend(meld, out[0]):
            only = "only a card of a set of 4 or an end of a run of 4 or more"
            return f"{card_str(out[0])} may not be borrowed from {hand_str(meld)}: {only}"
        lent += out
    at = next((i for i, m in enumerate(new) if taken in m), -1)
    if lent:
        if taken is None:
            return "cards are borrowed only into the taken card's meld"
        if at in homes or not set(lent) <= set(new[at]):
            return f"borrowed {hand_str(sorted(lent))} must go into a new meld with the taken card"
    if forced:
        grown = at in homes and is_meld((*old[homes.index(at)], taken), rules)
        if not grown and not (lent and set(new[at]) <= {taken, *lent}):
            return f"the forced {card_str(taken)} must be laid with table cards alone"
    return None


def arrangement_problem(
    rules: ConquianRules,
    old: Melds,
    hand: Iterable[Card],
    taken: Card | None,
    new: Melds,
    *,
    forced: bool = False,
) -> str | None:
    """What is wrong with ending a turn's melding at ``new`` (the player's melds) from ``old``
    and ``hand``, melding ``taken`` (None: from the hand alone); None if nothing is."""
    hand = set(hand)
    for meld in new:
        if not is_meld(meld, rules):
            return f"{hand_str(meld)} is not a meld"
    placed = [c for m in new for c in m]
    if len(set(placed)) != len(placed):
        return "a card is in two melds"
    table = {c for m in old for c in m}
    missing = sorted(table - set(placed))
    if missing:
        return f"melded cards stay melded: {hand_str(missing)} left the table"
    if taken is not None and taken not in placed:
        return f"the taken {card_str(taken)} must be melded at once"
    foreign = sorted(set(placed) - table - hand - {taken})
    if foreign:
        return f"{hand_str(foreign)} is not in the hand"
    if taken is None and not set(placed) & hand:
        return "nothing from the hand is laid"
    if rules.rearrange is Rearrange.FREE:
        return None
    return _kept_problem(rules, old, new, taken, forced, rules.rearrange is Rearrange.BORROW)
