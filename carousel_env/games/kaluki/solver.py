"""Exact lay-down answers for Kaluki and plain Rummy (RULES.md, "Kaluki", "Rummy").

* :func:`arrangements`: every distinct set of new melds a hand can lay (an opening, the melds a
  taken discard goes into, further melds), best first.
* :func:`best_play`: the best plays of an opened player (or one opening now): new melds, lay-offs
  on any player's melds and joker exchanges, optimised together.
* :func:`solve_counts`: how many solves ran and how many ran out of time (inexact).

The order: least hand value left (``rules.hand_value``), then fewest jokers laid, then the
notation: the sorted tuple of the play's entries, each led by the lowest natural card (card
order: rank then suit, C D H S) of what it lays (a new meld: then its kind, sets first, its low
cell and units; the cards added at one end of a run: seat, meld, end, units; an exchange from a
run; what is done to a set: seat, meld, jokers in and out, cards); jokers laid off alone come
last, one entry per joker by seat, meld, end and distance from the end. A layout's melds are
listed in that order. Adding a meld always lowers the value left (every meld holds a natural,
worth at least 1), so a layout ranks below each of its extensions: a non-maximal layout is
listed only when ``keep`` (or the taken card's rule) forbids its extensions, or when fewer
than ``limit`` layouts rank above it.

Distinct means a different multiset of melds (and of lay-offs and exchanges): identical cards
of the two decks are one kind, counted, never told apart. A run's jokers stand where they stand
(a run's cells are what it is); a set's jokers declare the lowest suits its naturals miss, as do
jokers laid off alone on a set, since the declared suit does not change what the set is worth.

What must stay in hand (engine.py's ``_settle``): ``keep`` cards (1 under ``go_out_by_discard``,
which :func:`best_play` reads from the rules), and, while the card taken from the pile this turn
(``taken``; ``state.taken`` for :func:`best_play`) is not laid, a card other than it unless the
hand is emptied.

The search (:mod:`carousel_env.games.kaluki.solver_search`, over the pieces of
:mod:`carousel_env.games.kaluki.solver_pieces`) is exact: a sweep over the hand's card kinds that
reaches each multiset of pieces once, cut by an upper bound on what can still be laid. A solve
that runs past ``time_budget_s`` returns the best found so far and is counted inexact.

The envs ask :mod:`carousel_env.games.kaluki.kernel_solver` first: this search compiled with
numba, the same answers in the same order (held to this module by its tests), several times
faster; it leaves to this module the plays it does not settle.

Bounded on purpose (the only places where the answers are narrower than the rules): a player
who has not opened exchanges jokers only after an opening laid first in the same play (the
book's and the UK presets' rule); under options that let a player lay off before opening (plain
Rummy's, which has no jokers) exchanges before an opening are not searched. A set's jokers, new
or laid off alone, declare the lowest suits its naturals miss (another declaration is not
offered as another play). The engine's order of moves is honoured by checking the play with
:func:`~carousel_env.games.kaluki.engine.apply` where it can matter (exchanges under
``reuse_now`` or in a play that opens, a hand emptied that held the taken card).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from itertools import combinations
from typing import NamedTuple

from carousel_env.core.cards import JOKER, Card, face, is_table_joker, make_card
from carousel_env.core.errors import IllegalAction
from carousel_env.games.kaluki import solver_pieces as sp
from carousel_env.games.kaluki import solver_search as ss
from carousel_env.games.kaluki.engine import apply, may_lay_off
from carousel_env.games.kaluki.melds import SUIT_COUNT, Meld, MeldKind, exchanged, laid_off, meld_value, natural_suits
from carousel_env.games.kaluki.rules import RUN_MAX, KalukiRules, RetrievedJoker, SetJokerRelease
from carousel_env.games.kaluki.state import (
    NO_CARD,
    KalukiState,
    Move,
    MoveKind,
    Phase,
    exchange,
    lay_melds,
    lay_off,
    open_with,
    take_discard,
)

TIME_BUDGET_S = 1.0  # a solve answers within about this long, exact or not


class Layout(NamedTuple):
    """New melds a hand can lay, the hand value it keeps, their opening value and jokers laid."""

    melds: tuple[Meld, ...]
    hand_value: int
    opening_value: int
    jokers: int

    def move(self, *, take: bool = False, opened: bool = False) -> Move:
        """The engine move that lays it: with the taken discard, as an opening, or as further melds."""
        if take:
            return take_discard(self.melds)
        return lay_melds(self.melds) if opened else open_with(self.melds)


class Play(NamedTuple):
    """A turn's play: its new melds, the engine moves that make it (in order), the hand value it
    keeps, the opening value of its new melds, the jokers it lays and the jokers its exchanges
    release (what the hand gives is its melds' cards, its lay-offs' and its exchanges', less the
    released jokers)."""

    melds: tuple[Meld, ...]
    moves: tuple[Move, ...]
    hand_value: int
    opening_value: int
    jokers: int
    released: int = 0


@dataclass(frozen=True)
class SolveCounts:
    solves: int = 0
    inexact: int = 0  # answers given when the time budget ran out


_counts = SolveCounts()


def solve_counts() -> SolveCounts:
    """This process's solves so far, and how many of them ran out of time."""
    return _counts


