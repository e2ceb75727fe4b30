"""Replays (``envkit.replay``): a game as a file, read back checked field by field, stepped
again to the same end; ``carousel eval --replays`` writes the very games it evaluated."""

from __future__ import annotations

import json

import numpy as np
import pytest

import carousel_env
from carousel_env.envkit.episodes import next_decision
from carousel_env.envkit.family import family_game
from carousel_env.envkit.replay import FORMAT, Replay, ReplayError, read_replay, replay_frames


def _random_game(game: str, seed: int, **options) -> Replay:
    options = {"num_players": 2, **options}
    env = carousel_env.env(game=game, **options)
    env.reset(seed=seed)
    rng, actions = np.random.default_rng(seed), []
    while (decision := next_decision(env)) is not None:
        actions.append(int(rng.choice(np.flatnonzero(decision.action_mask))))
        env.step(actions[-1])
    return Replay(game, options, seed, ("random", "random"), tuple(actions))


@pytest.mark.parametrize(("game", "options"), [("gin_rummy", {"preset": "openspiel"}), ("conquian", {})])
def test_a_replay_written_and_read_steps_to_the_same_end(tmp_path, game, options):
    replay = _random_game(game, 3, **options)
    again = read_replay(replay.write(tmp_path / "game.json"))
    assert again == replay
    frames = replay_frames(again, family_game(game))
    assert len(frames) == len(replay.actions) + 1
    assert [f.seat for f in frames[:-1]] and frames[-1].seat == -1 and frames[-1].move == ""
    assert frames[-1].said[-1].startswith("Game over")


def _json(**changes):
    data = _random_game("conquian", 1).to_json()
    data.update(changes)
    return data


@pytest.mark.parametrize(
    ("data", "error"),
    [
        ([], "not a JSON object"),
        (_json(format="carousel-replay/0"), "format"),
        (_json(game="chess"), "unknown game 'chess'"),
        (_json(seed="1"), "'seed' has the wrong type"),
        (_json(seed=True), "'seed' has the wrong type"),
        (_json(players=["random"]), "num_players 2 and 1 'players' differ"),
        (_json(players=["random", 3]), "'players' are not all names"),
        (_json(actions=[0, -1]), "'actions' are not all actions"),
        (_json(actions="0 1"), "'actions' has the wrong type"),
        ({k: v for k, v in _json().items() if k != "options"}, "no 'options' field"),
    ],
)
def test_a_malformed_replay_names_what_is_wrong(data, error):
    with pytest.raises(ReplayError, match=error):
        Replay.from_json(data)


def test_a_replay_the_game_refuses_names_the_decision():
    replay = _random_game("conquian", 2)
    family = family_game("conquian")
    bad = Replay(replay.game, replay.options, replay.seed, replay.players, (*replay.actions[:2], 10_000))
    with pytest.raises(ReplayError, match="decision 3: action 10000 is not legal"):
        replay_frames(bad, family)
    with pytest.raises(ReplayError, match="goes on after"):
        replay_frames(Replay(replay.game, replay.options, replay.seed, replay.players, replay.actions[:-1]), family)
    with pytest.raises(ReplayError, match="over after"):
        replay_frames(Replay(replay.game, replay.options, replay.seed, replay.players, (*replay.actions, 0)), family)
    with pytest.raises(ReplayError, match="options"):
        replay_frames(Replay(replay.game, {**replay.options, "max_run": "long"}, 0, replay.players, ()), family)


def test_a_corrupt_file_is_named(tmp_path):
    (tmp_path / "cut.json").write_text(json.dumps(_random_game("conquian", 1).to_json())[:40])
    with pytest.raises(ReplayError, match=r"cut\.json: not JSON"):
        read_replay(tmp_path / "cut.json")
    with pytest.raises(ReplayError, match="cannot be read"):
        read_replay(tmp_path / "missing.json")
    assert _json()["format"] == FORMAT


@pytest.mark.parametrize(("game", "opponent"), [("gin_rummy", "simple"), ("carousel", "greedy")])
def test_eval_writes_the_games_it_evaluated(tmp_path, game, opponent):
    from training.envs import EnvSpec
    from training.evaluate import evaluate

    candidate = "random" if game == "gin_rummy" else "smart"
    result = evaluate(candidate, [opponent], games=4, env_spec=EnvSpec(2, game=game), replays=tmp_path)
    paths = sorted(tmp_path.glob("game_*.json"))
    assert len(paths) == result.games == 4
    for k, path in enumerate(paths):
        replay = read_replay(path)
        seat = (k // 2 + k % 2) % 2  # deal d's game j seats the candidate at (d + j) % 2
        assert replay.players[seat] == candidate and replay.players[1 - seat] == opponent
        frames = replay_frames(replay, family_game(game))
        assert frames[-1].said[-1].startswith("Game over")
        assert (f"won by player {seat}" in replay.result) == (result.per_game[k] == 1.0)


def test_eval_of_a_network_writes_its_recorded_decisions(tmp_path):
    from training.evaluate import evaluate

    evaluate("checkpoints/gin_2p", ["simple"], games=2, replays=tmp_path)
    paths = sorted(tmp_path.glob("game_*.json"))
    assert len(paths) == 2
    for path in paths:
        replay = read_replay(path)
        assert "checkpoints/gin_2p" in replay.players
        replay_frames(replay, family_game("gin_rummy"))
