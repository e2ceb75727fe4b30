"""The exact search behind :mod:`carousel_env.games.kaluki.solver`: pieces, a bound and a
best-first branch and bound over the hand's card kinds.

A *piece* is what one choice puts on the table from the hand: a new meld (grouped by what it
takes from the hand: readings that lay the same cards and jokers differ only in their opening
value and notation, and are expanded at the end), the cards added at one end of a table run,
what is done to one table set (a lay-off and/or joker exchanges), or one joker exchanged out of
a table run. Pieces that lay no natural card (a joker alone laid off on a free run end or set)
are *joker slots*, filled once every natural is settled.

The sweep visits the hand's natural card kinds in card order. At kind ``p`` it either takes a
piece whose lowest natural is ``p`` (pieces of one kind in a fixed order, a piece never before
the one taken last at that kind, so a multiset of pieces is reached once) or keeps every copy
of ``p`` left and moves on. Every layout is thus one path, so layouts are never repeated.

The bound: the most hand value (and, apart, the most opening value) the kinds from ``p`` on can
still lay, by a memoised recursion over (``p``, counts from ``p``, jokers available) that forgets
which table places are taken and counts every joker a later exchange may release as already in
hand; it never underestimates, so a subtree whose best is worse than the ``limit``-th result
found is cut. Ties on value and jokers are cut by the notation: every entry starts with its
piece's lowest natural card, so the pieces taken below kind ``p`` are the first entries of any
result under the node, and a node whose first entries already come after the ``limit``-th's is
cut when it cannot beat that result on value or jokers (the fewest jokers that reach its value
come from the same recursion, with fewer jokers available). Jokers laid off alone are placed
at the leaves, the first ``limit`` ways in entry order (all of them tie on value and jokers).

The time budget is checked every ``CHECK_EVERY`` nodes; past it the search stops with what it
has found and says it is inexact.
"""

from __future__ import annotations

import bisect
import time
from collections.abc import Callable
from itertools import combinations_with_replacement, product
from typing import NamedTuple

CHECK_EVERY = 256
NO_WAY = -(10**9)  # the bound of a node with no way to pay its joker debt


class BudgetSpent(Exception):
    """The time budget ran out (caught by :func:`search`)."""


class Piece(NamedTuple):
    first: int  # the position of its lowest natural among the hand's kinds: where the sweep takes it
    need: tuple[tuple[int, int], ...]  # (position, copies) of the naturals it lays
    jokers_in: int  # jokers it puts on the table
    jokers_out: int  # jokers it releases to the hand (exchanges)
    value: int  # hand value it takes out of the hand (naturals and jokers it lays)
    open_value: int  # the most it counts toward the opening (new melds only)
    cards: int  # hand cards it lays (naturals and jokers)
    slot: object  # the table place it occupies, None for a new meld
    run: object  # the table run it lengthens, None otherwise
    added: int  # units it adds to that run
    options: tuple  # new meld: (entry, meld, opening value) readings, least entry first; table piece: ((entry, ops),)


class JokerSlot(NamedTuple):
    """A free table place that takes jokers alone: ``units(d)`` is (entry, op) of the ``d``-th joker."""

    slot: object
    run: object  # the run it lengthens, None for a set
    most: int  # jokers it can take on its own
    units: tuple  # (entry, op) for the 1st, 2nd, ... joker laid there


class Problem(NamedTuple):
    counts: tuple[int, ...]  # copies of each natural kind of the hand, in card order
    jokers: int  # jokers in hand
    joker_value: int
    hand_value: int
    pieces_at: tuple[tuple[Piece, ...], ...]  # pieces by the position of their lowest natural
    joker_slots: tuple[JokerSlot, ...]
    run_room: dict  # table run -> the most units it may still take
    threshold: int  # the opening value new melds need
    must_open: bool  # the play is void without new melds reaching the threshold
    threshold_with_melds: bool  # new melds, if any, must reach the threshold
    must_use: int  # position of the kind that must be laid, -1 none, -2 a joker
    keep: int  # cards the hand must keep
    taken: int  # position of the kind that may not be the only one left, -1 none, -2 a joker
    reuse_now: bool  # released jokers go into new melds
    limit: int | None
    deadline: float
    check: Callable | None  # check(found, cards left): whether the engine's order of moves can make it


