"""Evaluation: seeded full games, rotating seats and dealers, mirror-paired deals.

Each deal (a game seed, which fixes the first dealer and every shuffle) is played twice:
the second time the candidate takes the seat its opponent had, so luck of the cards
cancels out of the comparison. Consecutive pairs move the candidate one seat on, so every
seat (and, through the seeds, every dealer position) comes up.

Reported: game win rate with a 95% Wilson interval, mean round-score difference
(candidate's round points minus the opponents' mean), and the candidate's knock, go-out
and undercut rates (undercut: share of its knocks that were undercut).
"""

from __future__ import annotations

import math
from dataclasses import replace

import torch

from carousel_env.engine.errors import CarouselError
from training.envs import EnvSpec, layout_for
from training.network import Agent
from training.policies import NetworkPolicy, is_checkpoint_name, load_network_policy, make_scripted
from training.selfplay import Driver, EpisodeSpec, play_episodes

Z_95 = 1.959963984540054


def wilson_interval(wins: float, n: int, z: float = Z_95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion (draws may count as half wins)."""
    if n <= 0:
        return (0.0, 1.0)
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def _controller(agent, key: str, policies: dict, layout_dict, seed: int) -> str:
    """Register ``agent`` (an Agent, a checkpoint path or a baseline name) under a controller key."""
    gen = torch.Generator().manual_seed(seed)
    if isinstance(agent, Agent):
        policies[key] = NetworkPolicy(agent, key, generator=gen)
        return key
    if isinstance(agent, NetworkPolicy):
        policies[key] = NetworkPolicy(agent.agent, key, agent.greedy, generator=gen)
        return key
    if is_checkpoint_name(agent):
        policy = load_network_policy(agent, layout_dict)
        policy.generator = gen
        policies[key] = policy
        return key
    make_scripted(agent)  # fail now, with a clear message, for an unknown name
    return "script:" + agent


def eval_specs(num_players: int, games: int, seed: int, candidate: str, opponents: list[str]) -> list[EpisodeSpec]:
    """Mirror pairs: pair ``g`` deals seed ``seed+g`` with the candidate in seat ``g % n``
    and again with the candidate swapped into the next seat. Opponents rotate over pairs."""
    specs = []
    for g in range((games + 1) // 2):
        seat = g % num_players
        mirror = (seat + 1) % num_players
        others = [opponents[(g + k) % len(opponents)] for k in range(num_players - 1)]
        for cand_seat, _other_seat in ((seat, mirror), (mirror, seat)):
            controllers = []
            it = iter(others)
            for s in range(num_players):
                controllers.append(candidate if s == cand_seat else None)
            # The opponent who sat in the mirror seat now takes the candidate's seat.
            order = [s for s in range(num_players) if s != seat]
            assigned = dict(zip(order, it))
            if cand_seat == mirror:
                assigned[seat] = assigned.pop(mirror)
            for s, c in assigned.items():
                controllers[s] = c
            specs.append(EpisodeSpec(seed + g, tuple(controllers), tag=(g, cand_seat, others[0])))
    return specs


def summarise(summaries: list[dict], candidate: str) -> dict:
    wins = 0.0
    per_game = []
    rounds = knocks = outs = undercuts = 0
    diff_sum = 0.0
    by_opponent: dict[str, list[float]] = {}
    for s in summaries:
        seat = s["spec"].controllers.index(candidate)
        totals = s["totals"] if s["totals"] is not None else s["returns"]
        top = max(totals)
        leaders = [p for p, t in enumerate(totals) if t == top]
        if s.get("winner") is not None:
            score = 1.0 if s["winner"] == seat else 0.0
        else:
            score = 1.0 / len(leaders) if seat in leaders else 0.0
        wins += score
        per_game.append(score)
        by_opponent.setdefault(s["spec"].tag[2], []).append(score)
        for r in s["rounds"]:
            rounds += 1
            pts = r["points"]
            others = [p for i, p in enumerate(pts) if i != seat]
            diff_sum += pts[seat] - sum(others) / len(others)
            if r["knocker"] == seat:
                knocks += 1
                undercuts += bool(r["undercut"])
            outs += r["went_out"] == seat
    n = len(summaries)
    lo, hi = wilson_interval(wins, n)
    return {
        "games": n,
        "win_rate": wins / n if n else 0.0,
        "win_rate_ci": [lo, hi],
        "rounds": rounds,
        "mean_round_score_diff": diff_sum / rounds if rounds else 0.0,
        "knock_rate": knocks / rounds if rounds else 0.0,
        "go_out_rate": outs / rounds if rounds else 0.0,
        "undercut_rate": undercuts / knocks if knocks else 0.0,
        "per_game": per_game,
        "by_opponent": {k: {"games": len(v), "win_rate": sum(v) / len(v)} for k, v in sorted(by_opponent.items())},
    }


def evaluate(
    candidate,
    opponents,
    games: int = 100,
    num_players: int = 2,
    seed: int = 0,
    env_spec: EnvSpec | None = None,
    num_envs: int = 8,
    num_workers: int = 0,
) -> dict:
    """Play ``games`` full games of ``candidate`` against ``opponents`` (names, a list or a
    comma-separated string) and summarise. Agents: an Agent, a checkpoint path, a baseline name."""
    if isinstance(opponents, str):
        opponents = [o.strip() for o in opponents.split(",") if o.strip()]
    spec = replace(env_spec or EnvSpec(num_players=num_players), num_players=num_players, episode="game")
    layout_dict = candidate.layout.as_dict() if isinstance(candidate, Agent) else layout_for(spec).as_dict()
    policies: dict[str, NetworkPolicy] = {}
    cand_key = _controller(candidate, "net:candidate", policies, layout_dict, seed)
    opp_keys = [
        _controller(o, f"net:opponent{k}", policies, layout_dict, seed + 1 + k) for k, o in enumerate(opponents)
    ]
    names = dict(zip(opp_keys, opponents))
    if cand_key in opp_keys:  # a baseline against itself: keep the seats apart
        raise CarouselError(f"candidate {candidate!r} is also an opponent; evaluate it against other agents")
    specs = eval_specs(num_players, games, seed, cand_key, opp_keys)
    driver = Driver(spec, min(num_envs, len(specs)), num_workers)
    try:
        summaries = play_episodes(driver, specs, policies)
    finally:
        driver.close()
    result = summarise(summaries, cand_key)
    result["by_opponent"] = {names.get(k, k): v for k, v in result["by_opponent"].items()}
    result["candidate"] = candidate if isinstance(candidate, str) else "network"
    result["opponents"] = list(opponents)
    result["players"] = num_players
    result["seed"] = seed
    return result