def _count(exact: bool) -> None:
    global _counts
    _counts = SolveCounts(_counts.solves + 1, _counts.inexact + (not exact))


# ---------------------------------------------------------------- the searches


def _by_first(pieces: list[ss.Piece], kinds: int) -> tuple:
    at: list[list[ss.Piece]] = [[] for _ in range(kinds)]
    for piece in pieces:
        at[piece.first].append(piece)
    return tuple(tuple(sorted(group, key=lambda x: -x.value)) for group in at)  # the most laid first


def _position_of(hand: sp.Hand, card: Card | None) -> int:
    """A kind's position for the search: -1 none, -2 the joker."""
    if card is None or card == NO_CARD:
        return -1
    return -2 if card == JOKER else hand.pos.get(card, -1)


def check_limit(limit: int | None) -> None:
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 0):
        raise ValueError(f"limit must be None or an int >= 0, got {limit!r}")


def _deadline(time_budget_s: float) -> float:
    if isinstance(time_budget_s, bool) or not isinstance(time_budget_s, (int, float)) or time_budget_s <= 0:
        raise ValueError(f"time_budget_s must be a positive number of seconds, got {time_budget_s!r}")
    return time.perf_counter() + time_budget_s


def arrangements(
    hand,
    rules: KalukiRules,
    *,
    threshold: int,
    must_use: Card | None = None,
    keep: int = 0,
    limit: int | None = None,
    taken: Card | None = None,
    time_budget_s: float = TIME_BUDGET_S,
) -> list[Layout]:
    """The distinct layouts of new melds ``hand`` can lay, best first (the first ``limit``):
    opening value at least ``threshold``, ``must_use`` among the cards laid, at least ``keep``
    cards kept, and, if ``taken`` (a card taken from the pile, not to be discarded this turn) is
    not laid, a card other than it kept unless the hand is emptied."""
    deadline = _deadline(time_budget_s)
    check_limit(limit)
    h = sp.Hand(hand, rules)
    if limit == 0 or (must_use is not None and not h.held[must_use]):
        return []
    pieces = sp.meld_pieces(h, h.jokers)
    problem = ss.Problem(
        counts=tuple(h.held[c] for c in h.kinds),
        jokers=h.jokers,
        joker_value=rules.joker_value,
        hand_value=rules.hand_value(hand),
        pieces_at=_by_first(pieces, len(h.kinds)),
        joker_slots=(),
        run_room={},
        threshold=threshold,
        must_open=True,
        threshold_with_melds=True,
        must_use=_position_of(h, must_use),
        keep=keep,
        taken=_position_of(h, taken),
        reuse_now=False,
        limit=limit,
        deadline=deadline,
        check=None,
    )
    found, exact = ss.search(problem)
    _count(exact)
    return [Layout(tuple(r[1] for _, r in f.pieces), f.key[0], f.open_value, f.key[1]) for f in found]


class PlayTerms(NamedTuple):
    """What the play of the player to act may use besides its hand (``best_play``'s terms, and
    the compiled search's)."""

    opened: bool
    free: bool  # every seat with melds may be laid off on now: no opening needed first
    swaps: bool  # exchanges are searched: once opened, or after an opening laid in the same play
    table_jokers: int  # the table's jokers the hand could win by exchanges (0 without swaps)
    reuse_now: bool  # a released joker is laid in a new meld at once
    risky_release: bool  # a play that releases a joker is checked against the engine's order of moves


def winnable_jokers(table, hand, release: SetJokerRelease) -> int:
    """How many of the ``table``'s jokers ``hand`` could win by exchanges: a run's joker is won
    only with the card it declares, and a set's too under ``release`` ``declared``; under the
    other rules, a set's with a natural of its rank in a suit its naturals lack. Melds are
    searched with no more jokers than the hand holds and can win, so none is searched that no
    layout could lay."""
    held = set(hand)
    count = 0
    for meld in table:
        if not meld.jokers:
            continue
        if meld.kind is MeldKind.RUN or release is SetJokerRelease.DECLARED:
            count += sum(is_table_joker(u) and face(u) in held for u in meld.units)
        elif any(make_card(meld.rank, s) in held for s in range(SUIT_COUNT) if s not in natural_suits(meld)):
            count += meld.jokers
    return count