class Found(NamedTuple):
    key: tuple  # (hand value left, jokers laid, entries)
    pieces: tuple  # (piece, reading) pairs
    jokers: tuple  # (entry, op) of the jokers laid alone
    open_value: int
    released: int  # jokers exchanges release


def search(problem: Problem) -> tuple[list[Found], bool]:
    """The best ``problem.limit`` results in key order, and whether the search finished."""
    walker = _Walker(problem)
    try:
        walker.visit(0, 0)
        exact = True
    except BudgetSpent:
        exact = False
    return walker.best, exact


class _Walker:
    def __init__(self, pb: Problem) -> None:
        self.pb = pb
        self.kinds = len(pb.counts)
        self.counts = list(pb.counts)
        self.memo: dict = {}
        self.best: list[Found] = []
        self.nodes = 0
        self.sink = bool(pb.joker_slots)
        # The most jokers exchanges at kinds from p on may release: each table place's best once.
        release = [0] * (self.kinds + 1)
        best_out: dict = {}
        for p in range(self.kinds - 1, -1, -1):
            for x in pb.pieces_at[p]:
                if x.jokers_out:
                    best_out[x.slot] = max(best_out.get(x.slot, 0), x.jokers_out)
            release[p] = sum(best_out.values())
        self.release = release
        self.balance = pb.jokers
        self.laid_value = 0
        self.released = 0
        self.jokers_laid = 0
        self.meld_jokers = 0
        self.cards_laid = 0
        self.open_value = 0
        self.melds = 0
        self.chosen: list[Piece] = []
        self.slots: set = set()
        self.run_added: dict = {}

    # ------------------------------------------------------------ the bound

    def bound(self, p: int, rest: tuple, jokers: int, upfront: bool = False) -> tuple[int, int]:
        """Most hand value laid (less ``joker_value`` per joker released) and most opening value
        from kind ``p`` on, with a joker balance ``jokers`` that may owe what later exchanges can
        release; ``NO_WAY`` if the debt cannot be paid. ``upfront``: ``jokers`` is instead the
        most jokers still laid, releases ignored (for the notation cut)."""
        key = (p, rest, jokers, upfront)
        hit = self.memo.get(key)
        if hit is not None:
            return hit
        self._tick()
        if p == self.kinds:
            result = (jokers * self.pb.joker_value if self.sink else 0, 0) if jokers >= 0 else (NO_WAY, NO_WAY)
        elif rest[0] == 0:
            result = self.bound(p + 1, rest[1:], jokers, upfront)
        else:
            laid, opening = (NO_WAY, NO_WAY)
            if jokers >= -self.release[p + 1]:
                laid, opening = self.bound(p + 1, rest[1:], jokers, upfront)
            for piece in self.pb.pieces_at[p]:
                if any(rest[q - p] < n for q, n in piece.need):
                    continue
                after = jokers - piece.jokers_in + (0 if upfront else piece.jokers_out)
                if after < (0 if upfront else -self.release[p]):
                    continue
                left = list(rest)
                for q, n in piece.need:
                    left[q - p] -= n
                more, more_open = self.bound(p, tuple(left), after, upfront)
                gain = piece.value - (0 if upfront else self.pb.joker_value * piece.jokers_out)
                laid = max(laid, more + gain)
                opening = max(opening, more_open + piece.open_value)
            result = (laid, opening)
        self.memo[key] = result
        return result

    def _node_bound(self, p: int) -> tuple[int, int] | None:
        """(lowest hand value left, most opening value) below this node, None if it is dead."""
        return self._bound_after(p, tuple(self.counts[p:]), None)

    def _bound_after(self, p: int, rest: tuple, piece: Piece | None):
        """:meth:`_node_bound` after one more piece (None: none), untaken."""
        value, jokers_in, jokers_out, opening = (
            (piece.value, piece.jokers_in, piece.jokers_out, piece.open_value) if piece is not None else (0, 0, 0, 0)
        )
        jokers = self.balance - jokers_in + jokers_out
        if jokers < -self.release[p]:
            return None
        most_open = NO_WAY
        upfront = self.pb.threshold and self.release[0]  # an opening to reach, and exchanges that could release jokers
        if upfront:
            # An opening is laid before any exchange: its jokers come from the hand alone. A player
            # who must open and cannot, so, is cut here, before the costlier bound is asked.
            most_open = self.bound(p, rest, self.pb.jokers, upfront=True)[1]
            if self.pb.must_open and self._opening_reach(p, rest, piece) < self.pb.threshold:
                return None
        laid, more_open = self.bound(p, rest, jokers)
        if laid <= NO_WAY // 2:
            return None
        if upfront:
            more_open = min(more_open, most_open)
        left = self.pb.hand_value - self.laid_value - value + self.pb.joker_value * (self.released + jokers_out) - laid
        return left, self.open_value + opening + more_open

    def _opening_reach(self, p: int, rest: tuple, piece: Piece | None) -> int:
        """The most opening value with jokers from the hand alone: the new melds taken (and
        ``piece``) with ``j`` of them (each meld at its best reading, a knapsack of their jokers),
        and those still to take from kind ``p`` on with the rest (the bound, ``upfront``), at the
        best ``j``."""
        hand = self.pb.jokers
        plain, most = 0, [0] * (hand + 1)  # most[j]: the most value of jokered melds with j jokers or fewer
        for meld in [*self.chosen, piece] if piece is not None else self.chosen:
            if meld.slot is not None:
                continue
            if meld.jokers_in == 0:
                plain += meld.open_value
                continue
            for j in range(hand, meld.jokers_in - 1, -1):  # a meld with more jokers than the hand has is left out
                most[j] = max(most[j], most[j - meld.jokers_in] + meld.open_value)
        return plain + max(most[j] + self.bound(p, rest, hand - j, upfront=True)[1] for j in range(hand + 1))

    def _worth(self, p: int) -> bool:
        return self._keeps(self._node_bound(p), self.jokers_laid, self.melds)

    def _keeps(self, bounds, jokers_laid: int, melds: int) -> bool:
        """Whether a node with these bounds may still give one of the ``limit`` best results."""
        if bounds is None:
            return False
        left, opening = bounds
        pb = self.pb
        if (pb.must_open or (melds and pb.threshold_with_melds)) and opening < pb.threshold:
            return False
        if pb.limit is not None and len(self.best) >= pb.limit:
            worst = self.best[pb.limit - 1].key
            if left > worst[0] or (left == worst[0] and jokers_laid > worst[1]):
                return False
        return True

    def _notation_cut(self, p: int) -> bool:
        """Whether every result below ties at best with the ``limit``-th on value and jokers and
        comes after it in notation: the pieces whose lowest natural is below kind ``p`` are the
        first entries of any result below (entries start with that card), each at least its
        piece's first reading."""
        pb = self.pb
        if pb.limit is None or len(self.best) < pb.limit:
            return False
        worst = self.best[pb.limit - 1].key
        bounds = self._node_bound(p)
        if bounds is None or bounds[0] != worst[0]:
            return False
        rest = tuple(self.counts[p:])
        left_now = pb.hand_value - self.laid_value + pb.joker_value * self.released
        # The most jokers a result laying fewer than the limit-th's lays (without exchanges the two
        # readings of the bound's jokers agree, and share the memo).
        fewer = worst[1] - self.jokers_laid - 1
        if fewer >= 0 and left_now - self.bound(p, rest, fewer, upfront=self.release[0] > 0)[0] <= worst[0]:
            return False  # it might reach the limit-th's value with fewer jokers
        prefix = tuple(sorted(piece.options[0][0] for piece in self.chosen if piece.first < p))
        return prefix > worst[2][: len(prefix)]

    # ------------------------------------------------------------ the sweep

    def _tick(self) -> None:
        self.nodes += 1
        if self.nodes % CHECK_EVERY == 0 and time.perf_counter() > self.pb.deadline:
            raise BudgetSpent

    def _fits(self, piece: Piece) -> bool:
        if piece.slot is not None and piece.slot in self.slots:
            return False
        if piece.run is not None and self.run_added.get(piece.run, 0) + piece.added > self.pb.run_room[piece.run]:
            return False
        return all(self.counts[q] >= n for q, n in piece.need)

    def _take(self, piece: Piece, sign: int) -> None:
        for q, n in piece.need:
            self.counts[q] -= sign * n
        self.balance += sign * (piece.jokers_out - piece.jokers_in)
        self.laid_value += sign * piece.value
        self.released += sign * piece.jokers_out
        self.jokers_laid += sign * piece.jokers_in
        self.cards_laid += sign * piece.cards
        self.open_value += sign * piece.open_value
        if piece.slot is None:
            self.melds += sign
            self.meld_jokers += sign * piece.jokers_in
        else:
            (self.slots.add if sign > 0 else self.slots.discard)(piece.slot)
        if piece.run is not None:
            self.run_added[piece.run] = self.run_added.get(piece.run, 0) + sign * piece.added
        if sign > 0:
            self.chosen.append(piece)
        else:
            self.chosen.pop()

    def visit(self, p: int, start: int) -> None:
        self._tick()
        while p < self.kinds and self.counts[p] == 0:
            p, start = p + 1, 0
        if p == self.kinds:
            self._finish()
            return
        if self._notation_cut(p):
            return
        children = []
        pieces = self.pb.pieces_at[p]
        base = self.counts[p:]
        for i in range(start, len(pieces)):
            piece = pieces[i]
            if not self._fits(piece):
                continue
            rest = base[:]
            for q, n in piece.need:
                rest[q - p] -= n
            bounds = self._bound_after(p, tuple(rest), piece)
            if self._keeps(bounds, self.jokers_laid + piece.jokers_in, self.melds + (piece.slot is None)):
                children.append((bounds[0], 1, piece.options[0][0], i))
        keep_ok = not (self.pb.must_use == p and self.counts[p] == self.pb.counts[p])
        if keep_ok:
            saved = self.counts[p]
            self.counts[p] = 0
            bounds = self._node_bound(p + 1) if self._worth(p + 1) else None
            self.counts[p] = saved
            if bounds is not None:
                children.append((bounds[0], 0, (), -1))
        # The lowest bound on what is left first, then the notation: good results early, stronger cuts.
        children.sort()
        for *_, i in children:
            if i < 0:
                saved = self.counts[p]
                self.counts[p] = 0
                if self._worth(p + 1):
                    self.visit(p + 1, 0)
                self.counts[p] = saved
                continue
            piece = pieces[i]
            self._take(piece, 1)
            if self._worth(p):
                self.visit(p, i)
            self._take(piece, -1)

    # ------------------------------------------------------------ the leaves

    def _finish(self) -> None:
        pb = self.pb
        if self.balance < 0:
            return
        if pb.reuse_now and self.meld_jokers < self.released:
            return
        if pb.must_use == -2 and self.meld_jokers == 0:
            return
        most = min(self.balance, self._joker_room())
        for laid in range(most, -1, -1):
            for extra in self._joker_layouts(laid):
                self._record(extra)

    def _joker_room(self) -> int:
        room, runs = 0, {}
        for js in self.pb.joker_slots:
            if js.slot in self.slots:
                continue
            if js.run is None:
                room += js.most
            else:
                runs[js.run] = runs.get(js.run, 0) + js.most
        for run, most in runs.items():
            room += min(most, self.pb.run_room[run] - self.run_added.get(run, 0))
        return room

    def _joker_layouts(self, count: int):
        """The ways to lay ``count`` jokers alone on free places, the first ``limit`` in entry order."""
        free = [js for js in self.pb.joker_slots if js.slot not in self.slots]
        limit = self.pb.limit
        made = 0
        room = dict(self.run_added)
        chosen: list = []

        def walk(i: int, left: int):
            nonlocal made
            if left == 0:
                made += 1
                yield tuple(chosen)
                return
            if i == len(free) or (limit is not None and made >= limit):
                return
            js = free[i]
            cap = js.most
            if js.run is not None:
                cap = min(cap, self.pb.run_room[js.run] - room.get(js.run, 0))
            for take in range(min(cap, left), -1, -1):  # more here first: the entry order
                chosen.extend(js.units[:take])
                if js.run is not None:
                    room[js.run] = room.get(js.run, 0) + take
                yield from walk(i + 1, left - take)
                if js.run is not None:
                    room[js.run] -= take
                del chosen[len(chosen) - take :]
                if limit is not None and made >= limit:
                    return

        yield from walk(0, count)

    def _record(self, extra: tuple) -> None:
        self._tick()
        pb = self.pb
        laid_jokers = len(extra)
        cards_left = sum(pb.counts) + pb.jokers + self.released - self.cards_laid - laid_jokers
        if not self.chosen and not extra:
            return
        if cards_left < pb.keep:
            return
        if cards_left and pb.taken != -1 and self._only_taken_left(laid_jokers):
            return
        if pb.must_open and not self.melds:
            return
        left = pb.hand_value - self.laid_value + pb.joker_value * (self.released - laid_jokers)
        jokers = self.jokers_laid + laid_jokers
        fixed = [piece.options[0][0] for piece in self.chosen if piece.slot is not None]
        fixed += [entry for entry, _ in extra]
        groups: dict = {}
        for piece in self.chosen:
            if piece.slot is None:
                groups.setdefault(id(piece), [piece, 0])[1] += 1
        choices = [list(combinations_with_replacement(piece.options, n)) for piece, n in groups.values()]
        need_open = pb.must_open or (self.melds and pb.threshold_with_melds)
        pairs = [(piece, None) for piece in self.chosen if piece.slot is not None]
        for combo in product(*choices):
            readings = [r for group in combo for r in group]
            opening = sum(r[2] for r in readings)
            if need_open and opening < pb.threshold:
                continue
            key = (left, jokers, tuple(sorted(fixed + [r[0] for r in readings])))
            if pb.limit is not None and len(self.best) >= pb.limit and key >= self.best[-1].key:
                continue
            melds = [(None, r) for r in sorted(readings, key=lambda r: r[0])]
            found = Found(key, tuple(pairs + melds), extra, opening, self.released)
            if pb.check is not None and not pb.check(found, cards_left):
                continue
            bisect.insort(self.best, found, key=lambda f: f.key)
            if pb.limit is not None and len(self.best) > pb.limit:
                self.best.pop()

    def _only_taken_left(self, laid_jokers: int) -> bool:
        """Whether every card left is a copy of the card taken from the pile (and none was laid)."""
        pb, taken = self.pb, self.pb.taken
        jokers_left = pb.jokers + self.released - self.jokers_laid - laid_jokers
        naturals_left = sum(pb.counts) - sum(n for piece in self.chosen for _, n in piece.need)
        if taken == -2:
            return self.jokers_laid + laid_jokers == 0 and naturals_left == 0 and jokers_left > 0
        if any(q == taken for piece in self.chosen for q, _ in piece.need):
            return False
        return jokers_left == 0 and naturals_left == pb.counts[taken]
