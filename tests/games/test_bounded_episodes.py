"""Every hand, round and match ends (issue 57): a policy that always takes the discard pile's
top card, which once played Gin's book and Carioca forever, ends within the project's bounds
(docs/RULES.md), in the AEC env and the vector env alike, scored as RULES.md says."""

from __future__ import annotations

import numpy as np
import pytest

from carousel_env.games.carioca import engine as ce
from carousel_env.games.carioca.env import CariocaAction
from carousel_env.games.carioca.env import raw_env as carioca_env
from carousel_env.games.carioca.rules import PILE_DRAW_LIMIT, hand_points
from carousel_env.games.carioca.vector import CariocaVectorEnv
from carousel_env.games.gin_rummy import engine as ge
from carousel_env.games.gin_rummy import rules as gin_rules
from carousel_env.games.gin_rummy.env import GinAction
from carousel_env.games.gin_rummy.env import raw_env as gin_env
from carousel_env.games.gin_rummy.rules import (
    MIN_MATCH_HANDS,
    OPENSPIEL_UPCARD_DRAWS,
    UPCARD_DRAW_LIMIT,
    GinRules,
)
from carousel_env.games.gin_rummy.vector import GinVectorEnv


def take_the_top(mask: np.ndarray, take: int, first_discard: int) -> int:
    """Take the pile's top whenever it may, else the lowest discard (never a knock, never
    going down: nothing that would end a hand or round the usual way)."""
    if mask[take]:
        return take
    legal = np.flatnonzero(mask)
    discards = legal[legal >= first_discard]
    return int(discards[0]) if len(discards) else int(legal[0])


def gin_choice(mask: np.ndarray) -> int:
    return take_the_top(mask[: GinAction.FIRST_KNOCK], GinAction.TAKE_UPCARD, GinAction.FIRST_DISCARD)


def carioca_choice(mask: np.ndarray) -> int:
    return take_the_top(mask[: CariocaAction.FIRST_LAY_OFF], CariocaAction.TAKE_DISCARD, CariocaAction.FIRST_DISCARD)


def lockstep(aec, venv, choose, seed: int, limit: int) -> tuple[int, object]:
    """One episode through both envs with ``choose``: the same masks, observations, rewards
    and end at every step. Returns the steps it took (it must end within ``limit``) and the
    vector env's finished game."""
    step = venv.reset(seed=seed)
    aec.reset(seed=seed)
    for t in range(limit):
        obs = aec.observe(aec.agent_selection)
        assert aec.possible_agents[step.to_play[0]] == aec.agent_selection, t
        np.testing.assert_array_equal(step.action_mask[0], obs["action_mask"])
        np.testing.assert_array_equal(step.observation[0], obs["observation"])
        action = choose(obs["action_mask"])
        step = venv.step(np.array([action]))
        aec.step(action)
        assert step.rewards[0].tolist() == pytest.approx([aec.rewards[a] for a in aec.possible_agents]), t
        assert step.terminated[0] == all(aec.terminations.values()), t
        if step.terminated[0]:
            (finished,) = step.info.finished
            return t + 1, finished
    raise AssertionError(f"the episode did not end within {limit} steps")


# ---------------------------------------------------------------- Gin Rummy


def test_the_bounds_are_far_beyond_normal_play_and_openspiel_keeps_its_own():
    assert GinRules().upcard_draw_limit == UPCARD_DRAW_LIMIT == 100
    assert GinRules.from_options("eaai").upcard_draw_limit == UPCARD_DRAW_LIMIT
    assert GinRules.from_options("openspiel").upcard_draw_limit == OPENSPIEL_UPCARD_DRAWS == 50
    assert GinRules().match_hand_limit == MIN_MATCH_HANDS == 200
    assert GinRules(target=1000).match_hand_limit == 2000  # 2 hands per point of a larger target


def test_the_hundredth_upcard_draw_ends_a_book_hand_dead_in_both_envs():
    aec, venv = gin_env(preset="book", episode="hand"), GinVectorEnv(1, autoreset=False, preset="book", episode="hand")
    steps, finished = lockstep(aec, venv, gin_choice, seed=3, limit=1000)
    state = aec.game_state
    result = state.last_hand
    # The 100th draw is not made: the hand ends with 99 drawn, nobody scoring.
    assert state.upcard_draws == UPCARD_DRAW_LIMIT - 1
    assert result.end is ge.HandEnd.UPCARD_LIMIT and result.points == (0, 0)
    assert steps == 2 * UPCARD_DRAW_LIMIT + 1  # the first upcard, then 99 turns of a take and a discard, then the take
    assert finished.hands == (result,)


