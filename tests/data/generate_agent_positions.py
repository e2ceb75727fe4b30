"""Regenerate ``agent_positions.jsonl``: the positions the solver is asked in the shipped agents' games.

    .venv/bin/python -m tests.data.generate_agent_positions

How it is built: the shipped agents play seeded full games against themselves in the
Carousel env (``carousel_env.games.carousel.agents.match.play_match``, every seat the checkpoint's network
sampling from a generator of its own, ``training.policies.load_policy`` as ``carousel play``
loads it): ``checkpoints/ppo_2p`` heads-up, ``checkpoints/ppo_4p`` at 3, 4 and 5 players.
Every time the env asks the solver for a decision's suggestions (``carousel_env.games.carousel.envs.aec.decision``
at a state where a play is allowed, the decisions the env takes on its own included), the
table and the acting player's hand are recorded. Each set's recorded positions are
deduplicated (the first occurrence kept) and thinned to ``keep`` positions spread evenly over
them (every ``len / keep``-th, so every game of the set contributes in proportion to the
solver calls it made), then stored with their MILP optima exactly as
``generate_solver_positions`` stores its own (``record``: both objectives, presolve on and off
cross-checked).

Each line is ``generate_solver_positions``'s line (``table``, ``hand``, ``decks``, ``variant``,
``source``, ``best_points``, ``best_cards``) with ``source`` the set (``agent-2p`` .. ``agent-5p``)
and ``players`` added (``tests.support.stored.agent_positions`` loads them). The same command
writes the same file: seeded deals and networks, one torch thread.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import torch

from carousel_env.core.cards import Hand, Table, hand_str, table_str
from carousel_env.games.carousel.agents.match import play_match
from carousel_env.games.carousel.engine.game import ActionKind, GameState, allowed
from carousel_env.games.carousel.engine.rules import carousel
from carousel_env.games.carousel.envs import aec
from carousel_env.games.carousel.envs.config import EnvConfig
from carousel_env.games.carousel.envs.observation import layout
from tests.data.generate_solver_positions import record
from training.policies import load_policy

OUT = Path(__file__).resolve().parent / "agent_positions.jsonl"
ROOT = Path(__file__).resolve().parents[2]
K = EnvConfig().k_suggestions  # the env's default, which both checkpoints were trained with

# (set, checkpoint, players, games, first deal seed, positions kept)
PLAN = [
    ("agent-2p", "checkpoints/ppo_2p", 2, 100, 21_200_000, 1200),
    ("agent-3p", "checkpoints/ppo_4p", 3, 60, 21_300_000, 600),
    ("agent-4p", "checkpoints/ppo_4p", 4, 80, 21_400_000, 600),
    ("agent-5p", "checkpoints/ppo_4p", 5, 80, 21_500_000, 600),
]


@contextmanager
def solver_calls() -> Iterator[list[tuple[Table, Hand]]]:
    """The ``(table, hand)`` of every decision the env asks the solver about, while inside."""
    calls: list[tuple[Table, Hand]] = []
    original = aec.decision

    def recording(state: GameState, k: int):
        if ActionKind.PLAY in allowed(state):  # exactly when decision() calls the solver
            calls.append((state.table, state.hands[state.current]))
        return original(state, k)

    aec.decision = recording
    try:
        yield calls
    finally:
        aec.decision = original


def self_play_positions(checkpoint: str, players: int, games: int, seed: int) -> list[tuple[Table, Hand]]:
    """The distinct solver positions of ``games`` self-play games of ``checkpoint``, in play order."""
    policies = [load_policy(str(ROOT / checkpoint), layout(K), seed=seed + seat) for seat in range(players)]
    with solver_calls() as calls:
        play_match(policies, games, seed=seed, k_suggestions=K)
    seen: set[tuple[str, str]] = set()
    distinct = []
    for table, hand in calls:
        key = (table_str(table), hand_str(hand))
        if key not in seen:
            seen.add(key)
            distinct.append((table, hand))
    return distinct


def spread(items: list, keep: int) -> list:
    """``keep`` of ``items`` (all of them if fewer), evenly spaced, in order."""
    if len(items) <= keep:
        return list(items)
    return [items[i * len(items) // keep] for i in range(keep)]


def main() -> None:
    torch.set_num_threads(1)  # the networks' sums in one fixed order: the same samples every run
    lines = []
    for name, checkpoint, players, games, seed, keep in PLAN:
        start = time.perf_counter()
        rules = carousel(players)
        positions = self_play_positions(checkpoint, players, games, seed)
        kept = spread(positions, keep)
        for table, hand in kept:
            lines.append(json.dumps(record(table, hand, rules, name) | {"players": players}))
        hands = sorted(len(hand) for _, hand in kept)
        print(
            f"{name}: {games} games, {len(positions)} distinct solver positions, kept {len(kept)} "
            f"(hand median {hands[len(hands) // 2]}, max {hands[-1]}), {time.perf_counter() - start:.0f} s",
            flush=True,
        )
    OUT.write_text("\n".join(lines) + "\n")
    print(f"{OUT}: {len(lines)} lines, {OUT.stat().st_size / 1e6:.2f} MB")


if __name__ == "__main__":
    main()
