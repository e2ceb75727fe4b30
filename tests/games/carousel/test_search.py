"""The seat view and determinization (engine), and the determinized Monte Carlo search
player: it decides from its seat's view only, is reproducible, keeps to its budget, and
plays every table size and both variants through the match runner."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from carousel_env.core.cards import JOKER, is_table_joker, make_deck, parse_hand
from carousel_env.games.carousel.agents import search as search_module
from carousel_env.games.carousel.agents.match import engine_player, play_match
from carousel_env.games.carousel.agents.registry import UnknownPolicyError, get_policy, is_policy_name, policy_names
from carousel_env.games.carousel.agents.search import SearchPlayer, ViewPolicy, is_view_policy, rollout, rollout_action
from carousel_env.games.carousel.engine.game import ActionKind, GameState, Phase, apply, new_game, next_round
from carousel_env.games.carousel.engine.information import SeatView, determinize, seat_view
from carousel_env.games.carousel.engine.rules import Rules, carousel, manipulation_rummy
from carousel_env.games.carousel.envs.aec import FIRST_SUGGESTION, decision
from carousel_env.games.carousel.solver import can_play

RULES = [carousel(2), carousel(3), carousel(4), carousel(5), manipulation_rummy(3), manipulation_rummy(5)]


def reached_state(rules: Rules, seed: int, steps: int) -> GameState:
    """The state after ``steps`` actions of a seeded game (rollout moves mixed with random
    draws, so that hands grow and tables fill), dealing on across rounds."""
    rng = random.Random(seed)
    state = new_game(rules, seed, can_play=can_play)
    for _ in range(steps):
        if state.phase is Phase.GAME_OVER:
            break
        if state.phase is Phase.ROUND_OVER:
            state = next_round(state)
            continue
        action = rollout_action(state)
        if rng.random() < 0.3 and state.phase is Phase.DRAWN and state.stock and state.draws_this_turn < 3:
            action = ActionKind.DRAW_AGAIN
        state = apply(state, action)
    return state


def hidden(state: GameState, seat: int) -> Counter:
    cards = Counter(state.stock)
    for other, hand in enumerate(state.hands):
        if other != seat:
            cards.update(hand)
    return cards


def decision_state(rules: Rules, seed: int) -> GameState:
    """A state at a decision with more than one legal action."""
    for steps in range(seed % 7 + 3, 400):
        state = reached_state(rules, seed, steps)
        if state.phase in (Phase.ROUND_OVER, Phase.GAME_OVER):
            continue
        mask, _ = decision(state, 8)
        if mask.sum() > 1:
            return state
    raise AssertionError("no decision found")


# ---------------------------------------------------------------- seat view, determinization


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=st.sampled_from(RULES), seed=st.integers(0, 10_000), steps=st.integers(0, 120), draw=st.integers(0, 99))
def test_a_determinization_has_the_same_view_and_deals_the_unseen_cards(rules, seed, steps, draw):
    state = reached_state(rules, seed, steps)
    deck = Counter(make_deck(rules.decks, rules.jokers))
    for seat in range(rules.num_players):
        view = seat_view(state, seat)
        assert Counter(view.unseen) == hidden(state, seat)
        table = Counter(JOKER if is_table_joker(u) else u for meld in state.table for u in meld)
        assert Counter(view.unseen) + table + Counter(view.hand) == deck
        for kept in (None, can_play):
            world = determinize(view, random.Random(draw), kept)
            assert seat_view(world, seat) == view
            # The hidden cards are a permutation of the unseen ones, the sizes kept.
            assert sorted(hidden(world, seat).elements()) == list(view.unseen)
            assert [len(h) for h in world.hands] == [len(h) for h in state.hands]
            assert len(world.stock) == len(state.stock)
            assert world.hands[seat] == state.hands[seat] and world.rules == rules
            assert world.can_play is state.can_play
    # At the acting seat's decision the determinized game goes on legally, into the next round.
    if state.phase not in (Phase.ROUND_OVER, Phase.GAME_OVER):
        world = determinize(seat_view(state, state.current), random.Random(draw))
        while world.phase is not Phase.GAME_OVER and world.round_index == state.round_index:
            world = next_round(world) if world.phase is Phase.ROUND_OVER else apply(world, rollout_action(world))


def test_kept_hands_hold_no_play_far_more_often_than_a_uniform_deal():
    # Players keep what they cannot play (benchmarks/bench_determinization.py): so do kept deals.
    rng = random.Random(0)
    with_play = {"uniform": 0, "kept": 0}
    hands = 0
    for seed in range(6):
        state = decision_state(manipulation_rummy(4), seed)
        view = seat_view(state, state.current)
        for kind, kept in (("uniform", None), ("kept", can_play)):
            world = determinize(view, rng, kept)
            others = [h for s, h in enumerate(world.hands) if s != state.current]
            with_play[kind] += sum(can_play(world.table, hand, world.rules) for hand in others)
        hands += 3
    assert with_play["kept"] <= hands // 6 < with_play["uniform"], (with_play, hands)


def test_the_view_hides_the_seed_and_the_other_hands():
    state = decision_state(carousel(3), 4)
    view = seat_view(state, 1)
    fields = set(SeatView.__dataclass_fields__)
    assert not {"seed", "hands", "stock", "forced_draws"} & fields
    assert view.hand == state.hands[1] and view.hand_sizes == tuple(len(h) for h in state.hands)
    with pytest.raises(ValueError, match="seat"):
        seat_view(state, 3)


# ---------------------------------------------------------------- the search player


def other_world(state: GameState, seat: int) -> GameState:
    """A state with the same view for ``seat`` and different hidden cards."""
    view = seat_view(state, seat)
    for draw in range(100):
        world = determinize(view, random.Random(1000 + draw))
        if world.hands != state.hands:
            return world
    raise AssertionError("no other deal")


@pytest.mark.parametrize(
    "rules", [carousel(2), carousel(4), manipulation_rummy(3)], ids=lambda r: f"{r.variant.value}-{r.num_players}p"
)
def test_it_decides_the_same_whatever_the_hidden_cards(rules):
    for seed in range(3):
        state = decision_state(rules, seed)
        world = other_world(state, state.current)
        assert seat_view(world, state.current) == seat_view(state, state.current)
        for kept in (False, True):
            a, b = SearchPlayer(samples=3, seed=11, kept=kept), SearchPlayer(samples=3, seed=11, kept=kept)
            assert engine_player(a)(state) == engine_player(b)(world)
            assert a.last_values == b.last_values


def test_the_same_seed_plays_the_same_and_another_seed_may_not():
    state = decision_state(carousel(2), 2)
    mask, _ = decision(state, 8)
    view = seat_view(state, state.current)
    first, again = SearchPlayer(samples=4, seed=5), SearchPlayer(samples=4, seed=5)
    assert [first.decide(view, mask) for _ in range(3)] == [again.decide(view, mask) for _ in range(3)]
    assert first.last_values == again.last_values
    one = play_match(["search@2", "smart"], games=2, seed=3, episode="round")
    two = play_match(["search@2", "smart"], games=2, seed=3, episode="round")
    assert [g.returns for g in one.games] == [g.returns for g in two.games]
    assert one.names == ("search@2", "smart")


def test_it_keeps_to_its_sample_budget(monkeypatch):
    calls = []
    real = search_module.rollout

    def counted(state, seat):
        calls.append(seat)
        return real(state, seat)

    monkeypatch.setattr(search_module, "rollout", counted)
    state = decision_state(carousel(3), 1)
    mask, _ = decision(state, 8)
    legal = int(mask.sum())
    player = SearchPlayer(samples=5, seed=0)
    player.decide(seat_view(state, state.current), mask)
    assert len(calls) == player.rollouts == 5 * legal
    assert set(player.last_values) == set(np.flatnonzero(mask).tolist())
    # A time budget stops adding samples once spent (one sample at least).
    calls.clear()
    hurried = SearchPlayer(samples=50, max_ms=1e-6, seed=0)
    hurried.decide(seat_view(state, state.current), mask)
    assert len(calls) == legal
    # A single legal action is taken without search.
    calls.clear()
    only = np.zeros_like(mask)
    only[int(np.flatnonzero(mask)[0])] = 1
    assert player.decide(seat_view(state, state.current), only) == int(np.flatnonzero(mask)[0])
    assert not calls


def test_search_plays_the_worlds_it_is_dealt(monkeypatch):
    # bench_search --deal hands|all hands it the real state: every rollout starts there.
    starts = []
    real = search_module.rollout
    monkeypatch.setattr(search_module, "rollout", lambda state, seat: starts.append(state) or real(state, seat))
    state = decision_state(manipulation_rummy(3), 2)
    mask, suggestions = decision(state, 8)
    view = seat_view(state, state.current)
    dealt = []
    player = SearchPlayer(samples=3, seed=0)
    player.search(view, mask, lambda: dealt.append(state) or state)
    assert len(dealt) == 3 and player.rollouts == 3 * int(mask.sum())
    # The real state is one world three times over, and rollouts are deterministic: each
    # action's value is its one rollout from the real state.
    for action in np.flatnonzero(mask):
        after = apply(state, search_module.engine_move(int(action), suggestions))
        assert starts.count(after) >= 3
        assert player.last_values[int(action)] == pytest.approx(real(after, state.current))


def one_run_from_out() -> GameState:
    """Heads-up, seat 0 to play after its draw, holding 3C 4C 5C: it can go out."""
    rules = carousel(2)
    deck = make_deck(rules.decks, rules.jokers)
    hand = parse_hand("3C 4C 5C")
    rest = list(deck)
    for card in hand:
        rest.remove(card)
    random.Random(0).shuffle(rest)
    return GameState(
        rules=rules,
        seed=0,
        round_index=0,
        dealer=1,
        hands=(hand, tuple(sorted(rest[:10]))),
        table=(),
        stock=tuple(rest[10:]),
        current=0,
        phase=Phase.DRAWN,
        draws_this_turn=1,
        turns_this_round=3,
        final_turns_left=None,
        scores=(0, 0),
        rounds_won=(0, 0),
    )


def test_it_goes_out_when_it_can():
    state = one_run_from_out()
    mask, suggestions = decision(state, 8)
    action = SearchPlayer(samples=4, seed=0).decide(seat_view(state, 0), mask)
    assert action >= FIRST_SUGGESTION and suggestions[action - FIRST_SUGGESTION].hand_after == ()


@pytest.mark.parametrize(
    ("players", "variant"),
    [
        (2, "carousel"),
        (3, "carousel"),
        (4, "carousel"),
        (5, "carousel"),
        (3, "manipulation_rummy"),
        (5, "manipulation_rummy"),
    ],
)
def test_it_plays_every_table_size_and_both_variants(players, variant):
    player = get_policy("search@1", seed=players)
    match = play_match([player] + ["smart"] * (players - 1), games=1, seed=players, variant=variant, episode="round")
    assert len(match.games) == 1 and len(match.games[0].rounds) == 1
    assert player.decisions > 0 and player.rollouts >= 2 * player.decisions


def test_rollouts_end_the_round_and_score_it():
    state = decision_state(manipulation_rummy(4), 3)
    value = rollout(state, state.current)
    assert isinstance(value, float)
    state = decision_state(carousel(2), 3)
    assert rollout(state, 0) == -rollout(state, 1)  # heads-up: zero-sum


# ---------------------------------------------------------------- registry and errors


def test_the_registry_names_it_with_its_budget():
    assert "search" not in policy_names()  # the cheap observation policies only
    assert is_policy_name("search") and is_policy_name("search@16") and is_policy_name("smart")
    assert not is_policy_name("search@0") and not is_policy_name("search@x") and not is_policy_name("searcher")
    default = get_policy("search", seed=1)
    assert isinstance(default, SearchPlayer) and default.samples == search_module.DEFAULT_SAMPLES
    assert get_policy("search@16").samples == 16
    assert get_policy("search", samples=3, max_ms=20).max_ms == 20.0
    assert isinstance(default, ViewPolicy) and is_view_policy(default)
    assert not is_view_policy(get_policy("smart"))
    with pytest.raises(UnknownPolicyError, match="search@<samples>"):
        get_policy("searcher")


@pytest.mark.parametrize(
    ("name", "options", "option"),
    [
        ("search", {"samples": 0}, "samples"),
        ("search", {"samples": 2.5}, "samples"),
        ("search", {"samples": True}, "samples"),
        ("search@0", {}, "samples"),
        ("search@x", {}, "samples"),
        ("search@-3", {}, "samples"),
        ("search@4", {"samples": 4}, "samples"),
        ("search", {"max_ms": 0}, "max_ms"),
        ("search", {"max_ms": -5}, "max_ms"),
        ("search", {"max_ms": "fast"}, "max_ms"),
    ],
)
def test_bad_budgets_are_clear_errors(name, options, option):
    with pytest.raises(ValueError, match=option):
        get_policy(name, **options)


def test_it_refuses_an_observation_or_another_seats_turn():
    with pytest.raises(ValueError, match="search option kept must be True or False, got 'yes'"):
        SearchPlayer(kept="yes")
    player = SearchPlayer(samples=1, seed=0)
    state = decision_state(carousel(2), 0)
    mask, _ = decision(state, 8)
    with pytest.raises(TypeError, match="view"):
        player(np.zeros(10, np.float32), mask)
    with pytest.raises(ValueError, match="not the one to act"):
        player.decide(seat_view(state, 1 - state.current), mask)
    wrong = mask.copy()
    wrong[:] = 1
    with pytest.raises(ValueError, match="action mask"):
        player.decide(seat_view(state, state.current), wrong)
