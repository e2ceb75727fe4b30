"""Strength and cost of the ``search`` player against ``smart``.

    .venv/bin/python -m benchmarks.bench_search [--budgets 4 8] [--players 2 4] [--games 200]
        [--variant carousel] [--seed 0] [--deal uniform|kept|hands|all] [--json]

For each budget (determinizations per candidate action) and table size, one search
player plays ``--games`` full games against ``smart`` at every other seat with
``carousel_env.games.carousel.agents.match.play_match`` (seats rotate every game; game ``g`` is dealt with
``seed + g``). Printed: the search player's win rate with its 95% Wilson interval beside
the fair share (1 / players), its mean final total minus the mean of the others', the
milliseconds it spends per searched decision (decisions with one legal action are the
env's, never asked), the searched decisions per second, and rollouts per decision. The
timings are wall-clock on this machine, so they move with its load.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import time
from dataclasses import replace

import numpy as np

from carousel_env.games.carousel.agents.match import MatchResult, play_episode, rotated_seats
from carousel_env.games.carousel.agents.registry import resolve_policy
from carousel_env.games.carousel.agents.search import SearchPlayer
from carousel_env.games.carousel.engine.game import GameState
from carousel_env.games.carousel.engine.information import SeatView
from carousel_env.games.carousel.envs.aec import raw_env

Z_95 = 1.959963984540054


def wilson(wins: float, n: int, z: float = Z_95) -> tuple[float, float]:
    """The 95% Wilson score interval of a win rate."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


DEALS = ("uniform", "kept", "hands", "all")


def true_deal(state: GameState, rng: random.Random, stock: bool) -> GameState:
    """``state`` as it is (``stock``: its order too), or with only the stock dealt again."""
    if stock:
        return state
    cards = list(state.stock)
    rng.shuffle(cards)
    return replace(state, stock=tuple(cards))


class TimedSearch(SearchPlayer):
    """A search player that adds up the time it spends deciding. With ``deal`` ``hands`` or
    ``all`` it reads the real state from ``env`` (module docstring)."""

    def __init__(self, samples: int, seed: int, deal: str, env: object) -> None:
        super().__init__(samples=samples, seed=seed, kept=deal == "kept")
        self.seconds = 0.0
        self.deal, self.env = deal, env
        self.__name__ = f"search@{samples}"

    def decide(self, view: SeatView, action_mask: np.ndarray) -> int:
        start = time.perf_counter()
        try:
            if self.deal in ("uniform", "kept"):
                return super().decide(view, action_mask)
            state = self.env.game_state
            return self.search(view, action_mask, lambda: true_deal(state, self.rng, self.deal == "all"))
        finally:
            self.seconds += time.perf_counter() - start


def measure(samples: int, players: int, games: int, seed: int, variant: str, deal: str = "uniform") -> dict:
    env = raw_env(num_players=players, variant=variant)
    player = TimedSearch(samples, seed, deal, env)
    smart = resolve_policy("smart", seed=seed + 1)
    start = time.perf_counter()
    results = []
    for episode in rotated_seats(players, games, seed):  # policy 0 (the search) changes seat every game
        seated = {seat: player if i == 0 else smart for seat, i in enumerate(episode.controllers)}
        results.append(play_episode(env, episode, seated))
    match = MatchResult(("search", *["smart"] * (players - 1)), tuple(results))
    wall = time.perf_counter() - start
    wins = match.wins(0)
    margins = []
    for game in match.games:
        seat = game.episode.controllers.index(0)
        totals = game.standings
        margins.append(totals[seat] - (sum(totals) - totals[seat]) / (players - 1))
    low, high = wilson(wins, games)
    searched = max(player.decisions, 1)
    return {
        "budget": samples,
        "deal": deal,
        "players": players,
        "variant": variant,
        "games": games,
        "win_rate": wins / games,
        "ci95": (low, high),
        "fair_share": 1 / players,
        "mean_margin": float(np.mean(margins)),
        "ms_per_decision": 1000 * player.seconds / searched,
        "decisions_per_s": player.decisions / player.seconds if player.seconds else 0.0,
        "rollouts_per_decision": player.rollouts / searched,
        "decisions": player.decisions,
        "wall_s": wall,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--budgets", type=int, nargs="+", default=[4, 8], help="samples per candidate")
    parser.add_argument("--players", type=int, nargs="+", default=[2, 4])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--variant", default="carousel")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--deal", choices=DEALS, default="uniform", help="how the unseen cards are dealt (module doc)")
    parser.add_argument("--kept", action="store_const", dest="deal", const="kept", help="the same as --deal kept")
    parser.add_argument("--json", action="store_true", help="one JSON object per line")
    args = parser.parse_args(argv)
    for samples in args.budgets:
        for players in args.players:
            row = measure(samples, players, args.games, args.seed, args.variant, args.deal)
            if args.json:
                print(json.dumps(row), flush=True)
                continue
            low, high = row["ci95"]
            print(
                f"search@{samples} ({row['deal']} deals) vs {players - 1} smart "
                f"({row['variant']}, {players}p, {row['games']} games): "
                f"win rate {row['win_rate']:.3f} [{low:.3f}, {high:.3f}] (fair share {row['fair_share']:.2f}), "
                f"margin {row['mean_margin']:+.1f}; {row['ms_per_decision']:.1f} ms/decision, "
                f"{row['decisions_per_s']:.0f} decisions/s, {row['rollouts_per_decision']:.1f} rollouts/decision, "
                f"{row['decisions']} decisions, {row['wall_s']:.0f} s",
                flush=True,
            )


if __name__ == "__main__":
    main()