def test_a_book_match_of_dead_hands_ends_after_its_hand_limit_without_a_game_bonus():
    rules = GinRules()
    state = ge.new_game(rules, seed=5)
    moves = 0
    while state.phase is not ge.Phase.GAME_OVER:
        if state.phase is ge.Phase.HAND_OVER:
            assert state.last_hand.end is ge.HandEnd.UPCARD_LIMIT
            state = ge.next_hand(state)
            continue
        kinds = ge.legal_kinds(state)
        if ge.MoveKind.TAKE_UPCARD in kinds:
            state = ge.apply(state, ge.TAKE_UPCARD)
        else:
            state = ge.apply(state, ge.Move(ge.MoveKind.DISCARD, ge.legal_discards(state)[0]))
        moves += 1
    assert state.hand_index + 1 == rules.match_hand_limit == 200
    assert state.scores == (0, 0) and state.game_result == ge.GameResult((0, 0), (0, 0), -1)
    assert moves == 200 * (2 * UPCARD_DRAW_LIMIT + 1)


def test_a_match_ended_by_its_hand_limit_pays_the_line_bonuses_and_no_game_bonus():
    book = GinRules()
    assert ge._game_result(book, (40, 60), (2, 3)) == ge.GameResult((80, 120), (40, 60), 1)
    assert ge._game_result(book, (0, 0), (0, 0)) == ge.GameResult((0, 0), (0, 0), -1)
    assert ge._game_result(GinRules.from_options("eaai"), (40, 60), (2, 3)) == ge.GameResult((40, 60), (0, 0), 1)


def test_a_match_at_its_hand_limit_ends_alike_in_both_envs(monkeypatch):
    monkeypatch.setattr(gin_rules, "MIN_MATCH_HANDS", 3)  # with a target of 1, three dead hands, not 200
    aec, venv = gin_env(preset="book", target=1), GinVectorEnv(1, autoreset=False, preset="book", target=1)
    assert aec.rules.match_hand_limit == 3
    steps, finished = lockstep(aec, venv, gin_choice, seed=8, limit=2000)
    state = aec.game_state
    assert steps == 3 * (2 * UPCARD_DRAW_LIMIT + 1)
    assert state.phase is ge.Phase.GAME_OVER and state.hand_index == 2
    assert [h.end for h in aec.episode_hands] == [ge.HandEnd.UPCARD_LIMIT] * 3
    assert state.game_result == finished.result == ge.GameResult((0, 0), (0, 0), -1)
    assert finished.hands == aec.episode_hands


def test_a_match_that_reaches_its_target_on_the_last_hand_keeps_its_game_bonus():
    rules = GinRules()
    state = ge.new_game(rules, seed=1)
    last = ge._score_hand(
        ge._evolve(state, hand_index=rules.match_hand_limit - 1, scores=(95, 0)),
        ge.HandResult(end=ge.HandEnd.KNOCK, points=(7, 0), knocker=0),
    )
    assert last.phase is ge.Phase.GAME_OVER
    assert last.game_result == ge.GameResult((102 + 100 + 100 + 20, 0), (220, 0), 0)


# ---------------------------------------------------------------- Carioca


@pytest.mark.parametrize("players", [2, 3])
def test_a_carioca_round_ends_at_its_pile_draw_limit_in_both_envs(players):
    aec = carioca_env(num_players=players, episode="round")
    venv = CariocaVectorEnv(1, autoreset=False, num_players=players, episode="round")
    steps, finished = lockstep(aec, venv, carioca_choice, seed=players, limit=5000)
    state = aec.game_state
    result = state.last_round
    assert finished.rounds == (result,)
    assert steps == 2 * PILE_DRAW_LIMIT  # every turn a take and a discard
    assert state.pile_draws == PILE_DRAW_LIMIT and state.stock  # the stock was never drawn from
    assert result.end is ce.RoundEnd.PILE_LIMIT and result.out == -1
    # Scored as a round whose stock ran out: every player scores the cards in hand.
    assert result.penalties == tuple(hand_points(hand) for hand in result.hands)
    assert all(len(hand) == 11 for hand in result.hands)


def test_a_carioca_game_of_pile_draws_ends_after_six_bounded_rounds():
    aec = carioca_env(num_players=4)
    aec.reset(seed=1)
    steps = 0
    while not all(aec.terminations.values()):
        aec.step(carioca_choice(aec.observe(aec.agent_selection)["action_mask"]))
        steps += 1
    state = aec.game_state
    assert state.phase is ce.Phase.GAME_OVER and steps == 6 * 2 * PILE_DRAW_LIMIT
    assert [r.end for r in state.rounds] == [ce.RoundEnd.PILE_LIMIT] * 6
    assert state.scores == tuple(sum(r.penalties[s] for r in state.rounds) for s in range(4))


def test_the_pile_draw_limit_is_checked_before_the_stock():
    # At the limit with an empty stock, the round ends rather than reshuffling.
    state = ce.new_game(2, seed=4)
    card = state.hands[state.current][0]
    taken = (tuple([card] * PILE_DRAW_LIMIT), ())
    at_limit = ce.replace(state, phase=ce.Phase.PLAY, stock=(), taken=taken)
    over = ce.apply(at_limit, ce.Move(ce.MoveKind.DISCARD, card))
    assert over.last_round.end is ce.RoundEnd.PILE_LIMIT and not over.reshuffled
