"""Memory of one env process per game: the resident set after N games of uniform random legal
play in one AEC env (``carousel_env.env(game=...)``), long enough to fill every per-process
cache, and the agent-steps/s of that play (issue 57).

    .venv/bin/python -m benchmarks.bench_env_memory [--cases carousel gin_book gin_openspiel carioca] [--scale 1]
        [--gin-caches SETTING]
    .venv/bin/python -m benchmarks.bench_env_memory --compare unbounded bounded [--rounds 3] [--games 40]

What it measures. Each case runs in a fresh worker process (the caches are per process, as
in each of a subprocess vector env's workers): one env, games seeded 0, 1, 2..., the action
drawn from the observation's mask (as ``benchmarks.random_play``). At each checkpoint (a
number of finished games) the worker prints the games, the agent-steps, ``VmRSS`` from
``/proc/self/status`` (Linux) and the agent-steps/s since the start and since the last
checkpoint; at the end, every ``lru_cache`` of the game's modules with its fill
(``currsize/maxsize``: a cache below its bound at the end was not filled yet) and the share
of its calls it answered. The resident set includes the interpreter, NumPy and the compiled
code each game loads (Carousel's solver, Carioca's distance). ``--scale`` multiplies every
checkpoint; at 1, the four cases take about 20 minutes on one core.

``--compare`` plays the ``--compare-case`` case (default: Gin's ``book`` preset) once per
setting of the caches of ``carousel_env.games.gin_rummy.melds``, the settings taking turns
round after round in fresh workers (this machine's speed drifts, so only figures of the same
round are compared), and prints each round's agent-steps/s and the ratio to the first
setting. A setting is ``bounded`` (the module's own bounds), ``unbounded`` (2**20 entries per
cache, the bound before issue 57) or the three maxsizes ``CORE,DISCARDS,LEAST`` (of
``_melded_core``, ``discard_deadwoods`` and ``_least_after_discard``; 0 removes a cache).
``--gin-caches`` sets them for the ``--cases`` runs.
"""

from __future__ import annotations

import argparse
import functools
import json
import statistics
import subprocess
import sys
import time

import numpy as np

# name: (game, env config, checkpoints in finished games), the last where every cache the
# play fills is full (Carousel's meld cache aside: 1,838 of 65,536 after 500 games). Gin's
# book game runs to 100 points (about 14,000 agent-steps); its OpenSpiel preset is one hand (110).
CASES: dict[str, tuple[str, dict[str, object], tuple[int, ...]]] = {
    "carousel": ("carousel", {}, (5, 50, 200, 500)),
    "gin_book": ("gin_rummy", {"preset": "book"}, (5, 50, 200, 400)),
    "gin_openspiel": ("gin_rummy", {"preset": "openspiel"}, (100, 2_000, 10_000, 40_000)),
    "carioca": ("carioca", {}, (2, 10, 50, 100)),
}
GIN_CACHES = ("_melded_core", "discard_deadwoods", "_least_after_discard")
UNBOUNDED = 1 << 20  # each Gin melds cache's maxsize before issue 57


def resident_mib() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS in /proc/self/status")


def set_gin_caches(setting: str) -> None:
    """Rebuild the caches of Gin's melds module with the maxsizes ``setting`` names (see the
    module docstring); the functions call each other through the module, so all use them."""
    if setting == "bounded":
        return
    from carousel_env.games.gin_rummy import melds

    sizes = [UNBOUNDED] * 3 if setting == "unbounded" else [int(s) for s in setting.split(",")]
    for name, size in zip(GIN_CACHES, sizes, strict=True):
        plain = getattr(melds, name).__wrapped__
        setattr(melds, name, functools.lru_cache(maxsize=size)(plain) if size else plain)


def game_caches(game: str) -> dict[str, str]:
    """Every ``lru_cache`` of the game's loaded modules (and the shared core): its fill and hit rate."""
    prefixes = (f"carousel_env.games.{game}.", "carousel_env.core.", "carousel_env.envkit.")
    fills = {}
    for module_name, module in sorted(sys.modules.items()):
        if not module_name.startswith(prefixes):
            continue
        for name, value in sorted(vars(module).items()):
            info = getattr(value, "cache_info", None)
            if callable(info) and getattr(value, "__module__", None) == module_name:
                stats = info()
                asked = stats.hits + stats.misses
                hits = f", {stats.hits / asked:.1%} hits" if asked else ""
                fills[f"{module_name.rsplit('.', 1)[-1]}.{name}"] = f"{stats.currsize}/{stats.maxsize}{hits}"
    return fills


