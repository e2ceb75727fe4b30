"""RULES.md's Kaluki and Rummy written out again for the soak (:mod:`tests.support.kaluki_soak`),
sharing nothing with the engine but the card encoding and its meld type: each preset's facts
(:class:`Book`), a hand's scores (:func:`rules_scores`), the game's end (:func:`rules_game_end`)
and the env's documented rewards (:func:`documented_rewards`)."""

from __future__ import annotations

from collections import Counter, namedtuple
from dataclasses import dataclass, replace

from carousel_env.core.cards import JOKER, NUM_CARDS, face, rank_of
from carousel_env.games.kaluki import melds as km
from carousel_env.games.kaluki.rules import MATCH_HAND_LIMIT


@dataclass(frozen=True)
class Book:
    """One game's rules as RULES.md states them ("Kaluki", "Rummy"), written out again. ``uk``:
    the UK presets' discard taken only into a meld, ``reuse_now``, ``all_missing`` and
    ``go_out_by_discard``; an opening requirement (Kaluki, not Rummy) also bars lay-offs before it."""

    decks: int = 2
    jokers: int = 4
    joker_value: int = 25
    ace_value: int = 11
    hand_sizes: tuple[int, ...] = (15, 15, 15, 13, 11)  # for 2..6 players
    opening: int = 51
    ace_low: bool = True
    ace_high: bool = True
    uk: bool = False
    penalty: bool = False
    bonus: str = "none"
    target: int = 250
    limit: int = 150
    first_to_limit: bool = False
    single_hand: bool = False
    winner_deals: bool = False  # heads-up, the hand's winner deals the next

    def value(self, card: int) -> int:
        """A card left in a hand: the joker's value, the ace's, J/Q/K 10, others face value."""
        return self.joker_value if card == JOKER else self.ace_value if rank_of(card) == 1 else min(rank_of(card), 10)

    def meld_value(self, meld: km.Meld) -> int:
        """Toward the opening: hand values, a joker as its declared card, an ace in A-2-3 1."""
        low_ace = meld.kind is km.MeldKind.RUN and meld.low == 1
        return sum(1 if low_ace and i == 0 else self.value(face(u)) for i, u in enumerate(meld.units))

    def pack(self) -> Counter:
        return Counter({c: self.decks for c in range(NUM_CARDS)}) + Counter({JOKER: self.jokers})


_UK = Book(jokers=2, joker_value=15, hand_sizes=(13,) * 5, opening=40, ace_low=False, uk=True, penalty=True)
_RUMMY = Book(decks=1, jokers=0, ace_value=1, hand_sizes=(10, 7, 7, 6, 6), opening=0, ace_high=False, target=100)
_RUMMY = replace(_RUMMY, limit=100, first_to_limit=True, winner_deals=True)
BOOKS = {"book": Book(), "uk40": _UK, "uk51": replace(_UK, opening=51, joker_value=25), "rummy": _RUMMY}


# A finished hand as RULES.md scores it; ``winners``: the game's, None while it goes on.
HandSeen = namedtuple("HandSeen", "out values scores dealt_in totals in_play winners")


def rules_scores(book: Book, values, out: int, rummy: bool, dealt_in) -> tuple[int, ...]:
    """RULES.md "Scoring a hand"; ``rummy_bonus`` applies to each penalty under ``penalty``."""

    def boosted(points: int) -> int:
        return points if not rummy or book.bonus == "none" else points + 10 if book.bonus == "plus10" else 2 * points

    n = len(values)
    if not book.penalty:  # only the player out scores; nobody when nobody went out
        return tuple(boosted(sum(values[t] for t in dealt_in if t != out)) if s == out else 0 for s in range(n))
    return tuple((boosted(values[s]) if out >= 0 else values[s]) if s in dealt_in and s != out else 0 for s in range(n))


def rules_game_end(book: Book, totals, in_play, out: int, hands: int) -> tuple[tuple[bool, ...], tuple | None]:
    """Who is still in after a hand, and the game's winners if it is over (RULES.md "The
    game"; deal.py's readings: all eliminated at once, the lowest wins; the match bound)."""
    n = len(totals)
    playing = [s for s in range(n) if in_play[s]]
    at_bound = hands >= MATCH_HAND_LIMIT

    def lowest(seats) -> tuple[int, ...]:
        return tuple(s for s in seats if totals[s] == min(totals[t] for t in seats))

    if book.single_hand:
        return tuple(in_play), (out,) if out >= 0 else ()
    if not book.penalty:
        ended = at_bound or max(totals) >= book.target
        return tuple(in_play), tuple(s for s in range(n) if totals[s] == max(totals)) if ended else None
    if book.first_to_limit:
        ended = at_bound or any(totals[s] >= book.limit for s in playing)
        return tuple(in_play), lowest(playing) if ended else None
    left = tuple(bool(in_play[s]) and totals[s] <= book.limit for s in range(n))
    seats = [s for s in range(n) if left[s]]
    return left, lowest(seats or playing) if len(seats) <= 1 or at_bound else None


def documented_rewards(hand: HandSeen, book: Book, reward: str, scale: float) -> list[float]:
    """The env's "Rewards": ``score``, the hand's points shared zero-sum; ``result``, at the
    episode's end, +1 for the winner .. -1 for the last, tied seats sharing."""
    n, paid = len(hand.values), [0.0] * len(hand.values)
    if reward == "result":
        if hand.winners is None:
            return paid
        points = hand.scores if book.single_hand else hand.totals
        keys = [(s not in hand.winners, (1 if book.penalty else -1) * points[s]) for s in range(n)]
        for s in range(n):
            ahead, tied = sum(k < keys[s] for k in keys), keys.count(keys[s])
            paid[s] = scale * (1 - 2 * (ahead + (tied - 1) / 2) / (n - 1))
        return paid
    if book.penalty:
        mean = sum(hand.scores[s] for s in hand.dealt_in) / len(hand.dealt_in)
        return [scale * (mean - hand.scores[s]) if s in hand.dealt_in else 0.0 for s in range(n)]
    if hand.out >= 0:
        won, losers = hand.scores[hand.out], [s for s in hand.dealt_in if s != hand.out]
        held = sum(hand.values[s] for s in losers)
        for s in losers:  # its share of what the winner collects, by what it held
            paid[s] = -scale * won * (hand.values[s] / held if held else 1 / len(losers))
        paid[hand.out] = scale * won
    return paid
