"""Witnesses: settling a crowded position with one legal table per best play, not a sweep.

The exact sweeps (``sweep``) keep every reachable state of every layer: hundreds of
thousands on a crowded two-deck table, where each best play of a given size is usually
just the dearest hand cards of that size. Such a play meets the obvious upper bound, so
one legal table for it, a *witness*, proves it optimal.

* ``search``: the depth-first searches over the sweep's transitions: :func:`witness` (one
  table for a fixed set of played cards) and :func:`best_of_size` (the best play of a
  size by branch and bound, with no hand joker).
* ``settle``: :func:`witnessed`, every entry the suggestion slots need settled by witnesses
  (or a status saying the sweeps must run), and the tables it keeps (:func:`keep_table`,
  :func:`drop_card`).

``carousel_env.games.carousel.solver.solve`` asks for witnesses (:func:`witnessed`, a compiled entry point
of its own) only after the sweep (``pipeline.solve_packed``) has grown past a small budget,
and falls back to the exact sweeps when any entry a slot needs has none.
"""

from carousel_env.games.carousel.solver.witness.search import (
    KNOWN_ROW_BYTES,
    NO_WITNESS,
    OVER_BUDGET,
    ROOM,
    TOO_WIDE,
    best_of_size,
    new_known,
    size_bounds,
    witness,
)
from carousel_env.games.carousel.solver.witness.settle import drop_card, keep_table, witnessed

__all__ = [
    "KNOWN_ROW_BYTES",
    "NO_WITNESS",
    "OVER_BUDGET",
    "ROOM",
    "TOO_WIDE",
    "best_of_size",
    "drop_card",
    "keep_table",
    "new_known",
    "size_bounds",
    "witness",
    "witnessed",
]