def worker(case: str, checkpoints: list[int], gin_caches: str) -> None:
    """Play the case's games, printing one JSON line per checkpoint and one for the caches."""
    import carousel_env

    game, config, _ = CASES[case]
    if game == "gin_rummy":
        set_gin_caches(gin_caches)
    env = carousel_env.env(game=game, **config)
    rng = np.random.default_rng(0)
    steps = games = last_steps = 0
    start = last = time.perf_counter()
    for target in checkpoints:
        while games < target:
            env.reset(seed=games)
            for _agent in env.agent_iter():
                obs, _reward, term, trunc, _info = env.last()
                if term or trunc:
                    action = None
                else:
                    legal = np.flatnonzero(obs["action_mask"])
                    action = int(legal[rng.integers(len(legal))])
                    steps += 1
                env.step(action)
            games += 1
        now = time.perf_counter()
        figures = {
            "games": games,
            "steps": steps,
            "rss_mib": round(resident_mib(), 1),
            "steps_per_s": round(steps / (now - start)),
            "stretch_steps_per_s": round((steps - last_steps) / (now - last)),
        }
        print(json.dumps(figures), flush=True)
        last, last_steps = now, steps
    print(json.dumps({"caches": game_caches(game)}), flush=True)


def run_case(case: str, checkpoints: list[int], gin_caches: str = "bounded") -> list[dict]:
    """Run one worker process, printing its figures as they come; its JSON lines."""
    command = [sys.executable, "-m", "benchmarks.bench_env_memory", "--worker", case, "--gin-caches", gin_caches]
    command += ["--checkpoints", *map(str, checkpoints)]
    lines = []
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True) as process:
        assert process.stdout is not None
        for line in process.stdout:
            figures = json.loads(line)
            lines.append(figures)
            if "caches" in figures:
                print(f"  caches (entries/maxsize, hits): {figures['caches']}", flush=True)
                continue
            print(
                f"  after {figures['games']:>6,} games ({figures['steps']:>10,} agent-steps): "
                f"RSS {figures['rss_mib']:7.1f} MiB, {figures['steps_per_s']:>6,} agent-steps/s "
                f"({figures['stretch_steps_per_s']:,} since the last checkpoint)",
                flush=True,
            )
    if process.returncode:
        raise SystemExit(f"the {case} worker failed (exit status {process.returncode})")
    return lines


def compare(case: str, settings: list[str], rounds: int, games: int) -> None:
    """The case's agent-steps/s once per setting of Gin's caches, the settings alternating."""
    speeds: dict[str, list[float]] = {s: [] for s in settings}
    for round_index in range(1, rounds + 1):
        for setting in settings:
            print(f"round {round_index}, Gin caches {setting}:", flush=True)
            figures = run_case(case, sorted({max(1, games // 2), games}), setting)
            speeds[setting].append(figures[-2]["steps_per_s"])  # the last checkpoint (the caches come last)
        ratios = ", ".join(f"{s} {speeds[s][-1] / speeds[settings[0]][-1]:.3f}" for s in settings[1:])
        print(f"round {round_index}: agent-steps/s relative to {settings[0]}: {ratios}", flush=True)
    print(f"\n{case}, {games} games a run, agent-steps/s (whole run) per round:")
    for setting in settings:
        ratios = [new / old for new, old in zip(speeds[setting], speeds[settings[0]], strict=True)]
        print(
            f"  {setting:>26}: {', '.join(f'{v:,.0f}' for v in speeds[setting])}"
            f" (median ratio to {settings[0]}: {statistics.median(ratios):.3f})"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", nargs="+", choices=list(CASES), default=list(CASES))
    parser.add_argument("--scale", type=float, default=1.0, help="multiplies every checkpoint")
    parser.add_argument("--compare", nargs="+", metavar="SETTING", help="Gin cache settings to alternate")
    parser.add_argument("--compare-case", choices=[c for c in CASES if CASES[c][0] == "gin_rummy"], default="gin_book")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--games", type=int, default=40, help="games per run of --compare")
    parser.add_argument("--worker", choices=list(CASES), help=argparse.SUPPRESS)
    parser.add_argument("--checkpoints", type=int, nargs="+", help=argparse.SUPPRESS)
    parser.add_argument("--gin-caches", default="bounded", metavar="SETTING", help="Gin's caches in --cases' runs")
    args = parser.parse_args(argv)
    if args.worker:
        worker(args.worker, args.checkpoints, args.gin_caches)
        return 0
    if args.compare:
        compare(args.compare_case, args.compare, args.rounds, args.games)
        return 0
    for case in args.cases:
        game, config, checkpoints = CASES[case]
        scaled = sorted({max(1, round(c * args.scale)) for c in checkpoints})
        print(f"{case}: carousel_env.env(game={game!r}{''.join(f', {k}={v!r}' for k, v in config.items())})")
        run_case(case, scaled, args.gin_caches)
    return 0


if __name__ == "__main__":
    sys.exit(main())
