"""Kaluki's lay-down solver against RULES.md's worked examples, a brute force on small hands and
an independent MILP (tests/games/kaluki/kaluki_reference.py) on random hands, dense joker hands,
random tables and positions of played games; every answer is replayed through the engine."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace
from itertools import pairwise

import pytest

from carousel_env.core.cards import (
    JOKER,
    TABLE_JOKER,
    hand_str,
    joker_as,
    make_card,
    make_deck,
    parse_card,
    parse_hand,
    parse_meld,
)
from carousel_env.games.kaluki.deal import new_game
from carousel_env.games.kaluki.engine import apply
from carousel_env.games.kaluki.legal import legal_discards, legal_draws
from carousel_env.games.kaluki.melds import MeldError, MeldKind, card_at, make_run, make_set, meld_from_units
from carousel_env.games.kaluki.rules import PRESETS, SetJokerRelease
from carousel_env.games.kaluki.solver import arrangements, best_play, solve_counts, winnable_jokers
from carousel_env.games.kaluki.state import KalukiState, MoveKind, Phase, discard
from tests.games.kaluki.kaluki_reference import brute_layouts, layout_value, milp_optimum
from tests.games.kaluki.positions import BOOK, position
from tests.games.kaluki.reference_positions import keep_for, ref_meld, reference_best_plays, reference_play
from tests.support.budgets import UNHURRIED_S

UK40, RUMMY = PRESETS["uk40"], PRESETS["rummy"]
PRESET_NAMES = ("book", "uk40", "uk51", "rummy")
BIG = 60.0  # the comparisons' time budget: a loaded machine never makes them inexact


def shown(layout) -> list[str]:
    return [str(m) for m in layout.melds]


def entry(meld) -> tuple:
    """The notation order of new melds: lowest natural card, kind (sets first), low cell, units."""
    return (min(u for u in meld.units if u < TABLE_JOKER), meld.kind is MeldKind.RUN, meld.low, meld.units)


# ---------------------------------------------------------------- worked examples


def test_worked_example_1_openings_at_51_and_40():
    best = arrangements(parse_hand("QH KH AH 7S 7D 7C 4D"), BOOK, threshold=51)
    assert shown(best[0]) == ["QH KH AH", "7C 7D 7S"] and best[0].opening_value == 52 and best[0].hand_value == 4
    weak = parse_hand("JS QS KS 5H 5D 5C 4D")
    assert arrangements(weak, BOOK, threshold=51) == []
    (at40,) = arrangements(weak, BOOK, threshold=40)
    assert at40.opening_value == 45 and at40.hand_value == 4


def test_worked_example_2_a_joker_counts_as_its_card_and_the_low_ace_as_1():
    (layout,) = arrangements(parse_hand("9D JK JD 2C"), BOOK, threshold=0)
    assert shown(layout) == ["9D JK=10D JD"] and layout.opening_value == 29 and layout.jokers == 1
    (low,) = arrangements(parse_hand("AS 2S 3S"), BOOK, threshold=0)
    assert low.opening_value == 6 and low.hand_value == 0
    assert arrangements(parse_hand("AS 2S 3S"), BOOK, threshold=7) == []


def test_worked_example_3_sets_have_no_duplicates_and_no_fifth():
    assert arrangements(parse_hand("6H 6H 6S"), BOOK, threshold=0) == []
    best = arrangements(parse_hand("6H 6S 6D 6C 6C"), BOOK, threshold=0)
    assert shown(best[0]) == ["6C 6D 6H 6S"] and best[0].hand_value == 6
    assert shown(arrangements(parse_hand("6H JK JK"), BOOK, threshold=0)[0]) in (["JK=6C JK=6D 6H"], ["6H JK=7H JK=8H"])
    assert arrangements(parse_hand("JK JK JK 2C 9D"), BOOK, threshold=0)[0].hand_value == 2
    assert arrangements(parse_hand("JK JK JK"), BOOK, threshold=0) == []  # a meld holds a natural


def test_uk40_and_rummy_place_the_ace_by_their_rules():
    assert arrangements(parse_hand("AS 2S 3S 9D"), UK40, threshold=0) == []
    (high,) = arrangements(parse_hand("QS KS AS 9D"), UK40, threshold=0)
    assert high.opening_value == 31
    assert arrangements(parse_hand("QH KH AH 9D"), RUMMY, threshold=0) == []
    (low,) = arrangements(parse_hand("AH 2H 3H 9D"), RUMMY, threshold=0)
    assert low.hand_value == 9 and low.opening_value == 6
    assert RUMMY.hand_value(parse_hand("AC AD 9H")) == 11


def test_worked_example_4_the_discard_taken_to_open():
    hand = parse_hand("9C 10C KH KS KD 2D 5S")
    state = position([hand_str(hand), "2C 3C"], phase=Phase.DRAW, discards="4H 8C")
    best = arrangements((*hand, parse_card("8C")), BOOK, threshold=51, must_use=parse_card("8C"))
    assert shown(best[0]) == ["8C 9C 10C", "KD KH KS"] and best[0].opening_value == 57
    for layout in best:
        assert parse_card("8C") in [c for m in layout.melds for c in m.cards()]
        apply(state, layout.move(take=True))
    assert arrangements((*hand, parse_card("8C")), BOOK, threshold=60, must_use=parse_card("8C")) == []


@pytest.mark.parametrize("preset", ["book", "uk40"])
def test_worked_example_5_the_exchanged_joker_completes_a_meld(preset):
    rules = PRESETS[preset]
    state = position(["10C 5H 5S 2D", "3S"], rules=rules, melds=[[], ["8C 9C JK=10C JC"]], opened=(True, True))
    play = best_play(state, 4)[0]
    assert play.hand_value == 2 and play.jokers == 1
    assert play.moves[0].kind is MoveKind.EXCHANGE
    after = replay(state, play)
    assert str(after.melds[1][0]) == "8C 9C 10C JC"


@pytest.mark.parametrize(("preset", "hand", "left"), [("book", "", 0), ("uk40", " 2D", 2)])
def test_a_player_opens_then_exchanges_and_lays_the_joker(preset, hand, left):
    rules = PRESETS[preset]
    text = "KH KS KD QH QS QD 10C 5H 5S" + hand
    state = position([text, "3S"], rules=rules, melds=[[], ["8C 9C JK=10C JC"]], opened=(False, True))
    play = best_play(state, 4)[0]
    assert play.hand_value == left
    assert [m.kind for m in play.moves][:2] == [MoveKind.OPEN, MoveKind.EXCHANGE]
    assert all(m.jokers == 0 for m in play.moves[0].melds)  # the opening's jokers come from the hand
    replay(state, play)


def test_a_play_that_lays_two_equal_melds_carrying_one_released_joker_lays_both():
    """Under ``reuse_now`` a released joker is laid in a new meld at once: when the play lays
    two equal melds and one of them carries the joker, the other is still laid (its moves leave
    the hand the play says)."""
    from carousel_env.games.kaluki.rules import KalukiRules

    rules = KalukiRules.from_options(
        "book", retrieved_joker="reuse_now", go_out_by_discard=True, ace_low_runs=False
    )  # fmt: skip
    hand = "3C 3D 5H 7C 7D 7H 7H 9D 9D 9H 9H 10H JK JK"
    table = [["9C 9D JK=9H 9S", "3C JK=3D 3H JK=3S", "6H JK=7H 8H 9H"], []]
    state = position([hand, "3S"], rules=rules, melds=table, opened=(True, False), taken="5H")
    plays = best_play(state, 8, time_budget_s=UNHURRIED_S)
    assert any(sum(m == other for other in play.melds) > 1 for play in plays for m in play.melds)
    for play in plays:
        assert rules.hand_value(replay(state, play).hands[0]) == play.hand_value


def test_the_jokers_a_hand_could_win_follow_the_set_joker_release():
    # A set's joker goes only to the card it declares under ``declared``; to a natural of a
    # missing suit under the other rules; a run's only to the card it declares, always.
    rules = PRESETS["book"]
    table = [meld_from_units(parse_meld(t), rules) for t in ("10D 10S JK=10H", "8C 9C JK=10C JC")]
    for hand, declared, other in (("10H", 1, 1), ("10C", 1, 2), ("7S", 0, 0)):
        assert winnable_jokers(table, parse_hand(hand), SetJokerRelease.DECLARED) == declared
        assert winnable_jokers(table, parse_hand(hand), SetJokerRelease.EITHER_MISSING) == other


def test_worked_example_6_no_lay_off_before_opening():
    state = position(["7H 2C 9D", "3S"], melds=[[], ["4H 5H 6H"]], opened=(False, True))
    assert best_play(state, 4) == []
    opened = position(["7H 2C 9D", "3S"], melds=[[], ["4H 5H 6H"]], opened=(True, True))
    assert best_play(opened, 4)[0].hand_value == 11


def test_worked_example_8_going_out_needs_a_discard_under_uk():
    assert arrangements(parse_hand("5H 6H 7H"), BOOK, threshold=0)[0].hand_value == 0
    assert arrangements(parse_hand("5H 6H 7H"), UK40, threshold=0, keep=1) == []
    book = position(["5H 6H 7H", "3S"], opened=(True, True))
    assert replay(book, best_play(book)[0]).phase is Phase.HAND_OVER
    uk = position(["5H 6H 7H", "3S"], rules=UK40, opened=(True, True))
    assert best_play(uk) == []


def test_the_taken_card_may_not_be_all_that_is_left():
    state = position(["5H 6H 7H 9C", "3S"], melds=[[], ["6C 7C 8C"]], opened=(True, True), taken="9C")
    plays = best_play(state, None)
    assert [p.hand_value for p in plays] == [0, 18]  # 5H 6H 7H alone would leave only the taken 9C
    assert replay(state, plays[0]).phase is Phase.HAND_OVER
    replay(state, plays[1])
    assert [shown(x) for x in arrangements(parse_hand("5H 6H 7H 9C"), BOOK, threshold=0, taken=parse_card("9C"))] == []


def test_plays_that_empty_the_hand_lay_the_taken_card_where_the_engine_lets_them():
    table = [["7H 8H 9H 10H"], ["3C 4C 5C"]]
    state = position(["JH QH 6C", "3S"], melds=table, opened=(True, True), taken="QH")
    best = best_play(state)[0]
    assert best.hand_value == 0 and replay(state, best).phase is Phase.HAND_OVER
    # The joker taken from JK=QC goes on as JH, then QH after it: the hand holds only QH between.
    state = position(["QC QH", "3S"], melds=[["7H 8H 9H 10H"], ["JC JK=QC KC"]], opened=(True, True), taken="QH")
    best = best_play(state)[0]
    assert best.hand_value == 0 and best.moves[0].kind is MoveKind.EXCHANGE
    assert replay(state, best).phase is Phase.HAND_OVER


def test_lay_offs_and_new_melds_are_chosen_together():
    state = position(["8H 9H 10H JH 3C", "3S"], melds=[[], ["5H 6H 7H"]], opened=(True, True))
    best = best_play(state, None)
    assert [p.hand_value for p in best[:4]] == [3, 3, 3, 11]
    assert [len(p.melds) for p in best[:3]] == [1, 1, 0]  # 8H..JH as a run, split, or laid off on 5H 6H 7H
    assert len({p.moves for p in best}) == len(best)


# ---------------------------------------------------------------- replay and order


def replay(state, play):
    for move in play.moves:
        state = apply(state, move)
    if not state.over:
        assert state.rules.hand_value(state.hands[state.current]) == play.hand_value
    return state


def check_layouts(layouts, hand, rules, *, threshold, must_use=None, keep=0):
    assert [(x.hand_value, x.jokers) for x in layouts] == sorted((x.hand_value, x.jokers) for x in layouts)
    seen = set()
    for layout in layouts:
        key = tuple(sorted(map(entry, layout.melds)))
        assert key not in seen
        seen.add(key)
        laid = Counter(c for m in layout.melds for c in m.cards())
        assert not laid - Counter(hand)
        assert layout.opening_value >= threshold and len(hand) - laid.total() >= keep
        assert layout.hand_value == rules.hand_value(hand) - rules.hand_value(laid.elements())
        if must_use is not None:
            assert laid[must_use]
    for a, b in pairwise(layouts):
        if (a.hand_value, a.jokers) == (b.hand_value, b.jokers):
            assert sorted(map(entry, a.melds)) <= sorted(map(entry, b.melds))


def test_layouts_are_legal_distinct_and_in_order():
    rng = random.Random(3)
    for _ in range(60):
        rules = PRESETS[rng.choice(PRESET_NAMES)]
        hand = random_hand(rng, rules, rng.randint(10, 15), rng.choice([0, 2, 3]))
        opened = rng.random() < 0.5
        threshold = 0 if opened else rules.opening
        layouts = arrangements(hand, rules, threshold=threshold, keep=keep_for(rules), limit=12)
        check_layouts(layouts, hand, rules, threshold=threshold, keep=keep_for(rules))
        state = position([hand_str(hand), "3S"], rules=rules, opened=(opened, False))
        for layout in layouts:
            apply(state, layout.move(opened=opened))


# ---------------------------------------------------------------- the references


def random_hand(rng: random.Random, rules, size: int, jokers: int = 0) -> tuple:
    jokers = min(jokers, rules.jokers)
    deck = [c for c in make_deck(rules.decks, 0)]
    return tuple(sorted(rng.sample(deck, size - jokers) + [JOKER] * jokers))


def dense_hand(rng: random.Random, rules, size: int, jokers: int) -> tuple:
    """Cards of two suits over a few ranks: many melds overlap."""
    suits, low = rng.sample(range(4), 2), rng.randint(1, 6)
    cards = [make_card(r, s) for r in range(low, low + 8) for s in suits] * rules.decks
    cards += [make_card(r, s) for r in range(low, low + 3) for s in range(4)]
    jokers = min(jokers, rules.jokers)
    picked = Counter(rng.sample(cards, size - jokers))
    return tuple(sorted(c for c, n in picked.items() for _ in range(min(n, rules.decks)))) + (JOKER,) * jokers


def compare_brute(seed: int, count: int) -> int:
    rng = random.Random(seed)
    for _ in range(count):
        rules = PRESETS[rng.choice(PRESET_NAMES)]
        hand = random_hand(rng, rules, rng.randint(5, 8), rng.choice([0, 0, 1, 2]))
        threshold = rng.choice([0, 20, rules.opening])
        layouts = arrangements(hand, rules, threshold=threshold, time_budget_s=BIG)
        got = {tuple(sorted(map(ref_meld, x.melds))) for x in layouts}
        want = {x for x in brute_layouts(hand, rules) if layout_value(x, rules) >= threshold}
        assert got == want and len(got) == len(layouts), (rules, hand, threshold)
        check_layouts(layouts, hand, rules, threshold=threshold)
    return count


def compare_layouts(seed: int, count: int) -> int:
    rng = random.Random(seed)
    for i in range(count):
        rules = PRESETS[rng.choice(PRESET_NAMES)]
        if i % 3 == 2:
            hand = dense_hand(rng, rules, rng.randint(12, 16), rng.randint(2, 4))
        else:
            hand = random_hand(rng, rules, rng.randint(10, 16), rng.choice([0, 1, 2, 3, 4]))
        threshold = rng.choice([0, rules.opening])
        must = rng.choice(hand) if rng.random() < 0.3 else None
        taken = rng.choice(hand) if must is None and rng.random() < 0.3 else None
        keep = rng.choice([0, 1])
        layouts = arrangements(
            hand, rules, threshold=threshold, must_use=must, keep=keep, limit=3, taken=taken, time_budget_s=BIG
        )
        want = milp_optimum(hand, rules, threshold=threshold, must_use=must, keep=keep, taken=taken)
        assert (layouts[0].hand_value if layouts else None) == want, (rules, hand, threshold, must, keep, taken)
        check_layouts(layouts, hand, rules, threshold=threshold, must_use=must, keep=keep)
    return count


def random_table(rng: random.Random, rules, pool: Counter, count: int) -> list:
    """Up to ``count`` random melds (with jokers) taken from ``pool``."""
    made = []
    for _ in range(count * 3):
        if len(made) == count:
            break
        if rng.random() < 0.5:
            rank = rng.randint(1, 13)
            cards = [make_card(rank, s) for s in rng.sample(range(4), rng.choice([3, 3, 4]))]
            build = make_set
        else:
            length, suit = rng.randint(3, 6), rng.randint(0, 3)
            low_cell, high_cell = (1 if rules.ace_low_runs else 2), (14 if rules.ace_high_runs else 13)
            low = rng.randint(low_cell, high_cell - length + 1)
            cards = [card_at(suit, c) for c in range(low, low + length)]

            def build(units, low=low):
                return make_run(units, low, rules)

        units, spent = [], Counter()
        for c in cards:
            if pool[c] - spent[c] > 0 and rng.random() < 0.85:
                units.append(c)
                spent[c] += 1
            elif pool[JOKER] - spent[JOKER] > 0:
                units.append(joker_as(c))
                spent[JOKER] += 1
            else:
                break
        if len(units) < len(cards) or all(u >= TABLE_JOKER for u in units):
            continue
        try:
            made.append(build(units))
        except MeldError:
            continue
        pool -= spent
    return made


def table_position(rng: random.Random, rules) -> KalukiState:
    pool = Counter(make_deck(rules.decks, rules.jokers))
    table = random_table(rng, rules, pool, rng.randint(1, 7))
    rest = list(pool.elements())
    rng.shuffle(rest)
    size = rng.randint(8, 16)
    hand = tuple(sorted(rest[:size]))
    opened = rng.random() < 0.7
    seats = [[], [], []]
    for meld in table:
        seats[rng.randrange(3) if opened else rng.randrange(1, 3)].append(meld)
    flags = (opened, bool(seats[1]), bool(seats[2]))
    return KalukiState(
        rules=rules,
        num_players=3,
        seed=0,
        hand_number=0,
        dealer=2,
        current=0,
        phase=Phase.PLAY,
        hands=(hand, (), ()),
        melds=tuple(tuple(s) for s in seats),
        stock=tuple(rest[size : size + 10]),
        discards=(parse_card("2C"),),
        opened=flags,
        in_play=(True,) * 3,
        totals=(0,) * 3,
        taken=rng.choice(hand) if rng.random() < 0.3 else -1,
        laid=flags,
    )


def check_play(state: KalukiState, limit: int = 4) -> None:
    plays = best_play(state, limit, time_budget_s=BIG)
    got = plays[0].hand_value if plays else None
    assert got in reference_best_plays(state), str(state)
    assert [(p.hand_value, p.jokers) for p in plays] == sorted((p.hand_value, p.jokers) for p in plays)
    assert len({p.moves for p in plays}) == len(plays)
    for play in plays:
        replay(state, play)


def compare_tables(seed: int, count: int) -> int:
    rng = random.Random(seed)
    for _ in range(count):
        check_play(table_position(rng, PRESETS[rng.choice(PRESET_NAMES)]))
    return count


def test_either_missing_exchanges_are_legal_and_never_worse_than_none():
    """The reference does not model ``either_missing`` exchanges: the solver's best is at most its
    optimum without exchanges, and every play replays."""
    rng = random.Random(5)
    rules = replace(PRESETS["uk40"], set_joker_release=SetJokerRelease.EITHER_MISSING)
    for _ in range(150):
        state = table_position(rng, rules)
        plays = best_play(state, 4, time_budget_s=BIG)
        for play in plays:
            replay(state, play)
        without = reference_play(state)
        if without is not None and not (state.taken >= 0 and without == 0):
            assert plays and plays[0].hand_value <= without


def played_positions(seed: int, count: int):
    """PLAY-phase positions of games played by a random player that lays one of the solver's
    four best plays most turns."""
    rng = random.Random(seed)
    found = 0
    game = 0
    while found < count:
        rules = PRESETS[PRESET_NAMES[game % len(PRESET_NAMES)]]
        state = new_game(rules, rng.randint(2, 4), seed=seed * 1000 + game)
        game += 1
        for _ in range(200):
            if state.over or found >= count:
                break
            if state.phase is Phase.DRAW:
                state = apply(state, rng.choice(legal_draws(state, limit=2)))
                continue
            yield state
            found += 1
            plays = best_play(state, 4)
            if plays and rng.random() < 0.7:
                for move in rng.choice(plays).moves:
                    state = apply(state, move)
            if not state.over and state.phase is Phase.PLAY:
                state = apply(state, discard(rng.choice(legal_discards(state))))


def compare_played(seed: int, count: int) -> int:
    for state in played_positions(seed, count):
        check_play(state)
    return count


@pytest.mark.reference
def test_layouts_equal_the_brute_force_on_small_hands():
    assert compare_brute(1, 250) == 250


@pytest.mark.reference
def test_best_layout_equals_the_milp_on_random_and_dense_hands():
    assert compare_layouts(2, 400) == 400


@pytest.mark.reference
def test_best_play_equals_the_milp_on_random_tables():
    assert compare_tables(3, 350) == 350


@pytest.mark.reference
def test_best_play_equals_the_milp_in_played_games():
    assert compare_played(4, 200) == 200


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(10, 14))
def test_the_big_sweep(seed):
    compare_brute(seed, 500)
    compare_layouts(seed, 1000)
    compare_tables(seed, 1000)
    compare_played(seed, 500)


# ---------------------------------------------------------------- the time budget


def test_the_time_budget_answers_and_counts_the_solve_inexact():
    hand = parse_hand("3H 4H 5H 6H 7H 8H 9H 3S 4S 5S 6S 7S 8S 9S JK JK JK JK")
    before = solve_counts()
    layouts = arrangements(hand, BOOK, threshold=0, time_budget_s=1e-9)
    after = solve_counts()
    assert after.solves == before.solves + 1 and after.inexact == before.inexact + 1
    assert isinstance(layouts, list)
    exact = arrangements(hand, BOOK, threshold=0, limit=2, time_budget_s=UNHURRIED_S)
    assert solve_counts().inexact == after.inexact and exact[0].hand_value == 0
    with pytest.raises(ValueError, match="time_budget_s"):
        arrangements(hand, BOOK, threshold=0, time_budget_s=0)
    with pytest.raises(ValueError, match="limit"):
        arrangements(hand, BOOK, threshold=0, limit=-1)
    assert arrangements(hand, BOOK, threshold=0, limit=0) == []
