"""Tests of the MILP reference (tests/support/milp_reference.py) and the position generator.

The reference is checked three ways: hand-made positions with known answers (every worked
example of RULES.md among them), witnesses passed through ``check_play``, and an exhaustive
brute force on small positions that enumerates plays and asks ``is_legal_play`` (so the
template argument of the MILP is checked against the engine's own meld and joker rules).
"""

from __future__ import annotations

import functools
import itertools
import random
from collections import Counter

import pytest

from carousel_env.core.cards import (
    JOKER,
    NUM_CARDS,
    POINTS,
    Hand,
    Table,
    face,
    is_table_joker,
    joker_as,
    parse_hand,
    parse_table,
    rank_of,
    suit_of,
)
from carousel_env.games.carousel.engine.manipulation import Play, check_play, is_legal_play
from carousel_env.games.carousel.engine.melds import is_valid_meld
from carousel_env.games.carousel.engine.rules import Rules, carousel, manipulation_rummy
from tests.support.milp_reference import MilpReferenceError, milp_best, milp_play, templates
from tests.support.positions import synthetic_positions

ONE_DECK = carousel(2)  # 1 deck + 1 joker
TWO_DECKS = carousel(3)  # 2 decks + 2 jokers
VARIANT = manipulation_rummy(4)  # 2 decks, no jokers, aces high only


def value_of(added: Hand, objective: str) -> int:
    return sum(POINTS[c] for c in added) if objective == "points" else len(added)


def assert_best(table_text: str, hand_text: str, rules: Rules, cards: int | None, points: int | None) -> None:
    """Both objectives give the expected optimum, and each witness is legal and achieves it."""
    table, hand = parse_table(table_text), parse_hand(hand_text)
    for objective, expected in (("cards", cards), ("points", points)):
        assert milp_best(table, hand, rules, objective, cross_check=True) == expected, objective
        play = milp_play(table, hand, rules, objective)
        if expected is None:
            assert play is None
        else:
            assert play is not None
            check_play(table, hand, play, rules)
            assert value_of(play.added, objective) == expected


# ---------------------------------------------------------------- RULES.md worked examples


@pytest.mark.parametrize("rules", [ONE_DECK, TWO_DECKS])
def test_example_1_set_from_two_runs(rules: Rules) -> None:
    assert_best("3C 4C 5C 6C | 3D 4D 5D 6D", "6H", rules, cards=1, points=6)


@pytest.mark.parametrize("rules", [ONE_DECK, TWO_DECKS, VARIANT])
def test_example_2_corrected_rearrangement(rules: Rules) -> None:
    assert_best("7C 8C 9C | 7D 8D 9D | 8H 9H 10H", "7S 9S JH", rules, cards=3, points=26)
    # without the rearrangement only JH fits; the 7S and 9S alone never do
    assert_best("7C 8C 9C | 7D 8D 9D | 8H 9H 10H", "7S", rules, cards=None, points=None)


@pytest.mark.parametrize("rules", [ONE_DECK, TWO_DECKS])
def test_example_3_joker_keeps_declaration(rules: Rules) -> None:
    assert_best("8H 9H JK=10H", "6H", rules, cards=None, points=None)
    assert_best("8H 9H JK=10H", "10H 5S 5D", rules, cards=3, points=20)
    # 10H alone releases the joker, which must stay on the table: 8H 9H 10H JK=JH (or JK=7H)
    assert_best("8H 9H JK=10H", "10H", rules, cards=1, points=10)


@pytest.mark.parametrize("rules", [ONE_DECK, TWO_DECKS])
def test_example_4_release_into_a_set(rules: Rules) -> None:
    assert_best("8H 9H JK=10H", "7H 10H 10S", rules, cards=3, points=27)


def test_example_3_released_joker_stays_in_its_run() -> None:
    # 10H releases the joker, which now fills 7H: 6H JK=7H 8H 9H 10H
    assert_best("8H 9H JK=10H", "6H 10H", ONE_DECK, cards=2, points=16)
    # 7H extends the run without touching the joker
    assert_best("8H 9H JK=10H", "6H 7H", ONE_DECK, cards=2, points=13)


# ---------------------------------------------------------------- aces


