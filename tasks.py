#!/usr/bin/env python3
"""Project tasks that need nothing but Python 3.10+ and pip.

    python3 tasks.py train    # the main job: a short self-play training run (default config)
    python3 tasks.py test     # lint, format check, the layer contract and the test suite
    python3 tasks.py format   # ruff's fixes and formatting, applied
    python3 tasks.py bench [env|vector|solver|memory|train|soak|gin|gin-soak ...]   # benchmarks, printing figures
    python3 tasks.py demo     # one game between baseline players, printed
    python3 tasks.py setup    # only create/refresh the virtual environment
    python3 tasks.py          # this list

Each task first makes sure ``.venv`` exists and holds the project with its extras. Torch
is installed as ``torch==2.13.0`` before the project, so that the project's torch range is
already satisfied and pip never pulls a multi-gigabyte CUDA build on its own.
Set ``CAROUSEL_VENV`` to use another virtual environment folder.
"""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = Path(os.environ.get("CAROUSEL_VENV", ROOT / ".venv"))
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PYTHON = BIN / "python"
STAMP = VENV / ".carousel-installed"
TORCH = "torch==2.13.0"


def run(*cmd: str | Path) -> None:
    print("+", " ".join(str(c) for c in cmd), flush=True)
    subprocess.run([str(c) for c in cmd], cwd=ROOT, check=True)


def setup() -> None:
    pyproject = ROOT / "pyproject.toml"
    if STAMP.exists() and STAMP.stat().st_mtime >= pyproject.stat().st_mtime:
        return
    if not PYTHON.exists():
        venv.create(VENV, with_pip=True)
    run(PYTHON, "-m", "pip", "install", "--quiet", TORCH)
    run(PYTHON, "-m", "pip", "install", "--quiet", "-e", ".[train,dev,rllib,torchrl,tianshou,openspiel]")
    STAMP.touch()


# The default config, cut to a few minutes: the shipped agent trains the same config for longer.
QUICK_START_SETTINGS = ("--set", "total_timesteps=16384", "--set", "eval_games=40")


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


def test() -> None:
    run(BIN / "ruff", "check", ".")
    run(BIN / "ruff", "format", "--check", ".")
    run(BIN / "lint-imports")
    run(PYTHON, "-m", "pytest", "-p", "no:cacheprovider")


def format_code() -> None:
    run(BIN / "ruff", "check", "--fix", ".")
    run(BIN / "ruff", "format", ".")


# Each benchmark by name, run as a module; see benchmarks/RESULTS.md for what they measured.
BENCHMARKS = {
    "env": ["benchmarks.bench_env"],
    "vector": ["benchmarks.bench_vector_env"],
    "solver": ["benchmarks.bench_solver"],
    "memory": ["benchmarks.bench_solver_memory"],
    "train": ["benchmarks.bench_train"],
    "soak": ["benchmarks.soak", "--games", "10000"],
    "gin": ["benchmarks.bench_gin"],
    "gin-soak": ["benchmarks.soak_gin", "--games", "10000"],
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


TASKS = {
    "setup": lambda: None,
    "train": train,
    "test": test,
    "format": format_code,
    "bench": bench,
    "demo": demo,
}


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in TASKS or (argv[1:] and argv[0] != "bench"):
        print(__doc__)
        if argv and argv[0] not in TASKS:
            print(f"tasks.py: unknown task {argv[0]!r} (the tasks: {', '.join(TASKS)})", file=sys.stderr)
        elif argv:
            print(f"tasks.py: {argv[0]} takes no arguments, got {' '.join(argv[1:])}", file=sys.stderr)
        return 0 if not argv else 2
    try:
        setup()
        TASKS[argv[0]](*argv[1:])
    except subprocess.CalledProcessError as exc:
        return exc.returncode or 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