def play_terms(state: KalukiState) -> PlayTerms:
    """The :class:`PlayTerms` of the player to act in ``state``."""
    opened = state.opened[state.current]
    free = all(may_lay_off(state, seat) for seat in range(state.num_players) if state.melds[seat])
    swaps = opened or not free  # exchanges come after the opening, which a play that opens lays first
    hand, release = state.hands[state.current], state.rules.set_joker_release
    table_jokers = winnable_jokers(state.table(), hand, release) if swaps else 0
    reuse_now = swaps and state.rules.retrieved_joker is RetrievedJoker.REUSE_NOW
    return PlayTerms(opened, free, swaps, table_jokers, reuse_now, reuse_now or not opened)


def best_play(state: KalukiState, limit: int | None = 8, *, time_budget_s: float = TIME_BUDGET_S) -> list[Play]:
    """The best plays of the player to act in the PLAY phase, best first (the first ``limit``):
    new melds (the opening, if the player has not opened), lay-offs on every player's melds and
    joker exchanges, chosen together; the hand keeps a card to discard where the rules say so.
    Laying nothing is not a play (it is always possible); an exchange that keeps its joker may
    leave more in hand than there was."""
    deadline = _deadline(time_budget_s)
    check_limit(limit)
    if state.phase is not Phase.PLAY or limit == 0:
        return []
    s, rules = state.current, state.rules
    hand = state.hands[s]
    h = sp.Hand(hand, rules)
    terms = play_terms(state)
    opened, swaps = terms.opened, terms.swaps
    jokers = h.jokers + terms.table_jokers
    pieces = sp.meld_pieces(h, jokers)
    slots, room = [], {}
    for seat in range(state.num_players):
        for index, meld in enumerate(state.melds[seat]):
            if meld.kind is MeldKind.RUN:
                more, free_places = sp.run_pieces(h, seat, index, meld, jokers, swaps)
                room[(seat, index)] = RUN_MAX - len(meld.units)
            else:
                more, free_places = sp.set_pieces(h, seat, index, meld, swaps)
            pieces += more
            slots += free_places

    def risky(found: ss.Found, cards_left: int) -> bool:
        """Whether the engine's order of moves may refuse it: exchanges that must carry melds, or a
        hand emptied that holds the taken card (it may not be all that is left between moves)."""
        exchanged_now = found.released > 0 and terms.risky_release
        return exchanged_now or (state.taken != NO_CARD and cards_left == 0)

    def check(found: ss.Found, cards_left: int) -> bool:
        return not risky(found, cards_left) or play_moves(state, found, verify=True) is not None

    problem = ss.Problem(
        counts=tuple(h.held[c] for c in h.kinds),
        jokers=h.jokers,
        joker_value=rules.joker_value,
        hand_value=rules.hand_value(hand),
        pieces_at=_by_first(pieces, len(h.kinds)),
        joker_slots=tuple(slots),
        run_room=room,
        threshold=0 if opened else rules.opening,
        must_open=not opened and not terms.free,
        threshold_with_melds=not opened,
        must_use=-1,
        keep=1 if rules.go_out_by_discard else 0,
        taken=_position_of(h, state.taken),
        reuse_now=terms.reuse_now,
        limit=limit,
        deadline=deadline,
        check=check,
    )
    found, exact = ss.search(problem)
    _count(exact)
    plays = []
    for f in found:
        moves = play_moves(state, f, verify=risky(f, len(hand) + f.released - _cards_laid(f)))
        if moves is not None:
            melds = tuple(r[1] for piece, r in f.pieces if piece is None)
            plays.append(Play(melds, moves, f.key[0], f.open_value, f.key[1], f.released))
    return plays


# ---------------------------------------------------------------- moves


def _cards_laid(found: ss.Found) -> int:
    return sum(piece.cards if piece is not None else len(r[1].units) for piece, r in found.pieces) + len(found.jokers)


def _op_move(seat: int, index: int, op: tuple, carried=()) -> Move:
    if op[0] == "swap":
        return exchange(seat, index, op[1], op[2], carried)
    unit, end = op
    if is_table_joker(unit):
        return lay_off(JOKER, seat, index, unit & sp.FACE, end)
    return lay_off(unit, seat, index, end=end)


def _released(table: dict, seat: int, index: int, op: tuple, rules: KalukiRules) -> int:
    """Jokers the step ``op`` (an exchange or a lay-off) releases; ``table`` follows the melds it changes."""
    meld = table[(seat, index)]
    if op[0] != "swap":
        table[(seat, index)] = laid_off(meld, op[0], rules, op[1])
        return 0
    after, released = exchanged(meld, op[1], op[2], rules)
    table[(seat, index)] = after
    return released


