#!/usr/bin/env python3
"""Project tasks that need nothing but Python 3.10+ and pip.

    python3 tasks.py train    # the main job: a short self-play training run (default config)
    python3 tasks.py test     # lint, format check, the layer contract and the test suite, on two workers
    python3 tasks.py test --fast  # the same without the slow, integration and training tests
    python3 tasks.py format   # ruff's fixes and formatting, applied
    python3 tasks.py bench [NAME ...]  # benchmarks, printing figures (the names are listed below)
    python3 tasks.py demo     # one game between baseline players, printed
    python3 tasks.py serve    # every game in the browser: carousel serve, on http://localhost:8765/
    python3 tasks.py docs     # the docs site (mkdocs.yml), built by mkdocs build --strict into build/site
    python3 tasks.py docs --write  # the same after rewriting the game pages from the code
    python3 tasks.py setup    # only create/refresh the virtual environment
    python3 tasks.py          # this list

Each task first makes sure ``.venv`` exists and holds the project with the extras it needs:
``train`` only the training extra, ``serve`` it and the web app's, ``demo`` none, the others
every extra (the RL libraries, OpenSpiel and the dev tools). Torch is installed as
``torch==2.13.0`` before the project, so that the project's torch range is already satisfied
and pip never pulls a multi-gigabyte CUDA build on its own. Installs show pip's progress. Set
``CAROUSEL_VENV`` to use another virtual environment folder.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = Path(os.environ.get("CAROUSEL_VENV", ROOT / ".venv"))
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PYTHON = BIN / "python"
STAMP = VENV / ".carousel-installed"  # the extras installed, written after a whole install
TORCH = "torch==2.13.0"
ALL_EXTRAS = ("train", "dev", "serve", "rllib", "torchrl", "tianshou", "openspiel")
TORCH_EXTRAS = {"train", "rllib", "torchrl", "tianshou"}  # the extras that pull torch


def run(*cmd: str | Path) -> None:
    print("+", " ".join(str(c) for c in cmd), flush=True)
    subprocess.run([str(c) for c in cmd], cwd=ROOT, check=True)


def installed_extras() -> set[str] | None:
    """The extras ``.venv`` holds, or None if its install is missing or older than pyproject.toml."""
    if not STAMP.exists() or STAMP.stat().st_mtime < (ROOT / "pyproject.toml").stat().st_mtime:
        return None
    return {extra for extra in STAMP.read_text().split() if extra}


def setup(extras: tuple[str, ...] = ALL_EXTRAS) -> None:
    """Make sure ``.venv`` holds the project with ``extras`` (and whatever it held before)."""
    have = installed_extras()
    if have is not None and set(extras) <= have:
        return
    wanted = sorted(set(extras) | (have or set()), key=ALL_EXTRAS.index)
    if not PYTHON.exists():
        print(f"tasks.py: creating the virtual environment {VENV}", flush=True)
        venv.create(VENV, with_pip=True)
    what = f"the {', '.join(wanted)} extra{'s' if len(wanted) > 1 else ''}" if wanted else "no extra"
    print(f"tasks.py: installing the project with {what} into {VENV} (a few minutes the first time)", flush=True)
    if TORCH_EXTRAS & set(wanted):
        run(PYTHON, "-m", "pip", "install", TORCH)
    run(PYTHON, "-m", "pip", "install", "-e", f".[{','.join(wanted)}]" if wanted else ".")
    STAMP.write_text(" ".join(wanted) + "\n")


# The default config, cut to about a minute of training, with a learning rate that a short run
# can use whole (double the default, not annealed): it beats greedy by the end, and its final
# evaluation plays 200 games (100 mirrored deals). Measured: benchmarks/RESULTS.md, 2026-11-26.
QUICK_START_SETTINGS = (
    "--set", "total_timesteps=49152",
    "--set", "learning_rate=0.0006",
    "--set", "anneal_lr=false",
    "--set", "eval_games=200",
)  # fmt: skip


QUICK_START_RUN = ROOT / "runs" / "quickstart"


def train() -> None:
    # The quick start always starts over: an earlier quick start's run is replaced, and it says so.
    again = ["--overwrite"] if QUICK_START_RUN.is_dir() else []
    if again:
        print(f"{QUICK_START_RUN.relative_to(ROOT)} holds an earlier quick start: training it again from scratch")
    run(
        BIN / "carousel", "train", "--config", "configs/default.yaml", "--out", "runs/quickstart",
        *QUICK_START_SETTINGS, *again,
    )  # fmt: skip


# The tests run on two workers (pytest-xdist; tests/conftest.py: the groups that one worker
# runs in turn, numba compiled once before the workers start). ``--fast`` is the inner loop:
# no test marked slow, integration (a real RL library), training (a training loop), soak (a
# soak benchmark's slice of complete games) or reference (a solver against its reference on a
# sample), and pytest's cache kept, for ``pytest --lf`` after it. Measured: benchmarks/RESULTS.md, 2026-11-28.
TEST_WORKERS = ("-n", "2", "--dist", "loadgroup")
FAST_TESTS = "not slow and not integration and not training and not soak and not reference"


def test(*options: str) -> None:
    run(BIN / "ruff", "check", ".")
    run(BIN / "ruff", "format", "--check", ".")
    run(BIN / "lint-imports")
    if "--fast" in options:
        run(PYTHON, "-m", "pytest", *TEST_WORKERS, "-m", FAST_TESTS)
    else:
        run(PYTHON, "-m", "pytest", "-p", "no:cacheprovider", *TEST_WORKERS, "--durations=20")


def format_code() -> None:
    run(BIN / "ruff", "check", "--fix", ".")
    run(BIN / "ruff", "format", ".")


# Each benchmark by name, run as a module; see benchmarks/RESULTS.md for what they measured.
BENCHMARKS = {
    "env": ["benchmarks.bench_env"],
    "vector": ["benchmarks.bench_vector_env"],
    "solver": ["benchmarks.bench_solver"],
    "memory": ["benchmarks.bench_solver_memory"],
    "env-memory": ["benchmarks.bench_env_memory"],  # each game's env process: its memory after many games
    "device": ["benchmarks.bench_device", "--check"],
    "train": ["benchmarks.bench_train"],
    "soak": ["benchmarks.soak", "--games", "10000"],
    "gin": ["benchmarks.bench_gin"],
    "gin-soak": ["benchmarks.soak_gin", "--games", "10000"],
    "gin-peers": ["benchmarks.bench_gin_peers"],  # creates .venv-peers/ (the peers' envs) the first time
    "gin-cold": ["benchmarks.bench_gin_peers", "--cold"],
    "gin-opponent": ["benchmarks.bench_gin_opponent_model"],  # what knowing simple's hand is worth to the search
    "guided": ["benchmarks.bench_guided_search"],  # the guided search's cost and strength against its network
    "carioca": ["benchmarks.bench_carioca"],  # simple against random, seat-rotated deals
    "carioca-speed": ["benchmarks.bench_carioca", "--speed", "8"],  # the AEC env against the vector env
    "kaluki": ["benchmarks.bench_kaluki"],  # simple against random, seat-rotated hands
    "kaluki-speed": ["benchmarks.bench_kaluki", "--speed", "8"],  # the AEC env against the vector env
    "conquian": ["benchmarks.bench_conquian"],  # simple against random, mirrored hands
    "conquian-speed": ["benchmarks.bench_conquian", "--speed", "8"],  # the AEC env against the compiled vector env
    "conquian-solver": ["benchmarks.bench_conquian_solver", "--positions", "2000"],  # against the brute force
    "conquian-soak": ["benchmarks.soak_conquian", "--games", "10000"],
    # the trainer on configs/gin.yaml against MaskablePPO on gin_rummy_v4 (.venv-peers/, made by gin-peers)
    "gin-train": [
        "benchmarks.bench_train",
        "--config=configs/gin.yaml",
        "--updates=4",
        "--workers=0",
        "--compare=",
        "--gin-python=.venv-peers/bin/python",
    ],
}


def bench(*names: str) -> None:
    # Several minutes each; every one prints its own figures.
    unknown = [n for n in names if n not in BENCHMARKS]
    if unknown:
        raise SystemExit(f"unknown benchmark {', '.join(unknown)} (choose from {', '.join(BENCHMARKS)})")
    for name in names or tuple(BENCHMARKS):
        run(PYTHON, "-m", *BENCHMARKS[name])


def demo() -> None:
    run(BIN / "carousel", "demo", "--players", "3", "--seed", "1")


def serve() -> None:
    with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C stops it, which is no failure
        run(BIN / "carousel", "serve")


# The docs site: the game pages generated from the env docstrings and options
# (docs/gen_game_pages.py; a stale page fails unless --write rewrites it), then a strict
# build (a broken link or anchor, or a page missing from mkdocs.yml's nav, fails).
def docs(*options: str) -> None:
    run(PYTHON, ROOT / "docs" / "gen_game_pages.py", *(() if "--write" in options else ("--check",)))
    run(BIN / "mkdocs", "build", "--strict", "--site-dir", ROOT / "build" / "site")


TASKS = {
    "setup": lambda: None,
    "train": train,
    "test": test,
    "format": format_code,
    "bench": bench,
    "demo": demo,
    "serve": serve,
    "docs": docs,
}
# The extras each task installs first; a task not named here installs them all.
TASK_EXTRAS: dict[str, tuple[str, ...]] = {
    "train": ("train",),
    "demo": (),
    "serve": ("train", "serve"),
    "docs": ("dev",),
}
# The options a task takes (bench takes benchmark names, checked by bench itself).
TASK_OPTIONS: dict[str, tuple[str, ...]] = {"test": ("--fast",), "docs": ("--write",)}


def _bad_arguments(argv: list[str]) -> bool:
    return argv[0] != "bench" and not set(argv[1:]) <= set(TASK_OPTIONS.get(argv[0], ()))


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in TASKS or _bad_arguments(argv):
        print(__doc__)
        print(f"The benchmarks: {', '.join(BENCHMARKS)} (all of them: python3 tasks.py bench)")
        if argv and argv[0] not in TASKS:
            print(f"tasks.py: unknown task {argv[0]!r} (the tasks: {', '.join(TASKS)})", file=sys.stderr)
        elif argv:
            takes = f"only {' '.join(TASK_OPTIONS[argv[0]])}" if argv[0] in TASK_OPTIONS else "no arguments"
            print(f"tasks.py: {argv[0]} takes {takes}, got {' '.join(argv[1:])}", file=sys.stderr)
        return 0 if not argv else 2
    try:
        setup(TASK_EXTRAS.get(argv[0], ALL_EXTRAS))
        TASKS[argv[0]](*argv[1:])
    except subprocess.CalledProcessError as exc:
        return exc.returncode or 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
