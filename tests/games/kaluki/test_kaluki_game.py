"""Kaluki's deal, the next hand and the end of the game (RULES.md, "Kaluki": "Deal and
seating", "The game"), and random games with every invariant checked after every move."""

from __future__ import annotations

import contextlib
import copy
import random
from dataclasses import replace

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from carousel_env.core.cards import JOKER
from carousel_env.core.errors import IllegalAction
from carousel_env.games.kaluki.deal import new_game, next_hand
from carousel_env.games.kaluki.engine import apply, may_open
from carousel_env.games.kaluki.legal import candidate_melds, layoff_options, legal_moves
from carousel_env.games.kaluki.melds import End
from carousel_env.games.kaluki.rules import MATCH_HAND_LIMIT, PRESETS, KalukiRules, RummyBonus, Scoring
from carousel_env.games.kaluki.state import DRAW_STOCK, HandEnd, Move, MoveKind, Phase, discard
from tests.games.kaluki.positions import PLAYS, all_cards, pack, position, throw

BOOK, UK40, RUMMY = PRESETS["book"], PRESETS["uk40"], PRESETS["rummy"]


@pytest.mark.parametrize(
    ("preset", "sizes"),
    [("book", [15, 15, 15, 13, 11]), ("uk40", [13] * 5), ("uk51", [13] * 5), ("rummy", [10, 7, 7, 6, 6])],
)
def test_the_deal(preset, sizes):
    rules = PRESETS[preset]
    for players, size in zip(range(2, 7), sizes):
        state = new_game(rules, players, seed=players)
        assert [len(h) for h in state.hands] == [size] * players
        assert len(state.discards) == 1 and len(state.stock) == rules.deck_size - players * size - 1
        assert all_cards(state) == pack(rules)
        assert state.phase is Phase.DRAW and state.current == (state.dealer + 1) % players
        assert not may_open(state)


def test_the_deal_comes_from_the_seed():
    assert new_game(BOOK, 4, seed=11) == new_game(BOOK, 4, seed=11)
    assert new_game(BOOK, 4, seed=11).hands != new_game(BOOK, 4, seed=12).hands
    assert len({new_game(BOOK, 4, seed=s).dealer for s in range(40)}) == 4


@pytest.mark.parametrize(
    ("args", "rule"),
    [
        ((BOOK, 1, 0), "2 to 6 players"),
        ((BOOK, 7, 0), "2 to 6 players"),
        ((BOOK, True, 0), "2 to 6 players"),
        ((BOOK, 2, "s"), "seed is an int"),
        (("book", 2, 0), "needs KalukiRules"),
    ],
)
def test_new_game_checks_its_arguments(args, rule):
    with pytest.raises(IllegalAction, match=rule):
        new_game(*args)


def finish_hand(state, out: int = 0):
    """End the hand at once: ``out`` goes out by discarding their last card."""
    n = state.num_players
    hands = ["5H" if s == out else "KS 2C" for s in range(n)]
    made = position(hands, rules=state.rules, current=out, totals=state.totals, in_play=state.in_play)
    made = replace(made, seed=state.seed, dealer=state.dealer, hand_number=state.hand_number, results=state.results)
    return apply(made, throw("5H"))


def test_the_deal_passes_left_and_heads_up_the_winner_may_deal():
    state = new_game(BOOK, 3, seed=5)
    following = next_hand(finish_hand(state, out=2))
    assert following.dealer == (state.dealer + 1) % 3 and following.hand_number == 1
    assert following.hands != state.hands
    heads_up = new_game(RUMMY, 2, seed=5)
    winner = 1 - heads_up.dealer
    assert next_hand(finish_hand(heads_up, out=winner)).dealer == winner
    assert next_hand(finish_hand(heads_up, out=heads_up.dealer)).dealer == heads_up.dealer
    alternate = new_game(BOOK, 2, seed=5)
    assert next_hand(finish_hand(alternate, out=alternate.dealer)).dealer == 1 - alternate.dealer
    with pytest.raises(IllegalAction, match="when a hand is over"):
        next_hand(state)


