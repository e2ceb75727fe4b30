"""Carioca's scripted players against each other, and the envs' speed.

    python -m benchmarks.bench_carioca --agent simple --opponent random --players 2 --deals 50
    python -m benchmarks.bench_carioca --speed 8 --rounds 3 --players 4   # AEC against vector
    python -m benchmarks.bench_carioca --agent search@4 --deal hands --opponent simple --players 2

Each deal is played once with the agent at every seat (the opponent at every other seat):
seats rotated, the same cards. A win is the lowest total after six rounds (tied seats share
it). Prints the agent's win rate with 95% intervals over games (Wilson) and over deals (the
deals' means), the mean total difference to the opponents, how often a round was won by going
out, and the time per game.

``--deal`` says how an agent ``search@N`` deals the cards it cannot see: ``sifted`` (the
shipped player: each opponent keeps the cards it took from the pile, the rest drawn
uniformly), ``hands`` (the opponents' real hands, only the stock's order dealt again) or
``all`` (the real state, the stock's order too). No player may deal ``hands`` or ``all``:
they measure what perfect opponent modelling, and seeing the future draws, could give the
search. Its rollouts play ``simple`` at every seat, which is exactly the opponent here.

``--speed S`` times uniform random legal play instead, in agent-steps a second (a decision
of the player to act), in one process: the AEC env (wrapped, the action read from the mask
in the observation, as a learner would) and ``CariocaVectorEnv(--num-envs)``, ``S`` seconds
each, alternated for ``--rounds`` rounds so that the machine's drift hits both alike. Pin it
to one core with ``taskset -c 0``.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace

import numpy as np

from carousel_env.core.stats import mean_interval, wilson_interval
from carousel_env.games.carioca.engine import CariocaState, RoundEnd
from carousel_env.games.carioca.players import determinize, get_player, play_game


def true_deal(state: CariocaState, rng: random.Random) -> CariocaState:
    """``state`` with only the stock's order dealt again: the opponents' hands as they are."""
    stock = list(state.stock)
    rng.shuffle(stock)
    return replace(state, stock=tuple(stock))


DEALS = {"sifted": determinize, "hands": true_deal, "all": lambda state, rng: state}


def play_deal(agent: str, opponent: str, players: int, deal: int, how: str = "sifted") -> list[dict]:
    """The deal played once with the agent at each seat (a search agent dealing as ``how``)."""
    games = []
    for seat in range(players):
        names = [agent if s == seat else opponent for s in range(players)]
        start = time.perf_counter()
        seated = [get_player(n, deal * 97 + s, DEALS[how if s == seat else "sifted"]) for s, n in enumerate(names)]
        state = play_game(seated, deal)
        result = state.game_result
        others = [t for s, t in enumerate(result.totals) if s != seat]
        games.append(
            {
                "deal": deal,
                "score": 1.0 / len(result.winners) if seat in result.winners else 0.0,
                "difference": sum(others) / len(others) - result.totals[seat],
                "outs": sum(r.end is RoundEnd.OUT for r in state.rounds),
                "agent_outs": sum(r.out == seat for r in state.rounds),
                "seconds": time.perf_counter() - start,
            }
        )
    return games


def vector_speed(players: int, seconds: float, num_envs: int) -> float:
    """Agent-steps a second of random legal play in the vector env (the compile not timed)."""
    from carousel_env.games.carioca.vector import CariocaVectorEnv

    venv = CariocaVectorEnv(num_envs, num_players=players)
    rng = np.random.default_rng(0)
    step = venv.reset(seed=0)
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        step = venv.step(np.argmax(rng.random(step.action_mask.shape) * step.action_mask, axis=1))
        steps += num_envs
    return steps / (time.perf_counter() - start)


def env_speed(players: int, seconds: float) -> float:
    """Agent-steps a second of random legal play in the wrapped AEC env."""
    from carousel_env.games.carioca.env import env

    e, rng, steps, seed = env(num_players=players), np.random.default_rng(0), 0, 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        e.reset(seed=seed)
        seed += 1
        for agent in e.agent_iter():
            _, _, term, trunc, _ = e.last()
            if term or trunc:
                e.step(None)
                continue
            e.step(int(rng.choice(np.flatnonzero(e.observe(agent)["action_mask"]))))
            steps += 1
            if time.perf_counter() - start >= seconds:
                break
    return steps / (time.perf_counter() - start)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--agent", default="simple")
    parser.add_argument("--opponent", default="random")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--deals", type=int, default=50)
    parser.add_argument("--first-deal", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--speed", type=float, default=0.0, help="seconds a side: time the envs instead")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--num-envs", type=int, default=64)
    parser.add_argument("--deal", choices=DEALS, default="sifted", help="how a search agent deals (see above)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.deal != "sifted" and not args.agent.startswith("search"):
        parser.error(f"--deal {args.deal} is for a search agent (search@N), not {args.agent!r}")
    if args.speed:
        return speed(args)
    start = time.perf_counter()
    deals = range(args.first_deal, args.first_deal + args.deals)
    with ProcessPoolExecutor(args.workers) as pool:
        n = len(deals)
        per_deal = list(
            pool.map(play_deal, [args.agent] * n, [args.opponent] * n, [args.players] * n, deals, [args.deal] * n)
        )
    games = [g for deal in per_deal for g in deal]
    wins = sum(g["score"] for g in games)
    deal_means = [sum(g["score"] for g in deal) / len(deal) for deal in per_deal]
    report = {
        "agent": args.agent,
        "deal": args.deal,
        "opponent": args.opponent,
        "players": args.players,
        "games": len(games),
        "win_rate": wins / len(games),
        "over_games": wilson_interval(wins, len(games)),
        "over_deals": mean_interval(deal_means, clip=(0.0, 1.0)),
        "fair_share": 1 / args.players,
        "total_difference": float(np.mean([g["difference"] for g in games])),
        "rounds_gone_out": sum(g["outs"] for g in games) / (6 * len(games)),
        "agent_went_out": sum(g["agent_outs"] for g in games) / (6 * len(games)),
        "seconds_per_game": float(np.mean([g["seconds"] for g in games])),
        "wall_seconds": time.perf_counter() - start,
    }
    if args.json:
        print(json.dumps(report))
    else:
        lo, hi = report["over_games"]
        dlo, dhi = report["over_deals"]
        dealt = "" if args.deal == "sifted" else f" ({args.deal} deals)"
        print(
            f"{args.agent}{dealt} against {args.opponent} at {args.players} players, {len(games)} games: win rate "
            f"{report['win_rate']:.3f} ({lo:.3f}-{hi:.3f} over games, {dlo:.3f}-{dhi:.3f} over deals; fair share "
            f"{report['fair_share']:.2f}); total {report['total_difference']:+.1f} against the opponents' mean; "
            f"rounds ended by going out {report['rounds_gone_out']:.2f} (the agent {report['agent_went_out']:.2f}); "
            f"{report['seconds_per_game']:.2f} s a game"
        )
    return report


def speed(args) -> dict:
    vector_speed(args.players, 0.5, args.num_envs)  # the compile, outside the timings
    aec, vec = [], []
    for r in range(args.rounds):
        aec.append(env_speed(args.players, args.speed))
        vec.append(vector_speed(args.players, args.speed, args.num_envs))
        print(f"round {r + 1}: AEC {aec[-1]:,.0f}, vector {vec[-1]:,.0f} agent-steps/s", flush=True)
    report = {
        "players": args.players,
        "aec": statistics.median(aec),
        "vector": statistics.median(vec),
        "num_envs": args.num_envs,
        "rounds": {"aec": aec, "vector": vec},
    }
    report["ratio"] = report["vector"] / report["aec"]
    if args.json:
        print(json.dumps(report))
    else:
        print(
            f"median: AEC {report['aec']:,.0f}, vector ({args.num_envs} games) {report['vector']:,.0f} "
            f"agent-steps/s: {report['ratio']:.1f}x"
        )
    return report


if __name__ == "__main__":
    main()
