"""Our Gin agents inside OpenSpiel's ``gin_rummy`` against its bots
(carousel_env.integrations.openspiel_gin), and ``carousel eval --game gin_rummy``."""

from __future__ import annotations

import json

import numpy as np
import pytest

from carousel_cli.main import main
from carousel_env.core.errors import CarouselError
from carousel_env.games.gin_rummy.players import get_player
from carousel_env.integrations import openspiel_gin as og

pytestmark = pytest.mark.integration  # the real OpenSpiel and its bots


def test_mirrored_deals_and_alternating_seats_against_the_simple_bot(monkeypatch):
    decks = []
    real = og.deck_of
    monkeypatch.setattr(og, "deck_of", lambda seed: decks.append(seed) or real(seed))
    result = og.play_openspiel("simple", "openspiel:simple", deals=4, seed=10)
    assert [h.deal for h in result.hands] == [0, 0, 1, 1, 2, 2, 3, 3]
    assert [h.seat for h in result.hands] == [0, 1] * 4  # the agent's seat alternates hand by hand
    assert decks == [10, 10, 11, 11, 12, 12, 13, 13]  # each deal's cards twice, seats swapped
    assert result.agent == "simple" and result.opponent == "openspiel:simple" and result.deals == 4
    returns = [h.returns for h in result.hands]
    assert result.mean_return == pytest.approx(sum(returns) / 8)
    assert result.decided == sum(r != 0 for r in returns) and result.wins == sum(r > 0 for r in returns)
    low, high = result.mean_return_ci
    assert low <= result.mean_return <= high
    assert 0 <= result.win_rate_ci[0] <= result.win_rate <= result.win_rate_ci[1] <= 1
    # Where the bot knocks our seat answers as our engine does, so both engines score it alike.
    assert all(h.returns == h.engine_return for h in result.hands if h.end == "dead")
    assert json.loads(json.dumps(result.as_json()))["hands"][0]["deal"] == 0


def test_the_same_agent_on_mirrored_deals_scores_each_seat():
    # Our simple plays as OpenSpiel's simple bot on most deals (docs/gin_rummy.md, "Our simple
    # and OpenSpiel's"): the two hands of such a deal are one hand from each side, and cancel out.
    result = og.play_openspiel("simple", "openspiel:simple", deals=6)
    cancelled = sum(result.hands[i].returns == -result.hands[i + 1].returns for i in range(0, 12, 2))
    assert cancelled >= 2


def test_each_sides_points_and_the_agents_knocks_gins_and_undercuts():
    result = og.play_openspiel("simple", "openspiel:simple", deals=15, seed=3)
    hands = result.hands
    assert result.points_per_hand - result.opponent_points_per_hand == pytest.approx(result.mean_return)
    assert result.points_per_hand == pytest.approx(sum(max(h.returns, 0) for h in hands) / len(hands))
    for low, value, high in (
        (*result.points_per_hand_ci[:1], result.points_per_hand, *result.points_per_hand_ci[1:]),
        (result.knock_rate_ci[0], result.knock_rate, result.knock_rate_ci[1]),
        (result.gin_rate_ci[0], result.gin_rate, result.gin_rate_ci[1]),
    ):
        assert low <= value <= high
    knocks = [h for h in hands if h.knocker == h.seat]
    assert result.knock_rate == pytest.approx(len(knocks) / len(hands)) and knocks
    assert all(h.knocker in (-1, 0, 1) and (h.knocker == -1) == (h.end == "dead") for h in hands)
    # An undercut: the knocker loses the hand; a gin is never undercut.
    assert all(h.undercut == ((h.returns if h.knocker == h.seat else -h.returns) < 0) for h in hands if h.knocker >= 0)
    assert not any(h.undercut for h in hands if h.end == "gin")
    assert json.loads(json.dumps(result.as_json()))["hands"][0]["knocker"] in (-1, 0, 1)


def test_without_lay_offs_the_agent_answers_a_knock_as_openspiels_bot_does():
    with_lay_offs = og.play_openspiel("simple", "openspiel:simple", deals=40, seed=0)
    without = og.play_openspiel("simple", "openspiel:simple", deals=40, seed=0, lays_off=False)
    pairs = list(zip(with_lay_offs.hands, without.hands))
    # The same hands to the knock (both players are deterministic); laying off only lowers
    # the defender's deadwood, so the agent never does worse for it, and here sometimes better.
    assert all((a.deal, a.seat, a.knocker) == (b.deal, b.seat, b.knocker) for a, b in pairs)
    assert all(a.returns >= b.returns for a, b in pairs)
    assert any(a.returns > b.returns for a, b in pairs if a.knocker != a.seat)
    assert all(a.returns == b.returns for a, b in pairs if a.knocker == a.seat)  # the bot never lays off


