"""Keep numba's on-disk cache of the solver in step with its sources, and say so when a
first call compiles (``first_call``).

numba checks a cached function against its own source file only, not against the files
of the functions compiled into it: after an edit to ``states.py`` alone,
``pipeline.solve_packed`` would go on running the old transitions from its cache, silently.
So a stamp of every source the compiled code is built from (this package with its
subpackages, and ``carousel_env/engine/cards.py``, whose constants it embeds) is kept
beside the cache, and the whole cache is dropped when the stamp changes. The cache is
numba's default: the ``__pycache__`` folder beside the sources, one per folder of this
package (the stamp is kept in the top one). Elsewhere (``NUMBA_CACHE_DIR``, or a read-only
install, where numba caches in the user's folder) nothing is touched; the sources of an
install do not change, and a reinstall gives every file a new stamp anyway.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

_HERE = Path(__file__).resolve().parent
_PACKAGES = _HERE.parent  # carousel_env: the stamp names each source by its path from here
_SOURCES = (*sorted(_HERE.rglob("*.py")), _PACKAGES / "engine" / "cards.py")
_STAMP_NAME = "numba-sources.stamp"


def sources_stamp() -> str:
    """Path, modification time and size of every source the compiled code depends on."""
    parts = []
    for path in _SOURCES:
        stat = path.stat()
        parts.append(f"{path.relative_to(_PACKAGES).as_posix()} {stat.st_mtime_ns} {stat.st_size}")
    return "\n".join(parts)


def drop_stale_cache(cache: Path = _HERE / "__pycache__") -> bool:
    """Delete the compiled code cached in ``cache`` and in the ``__pycache__`` folders below
    its parent (the subpackages') if the sources changed since ``cache`` was stamped;
    returns whether it did. Errors (a read-only folder) are ignored."""
    stamp = sources_stamp()
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


# A warm cache loads an entry point in about a second; a first call that takes longer than
# this is compiling, which takes about a minute on 2 cores (benchmarks/RESULTS.md).
NOTICE_AFTER_S = 3.0
_first_calls_done: set[Callable] = set()  # compiled entry points already called in this process
R = TypeVar("R")


def first_call(entry: Callable[..., R], *args: Any) -> R:
    """``entry(*args)``; on its first call in this process, which loads the compiled code
    from numba's cache or compiles it, a line on stderr says so if it takes long, so that
    a new user's first minute is not silent."""
    if entry in _first_calls_done:
        return entry(*args)
    start = time.perf_counter()
    said = threading.Event()

    def notice() -> None:
        said.set()
        print(
            "carousel_env.solver: compiling the solver's numba code, once (about a minute on a 2-core CPU); "
            "later runs load it from the cache",
            file=sys.stderr,
            flush=True,
        )

    timer = threading.Timer(NOTICE_AFTER_S, notice)
    timer.daemon = True
    timer.start()
    try:
        result = entry(*args)
    finally:
        timer.cancel()
    _first_calls_done.add(entry)
    if said.is_set():
        print(f"carousel_env.solver: compiled in {time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)
    return result
