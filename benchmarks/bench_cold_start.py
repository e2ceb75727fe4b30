"""Cold and warm start of the environment: import, ``env.reset`` and the first ``env.step``.

    .venv/bin/python -m benchmarks.bench_cold_start [--rounds 1] [--attribute] [--vector | --train] [TREE ...]

Each measurement is a fresh interpreter. *Cold*: an empty numba cache (a new temporary
``NUMBA_CACHE_DIR``), so the solver's compiled code is built; *warm*: the same folder again,
now filled. Prints per phase (``import``: ``import carousel_env`` and the env module,
``reset``: ``env()`` and ``env.reset(seed=0)``, ``step``: the first ``env.step``, which
solves the next decision) and their total, then (not in the total) the first solve of a
crowded position, one whose sweep passes ``WITNESS_AFTER_STATES`` states, as about one game
decision in 40 does, and what the child printed on stderr (the notice a new user sees).

``TREE``: checkouts of this repository to compare (default: this one); with several, each
round measures them in turn (cold then warm, tree after tree), so that a loaded machine's
drift reaches all alike. ``--attribute``: also, in the cold runs, the compile time of every
jitted function (numba's ``numba:compile`` events: ``incl`` includes the functions it
compiled while typing, ``excl`` does not), with its number of signatures, and the time per
compiler pass kind. ``--vector``: the vector env instead (``import carousel_env.games.carousel.vector``,
``CarouselVectorEnv(16)`` and its ``reset``, its first ``step``). ``--train``: the quick
start's training run instead (``tasks.py train``'s config, no evaluation), to the end of
its first update: ``reset`` is then loading the config (next to nothing) and ``step`` the
trainer's setup (its compiles included) and first update.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# A position from a game whose sweep passes the states after which witnesses are tried
# (``carousel_env.games.carousel.solver.WITNESS_AFTER_STATES``), as about 2.5% of game positions do.
CROWDED_TABLE = "AC AD AH | 2C 2D 2H | 4C 4H 4S | 9D 9H 9S | 8C 9C 10C JC QC | JD QD KD | 6H 7H 8H | 10H JH QH KH"
CROWDED_TABLE += " | AS 2S 3S | 6S 7S 8S | 10S JS QS KS"
CROWDED_HAND = "3D 5C 6C 6D JK"


def _vector_phases() -> tuple[float, float]:
    """The vector env's phases after its import: (build and reset done, first step done)."""
    import numpy as np

    from carousel_env.games.carousel.vector import CarouselVectorEnv

    venv = CarouselVectorEnv(16)
    step = venv.reset(seed=0)
    t2 = time.perf_counter()
    venv.step(np.array([np.flatnonzero(m)[-1] for m in step.action_mask]))  # suggestions where there are any
    return t2, time.perf_counter()


def _train_phases() -> tuple[float, float]:
    """The quick start's training run after its import: (config loaded, first update done)."""
    import tasks
    from training.config import load_config
    from training.ppo import train

    overrides = [a for a in tasks.QUICK_START_SETTINGS if a != "--set"]
    config = load_config(
        str(Path(tasks.__file__).parent / "configs" / "default.yaml"),
        [*overrides, "progress_bar=false", "eval_games=0"],
    )
    t2 = time.perf_counter()
    with tempfile.TemporaryDirectory() as out:
        train(config, out, max_updates=1)
    return t2, time.perf_counter()


def _child(attribute: bool, vector: bool = False, training: bool = False) -> None:
    """Run in the fresh interpreter: time the phases, print one JSON line on stdout."""
    events: list[tuple] = []  # (function, signature, inclusive, exclusive, the function compiling it)
    passes: dict[str, float] = {}  # by pass, and by "pass [function]"
    if attribute:
        from numba.core import event

        stack: list[list] = []

        class Compiles(event.Listener):
            def on_start(self, ev):
                disp = ev.data["dispatcher"]
                name = f"{disp.py_func.__module__.rsplit('.', 1)[-1]}.{disp.py_func.__name__}"
                stack.append([time.perf_counter(), 0.0, name])

            def on_end(self, ev):
                start, nested, name = stack.pop()
                took = time.perf_counter() - start
                if stack:
                    stack[-1][1] += took
                parent = stack[-1][2] if stack else ""
                events.append((name, str(ev.data["args"]), took, took - nested, parent))

        pass_stack: list[list] = []

        class Passes(event.Listener):
            def on_start(self, ev):
                pass_stack.append([time.perf_counter(), 0.0])

            def on_end(self, ev):
                start, nested = pass_stack.pop()
                took = time.perf_counter() - start
                if pass_stack:
                    pass_stack[-1][1] += took
                kind = ev.data["name"].split(" [", 1)[0]  # the pass, without the function
                for name in (kind, f"{kind} [{ev.data['qualname']}]"):
                    passes[name] = passes.get(name, 0.0) + took - nested

        event.register("numba:compile", Compiles())
        event.register("numba:run_pass", Passes())
    c0, t0 = time.process_time(), time.perf_counter()
    import carousel_env

    if training:
        import training.ppo  # torch, the vector env and with it the solver

        t1 = time.perf_counter()
        t2, t3 = _train_phases()
        c3 = time.process_time()
    elif vector:
        import carousel_env.games.carousel.vector  # the kernel's module, and with it the solver

        t1 = time.perf_counter()
        t2, t3 = _vector_phases()
        c3 = time.process_time()
    else:
        make_env = carousel_env.env  # imports the env module, and with it the solver
        t1 = time.perf_counter()
        env = make_env()
        env.reset(seed=0)
        t2 = time.perf_counter()
        agent = env.agent_selection
        mask = env.observe(agent)["action_mask"]
        env.step(int(mask.nonzero()[0][-1]))  # the last legal action: a solver suggestion when there is one
        c3, t3 = time.process_time(), time.perf_counter()
    from carousel_env.core.cards import parse_hand, parse_table
    from carousel_env.games.carousel.engine.rules import carousel
    from carousel_env.games.carousel.solver import solve

    solve(parse_table(CROWDED_TABLE), parse_hand(CROWDED_HAND), carousel(2))
    c4, t4 = time.process_time(), time.perf_counter()
    print(
        json.dumps(
            {
                "import": t1 - t0,
                "reset": t2 - t1,
                "step": t3 - t2,
                "total": t3 - t0,
                "crowded": t4 - t3,
                "total_cpu": c3 - c0,
                "crowded_cpu": c4 - c3,
                "compiles": events,
                "passes": passes,
                "source": carousel_env.__file__,
            }
        )
    )


