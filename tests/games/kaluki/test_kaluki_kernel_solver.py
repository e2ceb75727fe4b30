"""The compiled lay-down search against the solver it repeats: the same layouts, in the same
order, on random, dense and played hands of every preset."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from carousel_env.core.cards import JOKER, NUM_CARDS, parse_card, parse_hand
from carousel_env.games.kaluki import kernel_readings as kr
from carousel_env.games.kaluki import kernel_solver, solver
from carousel_env.games.kaluki import kernel_table as kt
from carousel_env.games.kaluki.rules import HIGH_ACE, LOW_ACE, MELD_MIN, RUN_MAX, KalukiRules
from tests.games.kaluki.test_kaluki_solver import dense_hand, played_positions, random_hand, table_position

PRESETS = ("book", "uk40", "uk51", "rummy")


def question(rng: random.Random) -> tuple:
    """A hand and an ``arrangements`` question about it, as the env and the players ask them."""
    rules = KalukiRules.from_options(rng.choice(PRESETS))
    jokers = rng.choice([0, 0, 1, 2, 3, 4])
    size = rng.choice([7, 10, 13, 15, 16])
    hand = (dense_hand if rng.random() < 0.5 else random_hand)(rng, rules, size, jokers)
    options = {
        "threshold": rng.choice([0, rules.opening]),
        "must_use": rng.choice([None, None, rng.choice(hand)]),
        "keep": rng.choice([0, 1]),
        "limit": rng.choice([1, 4, 8]),
        "taken": rng.choice([None, None, rng.choice(hand)]),
    }
    return hand, rules, options


@pytest.mark.parametrize("seed", [0, 1])
def test_the_layouts_are_the_solvers_on_random_and_dense_hands(seed):
    rng = random.Random(seed)
    for _ in range(400):
        hand, rules, options = question(rng)
        assert kernel_solver.compiled_arrangements(hand, rules, **options) == solver.arrangements(
            hand, rules, **options
        ), (
            hand,
            rules.opening,
            options,
        )


def test_the_layouts_are_the_solvers_on_the_hands_of_played_games():
    for state in played_positions(3, 60):
        s = state.current
        hand = (*state.hands[s], state.top) if state.discards else state.hands[s]
        for threshold in (0, state.rules.opening):
            options = {"threshold": threshold, "limit": 8, "keep": int(state.rules.go_out_by_discard)}
            assert kernel_solver.compiled_arrangements(hand, state.rules, **options) == solver.arrangements(
                hand, state.rules, **options
            )


def test_a_search_past_its_budget_gives_no_answer_and_the_edges_answer_at_once():
    rules = KalukiRules.from_options("book")
    hand = (0, 1, 2, 4, 5, 6, 8, 9, 10, JOKER, JOKER)  # aces, twos and threes of three suits
    assert kernel_solver.compiled_arrangements(hand, rules, threshold=0, limit=8, node_budget=1) is None
    assert kernel_solver.compiled_arrangements(hand, rules, threshold=0, limit=0) == []
    assert kernel_solver.compiled_arrangements(hand, rules, threshold=0, limit=8, must_use=51) == []
    assert kernel_solver.compiled_arrangements(hand, rules, threshold=0, limit=8) == solver.arrangements(
        hand, rules, threshold=0, limit=8
    )


@pytest.fixture
def searched(monkeypatch) -> list:
    """The compiled searches asked (one entry each) since the list was last cleared."""
    asked = []
    lay_down = kernel_solver.lay_down

    def counted(*args):
        asked.append(True)
        return lay_down(*args)

    monkeypatch.setattr(kernel_solver, "lay_down", counted)
    return asked


def test_the_first_check_refuses_only_questions_without_layouts(searched):
    # kernel_solver.may_lay answers a question without the search where it proves that no layout
    # exists: never one the solver answers, and a fair share of these questions.
    rng, refused = random.Random(5), 0
    for _ in range(400):
        hand, rules, options = question(rng)
        searched.clear()
        got = kernel_solver.compiled_arrangements(hand, rules, **options)
        if options["limit"] and not searched and got == []:
            refused += 1
            assert solver.arrangements(hand, rules, **options) == [], (hand, options)
    assert refused > 20


def test_the_first_check_refuses_only_plays_that_do_not_exist_in_played_games(searched):
    # The same for the plays of players who have opened (nothing fits the table, melds in hand
    # or wins a joker) and of those who must open.
    refused = {True: 0, False: 0}
    for state in played_positions(3, 200):
        searched.clear()
        if kernel_solver.compiled_best_play(state, 4) == [] and not searched:
            refused[state.opened[state.current]] += 1
            assert solver.best_play(state, 4) == [], state
    assert refused[True] > 20 and refused[False] > 20, refused


def test_the_first_check_counts_only_cards_that_could_meld():
    rules = KalukiRules.from_options("book")
    loose = parse_hand("KH KS QD QC 2C 4D 6H 8S 10C JD 3S")  # pairs and gaps: nothing melds
    assert kernel_solver.compiled_arrangements(loose, rules, threshold=51, limit=8) == []
    assert solver.arrangements(loose, rules, threshold=0, limit=8) == []
    opens = parse_hand("KH KS KD QH QS QD 2C 4D 9C")  # 60 in two sets
    assert len(kernel_solver.compiled_arrangements(opens, rules, threshold=51, limit=8)) == 1
    top = parse_card("9C")  # no 7C 8C 10C JC, one other 9: no meld lays it
    hand = (*parse_hand("9D 2C 3C 4C 5H 6H 7H"), top)
    assert kernel_solver.compiled_arrangements(hand, rules, threshold=0, must_use=top, limit=8) == []
    assert solver.arrangements(hand, rules, threshold=0, limit=8)  # the rest melds


# Tables of every kind: the presets, and the set-joker and retrieved-joker options each way.
TABLE_RULES = (
    KalukiRules.from_options("book"),
    KalukiRules.from_options("uk40"),
    KalukiRules.from_options("book", set_joker_release="either_missing"),
    KalukiRules.from_options("book", set_joker_release="all_missing", retrieved_joker="reuse_now"),
    KalukiRules.from_options("rummy"),
)


def agree(state, limit: int) -> bool:
    """Whether the compiled search gives the solver's plays (and the wrapper the env calls
    does, where the compiled search leaves a position to the solver)."""
    want = solver.best_play(state, limit)
    got = kernel_solver.compiled_best_play(state, limit)
    return (got is None or got == want) and kernel_solver.best_play(state, limit) == want


@pytest.mark.parametrize("seed", [0, 1])
def test_the_plays_are_the_solvers_on_random_tables(seed):
    rng = random.Random(seed)
    for i in range(300):
        state = table_position(rng, TABLE_RULES[i % len(TABLE_RULES)])
        assert agree(state, rng.choice([1, 4, 8])), state


def test_the_plays_are_the_solvers_in_played_games():
    for i, state in enumerate(played_positions(5, 500)):
        assert agree(state, (1, 4, 8)[i % 3]), state


def test_plays_the_engine_cannot_order_are_dropped_as_the_solver_drops_them(monkeypatch):
    """An exchange in a play that opens, or whose joker must be laid at once (uk40), is checked
    against the engine's order of moves: the layouts that fail are dropped and more are asked
    of the search, so the plays are still the solver's first ``limit``."""
    dropped = []
    play = kernel_solver._play

    def counting(*args):
        made = play(*args)
        dropped.append(made is None)
        return made

    monkeypatch.setattr(kernel_solver, "_play", counting)
    rng = random.Random(11)
    unanswered = 0
    for i in range(300):
        state = table_position(rng, TABLE_RULES[(1, 3)[i % 2]])
        got = kernel_solver.compiled_best_play(state, 4)
        unanswered += got is None
        assert got is None or got == solver.best_play(state, 4), state
    assert any(dropped) and unanswered == 0