def _assign(needs: list[int], melds: list[Meld], places: list[int] | None = None):
    """The melds (by their place in ``melds``) each exchange carries under ``reuse_now``: each
    exchange's melds hold at least the jokers it releases; None if no assignment exists. Places,
    not the melds themselves: a play may lay two equal melds, of which one is carried."""
    places = list(range(len(melds))) if places is None else places
    if not needs:
        return []
    for size in range(1, len(places) + 1):
        for pick in combinations(places, size):
            if sum(melds[i].jokers for i in pick) >= needs[0]:
                rest = _assign(needs[1:], melds, [i for i in places if i not in pick])
                if rest is not None:
                    return [pick, *rest]
    return None


def play_moves(state: KalukiState, found: ss.Found, *, verify: bool) -> tuple[Move, ...] | None:
    """The engine moves that make ``found``: the opening (if the player opens now), exchanges,
    further melds, lay-offs; None if the engine's rules on the order cannot make it. A player
    who opens and exchanges opens first, with melds whose jokers come from the hand."""
    s, rules = state.current, state.rules
    melds = [r[1] for piece, r in found.pieces if piece is None]
    if state.opened[s] or not melds:
        return _sequence(state, found, (), melds, verify)
    if not found.released:
        return _sequence(state, found, tuple(melds), [], verify)
    in_hand = state.hands[s].count(JOKER)
    for size in range(1, len(melds) + 1):
        for pick in combinations(range(len(melds)), size):
            opening = tuple(melds[i] for i in pick)
            if sum(meld_value(m, rules) for m in opening) < rules.opening or sum(m.jokers for m in opening) > in_hand:
                continue
            rest = [m for i, m in enumerate(melds) if i not in pick]
            moves = _sequence(state, found, opening, rest, verify=True)
            if moves is not None:
                return moves
    return None


def _sequence(state: KalukiState, found: ss.Found, opening: tuple, melds: list, verify: bool):
    """:func:`play_moves` with the opening (maybe none) and the further melds chosen."""
    rules = state.rules
    swaps, layoffs = [], []
    for piece, _ in found.pieces:
        if piece is None:
            continue
        seat, index = piece.slot[0], piece.slot[1]
        ops = piece.options[0][1]
        (swaps if any(op[0] == "swap" for op in ops) else layoffs).append((seat, index, ops))
    layoffs += [(entry[2], entry[3], (op,)) for entry, op in found.jokers]
    moves: list[Move] = [open_with(opening)] if opening else []
    table = {(seat, i): m for seat in range(state.num_players) for i, m in enumerate(state.melds[seat])}
    swap_steps = [(seat, index, op) for seat, index, ops in swaps for op in ops]
    steps = [(op, _released(table, seat, index, op, rules)) for seat, index, op in swap_steps]
    needs = [released for op, released in steps if op[0] == "swap"]
    carried: list = [()] * len(needs)
    if rules.retrieved_joker is RetrievedJoker.REUSE_NOW and needs:
        places = _assign(needs, melds, [i for i, m in enumerate(melds) if m.jokers])
        if places is None:
            return None
        carried = [tuple(melds[i] for i in group) for group in places]
        used = {i for group in places for i in group}
        melds = [m for i, m in enumerate(melds) if i not in used]
    k = 0
    for seat, index, op in swap_steps:
        if op[0] == "swap":
            moves.append(_op_move(seat, index, op, carried[k]))
            k += 1
        else:
            moves.append(_op_move(seat, index, op))
    if melds:
        moves.append(lay_melds(tuple(melds)))
    moves += [_op_move(seat, index, op) for seat, index, ops in layoffs for op in ops]
    if not verify:
        return tuple(moves)
    for order in _orders(moves, state.taken):
        if _engine_accepts(state, order):
            return tuple(order)
    return None


def _lays(move: Move, card: Card) -> bool:
    laid = [c for m in move.melds for c in m.cards()] + list(move.cards)
    if move.kind is MoveKind.LAY_OFF:
        laid.append(move.card)
    return card in laid


def _orders(moves: list[Move], taken: Card):
    """The moves in their order, then reordered so that the hand never holds only the taken card
    between moves: the first move laying it brought forward, or another move put last."""
    yield moves
    if taken == NO_CARD:
        return
    first = next((i for i, m in enumerate(moves) if _lays(m, taken)), None)
    if first:
        for to in range(first):
            yield [*moves[:to], moves[first], *moves[to:first], *moves[first + 1 :]]
    for i in range(len(moves) - 1):
        if moves[i].kind is not MoveKind.OPEN:
            yield [*moves[:i], *moves[i + 1 :], moves[i]]


def _engine_accepts(state: KalukiState, moves) -> bool:
    try:
        for move in moves:
            state = apply(state, move)
    except IllegalAction:
        return False
    return True


__all__ = [
    "TIME_BUDGET_S",
    "Layout",
    "Play",
    "PlayTerms",
    "SolveCounts",
    "arrangements",
    "best_play",
    "check_limit",
    "play_moves",
    "play_terms",
    "solve_counts",
]