def test_winner_collects_to_the_target():
    state = position(["5H", "KS 2C"], rules=RUMMY, totals=(95, 90))
    after = apply(state, throw("5H"))
    assert after.phase is Phase.GAME_OVER and after.game_result.winners == (0,) and after.totals == (107, 90)
    with pytest.raises(IllegalAction, match="the next hand is dealt when a hand is over"):
        next_hand(after)


def test_penalty_eliminates_over_the_limit_and_the_last_left_wins():
    rules = KalukiRules(scoring="penalty")
    state = position(["5H", "KS 2C", "KS 2C"], rules=rules, totals=(0, 140, 100))
    after = apply(state, throw("5H"))
    assert after.phase is Phase.HAND_OVER and after.in_play == (True, False, True) and after.totals == (0, 152, 112)
    following = next_hand(after)
    assert following.hands[1] == () and len(following.hands[0]) == 15 == rules.hand_size(2)
    assert all_cards(following) == pack(rules)
    seat = following.current
    state = apply(following, DRAW_STOCK)
    state = apply(state, discard(state.hands[seat][0]))
    assert state.current != 1
    last = position(["5H", "KS 2C"], rules=rules, totals=(0, 140))
    over = apply(last, throw("5H"))
    assert over.phase is Phase.GAME_OVER and over.game_result.winners == (0,)


def test_when_everyone_left_exceeds_the_limit_the_lowest_wins():
    rules = KalukiRules(scoring="penalty", restocks=0)
    state = position(["KS 2C", "KS 3C"], rules=rules, phase=Phase.DRAW, stock="", totals=(149, 140))
    over = apply(state, DRAW_STOCK)
    assert over.in_play == (False, False) and over.game_result.winners == (1,) and over.totals == (161, 153)


def test_first_to_limit_the_fewest_points_win():
    rules = KalukiRules.from_options("rummy", scoring="penalty")
    state = position(["5H", "KS 2C", "3C"], rules=rules, totals=(90, 80, 97))
    over = apply(state, throw("5H"))
    assert over.phase is Phase.GAME_OVER and over.totals == (90, 92, 100) and over.game_result.winners == (0,)


def test_a_game_of_one_hand():
    over = apply(position(["5H", "KS 2C"], rules=KalukiRules(game_length="hand")), throw("5H"))
    assert over.phase is Phase.GAME_OVER and over.game_result.winners == (0,)
    drawn = apply(
        position(["5H", "KS"], rules=KalukiRules(game_length="hand", restocks=0), stock="", phase=Phase.DRAW),
        DRAW_STOCK,
    )
    assert drawn.game_result.winners == ()


def test_a_match_ends_at_the_hand_limit():
    state = position(["5H", "KS 2C"], totals=(3, 7), rules=KalukiRules(restocks=0), phase=Phase.DRAW, stock="")
    result = finish_hand(state).last_hand
    state = replace(state, results=(result,) * (MATCH_HAND_LIMIT - 1))
    over = apply(state, DRAW_STOCK)
    assert over.phase is Phase.GAME_OVER and over.game_result.winners == (1,)


# ---------------------------------------------------------------- random games

MAX_HAND_MOVES = 20_000


def check_hand(state) -> None:
    """The last hand's scores follow its scoring rule and the totals add them up."""
    rules, result = state.rules, state.last_hand
    others = [s for s in range(state.num_players) if s != result.out]
    if result.end is not HandEnd.OUT:
        assert result.out == -1
        expected = (0,) * state.num_players if rules.scoring is Scoring.WINNER_COLLECTS else result.values
        assert result.scores == expected
    elif rules.scoring is Scoring.WINNER_COLLECTS:
        assert result.scores[result.out] == sum(result.values[s] for s in others)
        assert all(result.scores[s] == 0 for s in others)
    else:
        assert result.scores[result.out] == 0 and all(result.scores[s] == result.values[s] for s in others)
    assert state.totals == tuple(sum(r.scores[s] for r in state.results) for s in range(state.num_players))


