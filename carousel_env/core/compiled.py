"""numba's compiled code, for every compiled module of the package: its on-disk cache kept
in step with the sources, and a line said before a first call compiles (``first_call``).

numba checks a cached function against its own source file only, not against the files
of the functions compiled into it: after an edit to the solver's ``states.py`` alone,
``pipeline.solve_packed`` would go on running the old transitions from its cache, silently.
So each compiled module names the sources its code is built from (its own files, and the
files whose constants or functions it embeds) and calls :func:`drop_stale_cache` before
numba loads anything: a stamp of those sources is kept beside the cache, and the whole
cache is dropped when the stamp changes. The cache is numba's default: the ``__pycache__``
folders beside the sources. Elsewhere (``NUMBA_CACHE_DIR``, or a read-only install, where
numba caches in the user's folder) nothing is touched; the sources of an install do not
change, and a reinstall gives every file a new stamp anyway.

Each compiled module also names its entry points (:func:`name_entry_points`): what the
line before a first compile calls them, and about how long that compile takes.
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

PACKAGE = Path(__file__).resolve().parent.parent  # carousel_env: stamps name sources from here
_STAMP_NAME = "numba-sources.stamp"


def sources_stamp(sources: tuple[Path, ...]) -> str:
    """Path, modification time and size of every source the compiled code depends on."""
    parts = []
    for path in sources:
        stat = path.stat()
        parts.append(f"{path.relative_to(PACKAGE).as_posix()} {stat.st_mtime_ns} {stat.st_size}")
    return "\n".join(parts)


def drop_stale_cache(cache: Path, sources: tuple[Path, ...]) -> bool:
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


# The compiled entry points by ``module.name`` (every game's kernels share the role names
# ``step_games`` and ``encode_rows``): what each is, for the line that says it is being
# compiled, and how long its first compile may take (each module names its own).
ENTRY_POINTS: dict[str, tuple[str, int]] = {}
# Where numba's cache cannot be asked (see ``compiled_in_cache``), a first call that takes
# longer than this is taken to be compiling (a warm cache loads an entry point in well
# under a second).
NOTICE_AFTER_S = 3.0
_first_calls_done: set[Callable] = set()  # compiled entry points already called in this process
_first_call_seconds = 0.0  # the time their first calls took (see first_call_seconds)
R = TypeVar("R")


def name_entry_points(module: str, entries: dict[str, tuple[str, int]]) -> None:
    """Name the entry points of compiled ``module``: ``{function name: (what it is, compile seconds)}``."""
    ENTRY_POINTS.update({f"{module}.{name}": named for name, named in entries.items()})


def entry_key(entry: Callable) -> str:
    """What :data:`ENTRY_POINTS` knows ``entry`` by."""
    return f"{getattr(entry, '__module__', '')}.{getattr(entry, '__name__', '')}"


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
    what, seconds = ENTRY_POINTS.get(entry_key(entry), ("compiled code", 15))
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
    root = str(PACKAGE.parent)  # the folder holding carousel_env: the child imports this copy
    paths = os.environ.get("PYTHONPATH")
    env = {**os.environ, "PYTHONPATH": root + os.pathsep + paths if paths else root}
    code = f"from {function.__module__} import {function.__name__}; {function.__name__}()"
    try:
        return subprocess.Popen(
            [sys.executable, "-c", code], env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL
        )
    except OSError:  # the caller compiles it itself
        return None
