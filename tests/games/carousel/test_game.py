"""Turn structure, round ends, dealer rotation and bad input (RULES.md "A turn",
"End of a round", "Deal and seating")."""

from dataclasses import replace

import pytest

from carousel_env.core.cards import hand_points, parse_hand, parse_table
from carousel_env.core.errors import IllegalAction
from carousel_env.games.carousel.engine.errors import IllegalPlay
from carousel_env.games.carousel.engine.game import ActionKind, Phase, allowed, apply, card_count, new_game, next_round
from carousel_env.games.carousel.engine.manipulation import Play
from carousel_env.games.carousel.engine.rules import carousel, manipulation_rummy
from carousel_env.games.carousel.engine.scoring import RoundEnd
from carousel_env.games.carousel.solver import can_play, solve

DRAW, KNOCK, END, PLAY = ActionKind.DRAW_AGAIN, ActionKind.KNOCK, ActionKind.END_TURN, ActionKind.PLAY


def two_player(seed=3):
    return new_game(carousel(2), seed)


def test_deal_ten_cards_each_and_first_draw_is_automatic():
    for n in range(2, 6):
        state = new_game(carousel(n), 11)
        first = (state.dealer + 1) % n
        assert state.current == first
        assert state.draws_this_turn == 1
        assert [len(h) for h in state.hands] == [11 if p == first else 10 for p in range(n)]
        assert card_count(state) == carousel(n).deck_size
        assert state.phase is Phase.DRAWN


def test_same_seed_same_game_and_different_seed_different_deal():
    assert new_game(carousel(3), 5) == new_game(carousel(3), 5)
    assert new_game(carousel(3), 5).hands != new_game(carousel(3), 6).hands


def test_up_to_three_draws_then_no_play():
    state = replace(two_player(), hands=(parse_hand("KS KH KD QC QD JC JD 9S 9H 8C 8D"), parse_hand("2C")))
    state = replace(state, current=0)
    assert allowed(state) == {PLAY, DRAW}
    state = apply(state, DRAW)
    assert state.draws_this_turn == 2 and allowed(state) == {PLAY, DRAW}
    state = apply(state, DRAW)
    assert state.draws_this_turn == 3
    assert allowed(state) == {END}  # the third card: no play, no knock (hand too big)
    with pytest.raises(IllegalAction, match="play is not allowed"):
        apply(state, Play(state.hands[0][:1], state.table))


def test_knock_allowed_at_five_or_less():
    state = replace(two_player(), current=0, hands=(parse_hand("AC 4D"), parse_hand("KS KH")))
    assert KNOCK in allowed(state)
    state = replace(state, hands=(parse_hand("2C 4D"), parse_hand("KS KH")))
    assert KNOCK not in allowed(state)
    with pytest.raises(IllegalAction, match="knock is not allowed"):
        apply(state, KNOCK)


def test_knock_ends_the_round_and_scores():
    start = two_player()
    state = replace(start, current=0, hands=(parse_hand("AC 4D"), parse_hand("KS KH")))
    over = apply(state, KNOCK)
    assert over.phase is Phase.ROUND_OVER
    assert over.last_round.end is RoundEnd.KNOCK and over.last_round.knocker == 0
    assert over.scores == (15, 0) and over.rounds_won == (1, 0)


def test_play_then_play_again_knock_or_end_but_never_draw():
    state = replace(two_player(), current=0, table=(), hands=(parse_hand("3C 4C 5C 7H 7S 7D AC"), parse_hand("KS")))
    state = apply(state, Play(parse_hand("3C 4C 5C"), parse_table("3C 4C 5C")))
    assert state.phase is Phase.PLAYED
    assert allowed(state) == {PLAY, END}
    state = apply(state, Play(parse_hand("7H 7S 7D"), parse_table("3C 4C 5C | 7H 7S 7D")))
    assert allowed(state) == {PLAY, END, KNOCK}  # AC left: 1 point
    with pytest.raises(IllegalAction):
        apply(state, DRAW)


def test_going_out_ends_the_round_at_once():
    state = replace(
        two_player(), current=0, table=parse_table("3C 4C 5C"), hands=(parse_hand("6C"), parse_hand("KS 2D"))
    )
    over = apply(state, Play(parse_hand("6C"), parse_table("3C 4C 5C 6C")))
    assert over.phase is Phase.ROUND_OVER
    assert over.last_round.end is RoundEnd.GOING_OUT and over.last_round.went_out == 0
    assert over.scores == (25 + 12, 0)


