"""Witnesses (``carousel_env.games.carousel.solver.witness``) and the solves they settle.

A witness search must find a table exactly when one exists (it is exact, not a
heuristic), and a solve settled by witnesses must give the same optima and the same slots
(cards, hand jokers, points) as the sweeps, with legal tables.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from carousel_env.core.cards import card_points, parse_hand, parse_table, table_str
from carousel_env.games.carousel import solver
from carousel_env.games.carousel.engine.manipulation import Play, check_play
from carousel_env.games.carousel.engine.rules import carousel
from carousel_env.games.carousel.solver import build, prepare, witness

NO_JOKER = np.int64(0)
WIDE = witness.ROOM  # the witnesses' own width


def _search(table: str, played: str, budget: int = 10_000):
    """Search a witness for ``table`` with every card of ``played`` added (one deck rules)."""
    units = [u for meld in (parse_table(table) if table else ()) for u in meld]
    cards = parse_hand(played)
    real = [c for c in cards if c != 52]
    jokers = len(cards) - len(real)
    lay = prepare.layout(np.array(units + real, dtype=np.int64), np.full(jokers, 52, dtype=np.int64), True, True)
    codes, expanded = witness.witness(lay.cells, jokers, budget)
    return lay, codes, expanded, jokers


def _rebuilt_play(lay, codes, played: str) -> Play:
    flat, lengths, _ = build.assemble(lay[1], True, lay[2], lay[3], codes)
    melds, at = [], 0
    for n in lengths:
        melds.append(tuple(int(u) for u in flat[at : at + n]))
        at += n
    return Play(parse_hand(played), tuple(melds))


@pytest.mark.parametrize(
    ("table", "played"),
    [
        ("3C 4C 5C 6C | 3D 4D 5D 6D", "6H"),  # RULES.md example 1
        ("7C 8C 9C | 7D 8D 9D | 8H 9H 10H", "7S 9S JH"),  # example 2, corrected
        ("8H 9H JK=10H", "10H 5S 5D"),  # example 3: the released joker joins the 5s
        ("8H 9H JK=10H", "7H 10H 10S"),  # example 4
        ("", "QH KH JK"),  # a hand joker completes a run Q-K-A or J-Q-K
    ],
)
def test_a_witness_is_a_legal_play_of_exactly_those_cards(table, played):
    lay, codes, expanded, _ = _search(table, played)
    assert codes[0] >= 0 and 0 < expanded <= 10_000
    play = _rebuilt_play(lay, codes, played)
    check_play(parse_table(table) if table else (), parse_hand(played), play, carousel(2))


@pytest.mark.parametrize(
    ("table", "played"),
    [
        ("3C 4C 5C", "9H"),  # fits nowhere
        ("8H 9H JK=10H", "6H"),  # only by re-declaring the joker, which is illegal
        ("", "QH KH"),  # two cards are no meld
    ],
)
def test_no_witness_when_no_table_holds_those_cards(table, played):
    _, codes, _, _ = _search(table, played)
    assert codes[0] == witness.NO_WITNESS


def test_a_search_stops_at_its_budget():
    _, codes, expanded, _ = _search("7C 8C 9C | 7D 8D 9D | 8H 9H 10H", "7S 9S JH", budget=3)
    assert codes[0] == witness.OVER_BUDGET and expanded == 3


def _entries(result):
    return [(s.reason, s.cards, s.jokers_used, s.points, s.hand_after_points) for s in result.suggestions]


def test_witnesses_settle_solves_exactly_like_the_sweeps(monkeypatch, stored):
    """Every position of a sample solved twice: witnesses tried first (and the sweeps after
    them when some entry has none), and the sweeps alone."""
    settled = searched = 0
    for item in stored[::7]:
        if item.heavy:
            continue  # the sweeps alone are slowest on these (test_solver_data's slow set)
        rules, table, hand = item.rules, item.table, item.hand
        monkeypatch.setattr(solver, "WITNESS_AFTER_STATES", 0)
        monkeypatch.setattr(solver, "WITNESS_BUDGET", 16_000)
        first = solver.solve(table, hand, rules)
        monkeypatch.setattr(solver, "WITNESS_BUDGET", 0)
        swept = solver.solve(table, hand, rules)
        monkeypatch.undo()
        assert (first.best_points, first.best_cards) == (item.best_points, item.best_cards)
        assert _entries(first) == _entries(swept), item.line
        for s in first.suggestions:
            check_play(table, hand, s.play, rules)
        made = [s.play for s in first.suggestions] != [s.play for s in swept.suggestions]
        settled += made
        if made and 52 not in hand and first.best_cards is not None:
            units = np.array([u for meld in table for u in meld], dtype=np.int64)
            lay = prepare.layout(units, np.array(hand, dtype=np.int64), rules.ace_low, rules.ace_high)
            live = lay.cells.lay_h.sum()
            searched += first.best_cards < live  # not every live card: best_of_size searched the sizes
    assert settled > 20  # witnesses, not the sweeps, made many of these tables
    assert searched > 3


@pytest.mark.parametrize(
    ("table", "hand", "decks"),
    [
        ("3C 4C 5C | 7D 7H 7S", "JK", 1),  # jokers alone: no play keeps them
        ("3C 4C 5C | 7D 7H 7S | 9H 10H JH", "JK JK", 2),
        ("3C 4C 5C | 7D 7H 7S", "JK 6C 2C KD", 1),  # KD is dead; the rest fits
        ("AC 2C 3C | QD KD AD | 5S 5H 5D", "AH 4C JK 9S", 1),  # 9S only with the joker
        ("3C 4C 5C | 8H 8S 8D", "9H 10H 6C", 1),  # the dearest cards fit nowhere: searched
        ("3H 4H 5H | 9D 9S 9C", "6C 6H", 1),  # one card: not 6C (first of the tie) but 6H
        ("6H 7H 8H", "10C 9H", 1),  # one card: one point below the dearest
        ("6H 7H 8H", "10C 5H", 1),  # one card: far below the dearest
        ("", "QH KH AH 2H 9C 9D", 1),  # no play at all
    ],
)
def test_witnesses_on_small_hands_match_the_sweeps(monkeypatch, table, hand, decks):
    rules = carousel(decks + 1)
    monkeypatch.setattr(solver, "WITNESS_AFTER_STATES", 0)
    first = solver.solve(parse_table(table), parse_hand(hand), rules)
    monkeypatch.setattr(solver, "WITNESS_BUDGET", 0)
    swept = solver.solve(parse_table(table), parse_hand(hand), rules)
    assert (first.best_points, first.best_cards) == (swept.best_points, swept.best_cards)
    assert _entries(first) == _entries(swept)
    for s in first.suggestions:
        assert s.cards >= 1 and len(s.play.added) == s.cards
        check_play(parse_table(table), parse_hand(hand), s.play, rules)


def _best_by_subsets(units: list[int], hand: list[int], n: int) -> int:
    """The most points of ``n`` of the hand's (real) cards that some table holds, by trying
    every choice of ``n`` with a witness search (``-1``: none)."""
    best = -1
    for chosen in set(itertools.combinations(sorted(hand), n)):
        lay = prepare.layout(np.array(units + list(chosen), dtype=np.int64), np.zeros(0, dtype=np.int64), True, True)
        codes, _ = witness.witness(lay.cells, 0, 100_000)
        assert codes[0] != witness.OVER_BUDGET
        if codes[0] >= 0:
            best = max(best, sum(min(c // 4 + 1, 10) for c in chosen))
    return best


def _expanded_uncapped(lay, n, bound):
    """The states ``best_of_size`` expands for size ``n`` with no cap and no earlier proofs."""
    return witness.best_of_size(lay.cells, n, NO_JOKER, bound, witness.new_known(8), 10**6, -1, 1_000, WIDE)[2]


@pytest.mark.parametrize(
    ("table", "hand"),
    [
        ("3C 4C 5C | 8H 8S 8D", "9H 10H 6C"),  # 9H 10H only by breaking the set of 8s
        ("3C 4C 5C | 7D 7H 7S", "KC QC 6C 7C 2C"),  # Q-K of clubs need a jack
        ("8H 9H JK=10H | 5C 5D 5S", "10H 5H KS 7H 6H"),  # the joker released or not
        ("AC 2C 3C | QD KD AD | 5S 5H 5D", "AH 4C 9S 10S KC"),
        ("", "QH KH AH 2H 9C 9D"),  # a run around the ace is no run
    ],
)
@pytest.mark.parametrize("known_states", [1_000, 1])  # 16 rows: proofs overwritten, answers unchanged
def test_best_of_size_matches_every_choice_of_cards(table, hand, known_states):
    """``best_of_size`` (branch and bound, hand cards optional) against a witness search
    of every choice of ``n`` cards, for every ``n``, its proofs shared from size to size."""
    units = [u for meld in (parse_table(table) if table else ()) for u in meld]
    cards = list(parse_hand(hand))
    lay = prepare.layout(np.array(units, dtype=np.int64), np.array(cards, dtype=np.int64), True, True)
    most = int(lay.cells.lay_h.sum())  # live hand cards
    bound = witness.size_bounds(lay.cells.lay_h, lay.cells.rp, most)
    known = witness.new_known(known_states)
    for n in range(most, 0, -1):
        points, codes, _ = witness.best_of_size(lay.cells, n, NO_JOKER, bound, known, 1_000_000, -1, 1_000, WIDE)
        best = _best_by_subsets(units, cards, n)
        assert max(points, -1) == best, n
        # a floor: only plays worth more count; a cap (proved by the caller) ends the search there
        for floor in (best - 1, best, best + 1):
            above, _, _ = witness.best_of_size(lay.cells, n, NO_JOKER, bound, known, 1_000_000, floor, 1_000, WIDE)
            assert above == (best if best > floor else witness.NO_WITNESS), (n, floor)
        if best >= 0:
            fresh = witness.new_known(8)
            capped, _, spent = witness.best_of_size(lay.cells, n, NO_JOKER, bound, fresh, 10**6, -1, best, WIDE)
            assert capped == best and spent <= _expanded_uncapped(lay, n, bound), n
        if points >= 0:  # the table it found is a legal play of n cards worth those points
            flat, lengths, added = build.assemble(lay[1], True, lay[2], lay[3], codes)
            played = [f for f in range(52) for _ in range(added[f])]
            assert len(played) == n and sum(min(c // 4 + 1, 10) for c in played) == points
            melds, at = [], 0
            for size in lengths:
                melds.append(tuple(int(u) for u in flat[at : at + size]))
                at += size
            play = Play(tuple(sorted(played)), tuple(melds))
            check_play(parse_table(table) if table else (), tuple(cards), play, carousel(2))


def test_best_of_size_stops_at_its_budget():
    units = [u for meld in parse_table("3C 4C 5C | 8H 8S 8D") for u in meld]
    lay = prepare.layout(np.array(units, dtype=np.int64), np.array(parse_hand("9H 10H 6C"), dtype=np.int64), True, True)
    bound = witness.size_bounds(lay.cells.lay_h, lay.cells.rp, 3)
    points, _, expanded = witness.best_of_size(lay.cells, 1, NO_JOKER, bound, witness.new_known(4), 4, -1, 1_000, WIDE)
    assert points == witness.OVER_BUDGET and expanded == 4


def _drop(table: str, played: str, table_jokers: str = ""):
    """``witness.drop_card`` of the cheapest card on a new table (melds in reading order, as
    the rebuild makes them) that plays ``played``; ``table_jokers``: the faces the old table's jokers declare.
    Returns the card taken out (or -1) and the table less it."""
    melds = parse_table(table)
    tables = (np.zeros((2, 128), dtype=np.int64), np.zeros((2, 64), dtype=np.int64), np.zeros((2, 2), dtype=np.int64))
    flat = np.array([u for meld in melds for u in meld], dtype=np.int64)
    witness.keep_table(tables, 0, flat, np.array([len(meld) for meld in melds], dtype=np.int64))
    played_counts = np.zeros((2, 53), dtype=np.int64)
    for c in parse_hand(played):
        played_counts[0, c] += 1
    jokers = np.zeros(52, dtype=np.int64)
    for c in parse_hand(table_jokers):
        jokers[c] += 1
    # the callers drop the last of the dearest cards: the cheapest card played
    cheapest = min(card_points(c) for c in parse_hand(played))
    card = witness.drop_card(tables, played_counts, 0, 1, jokers, cheapest)
    if card < 0:
        return card, None
    units, lengths, sizes = tables
    assert played_counts[1].sum() == played_counts[0].sum() - 1 and played_counts[1, card] == played_counts[0, card] - 1
    rest, at = [], 0
    for n in lengths[1, : sizes[1, 1]]:
        rest.append(tuple(int(u) for u in units[1, at : at + n]))
        at += n
    assert at == sizes[1, 0]
    return card, table_str(rest)


@pytest.mark.parametrize(
    ("table", "played", "card", "rest"),
    [
        # the cheapest card played (4C), at an end of a run of 4
        ("4C 5C 6C 7C | 9D 9H 9S", "4C 9S", "4C", "5C 6C 7C | 9D 9H 9S"),
        # a set of 4 gives up its card
        ("2C 2D 2H 2S | 7H 8H 9H", "2D 9H", "2D", "2C 2H 2S | 7H 8H 9H"),
        # a run of 7 splits into two runs of 3
        ("3H 4H 5H 6H 7H 8H 9H", "6H 9H", "6H", "3H 4H 5H | 7H 8H 9H"),
        # ties in points: in card order, the first that can go (10C cannot)
        ("10C JC QC | 10D JD QD KD", "10C 10D", "10D", "10C JC QC | JD QD KD"),
    ],
)
def test_a_size_is_the_next_less_one_cheapest_card(table, played, card, rest):
    assert _drop(table, played) == (parse_hand(card)[0], rest)


@pytest.mark.parametrize(
    ("table", "played", "table_jokers"),
    [
        ("4C 5C 6C | 4D 4H 4S", "4C 4D", ""),  # a run of 3 and a set of 3 both break
        ("3H 4H 5H 6H 7H 8H", "5H 8H", ""),  # the middle of a run of 6 leaves a piece of 2
        ("AC 2C 3C 4C 5C | KC KD KH", "3C KD", ""),  # the cheapest is the middle of a run of 5
        ("4C 5C 6C 7C | 8D 9D 10D", "4C", "4C"),  # an old table joker declared 4C: its release may rest on it
        ("4C 5C 6C 7C | 4D 4H JK=4S", "4C", ""),  # a joker in a set of 4s declares by the copies of 4s
        ("JK=9H JK=10H JK=JH QH", "QH", ""),  # the piece left would be jokers alone
    ],
)
def test_no_card_goes_when_a_meld_would_break(table, played, table_jokers):
    assert _drop(table, played, table_jokers) == (-1, None)
