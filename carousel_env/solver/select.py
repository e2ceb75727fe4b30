"""Which optima become suggestions, and in what order.

The DP yields, for every ``(cards, jokers)`` pair (hand cards played, hand jokers among
them), the best points reachable. Two different pairs are always two different multisets
of played cards, and each pair is rebuilt into exactly one play, so choosing distinct
pairs gives distinct suggestions.

Slots, in order, each skipped when it does not exist or repeats an earlier pair:

0. ``max_points``: most points; ties: more cards, then fewer jokers.
1. ``max_cards``: most cards; ties: more points, then fewer jokers.
2. ``keep_jokers``: most points among plays using no hand joker; ties: more cards.
3. ``knock``: (when the rules allow knocking) the fewest cards whose play leaves a hand
   worth at most ``rules.knock_limit``; ties: more points, then fewer jokers.
4. ``size_n`` for ``n`` = (max cards - 1) down to max(1, max cards - k): most points with
   exactly ``n`` cards; ties: fewer jokers.

The list stops at ``k`` entries.
"""

from __future__ import annotations

Entry = tuple[int, int]  # (cards, jokers)


def choose(best: dict[Entry, int], k: int, hand_total: int, knock_limit: int | None) -> list[tuple[str, Entry]]:
    """``(reason, entry)`` pairs, at most ``k``, from ``best`` = points per entry."""
    picked: list[tuple[str, Entry]] = []
    taken: set[Entry] = set()

    def offer(reason: str, entry: Entry | None) -> None:
        if entry is not None and entry not in taken and len(picked) < k:
            taken.add(entry)
            picked.append((reason, entry))

    if not best or k <= 0:
        return picked
    entries = sorted(best)  # fixed order, so max/min below are deterministic
    offer("max_points", max(entries, key=lambda e: (best[e], e[0], -e[1])))
    offer("max_cards", max(entries, key=lambda e: (e[0], best[e], -e[1])))
    plain = [e for e in entries if e[1] == 0]
    offer("keep_jokers", max(plain, key=lambda e: (best[e], e[0])) if plain else None)
    if knock_limit is not None:
        low = [e for e in entries if hand_total - best[e] <= knock_limit]
        offer("knock", min(low, key=lambda e: (e[0], -best[e], e[1])) if low else None)
    most = max(e[0] for e in entries)
    for n in range(most - 1, max(0, most - k - 1), -1):
        if len(picked) >= k:
            break
        sized = [e for e in entries if e[0] == n]
        offer(f"size_{n}", max(sized, key=lambda e: (best[e], -e[1])) if sized else None)
    return picked
