"""numba's compiled code of every registered game, compiled into its on-disk cache (or loaded
from it, in a few seconds) once, before pytest-xdist starts its workers (``tests/conftest.py``).

On a cold cache (a fresh clone, or a source edit that made ``core/compiled.drop_stale_cache``
drop it) two workers would otherwise each compile the same kernels at their first test of a
game, both at once on CI's two cores, and both would drop and stamp the cache after an edit.
Here each game's vector env compiles ahead (``compile_ahead``: its turns and observations, and
Carousel's solver), its AEC env plays its first decision (the code only the AEC env calls:
Carioca's distance), and Carousel's Manipulation Rummy rules compile the solver's play check.
Carousel's solver is the longest compile: the other games compile beside it, in a second
process (``compiled.compile_in_child``, which also gives Carousel's witness search a process of
its own), where two CPUs allow it.
"""

from __future__ import annotations

import time

import carousel_env
from carousel_env.core import compiled
from carousel_env.core.registry import GAMES, vector_env_class

FIRST = "carousel"  # the longest compile, in this process; the other games beside it
# Configs whose compiled code a game's default config does not reach.
MORE_CONFIGS: dict[str, tuple[dict[str, object], ...]] = {
    "carousel": ({"variant": "manipulation_rummy", "num_players": 3},),  # the solver's play check
}


def warm_game(name: str) -> None:
    """Compile (or load) game ``name``'s compiled code."""
    vector = vector_env_class(name)
    vector.compile_ahead()
    for config in MORE_CONFIGS.get(name, ()):
        vector.compile_ahead(**config)
    env = carousel_env.env(game=name)
    env.reset(seed=0)
    env.last()
    env.close()


def warm_other_games() -> None:
    """Every registered game but :data:`FIRST` (a module-level function, for a second process)."""
    for name in GAMES:
        if name != FIRST:
            warm_game(name)


def warm_every_game() -> float:
    """Compile (or load) every registered game's compiled code; returns the seconds it took."""
    start = time.perf_counter()
    helper = compiled.compile_in_child(warm_other_games)
    try:
        warm_game(FIRST)
        if helper is not None:
            helper.wait()
    finally:
        if helper is not None and helper.poll() is None:  # this process failed or was interrupted
            helper.kill()
            helper.wait()
    if helper is None or helper.returncode != 0:
        warm_other_games()  # here: one CPU, or the second process failed (this one says why)
    return time.perf_counter() - start