def test_stock_exhaustion_gives_everyone_one_final_turn():
    state = new_game(carousel(3), 2)
    state = replace(state, stock=state.stock[-1:], draws_this_turn=1)
    # The current player drew; one card remains. Drawing it empties the stock.
    first = state.current
    state = apply(state, DRAW)
    assert not state.stock
    assert allowed(state) == {PLAY, END} | ({KNOCK} if hand_points(state.hands[first]) <= 5 else set())
    state = apply(state, END)
    seen = []
    while state.phase is not Phase.ROUND_OVER:
        assert state.phase is Phase.FINAL_TURN and state.draws_this_turn == 0
        assert DRAW not in allowed(state)
        seen.append(state.current)
        state = apply(state, END)
    assert seen == [(first + 1) % 3, (first + 2) % 3, first]
    assert state.last_round.end is RoundEnd.STOCK_EXHAUSTED and state.last_round.knocker is None


def test_dealer_rotates_left_each_round():
    state = two_player()
    dealers = [state.dealer]
    for _ in range(3):
        state = replace(state, current=state.current, hands=tuple(parse_hand("AC") for _ in range(2)))
        state = apply(state, KNOCK)
        state = next_round(state)
        dealers.append(state.dealer)
        assert state.current == (state.dealer + 1) % 2
    assert dealers == [(dealers[0] + k) % 2 for k in range(4)]


def test_game_ends_at_150_with_bonus():
    state = replace(
        two_player(), current=0, scores=(140, 30), rounds_won=(3, 1), hands=(parse_hand("AC"), parse_hand("KS KH"))
    )
    over = apply(state, KNOCK)
    assert over.phase is Phase.GAME_OVER
    result = over.game_result
    assert result.winner == 0
    assert result.totals_before_bonus == (159, 30)
    assert result.bonuses == (100, 25)
    assert result.standings == (0, 1)
    with pytest.raises(IllegalAction, match="game is over"):
        apply(over, END)
    with pytest.raises(IllegalAction):
        next_round(over)


@pytest.mark.parametrize(
    "action",
    [KNOCK, "draw", 3, None, Play((), ())],
)
def test_bad_actions_raise_and_leave_state_unchanged(action):
    state = two_player()
    before = replace(state)
    with pytest.raises((IllegalAction, IllegalPlay)):
        apply(state, action)
    assert state == before


def test_wrong_player_is_rejected():
    state = two_player()
    other = (state.current + 1) % 2
    with pytest.raises(IllegalAction, match=f"player {state.current}'s turn, not player {other}'s"):
        apply(state, DRAW, player=other)
    assert apply(state, DRAW, player=state.current).draws_this_turn == 2


def test_illegal_play_leaves_state_unchanged():
    state = replace(
        two_player(), current=0, table=parse_table("3C 4C 5C"), hands=(parse_hand("7C 9D"), parse_hand("KS"))
    )
    snapshot = replace(state)
    with pytest.raises(IllegalPlay):
        apply(state, Play(parse_hand("7C"), parse_table("3C 4C 5C 7C")))
    assert state == snapshot


def test_next_round_only_when_round_is_over():
    with pytest.raises(IllegalAction, match="only allowed when a round is over"):
        next_round(two_player())


def test_bad_seed_is_rejected():
    with pytest.raises(IllegalAction, match="seed"):
        new_game(carousel(2), "7")


def test_manipulation_rummy_needs_a_play_check():
    # The engine never imports the solver: Manipulation Rummy's must-play rule is given it.
    with pytest.raises(TypeError, match="can_play"):
        new_game(manipulation_rummy(3), 1)
    state = new_game(manipulation_rummy(3), 1, can_play=can_play)
    assert state.can_play is can_play
    # Play the round out by drawing (a forced draw happens inside the engine) and ending turns.
    while state.phase is not Phase.ROUND_OVER:
        kinds = allowed(state)
        if PLAY in kinds and kinds == {PLAY}:
            state = apply(state, solve(state.table, state.hands[state.current], state.rules).suggestions[0].play)
        else:
            state = apply(state, DRAW if DRAW in kinds else END)
    assert next_round(state).can_play is can_play
