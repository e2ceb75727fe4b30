"""Keep numba's on-disk cache of the solver in step with its sources, and say so before a
first call compiles (``first_call``).

numba checks a cached function against its own source file only, not against the files
of the functions compiled into it: after an edit to ``states.py`` alone,
``pipeline.solve_packed`` would go on running the old transitions from its cache, silently.
So a stamp of every source the compiled code is built from (this package with its
subpackages, and ``carousel_env/core/cards.py``, whose constants it embeds) is kept
beside the cache, and the whole cache is dropped when the stamp changes. The cache is
numba's default: the ``__pycache__`` folder beside the sources, one per folder of this
package (the stamp is kept in the top one). Elsewhere (``NUMBA_CACHE_DIR``, or a read-only
install, where numba caches in the user's folder) nothing is touched; the sources of an
install do not change, and a reinstall gives every file a new stamp anyway.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

_HERE = Path(__file__).resolve().parent
_PACKAGES = _HERE.parent  # carousel_env: the stamp names each source by its path from here
_SOURCES = (*sorted(_HERE.rglob("*.py")), _PACKAGES / "core" / "cards.py")
# The vector env's compiled turns embed the solver's code and the constants of the engine's
# turns and scoring and of the observation layout: its cache depends on all of them.
VECTOR_CACHE = _PACKAGES / "vector" / "__pycache__"
VECTOR_SOURCES = (
    *_SOURCES,
    _PACKAGES / "vector" / "kernel.py",  # the compiled modules only: editing env.py keeps the cache
    _PACKAGES / "vector" / "encode.py",
    _PACKAGES / "engine" / "game.py",
    _PACKAGES / "engine" / "scoring.py",
    _PACKAGES / "envs" / "observation.py",
)
_STAMP_NAME = "numba-sources.stamp"


def sources_stamp(sources: tuple[Path, ...] = _SOURCES) -> str:
    """Path, modification time and size of every source the compiled code depends on."""
    parts = []
    for path in sources:
        stat = path.stat()
        parts.append(f"{path.relative_to(_PACKAGES).as_posix()} {stat.st_mtime_ns} {stat.st_size}")
    return "\n".join(parts)


def drop_stale_cache(cache: Path = _HERE / "__pycache__", sources: tuple[Path, ...] = _SOURCES) -> bool:
    """Delete the compiled code cached in ``cache`` and in the ``__pycache__`` folders below
    its parent (the subpackages') if ``sources`` changed since ``cache`` was stamped;
    returns whether it did. Errors (a read-only folder) are ignored."""
    stamp = sources_stamp(sources)
    marker = cache / _STAMP_NAME
    try:
        if marker.read_text() == stamp:
            return False
    except OSError:
        pass
    try:
        for folder in (cache, *(f for f in cache.parent.rglob("__pycache__") if f != cache)):
            for path in (*folder.glob("*.nbi"), *folder.glob("*.nbc")):
                path.unlink(missing_ok=True)
        cache.mkdir(exist_ok=True)
        marker.write_text(stamp)
    except OSError:
        return False
    return True


# The compiled entry points: what each is, for the line that says it is being compiled, and
# how long its first compile takes on a 2-core CPU when it is the first thing compiled
# (benchmarks/bench_cold_start.py; figures in benchmarks/RESULTS.md): "up to", as a part
# compiled after another loads what they share (the play check after the solver: 1-2 s).
# ``witnessed`` is compiled only when a sweep first grows large (a crowded table: about one
# game decision in 40), not by the first solve; ``pack_suggestion`` only when the integer
# programs (``milp``) first answer a position the sweeps gave up on.
ENTRY_POINTS = {
    "solve_packed": ("the solver", 20),
    "witnessed": ("the solver's witness search (for crowded tables)", 15),
    "has_play_packed": ("the solver's play check", 10),
    "pack_suggestion": ("the solver's answer packing (for the heaviest positions)", 3),
    "step_games": ("the vector env's turns (the solver included)", 25),
    "encode_games": ("the vector env's observations", 3),
}
# Where numba's cache cannot be asked (see ``compiled_in_cache``), a first call that takes
# longer than this is taken to be compiling (a warm cache loads an entry point in well
# under a second).
NOTICE_AFTER_S = 3.0
_first_calls_done: set[Callable] = set()  # compiled entry points already called in this process
_first_call_seconds = 0.0  # the time their first calls took (see first_call_seconds)
R = TypeVar("R")


def compiled_in_cache(entry: Callable, args: tuple) -> bool | None:
    """Whether numba holds compiled code of ``entry`` for the types of ``args``, in this
    process or in its on-disk cache; None when it cannot tell (not a cached numba
    dispatcher, or numba's internals differ from those of numba 0.60-0.68)."""
    try:
        from numba.core.typing.typeof import Purpose, typeof

        sig = tuple(typeof(a, Purpose.argument) for a in args)  # as the dispatcher types a call
        if sig in entry.overloads:
            return True
        cache = entry._cache
        entry.targetctx.refresh()
        key = cache._index_key(sig, entry.targetctx.codegen())
        return key in cache._cache_file._load_index()
    except Exception:
        return None


def compile_notice(entry: Callable) -> str:
    """The one line said before ``entry`` is compiled."""
    what, seconds = ENTRY_POINTS.get(getattr(entry, "__name__", ""), ("the solver", 15))
    return (
        f"carousel_env: compiling {what} with numba, once: up to {seconds} s on a 2-core CPU "
        "(later runs load it from the cache)"
    )


def first_call_seconds() -> float:
    """Seconds this process has spent in the first calls of entry points (each compiles or
    loads its code, then does its work): the solver's time budget leaves them out."""
    return _first_call_seconds


def first_call(entry: Callable[..., R], *args: Any) -> R:
    """``entry(*args)``; on its first call in this process, when numba's cache does not hold
    its compiled code, first one line on stderr says that it compiles and about how long
    that takes, so that a new user's first seconds are not silent. Nothing when the cache
    is warm. Where the cache cannot be asked, the line comes only if the call takes longer
    than ``NOTICE_AFTER_S``."""
    global _first_call_seconds
    if entry in _first_calls_done:
        return entry(*args)
    started = time.perf_counter()
    cached = compiled_in_cache(entry, args)
    if cached is False:
        print(compile_notice(entry), file=sys.stderr, flush=True)
    timer = None
    if cached is None:
        timer = threading.Timer(NOTICE_AFTER_S, lambda: print(compile_notice(entry), file=sys.stderr, flush=True))
        timer.daemon = True
        timer.start()
    try:
        result = entry(*args)
    finally:
        if timer is not None:
            timer.cancel()
        _first_call_seconds += time.perf_counter() - started
    _first_calls_done.add(entry)
    return result


def compile_in_child(function: Callable[[], object]) -> subprocess.Popen | None:
    """Start a second Python process that calls ``function`` (a module-level function that
    takes no argument; the process imports this copy of ``carousel_env``) and exits: it
    compiles into numba's on-disk cache while this process compiles something else, and
    this process then loads the code. None where that cannot help or cannot be done: a
    process allowed one CPU, no Python executable to start (an embedded interpreter). Its
    notices and errors go to this process's stderr; numba writes each cache file whole (a
    rename), so two processes compiling the same function leave one good copy."""
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    if cpus < 2 or not sys.executable:
        return None
    root = str(_PACKAGES.parent)  # the folder holding carousel_env: the child imports this copy
    paths = os.environ.get("PYTHONPATH")
    env = {**os.environ, "PYTHONPATH": root + os.pathsep + paths if paths else root}
    code = f"from {function.__module__} import {function.__name__}; {function.__name__}()"
    try:
        return subprocess.Popen(
            [sys.executable, "-c", code], env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL
        )
    except OSError:  # the caller compiles it itself
        return None
