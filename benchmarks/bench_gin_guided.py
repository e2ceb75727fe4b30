"""Strength and cost of Gin Rummy's guided search (``search@N+CHECKPOINT``) against its own
network.

    .venv/bin/python -m benchmarks.bench_gin_guided --checkpoint runs/gin_bc2
        [--budgets 4 8] [--hands 100] [--seed 0] [--preset openspiel] [--margin M] [--json]

For each budget (deals a decision), the guided player
(``training.policies.guided_search_player``) plays ``--hands`` hands against the same
checkpoint's network (sampling from its policy, as ``carousel eval`` plays a checkpoint) in
the Gin AEC env, in this one process: deal ``seed + h // 2`` twice, the guided player in
seat 0 then seat 1 (mirror-paired). Printed: the guided player's share of the decided hands
(a dead hand is neither's) with its 95% Wilson interval, its mean hand score less the
network's, and the milliseconds it spends per searched decision (mean, median and 95th
percentile; decisions with one legal action are the env's, never asked), with the rollouts
and rollout steps a decision and the share of rollouts cut at the step limit. The timings are
wall-clock on this machine, so they move with its load; torch runs on one thread (a process
of its own beside another busy one: run ``carousel eval`` beside it with
``OMP_NUM_THREADS=1``).

The headline figure, with intervals over hands and deals and more hands, is ``carousel
eval`` (two workers):

    carousel eval --game gin_rummy --variant openspiel --checkpoint search@8+CHECKPOINT \\
        --opponents CHECKPOINT --games 1000 --seed 0 --workers 2 --json
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
import torch

from carousel_env.core.stats import wilson_interval
from carousel_env.games.gin_rummy.env import env as gin_env
from carousel_env.games.gin_rummy.policies import env_action
from training.policies import guided_search_player, network_callable


def play_hand(env, policies, timed_seat: int, times: list[float]) -> tuple[int, int]:
    """One hand from the env's reset; returns its points per seat."""
    for agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        seat = env.agents.index(agent)
        start = time.perf_counter()
        action = env_action(policies[seat], env, obs["observation"], obs["action_mask"])
        if seat == timed_seat and np.count_nonzero(obs["action_mask"]) > 1:
            times.append(time.perf_counter() - start)
        env.step(action)
    return env.unwrapped.episode_hands[-1].points


def measure(checkpoint: str, samples: int, hands: int, seed: int, preset: str, margin: float | None = None) -> dict:
    name = f"search@{samples}+{checkpoint}"
    guided = guided_search_player(name, seed=seed, game="gin_rummy")
    if margin is not None:
        guided.player.margin = margin
    k = guided.player.k
    network = network_callable(checkpoint, None, seed + 1)
    env = gin_env(preset=preset, k_knocks=k, episode="hand")
    times: list[float] = []
    margins, wins, decided = [], 0, 0
    start = time.perf_counter()
    for h in range(hands):
        seat = h % 2
        env.reset(seed=seed + h // 2)
        policies = [network, network]
        policies[seat] = guided
        points = play_hand(env, policies, seat, times)
        margin = points[seat] - points[1 - seat]
        margins.append(margin)
        decided += margin != 0
        wins += margin > 0
    wall = time.perf_counter() - start
    low, high = wilson_interval(wins, max(decided, 1))
    ms = 1000 * np.asarray(times or [0.0])
    searched = max(guided.player.decisions, 1)
    return {
        "player": name,
        "margin": guided.player.margin,
        "hands": hands,
        "decided": decided,
        "win_rate_decided": wins / max(decided, 1),
        "ci95": (low, high),
        "mean_margin": float(np.mean(margins)),
        "ms_per_decision": float(ms.mean()),
        "ms_median": float(np.median(ms)),
        "ms_p95": float(np.percentile(ms, 95)),
        "rollouts_per_decision": guided.player.rollouts / searched,
        "rollout_steps_per_decision": guided.player.rollout_steps / searched,
        "cut_rollouts_share": guided.player.cut_rollouts / max(guided.player.rollouts, 1),
        "decisions": guided.player.decisions,
        "wall_s": wall,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkpoint", required=True, help="the Gin network that guides and opposes")
    parser.add_argument("--budgets", type=int, nargs="+", default=[4, 8], help="deals a decision")
    parser.add_argument("--hands", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--preset", default="openspiel", help="the rules' preset (book, openspiel)")
    parser.add_argument("--margin", type=float, help="standard errors a gain must clear (default: the player's)")
    parser.add_argument("--json", action="store_true", help="one JSON object per line")
    args = parser.parse_args(argv)
    # Small batches gain nothing from more threads, and threads spinning beside another busy
    # process slow both several times over.
    torch.set_num_threads(1)
    for samples in args.budgets:
        row = measure(args.checkpoint, samples, args.hands, args.seed, args.preset, args.margin)
        if args.json:
            print(json.dumps(row), flush=True)
            continue
        low, high = row["ci95"]
        print(
            f"{row['player']} (margin {row['margin']:g}) vs {args.checkpoint} ({row['hands']} hands, "
            f"{row['decided']} decided): "
            f"{row['win_rate_decided']:.3f} of the decided [{low:.3f}, {high:.3f}], "
            f"margin {row['mean_margin']:+.2f} a hand; {row['ms_per_decision']:.0f} ms/decision "
            f"(median {row['ms_median']:.0f}, p95 {row['ms_p95']:.0f}), "
            f"{row['rollouts_per_decision']:.0f} rollouts and {row['rollout_steps_per_decision']:.0f} rollout "
            f"steps/decision ({row['cut_rollouts_share']:.1%} cut at the step limit), "
            f"{row['decisions']} decisions, {row['wall_s']:.0f} s",
            flush=True,
        )


if __name__ == "__main__":
    main()
