"""How the Gin ``expert``'s weights were chosen: each setting of :class:`ExpertParams` plays
matches to 100 under preset ``eaai`` against ``simple`` on mirrored deals (each deal twice,
the seats swapped), straight on the engine, and prints its match win rate with the 95%
interval over deals, points a hand each side, decided hands won, knock and gin rates, and
seconds a match.

    python -m benchmarks.tune_gin_expert --deals 200 --first-deal 50000 [--workers 2]
        [--opponent simple|greedy|expert:KEY=V,...] [--set gin_hold=3 --set late_knock=6 ...]

Each ``--set`` line is one setting to play (``KEY=V,KEY=V``); none: the defaults alone. The
settings are played in turn on the same deals, so they compare with each other.
"""

from __future__ import annotations

import argparse
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import fields, replace
from typing import NamedTuple

from carousel_env.core.stats import mean_interval, wilson_interval
from carousel_env.games.gin_rummy.engine import Phase, apply, new_game, next_hand
from carousel_env.games.gin_rummy.expert import ExpertParams, expert_move
from carousel_env.games.gin_rummy.players import greedy_player, simple_move
from carousel_env.games.gin_rummy.rules import PRESETS


class MatchOutcome(NamedTuple):
    """One match from the expert's side: won, its points and the other's, each hand's."""

    won: float
    hands: tuple[tuple[int, int, bool, bool], ...]  # (its points, the other's, it knocked, gin)


def opponent_player(spec: str):
    """``simple``, ``greedy``, or ``expert:KEY=V,...`` (a setting of the expert's weights)."""
    if spec.startswith("expert:"):
        params = parse_setting(spec.split(":", 1)[1])
        return lambda state: expert_move(state, params)
    if spec not in ("simple", "greedy"):
        raise SystemExit(f"--opponent: simple, greedy or expert:KEY=V,..., got {spec!r}")
    return simple_move if spec == "simple" else greedy_player()


def play_match(seed: int, expert_seat: int, params: ExpertParams, opponent: str = "simple") -> MatchOutcome:
    state = new_game(PRESETS["eaai"], seed)
    other = opponent_player(opponent)
    hands = []
    while True:
        if state.phase in (Phase.HAND_OVER, Phase.GAME_OVER):
            hand = state.last_hand
            knocked = hand.knocker == expert_seat
            hands.append(
                (hand.points[expert_seat], hand.points[1 - expert_seat], knocked, knocked and hand.end.value == "gin")
            )
            if state.phase is Phase.GAME_OVER:
                break
            state = next_hand(state)
            continue
        move = expert_move(state, params) if state.current == expert_seat else other(state)
        state = apply(state, move)
    winner = state.game_result.winner
    return MatchOutcome(0.5 if winner < 0 else float(winner == expert_seat), tuple(hands))


def play_deal(args: tuple[int, ExpertParams, str]) -> tuple[MatchOutcome, MatchOutcome]:
    seed, params, opponent = args
    return play_match(seed, 0, params, opponent), play_match(seed, 1, params, opponent)


def parse_setting(text: str) -> ExpertParams:
    names = {f.name: f.type for f in fields(ExpertParams)}
    changes = {}
    for item in filter(None, text.split(",")):
        key, _, value = item.partition("=")
        if key not in names:
            raise SystemExit(f"--set: unknown weight {key!r} (one of {', '.join(names)})")
        changes[key] = float(value) if "." in value else int(value)
    return replace(ExpertParams(), **changes)


def report(label: str, deals: list[tuple[MatchOutcome, MatchOutcome]], seconds: float) -> None:
    matches = [m for pair in deals for m in pair]
    per_deal = [(a.won + b.won) / 2 for a, b in deals]
    rate = sum(m.won for m in matches) / len(matches)
    low, high = mean_interval(per_deal, clip=(0.0, 1.0))
    hands = [h for m in matches for h in m.hands]
    ours, theirs = [h[0] for h in hands], [h[1] for h in hands]
    decided = [h for h in hands if h[0] != h[1]]
    won = sum(h[0] > h[1] for h in decided)
    knocks, gins = sum(h[2] for h in hands), sum(h[3] for h in hands)
    d_low, d_high = wilson_interval(won, len(decided))
    print(
        f"{label}: matches won {rate:.3f} ({low:.3f}-{high:.3f}) of {len(matches)}; points a hand "
        f"{sum(ours) / len(hands):.2f} vs {sum(theirs) / len(hands):.2f}; decided hands won "
        f"{won / max(1, len(decided)):.3f} ({d_low:.3f}-{d_high:.3f}); knocks {knocks / len(hands):.3f},"
        f" gins {gins / len(hands):.3f} a hand; {seconds / len(matches):.2f} s a match",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--first-deal", type=int, default=50_000)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--opponent", default="simple", help="simple, greedy or expert:KEY=V,...")
    parser.add_argument("--set", action="append", default=[], dest="settings")
    args = parser.parse_args()
    settings = [parse_setting(s) for s in args.settings] or [ExpertParams()]
    seeds = range(args.first_deal, args.first_deal + args.deals)
    with ProcessPoolExecutor(args.workers) as pool:
        for text, params in zip(args.settings or ["defaults"], settings):
            began = time.perf_counter()
            deals = list(pool.map(play_deal, [(seed, params, args.opponent) for seed in seeds], chunksize=4))
            report(text, deals, time.perf_counter() - began)


if __name__ == "__main__":
    main()
