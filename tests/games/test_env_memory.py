"""Every per-process cache the games' envs fill as they play is bounded (issue 57), so that an
env process's memory stops growing however many games it plays. The memory and speed
figures themselves are measured by ``benchmarks/bench_env_memory.py``, not here."""

from __future__ import annotations

import pytest

from carousel_env.games.carioca import solver as carioca_solver
from carousel_env.games.carousel.engine import melds as carousel_melds
from carousel_env.games.gin_rummy import melds as gin_melds
from carousel_env.games.kaluki import solver_pieces as kaluki_pieces

# 2**16 entries of a few hundred bytes each: tens of MB at most per cache.
MAX_ENTRIES = 1 << 16


def lru_caches(module) -> dict[str, object]:
    """The module's own functions wrapped by ``functools.lru_cache``, by name."""
    return {
        name: value
        for name, value in vars(module).items()
        if callable(getattr(value, "cache_info", None)) and getattr(value, "__module__", None) == module.__name__
    }


def test_gin_melds_has_its_three_caches():
    assert set(lru_caches(gin_melds)) == {"_melded_core", "discard_deadwoods", "_least_after_discard"}


@pytest.mark.parametrize("module", [gin_melds, carioca_solver, carousel_melds, kaluki_pieces], ids=lambda m: m.__name__)
def test_every_cache_filled_by_play_is_bounded(module):
    caches = lru_caches(module)
    assert caches
    for name, cache in caches.items():
        maxsize = cache.cache_info().maxsize
        assert maxsize is not None and maxsize <= MAX_ENTRIES, (name, maxsize)


def test_kaluki_caches_a_rank_s_sets_and_a_suit_s_runs():
    assert set(lru_caches(kaluki_pieces)) == {"_set_readings", "_run_readings"}


def test_gin_discard_caches_hold_few_hands():
    # Their entries (a hand's eleven discards) weigh about 1 KB each; they are asked again
    # only within one decision.
    for cache in (gin_melds.discard_deadwoods, gin_melds._least_after_discard):
        assert cache.cache_info().maxsize <= 1 << 10
