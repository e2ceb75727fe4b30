"""Strength and cost of the guided search player (``search@N+CHECKPOINT``) against its own
network.

    .venv/bin/python -m benchmarks.bench_guided_search [--checkpoint checkpoints/ppo_2p]
        [--budgets 4 8] [--players 2] [--games 100] [--seed 0] [--episode game] [--kept] [--margin M] [--json]

For each budget (determinizations per candidate action), one guided player
(``training.policies.guided_search_player``) plays ``--games`` full games against the same
checkpoint's network at every other seat (sampling from its policy, as ``carousel eval``
plays a checkpoint), in this one process, with
``carousel_env.games.carousel.agents.match.play_match`` (seats rotate every game; game ``g``
is dealt with ``seed + g``). Printed: the guided player's win rate with its 95% Wilson
interval beside the fair share, its mean final total minus the mean of the others', and
the milliseconds it spends per searched decision (mean, median and 95th percentile;
decisions with one legal action are the env's, never asked), with the rollouts and rollout
steps per decision. The timings are wall-clock on this machine, so they move with its load.

The headline figure over 1,000 mirror-paired games is ``carousel eval`` (two workers):

    carousel eval --checkpoint search@8+checkpoints/ppo_2p --opponents checkpoints/ppo_2p \\
        --games 1000 --seed 0 --workers 2 --json
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from carousel_env.core.stats import wilson_interval
from carousel_env.games.carousel.agents.match import play_match
from carousel_env.games.carousel.engine.information import SeatView
from carousel_env.games.carousel.envs.observation import layout
from training.policies import guided_search_player, network_callable

K_SUGGESTIONS = 8  # the shipped agents' slots


class Timed:
    """A view policy that times each decision of the one it wraps."""

    decides_from_view = True

    def __init__(self, player: object, name: str) -> None:
        self.player = player
        self.__name__ = name
        self.times: list[float] = []

    def decide(self, view: SeatView, action_mask: np.ndarray) -> int:
        start = time.perf_counter()
        action = self.player.decide(view, action_mask)
        if np.count_nonzero(action_mask) > 1:
            self.times.append(time.perf_counter() - start)
        return action


def measure(
    checkpoint: str,
    samples: int,
    players: int,
    games: int,
    seed: int,
    episode: str = "game",
    kept: bool = False,
    margin: float | None = None,
) -> dict:
    name = f"search@{samples}+{checkpoint}"
    guided = guided_search_player(name, seed=seed)
    guided.kept, guided.margin = kept, margin
    player = Timed(guided, name)
    networks = [network_callable(checkpoint, layout(K_SUGGESTIONS), seed + 1 + i) for i in range(players - 1)]
    start = time.perf_counter()
    match = play_match([player, *networks], games=games, seed=seed, episode=episode)
    wall = time.perf_counter() - start
    margins = []
    for game in match.games:
        seat = game.episode.controllers.index(0)
        totals = game.standings
        margins.append(totals[seat] - (sum(totals) - totals[seat]) / (players - 1))
    wins = match.wins(0)
    low, high = wilson_interval(wins, games)
    ms = 1000 * np.asarray(player.times or [0.0])
    searched = max(guided.decisions, 1)
    return {
        "player": name,
        "kept": kept,
        "margin": margin,
        "episode": episode,
        "players": players,
        "games": games,
        "win_rate": wins / games,
        "ci95": (low, high),
        "fair_share": 1 / players,
        "mean_margin": float(np.mean(margins)),
        "ms_per_decision": float(ms.mean()),
        "ms_median": float(np.median(ms)),
        "ms_p95": float(np.percentile(ms, 95)),
        "rollouts_per_decision": guided.rollouts / searched,
        "rollout_steps_per_decision": guided.rollout_steps / searched,
        "decisions": guided.decisions,
        "wall_s": wall,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkpoint", default="checkpoints/ppo_2p", help="the network that guides and opposes")
    parser.add_argument("--budgets", type=int, nargs="+", default=[4, 8], help="determinizations per action")
    parser.add_argument("--players", type=int, nargs="+", default=[2])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--episode", default="game", help="game (whole games) or round (single rounds)")
    parser.add_argument("--kept", action="store_true", help="deal the other hands with no play on the table")
    parser.add_argument("--margin", type=float, help="keep the network's move unless a gain clears this many SEs")
    parser.add_argument("--json", action="store_true", help="one JSON object per line")
    args = parser.parse_args(argv)
    for samples in args.budgets:
        for players in args.players:
            row = measure(
                args.checkpoint, samples, players, args.games, args.seed, args.episode, args.kept, args.margin
            )
            if args.json:
                print(json.dumps(row), flush=True)
                continue
            low, high = row["ci95"]
            options = (" (kept hands)" if row["kept"] else "") + (
                "" if row["margin"] is None else f" (margin {row['margin']:g})"
            )
            print(
                f"{row['player']}{options} vs {players - 1} x {args.checkpoint} "
                f"({players}p, {row['games']} {row['episode']}s): "
                f"win rate {row['win_rate']:.3f} [{low:.3f}, {high:.3f}] (fair share {row['fair_share']:.2f}), "
                f"margin {row['mean_margin']:+.1f}; {row['ms_per_decision']:.0f} ms/decision "
                f"(median {row['ms_median']:.0f}, p95 {row['ms_p95']:.0f}), "
                f"{row['rollouts_per_decision']:.0f} rollouts and {row['rollout_steps_per_decision']:.0f} rollout "
                f"steps/decision, {row['decisions']} decisions, {row['wall_s']:.0f} s",
                flush=True,
            )


if __name__ == "__main__":
    main()