def test_a_play_built_alone_is_the_solvers_play_at_its_index():
    # Tables where some layouts are checked against the engine's order (play_at then takes the
    # whole answer) and played positions where none are (it builds the one play).
    rng = random.Random(3)
    states = [table_position(rng, TABLE_RULES[i % len(TABLE_RULES)]) for i in range(150)]
    checked = 0
    for state in [*states, *played_positions(6, 150)]:
        plays = solver.best_play(state, 4)
        for index, play in enumerate(plays):
            assert kernel_solver.play_at(state, 4, index) == play, (state, index)
            checked += 1
    assert checked > 100


def test_a_search_past_its_budget_is_left_to_the_solver_and_bad_limits_are_refused_alike():
    state = next(s for s in played_positions(6, 50) if solver.best_play(s, 8))
    assert kernel_solver.compiled_best_play(state, 8, node_budget=1) is None
    assert kernel_solver.best_play(state, 8, time_budget_s=30.0) == solver.best_play(state, 8)
    hand = (0, 1, 2, 4, 5, 6, JOKER)
    rules = KalukiRules.from_options("book")
    assert kernel_solver.arrangements(hand, rules, threshold=0, limit=4, time_budget_s=30.0) == solver.arrangements(
        hand, rules, threshold=0, limit=4
    )
    for limit in (-1, True, 2.5):
        with pytest.raises(ValueError, match="limit must be"):
            kernel_solver.best_play(state, limit)
        with pytest.raises(ValueError, match="limit must be"):
            kernel_solver.arrangements(hand, rules, threshold=0, limit=limit)


