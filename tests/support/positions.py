"""Seeded generators of play-solver test positions (tests and benchmarks only).

:func:`synthetic_positions` yields ``(table, hand)`` pairs that respect the deck: at most
``decks`` copies of each real card across table and hand together, and at most ``jokers``
jokers (a joker on the table, whatever it declares, uses one of them). Tables are built by
dealing random valid melds for ``rules`` (its ace setting), from empty to crowded (up to
about 35 units for one deck, 60 for two):

* sets of 3 or 4 and runs of 3 to 13 (short runs most often), aces low or high as allowed;
* jokers declared inside melds, both in place of a card that is not available and in place
  of one that is (so a real copy of a joker's declaration may sit elsewhere on the table, or
  in the hand);
* with two decks, melds that repeat an existing meld's cards (identical cards in different
  melds).

Hands hold 1 to 30 cards (small hands most often) drawn from what remains. About two thirds
of the positions are "interesting": their hands are seeded with cards that interact with the
table: run extensions on either end (ace above a king, ace below a two), duplicates of run
cards (which split a run in two), other suits of table ranks (sets that must be stolen from
runs), a set's missing suit, and the real copy of a table joker's declaration (a release).

Every position depends only on ``(seed, index, decks, jokers, ace setting)``, so the ``i``-th
position of a stream does not change with ``n``.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from carousel_env.core.cards import (
    JOKER,
    NUM_CARDS,
    Hand,
    Meld,
    Table,
    face,
    is_table_joker,
    joker_as,
    make_card,
    rank_of,
    suit_of,
)
from carousel_env.games.carousel.engine.melds import is_valid_meld, sort_meld
from carousel_env.games.carousel.engine.rules import Rules


def synthetic_positions(n: int, seed: int, decks: int, jokers: int, rules: Rules) -> Iterator[tuple[Table, Hand]]:
    """``n`` deterministic positions for this seed, deck composition and rules."""
    if decks < 1 or jokers < 0:
        raise ValueError(f"need decks >= 1 and jokers >= 0, got {decks}, {jokers}")
    for index in range(n):
        rng = random.Random(f"carousel-positions/{seed}/{index}/{decks}/{jokers}/{rules.ace_low}/{rules.ace_high}")
        yield _Dealer(rng, decks, jokers, rules).position()


def _position_of(rank: int, ace_high_side: bool) -> int:
    return 14 if rank == 1 and ace_high_side else rank


def _face_at(position: int, suit: int) -> int:
    return make_card(1 if position == 14 else position, suit)


class _Dealer:
    def __init__(self, rng: random.Random, decks: int, jokers: int, rules: Rules) -> None:
        self.rng = rng
        self.rules = rules
        self.decks = decks
        self.pool = [decks] * NUM_CARDS  # real copies still available
        self.jokers_left = jokers
        self.low = 1 if rules.ace_low else 2
        self.high = 14 if rules.ace_high else 13
        self.melds: list[Meld] = []

    # ------------------------------------------------------------ table

    def position(self) -> tuple[Table, Hand]:
        rng = self.rng
        max_units = 35 if self.decks == 1 else 60
        target = 0 if rng.random() < 0.08 else rng.randint(3, max_units)
        units = 0
        failures = 0
        while units < target and failures < 40:
            meld = self._deal_meld()
            if meld is None:
                failures += 1
                continue
            assert is_valid_meld(meld, self.rules), meld
            if units + len(meld) > max_units:
                self._return(meld)
                failures += 1
                continue
            self.melds.append(sort_meld(meld, self.rules))
            units += len(meld)
        rng.shuffle(self.melds)
        table = tuple(self.melds)
        return table, self._hand()

    def _deal_meld(self) -> Meld | None:
        rng = self.rng
        kind = rng.random()
        if self.melds and self.decks >= 2 and kind < 0.12:
            faces = self._repeat_faces()
        elif kind < 0.20 and any(is_table_joker(u) for m in self.melds for u in m):
            faces = self._faces_through(rng.choice([face(u) for m in self.melds for u in m if is_table_joker(u)]))
        elif kind < 0.55:
            faces = self._set_faces(rng.randint(1, 13))
        else:
            faces = self._run_faces()
        return self._fill(faces) if faces else None

    def _set_faces(self, rank: int) -> list[int]:
        size = 3 if self.rng.random() < 0.6 else 4
        return [make_card(rank, s) for s in sorted(self.rng.sample(range(4), size))]

    def _run_faces(self, suit: int | None = None, through: int | None = None) -> list[int]:
        rng = self.rng
        suit = rng.randrange(4) if suit is None else suit
        length = rng.choices([3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13], weights=[30, 22, 14, 9, 7, 5, 4, 3, 2, 2, 2])[0]
        length = min(length, self.high - self.low + 1)
        starts = range(self.low, self.high - length + 2)
        if through is not None:
            starts = [s for s in starts if s <= through <= s + length - 1]
            if not starts:
                return []
        start = rng.choice(list(starts))
        return [_face_at(p, suit) for p in range(start, start + length)]

    def _faces_through(self, card: int) -> list[int]:
        """A set or run containing ``card`` (used to put a real copy beside a joker declaring it)."""
        if self.rng.random() < 0.5:
            others = [s for s in range(4) if s != suit_of(card)]
            size = self.rng.choice([2, 3])
            return sorted([card, *(make_card(rank_of(card), s) for s in self.rng.sample(others, size))])
        rank = rank_of(card)
        positions = [p for p in ((1, 14) if rank == 1 else (rank,)) if self.low <= p <= self.high]
        return self._run_faces(suit_of(card), self.rng.choice(positions))

    def _repeat_faces(self) -> list[int]:
        """The faces of an existing meld, or of a 3+ stretch of it (two decks)."""
        base = [face(u) for u in self.rng.choice(self.melds)]
        if len(base) > 3 and len({rank_of(f) for f in base}) > 1 and self.rng.random() < 0.5:
            length = self.rng.randint(3, len(base))
            start = self.rng.randint(0, len(base) - length)
            base = base[start : start + length]
        return base

    def _fill(self, faces: list[int]) -> Meld | None:
        """Units for ``faces``: real cards where available, jokers otherwise or by choice."""
        rng = self.rng
        free_joker_at = rng.randrange(len(faces)) if self.jokers_left and rng.random() < 0.25 else -1
        meld: list[int] = []
        used_real: list[int] = []
        used_jokers = 0
        for i, f in enumerate(faces):
            wants_joker = i == free_joker_at or self.pool[f] == 0
            if wants_joker and self.jokers_left - used_jokers > 0:
                meld.append(joker_as(f))
                used_jokers += 1
            elif self.pool[f]:
                meld.append(f)
                used_real.append(f)
                self.pool[f] -= 1
            else:
                break
        if len(meld) != len(faces) or not used_real:
            for f in used_real:
                self.pool[f] += 1
            return None
        self.jokers_left -= used_jokers
        return tuple(meld)

    def _return(self, meld: Meld) -> None:
        for u in meld:
            if is_table_joker(u):
                self.jokers_left += 1
            else:
                self.pool[u] += 1

    # ------------------------------------------------------------ hand

    def _hand(self) -> Hand:
        rng = self.rng
        remaining = sum(self.pool) + self.jokers_left
        size = rng.choices(
            [rng.randint(1, 3), rng.randint(4, 10), rng.randint(11, 18), rng.randint(19, 30)], weights=[25, 45, 20, 10]
        )[0]
        size = max(1, min(size, remaining))
        hand: list[int] = []
        if self.melds and rng.random() < 0.67:
            hot = self._hot_faces()
            for _ in range(min(size, rng.randint(1, 4))):
                hot = [f for f in hot if self.pool[f]]
                if not hot:
                    break
                f = rng.choice(hot)
                self.pool[f] -= 1
                hand.append(f)
        while len(hand) < size:
            pick = rng.randrange(sum(self.pool) + self.jokers_left)
            if pick >= sum(self.pool):
                self.jokers_left -= 1
                hand.append(JOKER)
                continue
            for f in range(NUM_CARDS):
                if pick < self.pool[f]:
                    self.pool[f] -= 1
                    hand.append(f)
                    break
                pick -= self.pool[f]
        return tuple(sorted(hand))

    def _hot_faces(self) -> list[int]:
        """Cards that interact with the table (repeats weight the choice)."""
        hot: list[int] = []
        for meld in self.melds:
            faces = [face(u) for u in meld]
            ranks = {rank_of(f) for f in faces}
            hot.extend(face(u) for u in meld if is_table_joker(u))  # releases
            hot.extend(face(u) for u in meld if is_table_joker(u))
            if len(ranks) == 1:
                rank = ranks.pop()
                suits = {suit_of(f) for f in faces}
                hot.extend(make_card(rank, s) for s in range(4) if s not in suits)  # complete a set
                hot.extend(faces)  # a duplicate: a second set of the rank
                continue
            suit = suit_of(faces[0])
            high_side = 13 in ranks or not self.rules.ace_low
            positions = sorted(_position_of(rank_of(f), high_side) for f in faces)
            lo, hi = positions[0], positions[-1]
            for p in (lo - 2, lo - 1, lo - 1, hi + 1, hi + 1, hi + 2):  # extensions, aces included
                if self.low <= p <= self.high:
                    hot.append(_face_at(p, suit))
            for p in positions:  # other suits of run cards (steal into sets), duplicates (split)
                hot.extend(_face_at(p, s) for s in range(4) if s != suit)
                if self.decks >= 2 and lo < p < hi:
                    hot.append(_face_at(p, suit))
        return hot