def measure(
    tree: Path, cache_dir: str, attribute: bool, vector: bool = False, training: bool = False
) -> tuple[dict, str]:
    """One fresh interpreter on ``tree`` with ``NUMBA_CACHE_DIR=cache_dir``: (figures, its stderr)."""
    env = {**os.environ, "NUMBA_CACHE_DIR": cache_dir, "PYTHONPATH": str(tree.resolve())}
    # by file path: the child imports nothing of this tree but carousel_env (PYTHONPATH)
    flags = [
        *(["--attribute"] if attribute else []),
        *(["--vector"] if vector else []),
        *(["--train"] if training else []),
    ]
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", *flags]
    out = subprocess.run(cmd, env=env, cwd=tree, capture_output=True, text=True, check=True)
    figures = json.loads(out.stdout.strip().splitlines()[-1])
    if Path(figures["source"]).resolve().is_relative_to(tree.resolve()) is False:
        raise SystemExit(f"{tree}: imported {figures['source']} instead")
    return figures, out.stderr


def _line(label: str, f: dict) -> str:
    return (
        f"{label}: import {f['import']:.2f} s, reset {f['reset']:.2f} s, step {f['step']:.2f} s, "
        f"total {f['total']:.2f} s (CPU {f['total_cpu']:.2f} s); "
        f"then the first crowded position {f['crowded']:.2f} s (CPU {f['crowded_cpu']:.2f} s)"
    )


def _attribution(f: dict, top: int, signatures: bool) -> None:
    by_name: dict[str, list] = {}
    for name, _sig, incl, excl, _parent in f["compiles"]:
        entry = by_name.setdefault(name, [0, 0.0, 0.0])
        entry[0] += 1
        entry[1] = max(entry[1], incl)
        entry[2] += excl
    total = sum(e[2] for e in by_name.values())
    sigs = sum(e[0] for e in by_name.values())
    print(f"  compiled: {len(by_name)} functions, {sigs} signatures, {total:.1f} s in numba's compiles")
    print(f"  {'function':<34} {'sigs':>4} {'excl s':>7} {'incl s':>7}")
    for name, (n, incl, excl) in sorted(by_name.items(), key=lambda kv: -kv[1][2])[:top]:
        print(f"  {name:<34} {n:>4} {excl:>7.2f} {incl:>7.2f}")
    if signatures:
        for name, sig, _incl, excl, parent in sorted(f["compiles"]):
            if sum(1 for n, *_ in f["compiles"] if n == name) > 1:
                print(f"  {name} {excl:.2f} s (from {parent}) {sig}")
    kinds = {k: v for k, v in f["passes"].items() if "[" not in k}
    print("  passes: " + ", ".join(f"{k} {v:.1f}" for k, v in sorted(kinds.items(), key=lambda kv: -kv[1])[:8]))
    per_function = {k: v for k, v in f["passes"].items() if "[" in k}
    top = sorted(per_function.items(), key=lambda kv: -kv[1])[:12]
    print("  passes by function: " + ", ".join(f"{k} {v:.1f}" for k, v in top))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("trees", type=Path, nargs="*", default=[ROOT], help="checkouts to measure (default: this one)")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--attribute", action="store_true", help="compile time per jitted function (cold runs)")
    ap.add_argument("--top", type=int, default=25, help="functions listed with --attribute")
    ap.add_argument("--signatures", action="store_true", help="with --attribute: list the signatures too")
    ap.add_argument("--vector", action="store_true", help="the vector env instead of the AEC env")
    ap.add_argument("--train", action="store_true", help="the quick start's training run, to its first update")
    args = ap.parse_args()
    print(f"load average before: {os.getloadavg()}")
    for r in range(args.rounds):
        for tree in args.trees:
            with tempfile.TemporaryDirectory(prefix="numba-cold-") as cache:
                cold, said = measure(tree, cache, args.attribute, args.vector, args.train)
                print(_line(f"round {r + 1} {tree} cold", cold), flush=True)
                for line in said.strip().splitlines():
                    print(f"  stderr: {line}")
                if args.attribute:
                    _attribution(cold, args.top, args.signatures)
                warm, said = measure(tree, cache, False, args.vector, args.train)
                print(_line(f"round {r + 1} {tree} warm", warm), flush=True)
                for line in said.strip().splitlines():
                    print(f"  stderr: {line}")
    print(f"load average after: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        _child(attribute="--attribute" in sys.argv, vector="--vector" in sys.argv, training="--train" in sys.argv)
    else:
        raise SystemExit(main())