def junk_move(rng: random.Random, state) -> Move:
    """A move of random kind and fields, mostly illegal: the engine must refuse it cleanly."""
    hand = state.hands[state.current]
    candidates = candidate_melds(hand, state.rules)
    return Move(
        rng.choice(list(MoveKind)),
        card=rng.choice([*hand, -1, JOKER, 51, rng.randrange(52)]),
        melds=tuple(rng.sample(candidates, min(len(candidates), rng.randrange(3)))),
        seat=rng.randrange(-1, state.num_players + 1),
        meld=rng.randrange(-1, 4),
        declare=rng.choice([-1, rng.randrange(52)]),
        cards=tuple(rng.sample(hand, min(len(hand), rng.randrange(3)))),
        end=rng.choice([None, End.LOW, End.HIGH]),
    )


def play(rules: KalukiRules, players: int, seed: int, hands: int):
    """Random legal moves (plays preferred) for ``hands`` hands, checking every invariant."""
    rng = random.Random(seed)
    state = new_game(rules, players, seed)
    full = pack(rules)
    for _ in range(hands):
        moves = 0
        while not state.over:
            if rng.random() < 0.1:
                before = copy.deepcopy(state)
                with contextlib.suppress(IllegalAction):  # a legal one is fine too: it is not played
                    apply(state, junk_move(rng, state))
                assert state == before
            options = legal_moves(state, limit=4)
            plays = [m for m in options if m.kind in PLAYS or (m.kind is MoveKind.TAKE_DISCARD and m.melds)]
            move = rng.choice(plays if plays and rng.random() < 0.8 else options)
            state = apply(state, move)
            moves += 1
            assert moves < MAX_HAND_MOVES
            assert all_cards(state) == full
            for seat in range(players):  # a seat out of the game holds no cards (hands stay shown at the end)
                assert state.over or state.in_play[seat] or not state.hands[seat]
            if state.phase is Phase.PLAY:  # a card to discard, or a copy of the taken card still to lay off
                assert any(c != state.taken for c in state.hands[state.current]) or layoff_options(state)
        check_hand(state)
        if state.phase is Phase.GAME_OVER:
            break
        state = next_hand(state)
        assert all_cards(state) == full
    return state


@settings(max_examples=24, deadline=None)
@given(st.sampled_from(list(PRESETS)), st.integers(2, 6), st.integers(0, 2**32))
def test_random_games_keep_every_card_and_score_by_the_rules(preset, players, seed):
    play(PRESETS[preset], players, seed, hands=2)


@settings(max_examples=12, deadline=None)
@given(
    st.sampled_from(["either_missing", "all_missing"]),
    st.sampled_from(["hand", "reuse_now"]),
    st.sampled_from(["opening", "meld", "any"]),
    st.booleans(),
    st.integers(2, 6),
    st.integers(0, 2**32),
)
@example(  # a joker laid off left only the card taken from the pile, which only a discard could end
    release="all_missing", retrieved="hand", take="any", by_discard=True, players=3, seed=555
)
def test_random_games_under_mixed_options(release, retrieved, take, by_discard, players, seed):
    rules = KalukiRules(
        set_joker_release=release, retrieved_joker=retrieved, discard_take=take, go_out_by_discard=by_discard
    )
    play(rules, players, seed, hands=1)


def test_whole_matches_end():
    for preset, players in (("rummy", 2), ("uk40", 3), ("book", 4)):
        rules = (
            KalukiRules.from_options(preset, target=60)
            if preset != "uk40"
            else KalukiRules.from_options(preset, limit=40)
        )
        state = play(rules, players, seed=players, hands=MATCH_HAND_LIMIT)
        assert state.phase is Phase.GAME_OVER and state.game_result.winners
        assert rules.rummy_bonus is RummyBonus.NONE
