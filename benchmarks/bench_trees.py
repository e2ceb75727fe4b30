"""The same env measurement in two source trees, alternated in one run: the speed of a
change (a refactor, a move) with the machine's drift cancelled.

    git worktree add ../before <commit>
    .venv/bin/python -m benchmarks.bench_trees --before ../before [--after .] [--rounds 3] [--seconds 10]
    .venv/bin/python -m benchmarks.bench_trees --before ../before --game gin_rummy   # or carioca

Each round measures, in each tree in turn (a subprocess whose working folder is the tree,
so it imports that tree's ``carousel_env``), random legal play through the wrapped AEC env
and through the vector env (Carousel: ``benchmarks.bench_vector_env --measure``; Gin Rummy:
``benchmarks.bench_gin``'s ``aec`` and ``vector``, preset openspiel; Carioca:
``benchmarks.bench_carioca``'s ``env_speed`` and ``vector_speed``; both trees must have
them). Prints every measurement and the medians per tree.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

# Python run in a tree to time a family game's env: (AEC, vector), formatted with s, p, n.
GAME_MEASURES = {
    "gin_rummy": (
        "from benchmarks.bench_gin import aec; print(aec({s}))",
        "from benchmarks.bench_gin import vector; print(vector({s}, {n}))",
    ),
    "carioca": (
        "from benchmarks.bench_carioca import env_speed; print(env_speed({p}, {s}))",
        "from benchmarks.bench_carioca import vector_speed; print(vector_speed({p}, {s}, {n}))",
    ),
}


def measure_game(tree: Path, game: str, kind: str, seconds: float, players: int, num_envs: int) -> float:
    code = GAME_MEASURES[game][kind == "vector"].format(s=seconds, p=players, n=num_envs)
    done = subprocess.run([sys.executable, "-c", code], cwd=tree, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{tree}: {code} failed:\n{done.stderr[-2000:]}")
    return float(done.stdout.strip().splitlines()[-1])


def measure(tree: Path, kind: str, seconds: float, players: int, num_envs: int, game: str = "carousel") -> float:
    if game != "carousel":
        return measure_game(tree, game, kind, seconds, players, num_envs)
    command = [sys.executable, "-m", "benchmarks.bench_vector_env", "--measure", kind, "--seconds", str(seconds),
               "--players", str(players), "--num-envs", str(num_envs)]  # fmt: skip
    done = subprocess.run(command, cwd=tree, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{tree}: {' '.join(command[1:])} failed:\n{done.stderr[-2000:]}")
    return float(json.loads(done.stdout.strip().splitlines()[-1])["steps_per_s"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", type=Path, required=True, help="the tree before the change")
    parser.add_argument("--after", type=Path, default=Path("."), help="the tree after it (default: here)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=10.0, help="time per measurement (default 10)")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--num-envs", type=int, default=64)
    parser.add_argument("--game", choices=("carousel", *GAME_MEASURES), default="carousel")
    args = parser.parse_args(argv)
    trees = {"before": args.before.resolve(), "after": args.after.resolve()}
    for kind in ("aec", "vector"):  # warm numba's cache in both trees first: compiles are not measured
        for tree in trees.values():
            measure(tree, kind, 1.0, args.players, args.num_envs, args.game)
    figures: dict[tuple[str, str], list[float]] = {}
    for r in range(args.rounds):
        for kind in ("aec", "vector"):
            for name, tree in trees.items():
                value = measure(tree, kind, args.seconds, args.players, args.num_envs, args.game)
                figures.setdefault((kind, name), []).append(value)
                print(f"round {r + 1} {kind:<6} {name:<6} {value:10.0f} agent-steps/s", flush=True)
    for kind in ("aec", "vector"):
        before, after = (statistics.median(figures[(kind, n)]) for n in ("before", "after"))
        print(f"{kind}: median before {before:.0f}, after {after:.0f} agent-steps/s ({after / before - 1:+.1%})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
