"""``carousel_env.core.compiled``: the guard that drops numba's cached code when any of its
sources changed, and the line said before a first compile, for the solver and the vector env."""

from __future__ import annotations

import importlib
import os
import sys
import time

import numba
import numpy as np
import pytest

from carousel_env.core import compiled as _cache
from carousel_env.games.carioca import distance as carioca_distance
from carousel_env.games.carioca import kernel as carioca_kernel
from carousel_env.games.carousel import solver
from carousel_env.games.carousel.solver import (
    answer,
    compile_witness_search,
    pipeline,
    witness,
    witness_search_compiled,
)
from carousel_env.games.carousel.vector import encode as vector_encode
from carousel_env.games.carousel.vector import kernel as vector_kernel
from carousel_env.games.conquian import kernel as conquian_kernel
from carousel_env.games.gin_rummy import kernel as gin_kernel
from carousel_env.games.kaluki import kernel_observation as kaluki_observation
from carousel_env.games.kaluki import kernel_readings as kaluki_readings
from carousel_env.games.kaluki import kernel_rows as kaluki_rows
from carousel_env.games.kaluki import kernel_solver as kaluki_solver


def _fake_cache(folder):
    folder.mkdir()
    for name in ("core._build-300.py311.nbi", "core._build-300.py311.1.nbc", "keep.txt"):
        (folder / name).write_text("x")


def test_unstamped_cache_is_dropped_and_stamped(tmp_path):
    cache = tmp_path / "__pycache__"
    _fake_cache(cache)
    assert _cache.drop_stale_cache(cache, solver.SOURCES)
    assert sorted(p.name for p in cache.iterdir()) == ["keep.txt", "numba-sources.stamp"]
    assert (cache / "numba-sources.stamp").read_text() == _cache.sources_stamp(solver.SOURCES)


def test_cache_with_current_stamp_is_kept(tmp_path):
    cache = tmp_path / "__pycache__"
    _fake_cache(cache)
    (cache / "numba-sources.stamp").write_text(_cache.sources_stamp(solver.SOURCES))
    assert not _cache.drop_stale_cache(cache, solver.SOURCES)
    assert len(list(cache.glob("*.nb?"))) == 2


def test_cache_with_an_old_stamp_is_dropped(tmp_path):
    cache = tmp_path / "__pycache__"
    _fake_cache(cache)
    (cache / "numba-sources.stamp").write_text("core.py 1 2")
    assert _cache.drop_stale_cache(cache, solver.SOURCES)
    assert not list(cache.glob("*.nb?"))


def test_stamp_covers_every_solver_module_and_the_card_constants():
    names = [line.split()[0] for line in _cache.sources_stamp(solver.SOURCES).splitlines()]
    modules = ["states", "lanes", "sweep", "entries", "answer", "pipeline", "prepare", "build", "witness/search"]
    expected = {f"games/carousel/solver/{module}.py" for module in modules}
    expected |= {"games/carousel/solver/witness/settle.py", "core/cards.py"}
    assert expected <= set(names)


def test_the_vector_envs_stamp_covers_the_solver_and_what_its_kernel_embeds(tmp_path):
    names = {line.split()[0] for line in _cache.sources_stamp(vector_kernel.SOURCES).splitlines()}
    solver_names = {line.split()[0] for line in _cache.sources_stamp(solver.SOURCES).splitlines()}
    assert solver_names < names
    embedded = ("vector/kernel.py", "vector/encode.py", "engine/game.py", "envs/observation.py")
    assert {f"games/carousel/{path}" for path in embedded} <= names
    cache = tmp_path / "__pycache__"
    _fake_cache(cache)
    # The solver's stamp is not enough.
    (cache / "numba-sources.stamp").write_text(_cache.sources_stamp(solver.SOURCES))
    assert _cache.drop_stale_cache(cache, vector_kernel.SOURCES)
    assert not list(cache.glob("*.nb?"))


def test_kalukis_stamp_covers_every_module_of_its_compiled_search_and_vector_kernel():
    names = {line.split()[0] for line in _cache.sources_stamp(kaluki_readings.SOURCES).splitlines()}
    modules = ("kernel_readings", "kernel_leaves", "kernel_search", "kernel_table", "kernel_solver", "rules")
    modules += ("kernel_plays", "kernel_rows", "kernel_observation", "kernel_players", "priors")
    assert {f"games/kaluki/{module}.py" for module in modules} | {"core/cards.py"} <= names


