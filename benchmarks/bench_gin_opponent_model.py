"""What knowing the opponent's hand is worth against Gin Rummy's ``simple`` (issue 32).

    .venv/bin/python -m benchmarks.bench_gin_opponent_model [--deals sifted true] [--samples 8]
        [--margin 2] [--hands 400] [--seed 1000] [--preset openspiel] [--json]

The search player of ``players.search_player`` (each candidate move played on ``--samples``
deals, then ``simple`` at both seats to the end of the hand; ``simple``'s own move kept
unless another's gain clears ``--margin`` standard errors) plays ``--hands`` hands against
``simple`` in the engine, deal ``seed + h // 2`` from both seats (mirror-paired). It differs
only in how the cards it cannot see are dealt:

* ``sifted``: as the shipped ``search`` deals them (``players.determinize``: the opponent
  keeps the cards it took from the pile, the rest of its hand drawn as play keeps one);
* ``true``: the opponent's real hand, only the stock's order dealt again. No player may do
  this: it is the ceiling of opponent modelling, what a perfect posterior over
  ``simple``'s hand (which its deterministic choices narrow down) would give the search.

The rollouts play ``simple`` at the opponent's seat, which is exactly the opponent here, so
with ``true`` deals only the stock is guessed. Printed per deal kind: the share of decided
hands won (a dead hand is neither's) with its 95% Wilson interval, and the mean hand score
(own points less simple's) with its 95% interval.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from dataclasses import replace

from carousel_env.core.stats import wilson_interval
from carousel_env.games.gin_rummy.engine import GinState, apply, new_game
from carousel_env.games.gin_rummy.players import Deal, determinize, search_player, simple_move
from carousel_env.games.gin_rummy.rules import GinRules


def true_deal(state: GinState, rng: random.Random) -> GinState:
    """``state`` with only the stock's order dealt again: the opponent's hand as it is."""
    stock = list(state.stock[state.stock_top :])
    rng.shuffle(stock)
    return replace(state, stock=tuple(stock), stock_top=0)


DEALS: dict[str, Deal] = {"sifted": determinize, "true": true_deal}


def measure(deal: str, samples: int, margin: float, hands: int, seed: int, preset: str) -> dict:
    rules = GinRules.from_options(preset=preset)
    searcher = search_player(seed=seed, samples=samples, margin=margin, deal=DEALS[deal])
    scores: list[int] = []
    start = time.perf_counter()
    for h in range(hands):
        seat = h % 2  # each deal from both seats
        state = new_game(rules, seed + h // 2)
        while not state.over:
            state = apply(state, searcher(state) if state.current == seat else simple_move(state))
        points = state.last_hand.points
        scores.append(points[seat] - points[1 - seat])
    won, lost = sum(s > 0 for s in scores), sum(s < 0 for s in scores)
    low, high = wilson_interval(won, won + lost)
    mean = statistics.fmean(scores)
    half = 1.96 * statistics.stdev(scores) / len(scores) ** 0.5
    return {
        "deal": deal,
        "samples": samples,
        "margin": margin,
        "hands": hands,
        "decided": won + lost,
        "won_of_decided": won / max(won + lost, 1),
        "interval": [low, high],
        "mean_score": mean,
        "mean_score_interval": [mean - half, mean + half],
        "seconds": time.perf_counter() - start,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", nargs="+", choices=sorted(DEALS), default=["sifted", "true"])
    parser.add_argument("--samples", type=int, default=8)
    parser.add_argument("--margin", type=float, default=2.0)
    parser.add_argument("--hands", type=int, default=400)
    parser.add_argument("--seed", type=int, default=1000)
    parser.add_argument("--preset", default="openspiel")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    results = []
    for deal in args.deals:
        got = measure(deal, args.samples, args.margin, args.hands, args.seed, args.preset)
        results.append(got)
        if not args.json:
            low, high = got["interval"]
            m_low, m_high = got["mean_score_interval"]
            print(
                f"{deal:>6}: search@{args.samples} (margin {args.margin:g}) against simple, {args.hands} hands: "
                f"{got['won_of_decided']:.3f} of {got['decided']} decided ({low:.3f}-{high:.3f}), "
                f"{got['mean_score']:+.2f} a hand ({m_low:+.2f} to {m_high:+.2f}), {got['seconds']:.0f} s",
                flush=True,
            )
    if args.json:
        print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