# The checks that spare the compiled search a walk: each must say exactly whether the walk finds something.

held_cards = st.lists(st.integers(0, 51), max_size=16)


@settings(max_examples=300, deadline=None)
@given(held_cards, st.integers(0, 4), st.integers(0, 3), st.booleans(), st.booleans())
def test_a_run_walk_is_skipped_only_where_it_finds_no_run(cards, jokers, suit, ace_low, ace_high):
    pos = np.full(NUM_CARDS, -1, np.int64)
    for k, card in enumerate(sorted(set(cards))):
        pos[card] = k
    card_value = kernel_solver.card_values(KalukiRules.from_options("book"))
    out, walk = kr.reading_buffers(4096), kr._walk_buffers()
    low_cell, high_cell = (LOW_ACE if ace_low else LOW_ACE + 1), (HIGH_ACE if ace_high else HIGH_ACE - 1)
    for low in range(low_cell, high_cell - MELD_MIN + 2):
        found = kr._runs_from(out, 0, suit, low, high_cell, jokers, pos, card_value, walk)
        assert kr._some_run_from(pos, suit, low, high_cell, jokers) == (found > 0), (low, found)


@settings(max_examples=300, deadline=None)
@given(held_cards, st.integers(0, 4), st.integers(0, 3), st.integers(1, 13), st.integers(0, 12))
def test_a_lay_off_walk_is_skipped_only_where_it_lays_no_natural(cards, jokers, suit, start, ncells):
    held = np.zeros(NUM_CARDS + 1, np.int64)
    for card in cards:
        held[card] += 1
    cells = np.array([start + d for d in range(ncells) if start + d <= HIGH_ACE], np.int64)
    cells = np.concatenate((cells, np.zeros(RUN_MAX - len(cells), np.int64)))
    ncells = min(ncells, HIGH_ACE - start + 1)
    # by its definition: some run of cells outward, each a natural held or one of the jokers, holds a natural
    lays = any(
        sum(not held[kr.cell_card(suit, c)] for c in cells[:n]) <= jokers
        and any(held[kr.cell_card(suit, c)] for c in cells[:n])
        for n in range(1, ncells + 1)
    )
    assert kt._some_natural_within(cells, ncells, held, suit, jokers) == lays
