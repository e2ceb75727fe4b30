"""Evaluation games as replays (``carousel eval --replays DIR``, the leaderboard's games).

An evaluation plays on the compiled vector env, its scripted seats deciding inside it; what
it keeps of a game is its deal seed, who sat where and each network decision
(``episodes.play_episodes``'s ``record``). :func:`rebuild` plays that game again in the AEC
env, the scripted seats seeded as the runners seed them and the networks' decisions taken
as recorded, and keeps every decision: a :class:`~carousel_env.envkit.replay.Replay`. The
game it ends with must be the one evaluated (the same totals), or it is an error naming the
game: the two runners play the same games (``tests/test_training_vector.py``).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from carousel_env.core.errors import CarouselError
from carousel_env.envkit.episodes import Episode, EpisodeResult, next_decision
from carousel_env.envkit.replay import Replay
from training.envs import EnvSpec, make_env
from training.games import training_game
from training.policies import Controller
from training.runners import scripted_policies


def rebuild(
    spec: EnvSpec,
    episode: Episode[Controller],
    names: Mapping[Controller, str],
    network_actions: Sequence[int],
    result: EpisodeResult[Controller],
    label: str,
) -> Replay:
    """The replay of ``episode`` (``names``: what each controller is called; its network
    seats' decisions ``network_actions``, in order), checked against its ``result``."""
    game = training_game(spec.game)
    env = make_env(spec)
    env.reset(seed=episode.seed)
    scripted = scripted_policies(game, episode)  # seeded as the runners seed them
    recorded, actions = list(network_actions)[::-1], []
    while (decision := next_decision(env)) is not None:
        seat = decision.seat
        if seat in scripted:
            action = int(game.act(scripted[seat], env, seat, decision.observation, decision.action_mask))
        elif recorded:
            action = recorded.pop()
        else:
            raise CarouselError(f"{label}: the networks' recorded decisions ran out before the game ended")
        if not decision.action_mask[action]:
            raise CarouselError(f"{label}: decision {len(actions) + 1}, action {action} is not legal when played again")
        env.step(action)
        actions.append(action)
    # The game's own reading of how it ended (its totals, higher better, and its winner).
    again = game.result(episode, np.zeros(len(episode.controllers)), env)
    if recorded or (again.totals, again.winner) != (result.totals, result.winner):
        raise CarouselError(f"{label}: played again, the game ends {again.totals}, not {result.totals} as evaluated")
    over = "won by player " + str(result.winner) if result.winner is not None else "no single winner"
    return Replay(
        spec.game,
        spec.kwargs(),
        episode.seed,
        tuple(names[c] for c in episode.controllers),
        tuple(actions),
        f"{over}; totals {list(np.asarray(result.standings).tolist())}",
    )


def write_replays(
    folder: str | Path,
    spec: EnvSpec,
    episodes: Sequence[Episode[Controller]],
    names: Mapping[Controller, str],
    network_actions: Mapping[int, Sequence[int]],
    results: Sequence[EpisodeResult[Controller]],
) -> list[Path]:
    """Every game of an evaluation as ``folder/game_NNNN.json`` (in play order); the paths. A
    game that does not play again as evaluated (a solve cut short by its time budget can
    choose otherwise) is not written, and is named on stderr."""
    paths = []
    for k, (episode, result) in enumerate(zip(episodes, results)):
        label = f"game {k} (seed {episode.seed})"
        try:
            replay = rebuild(spec, episode, names, network_actions.get(k, ()), result, label)
        except CarouselError as exc:
            print(f"carousel: no replay written for {exc}", file=sys.stderr, flush=True)
            continue
        paths.append(replay.write(Path(folder) / f"game_{k:04d}.json"))
    return paths