def test_subpackage_caches_are_dropped_with_the_top_one(tmp_path):
    cache = tmp_path / "__pycache__"
    _fake_cache(cache)
    (tmp_path / "witness").mkdir()
    sub = tmp_path / "witness" / "__pycache__"
    _fake_cache(sub)
    assert _cache.drop_stale_cache(cache, solver.SOURCES)
    assert sorted(p.name for p in sub.iterdir()) == ["keep.txt"]  # the stamp is kept in the top one only


def test_unwritable_cache_is_left_alone(tmp_path):
    missing_parent = tmp_path / "file"
    missing_parent.write_text("not a folder")
    assert not _cache.drop_stale_cache(missing_parent / "__pycache__", solver.SOURCES)


def _njit_module(tmp_path, monkeypatch):
    """A module holding one cached numba function, its cache beside it in ``tmp_path``."""
    (tmp_path / "tiny_entry.py").write_text(
        "from numba import njit\n\n\n@njit(cache=True)\ndef solve_packed(a, b):\n    return a.sum() + b\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "tiny_entry", raising=False)
    return importlib.import_module("tiny_entry")


def test_numba_cache_is_asked_before_compiling(tmp_path, monkeypatch):
    module = _njit_module(tmp_path, monkeypatch)
    args = (np.zeros(3, dtype=np.int64), 2)
    assert _cache.compiled_in_cache(module.solve_packed, args) is False
    module.solve_packed(*args)  # compiles, and saves it in the cache
    assert _cache.compiled_in_cache(module.solve_packed, args) is True
    fresh = numba.njit(cache=True)(module.solve_packed.py_func)  # as a new process would see it
    assert not fresh.overloads
    assert _cache.compiled_in_cache(fresh, args) is True
    assert _cache.compiled_in_cache(fresh, (np.zeros(3), 2)) is False  # other types: not compiled
    assert _cache.compiled_in_cache(lambda a, b: a, args) is None  # not numba: cannot tell


def test_a_cold_first_call_says_so_in_one_line_before_compiling(monkeypatch, capsys):
    monkeypatch.setattr(_cache, "compiled_in_cache", lambda entry, args: False)
    said = []

    def solve_packed(x):  # stands for a compiled entry point met with an empty cache
        said.append(capsys.readouterr().err)
        return x + 1

    solve_packed.__module__ = pipeline.__name__  # the solver's, as its notice knows it
    assert _cache.first_call(solve_packed, 1) == 2
    assert said == [_cache.compile_notice(solve_packed) + "\n"]  # before the call, one line
    assert "compiling the solver with numba, once: up to 20 s" in said[0]
    assert _cache.first_call(solve_packed, 2) == 3  # later calls say nothing
    assert capsys.readouterr().err == ""


def test_the_notices_name_the_real_entry_points():
    # ENTRY_POINTS is keyed by module and name (``compiled`` cannot import what it caches; every
    # game's kernels share the role names): a renamed entry point would fall back to the generic
    # notice, so the keys must be these (every compiled module is imported here, so each has
    # named its own).
    entries = (
        pipeline.solve_packed,
        pipeline.has_play_packed,
        witness.witnessed,
        answer.pack_suggestion,
        vector_kernel.step_games,
        vector_encode.encode_rows,
        gin_kernel.step_games,
        gin_kernel.encode_rows,
        carioca_kernel.step_games,
        carioca_kernel.encode_rows,
        carioca_distance.distance,
        conquian_kernel.step_games,
        conquian_kernel.encode_rows,
        kaluki_solver.lay_down,
        kaluki_solver.may_lay,
        kaluki_solver.search_each,
        kaluki_rows.step_games,
        kaluki_observation.encode_rows,
        kaluki_observation.encode_finals,
    )
    assert set(_cache.ENTRY_POINTS) == {_cache.entry_key(entry) for entry in entries}
    notices = {_cache.compile_notice(entry) for entry in entries}
    assert len(notices) == len(entries)  # each says what it compiles


def test_a_warm_first_call_says_nothing(monkeypatch, capsys):
    monkeypatch.setattr(_cache, "NOTICE_AFTER_S", 0.05)
    monkeypatch.setattr(_cache, "compiled_in_cache", lambda entry, args: True)

    def slow_entry(x):  # loading from the cache, however slowly
        time.sleep(0.2)
        return x * 2

    assert _cache.first_call(slow_entry, 4) == 8
    assert capsys.readouterr().err == ""


def test_where_the_cache_cannot_be_asked_a_slow_first_call_says_it_compiles(monkeypatch, capsys):
    monkeypatch.setattr(_cache, "NOTICE_AFTER_S", 0.05)
    monkeypatch.setattr(_cache, "compiled_in_cache", lambda entry, args: None)

    def slow_entry(x):
        time.sleep(0.3)
        return x + 1

    assert _cache.first_call(slow_entry, 1) == 2
    assert capsys.readouterr().err.count("\n") == 1
    assert _cache.first_call(lambda x: x, 3) == 3  # a quick one says nothing
    assert capsys.readouterr().err == ""


@pytest.mark.xdist_group("cores")
def test_a_second_process_compiles_into_the_cache_and_this_one_loads_it(tmp_path, monkeypatch):
    (tmp_path / "tiny_child.py").write_text(
        "import numpy as np\nfrom numba import njit\n\n\n@njit(cache=True)\ndef entry(a, b):\n    return a.sum() + b\n"
        "\n\ndef compile_entry():\n    entry(np.ones(3, dtype=np.int64), 2)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))  # the child finds the module this way; carousel_env is added
    monkeypatch.delitem(sys.modules, "tiny_child", raising=False)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    module = importlib.import_module("tiny_child")
    args = (np.ones(3, dtype=np.int64), 2)
    assert _cache.compiled_in_cache(module.entry, args) is False
    child = _cache.compile_in_child(module.compile_entry)
    assert child is not None and child.wait(timeout=120) == 0
    assert _cache.compiled_in_cache(module.entry, args) is True
    assert module.entry(*args) == 5
    assert sum(module.entry.stats.cache_hits.values()) == 1  # loaded what the child compiled
    assert not module.entry.stats.cache_misses


def test_with_one_cpu_or_no_python_to_start_no_second_process_starts(monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0}, raising=False)
    assert _cache.compile_in_child(witness_search_compiled) is None
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    monkeypatch.setattr(sys, "executable", "")
    assert _cache.compile_in_child(witness_search_compiled) is None
    monkeypatch.setattr(sys, "executable", "/no/such/python")
    assert _cache.compile_in_child(witness_search_compiled) is None


def test_the_witness_search_warms_up_as_witness_rounds_calls_it():
    compile_witness_search()
    assert witness_search_compiled() is True  # same types as witness_rounds' calls: no second signature


@pytest.fixture
def helpers(monkeypatch):
    """The second processes ``compile_ahead`` starts (the real ones, recorded), as on a cold
    cache with two CPUs."""
    started = []
    real = _cache.compile_in_child

    def recorded(function):
        started.append(real(function))
        return started[-1]

    monkeypatch.setattr(_cache, "compile_in_child", recorded)
    monkeypatch.setattr(solver, "witness_search_compiled", lambda: False)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    return started


@pytest.mark.xdist_group("cores")
def test_compile_ahead_compiles_the_witness_search_in_a_second_process(helpers):
    here = []
    solver.compile_ahead(lambda: here.append(len(helpers)))
    assert here == [1]  # the helper was started first, then this process compiled its part
    assert helpers[0].returncode == 0  # it ran, and compile_ahead waited for it


@pytest.mark.xdist_group("cores")
def test_the_vector_env_and_a_first_solve_compile_ahead_the_same_way(helpers):
    from carousel_env.games.carousel.vector import CarouselVectorEnv

    CarouselVectorEnv.compile_ahead(num_players=3)
    solver.compile_ahead()
    assert [h.returncode for h in helpers] == [0, 0]


@pytest.mark.xdist_group("cores")
def test_compile_ahead_stops_its_helper_when_this_process_fails(helpers):
    def interrupted():
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        solver.compile_ahead(interrupted)
    assert len(helpers) == 1 and helpers[0].returncode is not None  # stopped and reaped, not left running