def test_the_watch_sees_every_move_of_the_bot_in_our_engines_state():
    from carousel_env.games.gin_rummy import engine as ge

    seen: list[tuple[ge.GinState, ge.Move]] = []
    by_hand: list[tuple[og.HandRecord, list]] = []
    result = og.play_openspiel(
        "simple",
        "openspiel:simple",
        deals=3,
        seed=5,
        watch=lambda state, move: seen.append((state, move)),
        progress=lambda hand: (by_hand.append((hand, seen[:])), seen.clear()),
    )
    assert [hand for hand, _ in by_hand] == list(result.hands)
    for hand, moves in by_hand:
        assert moves and all(state.current == 1 - hand.seat for state, _ in moves)  # the bot's turns only
        for state, move in moves:  # each is legal in our engine, in the state the bot saw
            assert not state.over and ge.apply(state, move) is not state
        assert sum(move.kind is ge.MoveKind.KNOCK for _, move in moves) == (hand.knocker == 1 - hand.seat)


def test_an_engine_player_and_an_observation_policy_take_the_seat():
    lowest = lambda observation, mask: int(np.flatnonzero(mask)[0])  # noqa: E731
    result = og.play_openspiel(lowest, "openspiel:simple", deals=1)
    assert len(result.hands) == 2 and result.agent == "<lambda>"
    result = og.play_openspiel(get_player("greedy"), "openspiel:ismcts@2", deals=1)
    assert len(result.hands) == 2 and result.opponent == "openspiel:ismcts@2"


def test_bad_opponents_agents_and_budgets_are_named():
    for spec, match in (
        ("greedy", "unknown Gin Rummy opponent 'greedy': the opponents are OpenSpiel's bots"),
        ("openspiel:mcts", "unknown Gin Rummy opponent 'openspiel:mcts'"),
        ("openspiel:simple@3", "unknown Gin Rummy opponent 'openspiel:simple@3'"),
        ("openspiel:ismcts@0", "openspiel:ismcts@N needs N, its simulations a move"),
        ("openspiel:ismcts", "openspiel:ismcts@N needs N"),
    ):
        with pytest.raises(CarouselError, match=match):
            og.parse_opponent(spec)
    with pytest.raises(CarouselError, match="unknown Gin Rummy player 'smart'"):
        og.play_openspiel("smart", "openspiel:simple", deals=1)
    with pytest.raises(CarouselError, match="a Gin agent is a player's name"):
        og.play_openspiel(42, "openspiel:simple", deals=1)
    with pytest.raises(CarouselError, match="deals must be a whole number of at least 1, got 0"):
        og.play_openspiel("simple", "openspiel:simple", deals=0)


def test_cli_eval_gin_rummy_end_to_end(capsys):
    argv = ["eval", "--game", "gin_rummy", "--checkpoint", "simple", "--games", "3"]
    assert main([*argv, "--opponents", "openspiel:simple,openspiel:ismcts@2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [m["opponent"] for m in out["matches"]] == ["openspiel:simple", "openspiel:ismcts@2"]
    assert all(len(m["hands"]) == 4 for m in out["matches"])  # 3 games: 2 whole deals
    assert main([*argv, "--opponents", "openspiel:simple"]) == 0
    captured = capsys.readouterr()
    assert "simple vs openspiel:simple: 4 hands on 2 deals, mean return" in captured.out
    assert "win rate" in captured.out and "too few to trust" in captured.err


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--opponents", "openspiel:ismcts@0"], "openspiel:ismcts@N needs N"),
        (["--opponents", "openspiel:simple,nobody"], "unknown Gin Rummy policy 'nobody'"),
        (["--opponents", "openspiel:simple", "--variant", "book"], "OpenSpiel's bots play Gin Rummy under its own"),
        (["--opponents", "openspiel:simple", "--checkpoint", "smart"], "unknown Gin Rummy player 'smart'"),
        (["--opponents", "openspiel:simple", "--players", "3"], "--players is a Carousel option"),
        (["--opponents", "openspiel:simple", "--workers", "2"], "--workers is a Carousel option"),
    ],
)
def test_cli_eval_gin_rummy_errors(capsys, extra, message):
    argv = ["eval", "--game", "gin_rummy", "--checkpoint", "simple", "--games", "2", *extra]
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_cli_eval_takes_our_players_and_openspiels_bots_together(capsys):
    argv = ["eval", "--checkpoint", "simple", "--game", "gin_rummy", "--games", "4"]
    assert main([*argv, "--opponents", "greedy,openspiel:simple", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert set(result["by_opponent"]) == {"greedy"} and result["games"] == 4  # ours, in our env
    [match] = result["matches"]  # OpenSpiel's bot, in OpenSpiel's game
    assert match["opponent"] == "openspiel:simple" and 0.0 <= match["win_share"] <= 1.0
    assert main([*argv, "--opponents", "greedy,openspiel:simple"]) == 0
    out = capsys.readouterr().out
    assert "hands 4, mean hand-score difference" in out and "of all hands, a dead hand half" in out


def test_cli_eval_gin_rummy_between_our_players_plays_in_our_env(capsys):
    # Without an OpenSpiel opponent, the family's evaluation: whole games of the preset asked.
    argv = ["eval", "--game", "gin_rummy", "--variant", "openspiel", "--checkpoint", "simple"]
    assert main([*argv, "--opponents", "greedy,random", "--games", "4", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["games"] == 4 and set(result["by_opponent"]) == {"greedy", "random"}