def test_ace_high_or_low_never_both() -> None:
    assert_best("QH KH AH", "JH", ONE_DECK, cards=1, points=10)
    assert_best("QH KH AH", "2H 3H", ONE_DECK, cards=None, points=None)  # no wrap K-A-2
    assert_best("AH 2H 3H", "KH QH", ONE_DECK, cards=None, points=None)  # the ace cannot serve both
    assert_best("AH 2H 3H 4H", "QH KH", ONE_DECK, cards=2, points=20)  # 2H 3H 4H | QH KH AH
    assert_best("", "KS AS 2S", ONE_DECK, cards=None, points=None)
    assert_best("", "AS 2S 3S QS KS", ONE_DECK, cards=3, points=21)  # QS KS AS beats AS 2S 3S
    assert_best("", "AS AS 2S 3S QS KS", TWO_DECKS, cards=6, points=27)  # one ace each way


def test_thirteen_card_runs() -> None:
    full = " ".join(f"{r}S" for r in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"))
    assert_best("", full, ONE_DECK, cards=13, points=85)
    assert_best(full, "AH AD", ONE_DECK, cards=2, points=2)  # AS joins a set, 2S..KS stays a run
    assert_best(full, "AH", ONE_DECK, cards=None, points=None)


def test_variant_aces_high_only() -> None:
    assert_best("2H 3H 4H", "AH", VARIANT, cards=None, points=None)
    assert_best("2H 3H 4H", "AH", ONE_DECK, cards=1, points=1)
    assert_best("2H 3H 4H", "AH KH QH", VARIANT, cards=3, points=21)
    assert_best("", "AC 2C 3C", VARIANT, cards=None, points=None)
    assert_best("", "QC KC AC", VARIANT, cards=3, points=21)


def test_templates() -> None:
    both, high = templates(True, True), templates(False, True)
    assert len(both) == 65 + 4 * (12 + 11 + 10)  # sets, then runs of 3/4/5 from A-low to A-high
    assert len(high) == 65 + 4 * (11 + 10 + 9)
    for t in both:
        assert len(set(t)) == len(t)
        assert is_valid_meld(t, ONE_DECK)
    for t in high:
        assert is_valid_meld(t, VARIANT)


# ---------------------------------------------------------------- one deck, two decks


def test_two_deck_identical_cards() -> None:
    assert_best("7H 8H 9H", "7H 8H 9H", TWO_DECKS, cards=3, points=24)  # a second, identical run
    assert_best("3C 4C 5C 6C 7C 8C", "5C", TWO_DECKS, cards=1, points=5)  # 3C 4C 5C | 5C 6C 7C 8C
    assert_best("7C 7D 7H", "7C", TWO_DECKS, cards=None, points=None)  # a set has distinct suits
    assert_best("7C 7D 7H", "7C 7S", TWO_DECKS, cards=1, points=7)  # only the 7S; five 7s are no partition
    assert_best("7C 7D 7H | 7C 7D 7S", "7H 7S", TWO_DECKS, cards=2, points=14)


# ---------------------------------------------------------------- jokers


@pytest.mark.parametrize("rules", [ONE_DECK, TWO_DECKS])
def test_table_joker_keeps_declaration(rules: Rules) -> None:
    assert_best("5H 6H JK=7H", "4H", rules, cards=1, points=4)
    assert_best("5H 6H JK=7H", "8C 8D", rules, cards=None, points=None)  # JK=8H needs a real 7H
    assert_best("5H 6H JK=7H", "7H 8C 8D", rules, cards=3, points=23)  # 5H 6H 7H | 8C 8D JK=8H
    assert_best("9C 9D JK=9H", "9S", rules, cards=1, points=9)
    assert_best("9C 9D JK=9H", "10C 10D", rules, cards=None, points=None)


def test_joker_released_by_a_table_card() -> None:
    # the 7H of the set takes the joker's place; the set keeps three 7s; the joker becomes 8H
    assert_best("5H 6H JK=7H | 7C 7D 7H 7S", "8C 8D", ONE_DECK, cards=2, points=16)
    assert_best("5H 6H JK=7H | 7C 7D 7H", "8C 8D", ONE_DECK, cards=None, points=None)


def test_hand_jokers() -> None:
    assert_best("", "JK 5C 6C", ONE_DECK, cards=3, points=36)
    assert_best("", "JK 5C", ONE_DECK, cards=None, points=None)
    assert_best("5C 6C 7C", "JK", ONE_DECK, cards=1, points=25)
    assert_best("", "JK JK 5C", TWO_DECKS, cards=3, points=55)  # a meld may hold two jokers
    assert_best("QH KH AH", "JK 2C", ONE_DECK, cards=1, points=25)  # the joker alone; 2C cannot follow


def test_joker_declaration_may_duplicate_real_cards() -> None:
    # both real 7H are on the table; a hand joker may still declare 7H
    table, hand = parse_table("7H 8H 9H | 7H 8H 9H"), parse_hand("JK 7C 7D")
    check_play(table, hand, Play(hand, (*table, parse_table("7C 7D JK=7H")[0])), TWO_DECKS)
    assert_best("7H 8H 9H | 7H 8H 9H", "JK 7C 7D", TWO_DECKS, cards=3, points=39)


def test_no_legal_play() -> None:
    assert_best("", "2C 9D KS", ONE_DECK, cards=None, points=None)
    assert_best("3C 4C 5C", "9D", ONE_DECK, cards=None, points=None)
    table = parse_table("3C 4C 5C")
    assert milp_best(table, (), ONE_DECK) is None
    assert milp_play(table, (), ONE_DECK) is None


def test_bad_objective() -> None:
    with pytest.raises(ValueError):
        milp_best((), parse_hand("5C 6C 7C"), ONE_DECK, "score")  # type: ignore[arg-type]


def test_error_type_is_exported() -> None:
    assert issubclass(MilpReferenceError, RuntimeError)


# ---------------------------------------------------------------- brute force on small positions


def _could_use(declared: int, reals: list[int], low: int, high: int) -> bool:
    """A joker can sit in a meld with >= 1 real card and <= 1 other joker, so its declaration
    shares a rank with a real card (set) or sits within two run positions of one (run)."""
    positions = {p for p in (1, 14) if low <= p <= high} if rank_of(declared) == 1 else {rank_of(declared)}
    for r in reals:
        if rank_of(r) == rank_of(declared):
            return True
        if suit_of(r) == suit_of(declared):
            r_positions = {p for p in (1, 14) if low <= p <= high} if rank_of(r) == 1 else {rank_of(r)}
            if any(abs(p - q) <= 2 for p in positions for q in r_positions):
                return True
    return False


@functools.cache
def _partition(units: tuple[int, ...], rules: Rules) -> tuple[tuple[int, ...], ...] | None:
    """Any partition of the sorted units into valid melds (exhaustive search), or None."""
    if not units:
        return ()
    first, rest = units[0], units[1:]
    related = [i for i, u in enumerate(rest) if rank_of(u) == rank_of(first) or suit_of(u) == suit_of(first)]
    tried: set[tuple[int, ...]] = set()
    for size in range(2, min(12, len(related)) + 1):
        for picked in itertools.combinations(related, size):
            members = tuple(rest[i] for i in picked)
            if members in tried:
                continue
            tried.add(members)
            meld = (first, *members)
            if not is_valid_meld(meld, rules):
                continue
            left = list(rest)
            for i in reversed(picked):
                del left[i]
            sub = _partition(tuple(left), rules)
            if sub is not None:
                return (meld, *sub)
    return None


def brute_best(table: Table, hand: Hand, rules: Rules, objective: str) -> int | None:
    """Best value over every play: each added multiset, each multiset of joker declarations."""
    old_real = [u for m in table for u in m if not is_table_joker(u)]
    old_jokers = sum(1 for m in table for u in m if is_table_joker(u))
    low, high = (1 if rules.ace_low else 2), (14 if rules.ace_high else 13)
    added_sets = {a for k in range(1, len(hand) + 1) for a in itertools.combinations(hand, k)}
    assert old_jokers + hand.count(JOKER) <= 2, "_could_use assumes at most two jokers"
    best = None
    for added in sorted(added_sets, key=lambda a: -value_of(a, objective)):
        value = value_of(added, objective)
        if best is not None and value <= best:
            break
        reals = old_real + [c for c in added if c != JOKER]
        n_jokers = old_jokers + added.count(JOKER)
        candidates = [d for d in range(NUM_CARDS) if _could_use(d, reals, low, high)]
        for declared in itertools.combinations_with_replacement(candidates, n_jokers):
            melds = _partition(tuple(sorted(reals + [joker_as(d) for d in declared])), rules)
            if melds is not None and is_legal_play(table, hand, Play(added, melds), rules):
                best = value
                break
    return best


def small_positions(count: int, seed: int, decks: int, jokers: int, rules: Rules, max_units: int, max_hand: int):
    """Synthetic positions cut down: the first melds up to ``max_units`` units, a few hand cards."""
    rng = random.Random(seed)
    for table, hand in synthetic_positions(count, seed, decks, jokers, rules):
        kept, units = [], 0
        for meld in table:
            if units + len(meld) <= max_units:
                kept.append(meld)
                units += len(meld)
        yield tuple(kept), tuple(sorted(rng.sample(hand, min(len(hand), rng.randint(1, max_hand)))))


@pytest.mark.parametrize(
    ("rules", "decks", "jokers"),
    [(ONE_DECK, 1, 1), (TWO_DECKS, 2, 2), (VARIANT, 2, 0)],
    ids=["1deck", "2decks", "variant"],
)
def test_matches_brute_force_on_small_positions(rules: Rules, decks: int, jokers: int) -> None:
    checked = 0
    for table, hand in small_positions(60, 11, decks, jokers, rules, max_units=9, max_hand=4):
        for objective in ("cards", "points"):
            assert milp_best(table, hand, rules, objective) == brute_best(table, hand, rules, objective), (
                table,
                hand,
                objective,
            )
        checked += 1
    assert checked == 60


# ---------------------------------------------------------------- synthetic positions


@pytest.mark.parametrize(
    ("rules", "decks", "jokers"),
    [(ONE_DECK, 1, 1), (TWO_DECKS, 2, 2), (VARIANT, 2, 0)],
    ids=["1deck", "2decks", "variant"],
)
@pytest.mark.reference
def test_witnesses_and_presolve_agree_on_synthetic_positions(rules: Rules, decks: int, jokers: int) -> None:
    plays = 0
    for table, hand in synthetic_positions(40, 5, decks, jokers, rules):
        for objective in ("points", "cards"):
            best = milp_best(table, hand, rules, objective, cross_check=True)
            play = milp_play(table, hand, rules, objective)
            assert (play is None) == (best is None)
            if play is not None:
                check_play(table, hand, play, rules)
                assert value_of(play.added, objective) == best
                plays += 1
    assert plays > 40


@pytest.mark.parametrize(
    ("rules", "decks", "jokers"),
    [(ONE_DECK, 1, 1), (TWO_DECKS, 2, 2), (VARIANT, 2, 0)],
    ids=["1deck", "2decks", "variant"],
)
def test_positions_are_valid_and_deterministic(rules: Rules, decks: int, jokers: int) -> None:
    positions = list(synthetic_positions(300, 3, decks, jokers, rules))
    assert positions == list(synthetic_positions(300, 3, decks, jokers, rules))
    assert positions[:50] == list(synthetic_positions(50, 3, decks, jokers, rules))
    assert positions != list(synthetic_positions(300, 4, decks, jokers, rules))
    sizes = []
    for table, hand in positions:
        assert all(is_valid_meld(m, rules) for m in table)
        assert 1 <= len(hand) <= 30 and list(hand) == sorted(hand)
        real = Counter(face(u) for m in table for u in m if not is_table_joker(u)) + Counter(
            c for c in hand if c != JOKER
        )
        assert max(real.values(), default=0) <= decks
        assert sum(1 for m in table for u in m if is_table_joker(u)) + hand.count(JOKER) <= jokers
        sizes.append(sum(len(m) for m in table))
    assert min(sizes) == 0 and max(sizes) >= (30 if decks == 1 else 50)
    assert max(sizes) <= (35 if decks == 1 else 60)
    if jokers:
        assert any(is_table_joker(u) for table, _ in positions for m in table for u in m)
        # a joker beside a real copy of its declaration somewhere on the table
        assert any(
            any(
                face(u) in {v for m in table for v in m if not is_table_joker(v)}
                for m in table
                for u in m
                if is_table_joker(u)
            )
            for table, _ in positions
        )
    if decks == 2:  # identical cards from the two decks, in different melds
        assert any(
            max(Counter(u for m in table for u in m if not is_table_joker(u)).values(), default=0) == 2
            for table, _ in positions
        )
