"""Conquian's players against each other on mirrored deals, and the envs' speed.

    python -m benchmarks.bench_conquian --agent simple --opponent random --deals 500
    python -m benchmarks.bench_conquian --agent simple --opponent simple --preset foster --deals 500
    python -m benchmarks.bench_conquian --agent search@8 --opponent simple --deal hands --deals 100
    python -m benchmarks.bench_conquian --agent checkpoints/conquian --opponent simple --deals 500
    python -m benchmarks.bench_conquian --speed 8 --rounds 3        # the AEC env against the vector env

Each deal is one hand of the preset's rules, played twice: the agent in one seat, then in the
other, the same cards. Prints the agent's share of the decided hands (a tableau decides
nothing) with 95% intervals over hands (Wilson) and over deals (the deals' means), the
tableau rate, and the agent's mean score a hand (the zero-sum points: +1, -1 or 0 under the
book).

An agent that is a checkpoint (a run directory or a ``.pt`` file) plays its network's most
likely action, through ``training.evaluate`` (the deals are its own: seeds from
``--first-deal``, each played once a seat).

``--deal`` says how an agent ``search@N`` deals the cards it cannot see: ``sifted`` (as it
plays: the opponent's hand and the stock dealt again uniformly), ``hands`` (the opponent's real
hand, only the stock's order dealt again) or ``all`` (the real state: one deal is all there
is). No player may deal ``hands`` or ``all``: they measure what seeing the hidden cards is
worth, the ceiling of a search over hidden hands.

``--speed S`` times uniform random legal play instead, in agent-steps a second (a decision
of the player to act), in one process: the wrapped AEC env and ``ConquianVectorEnv(--num-envs)``,
``S`` seconds each, alternated for ``--rounds`` rounds so that the machine's drift hits both
alike. Pin it to one core with ``taskset -c 0``.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path

import numpy as np

from benchmarks.random_play import random_steps
from carousel_env.core.stats import mean_interval, wilson_interval
from carousel_env.games.conquian.engine import new_game
from carousel_env.games.conquian.players import determinize, get_player, play_out
from carousel_env.games.conquian.rules import PRESETS, ConquianRules
from carousel_env.games.conquian.state import ConquianState


def true_deal(state: ConquianState, rng: random.Random) -> ConquianState:
    """``state`` with only the stock's order dealt again: the opponent's hand as it is."""
    stock = list(state.stock)
    rng.shuffle(stock)
    return replace(state, stock=tuple(stock))


DEALS = {"sifted": determinize, "hands": true_deal, "all": lambda state, rng: state}


def play_deal(agent: str, opponent: str, deal: int, preset: str, how: str = "sifted") -> list[dict]:
    """The deal (one hand) played once with the agent in each seat (a search agent dealing as ``how``)."""
    rules = ConquianRules.from_options(preset, game_length="hand")
    hands = []
    for seat in range(2):
        seated = [
            get_player(agent if s == seat else opponent, deal * 97 + s, DEALS[how if s == seat else "sifted"])
            for s in range(2)
        ]
        result = play_out(seated, new_game(rules, deal), hand_only=True).last_hand
        hands.append(
            {
                "deal": deal,
                "won": result.winner == seat,
                "decided": result.winner >= 0,
                "score": result.scores[seat],
            }
        )
    return hands


def network_hands(checkpoint: str, opponent: str, deals: int, first_deal: int) -> list[list[dict]]:
    """A checkpoint's hands at its mode against ``opponent``, by deal (a hand's score: 1 won,
    0 lost, a share for a tableau)."""
    from training.evaluate import evaluate

    result = evaluate(checkpoint, [opponent], games=2 * deals, seed=first_deal, argmax=True)
    scores = result.per_game
    return [
        [{"deal": i, "won": s == 1.0, "decided": s in (0.0, 1.0), "score": 2 * s - 1} for s in scores[i : i + 2]]
        for i in range(0, len(scores), 2)
    ]


def env_speed(preset: str, seconds: float) -> float:
    """Agent-steps a second of random legal play in the wrapped AEC env (single hands)."""
    from carousel_env.games.conquian.env import env

    e = env(preset=preset, episode="hand")
    seeds = iter(range(10**9))

    def one_hand(rng: np.random.Generator) -> int:
        e.reset(seed=next(seeds))
        steps = 0
        for agent in e.agent_iter():
            _, _, term, trunc, _ = e.last()
            if term or trunc:
                e.step(None)
                continue
            e.step(int(rng.choice(np.flatnonzero(e.observe(agent)["action_mask"]))))
            steps += 1
        return steps

    return random_steps(one_hand, seconds)


def vector_speed(preset: str, seconds: float, num_envs: int) -> float:
    """Agent-steps a second of random legal play in the vector env (single hands, autoreset)."""
    from carousel_env.games.conquian.vector import ConquianVectorEnv

    venv = ConquianVectorEnv(num_envs, preset=preset, episode="hand")
    step = venv.reset(seed=0)

    def one_step(rng: np.random.Generator) -> int:
        nonlocal step
        step = venv.step(np.argmax(rng.random(step.action_mask.shape) * step.action_mask, axis=1))
        return num_envs

    return random_steps(one_step, seconds)


def speed(args: argparse.Namespace) -> dict:
    aec, vector = [], []
    for _ in range(args.rounds):
        aec.append(env_speed(args.preset, args.speed))
        vector.append(vector_speed(args.preset, args.speed, args.num_envs))
    report = {
        "preset": args.preset,
        "aec_steps_per_s": aec,
        "vector_steps_per_s": vector,
        "ratio_median": statistics.median(v / a for a, v in zip(aec, vector)),
    }
    print(json.dumps(report) if args.json else "\n".join(f"{k}: {v}" for k, v in report.items()))
    return report


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--agent", default="simple")
    parser.add_argument("--opponent", default="random")
    parser.add_argument("--preset", choices=tuple(PRESETS), default="book")
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--first-deal", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--speed", type=float, default=0.0, help="seconds a side: time the envs instead")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--num-envs", type=int, default=16)
    parser.add_argument("--deal", choices=DEALS, default="sifted", help="how a search agent deals (see above)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.deal != "sifted" and not args.agent.startswith("search"):
        parser.error(f"--deal {args.deal} is for a search agent (search@N), not {args.agent!r}")
    if args.speed:
        return speed(args)
    start = time.perf_counter()
    deals = list(range(args.first_deal, args.first_deal + args.deals))
    n = len(deals)
    if Path(args.agent).exists():
        per_deal = network_hands(args.agent, args.opponent, args.deals, args.first_deal)
    else:
        with ProcessPoolExecutor(args.workers) as pool:
            per_deal = list(
                pool.map(play_deal, [args.agent] * n, [args.opponent] * n, deals, [args.preset] * n, [args.deal] * n)
            )
    hands = [h for deal in per_deal for h in deal]
    decided = [h for h in hands if h["decided"]]
    won = sum(h["won"] for h in decided)
    deal_shares = [
        sum(h["won"] for h in d) / sum(h["decided"] for h in d) for d in per_deal if any(h["decided"] for h in d)
    ]
    report = {
        "agent": args.agent if args.deal == "sifted" else f"{args.agent} (deal: {args.deal})",
        "opponent": args.opponent,
        "preset": args.preset,
        "hands": len(hands),
        "decided": len(decided),
        "won_of_decided": won / max(len(decided), 1),
        "over_hands": wilson_interval(won, len(decided)),
        "over_deals": mean_interval(deal_shares, clip=(0.0, 1.0)),
        "tableau_rate": 1 - len(decided) / len(hands),
        "mean_score": statistics.mean(h["score"] for h in hands),
        "seconds": time.perf_counter() - start,
    }
    print(json.dumps(report) if args.json else "\n".join(f"{k}: {v}" for k, v in report.items()))
    return report


if __name__ == "__main__":
    main()
