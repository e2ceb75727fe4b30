"""Invariants over random full games with 2 to 5 players (hypothesis): card conservation
at every step, every table meld valid after every play, scores that follow the formulas,
and rounds and games that end."""

import random
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from carousel_env.core.cards import JOKER, face, hand_points, is_table_joker, make_deck
from carousel_env.games.carousel.engine.game import (
    MAX_ROUNDS,
    ActionKind,
    GameState,
    Phase,
    allowed,
    apply,
    new_game,
    next_round,
)
from carousel_env.games.carousel.engine.melds import is_valid_meld
from carousel_env.games.carousel.engine.rules import RoundBonus, Rules, Variant
from carousel_env.games.carousel.engine.scoring import RoundEnd, finish_game, score_round
from carousel_env.games.carousel.solver import can_play, solve


def all_cards(state: GameState) -> Counter:
    cards = Counter()
    for hand in state.hands:
        cards.update(hand)
    cards.update(JOKER if is_table_joker(u) else u for meld in state.table for u in meld)
    cards.update(state.stock)
    return cards


def random_action(state: GameState, rng: random.Random):
    kinds = sorted(allowed(state))
    kind = rng.choice(kinds)
    # Favour plays so that tables grow and jokers move: the interesting invariants live there.
    if ActionKind.PLAY in kinds and rng.random() < 0.7:
        kind = ActionKind.PLAY
    if kind is ActionKind.PLAY:
        suggestions = solve(state.table, state.hands[state.current], state.rules, k=8).suggestions
        if suggestions:
            return rng.choice(suggestions).play
        kinds.remove(ActionKind.PLAY)
        if not kinds:
            raise AssertionError("a play was the only choice but the solver found none")
        kind = rng.choice(kinds)
    return kind


def play_and_check(rules: Rules, seed: int, choice_seed: int) -> GameState:
    rng = random.Random(choice_seed)
    deck = Counter(make_deck(rules.decks, rules.jokers))
    state = new_game(rules, seed, can_play=can_play)
    rounds = 1
    actions_this_round = 0
    while not state.is_over:
        assert all_cards(state) == deck
        if state.phase is Phase.ROUND_OVER:
            state = next_round(state)
            rounds += 1
            actions_this_round = 0
            continue
        before = state
        state = apply(state, random_action(state, rng))
        actions_this_round += 1
        assert actions_this_round < 2000, "a round did not end"
        assert all(is_valid_meld(m, rules) for m in state.table)
        if state.phase in (Phase.ROUND_OVER, Phase.GAME_OVER):
            check_round_score(before, state)
    assert rounds < MAX_ROUNDS
    check_game_totals(state)
    return state


def check_round_score(before: GameState, after: GameState) -> None:
    result = after.last_round
    assert result.end is not RoundEnd.TURN_CAP
    expected = score_round(
        [hand_points(h) for h in after.hands],
        after.rules,
        knocker=result.knocker,
        went_out=result.went_out,
        end=result.end,
    )
    assert result == expected
    assert after.scores == tuple(s + p for s, p in zip(before.scores, result.points))
    if result.end is RoundEnd.KNOCK:
        assert hand_points(after.hands[result.knocker]) <= 5
    if result.end is RoundEnd.GOING_OUT:
        assert after.hands[result.went_out] == ()
    if result.end is RoundEnd.STOCK_EXHAUSTED:
        assert not after.stock


def check_game_totals(state: GameState) -> None:
    game = state.game_result
    assert [sum(r.points[p] for r in state.round_scores) for p in range(state.num_players)] == list(state.scores)
    assert max(state.scores) >= state.rules.target_score
    assert game == finish_game(state.scores, state.rounds_won, state.dealer, state.rules)
    assert state.scores[game.winner] == max(state.scores)
    wins = Counter(w for r in state.round_scores for w in r.winners)
    assert tuple(wins.get(p, 0) for p in range(state.num_players)) == state.rounds_won


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    num_players=st.integers(2, 5),
    seed=st.integers(0, 2**31),
    choice_seed=st.integers(0, 2**31),
    round_bonus=st.sampled_from(list(RoundBonus)),
)
def test_random_carousel_games_keep_every_invariant(num_players, seed, choice_seed, round_bonus):
    play_and_check(Rules(num_players, Variant.CAROUSEL, round_bonus), seed, choice_seed)


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(num_players=st.integers(3, 5), seed=st.integers(0, 2**31), choice_seed=st.integers(0, 2**31))
def test_random_variant_games_keep_every_invariant(num_players, seed, choice_seed):
    state = play_and_check(Rules(num_players, Variant.MANIPULATION_RUMMY), seed, choice_seed)
    assert all(r.end is not RoundEnd.KNOCK for r in state.round_scores)


def test_table_jokers_always_declare_a_real_card():
    state = play_and_check(Rules(3), 7, 7)
    for meld in state.table:
        for unit in meld:
            if is_table_joker(unit):
                assert 0 <= face(unit) < 52


def test_whole_game_replays_from_seed_and_decisions():
    rules = Rules(4)
    first = play_and_check(rules, 123, 9)
    second = play_and_check(rules, 123, 9)
    assert first == second
