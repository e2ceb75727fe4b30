"""Round and game scoring (RULES.md "Scoring a round" and "The game"), as pure functions
of hand values so that every case can be tested without playing a game.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from carousel_env.games.carousel.engine.rules import RoundBonus, Rules, Variant


class RoundEnd(str, Enum):
    KNOCK = "knock"
    GOING_OUT = "going_out"
    STOCK_EXHAUSTED = "stock_exhausted"
    # A cap on turns per round, never reached in real play (see game.MAX_TURNS_PER_ROUND).
    TURN_CAP = "turn_cap"


@dataclass(frozen=True)
class RoundScore:
    """Points scored in one round and who won it.

    ``undercut`` is true when a knocker was beaten (the winners got the undercut bonus).
    """

    end: RoundEnd
    hand_values: tuple[int, ...]
    points: tuple[int, ...]
    winners: tuple[int, ...]
    knocker: int | None = None
    went_out: int | None = None
    undercut: bool = False


def _differences(hand_values: Sequence[int], winner: int) -> int:
    """Sum over every other player of (their hand value - the winner's)."""
    own = hand_values[winner]
    return sum(h - own for i, h in enumerate(hand_values) if i != winner)


def score_round(
    hand_values: Sequence[int],
    rules: Rules,
    *,
    knocker: int | None = None,
    went_out: int | None = None,
    end: RoundEnd | None = None,
) -> RoundScore:
    """Score a finished round from each player's hand value.

    * ``went_out``: that player scores the going-out bonus (Carousel 25) plus the sum of
      the other hands.
    * ``knocker``: if the knocker's hand is strictly the lowest, the knocker scores the sum
      of differences. Otherwise the knocker is undercut (a tie with the knocker counts as
      beating it): each non-knocker with the lowest hand scores the sum of differences
      plus the undercut bonus.
    * neither (stock exhausted): each player with the lowest hand scores the sum of
      differences, no bonus; ties share the win.
    """
    values = tuple(hand_values)
    n = len(values)
    if knocker is not None and went_out is not None:
        raise ValueError("a round ends by a knock or by going out, not both")
    points = [0] * n
    if went_out is not None:
        if values[went_out] != 0:
            raise ValueError(f"player {went_out} went out but holds {values[went_out]} points")
        points[went_out] = rules.going_out_bonus + sum(values)
        return RoundScore(RoundEnd.GOING_OUT, values, tuple(points), (went_out,), went_out=went_out)

    lowest = min(values)
    undercut = False
    if knocker is not None and values[knocker] == lowest and values.count(lowest) == 1:
        winners: tuple[int, ...] = (knocker,)
        bonus = 0
    elif knocker is not None:
        winners = tuple(i for i in range(n) if i != knocker and values[i] == lowest)
        bonus = rules.undercut_bonus
        undercut = True
    else:
        winners = tuple(i for i in range(n) if values[i] == lowest)
        bonus = 0
    for w in winners:
        points[w] = _differences(values, w) + bonus
    if end is None:
        end = RoundEnd.KNOCK if knocker is not None else RoundEnd.STOCK_EXHAUSTED
    return RoundScore(end, values, tuple(points), winners, knocker=knocker, undercut=undercut)


@dataclass(frozen=True)
class GameResult:
    """The end of a game: who got the game bonus, final totals and standings.

    ``standings`` lists seats best first by final total (bonuses included); equal totals
    are ordered by rounds won, then by seat order after the final dealer, the same
    tie-break RULES.md uses for the game winner.
    """

    winner: int
    totals_before_bonus: tuple[int, ...]
    bonuses: tuple[int, ...]
    totals: tuple[int, ...]
    rounds_won: tuple[int, ...]
    standings: tuple[int, ...]


def _tie_break_order(keys: Sequence[int], rounds_won: Sequence[int], dealer: int) -> list[int]:
    n = len(keys)
    seat_after_dealer = {(dealer + 1 + k) % n: k for k in range(n)}
    return sorted(range(n), key=lambda i: (-keys[i], -rounds_won[i], seat_after_dealer[i]))


def game_winner(scores: Sequence[int], rounds_won: Sequence[int], dealer: int) -> int:
    """Highest total; ties go to more rounds won, then the earlier seat after the dealer."""
    return _tie_break_order(scores, rounds_won, dealer)[0]


def finish_game(scores: Sequence[int], rounds_won: Sequence[int], dealer: int, rules: Rules) -> GameResult:
    """Apply the end-of-game bonuses: +100 to the winner and +25 per round won to every
    other player (``round_bonus=losers``) or to everyone (``round_bonus=everyone``).
    The Manipulation Rummy variant (source 004) has no bonuses."""
    winner = game_winner(scores, rounds_won, dealer)
    bonuses = [0] * len(scores)
    if rules.variant is Variant.CAROUSEL:
        bonuses[winner] += rules.game_bonus
        for i, won in enumerate(rounds_won):
            if i != winner or rules.round_bonus is RoundBonus.EVERYONE:
                bonuses[i] += rules.round_won_bonus * won
    totals = tuple(s + b for s, b in zip(scores, bonuses))
    standings = tuple(_tie_break_order(totals, rounds_won, dealer))
    return GameResult(winner, tuple(scores), tuple(bonuses), totals, tuple(rounds_won), standings)
