"""The guard that drops numba's cached solver code when any of its sources changed."""

from __future__ import annotations

import time

from carousel_env.solver import _cache


def _fake_cache(folder):
    folder.mkdir()
    for name in ("core._build-300.py311.nbi", "core._build-300.py311.1.nbc", "keep.txt"):
        (folder / name).write_text("x")


def test_unstamped_cache_is_dropped_and_stamped(tmp_path):
    cache = tmp_path / "__pycache__"
    _fake_cache(cache)
    assert _cache.drop_stale_cache(cache)
    assert sorted(p.name for p in cache.iterdir()) == ["keep.txt", "numba-sources.stamp"]
    assert (cache / "numba-sources.stamp").read_text() == _cache.sources_stamp()


def test_cache_with_current_stamp_is_kept(tmp_path):
    cache = tmp_path / "__pycache__"
    _fake_cache(cache)
    (cache / "numba-sources.stamp").write_text(_cache.sources_stamp())
    assert not _cache.drop_stale_cache(cache)
    assert len(list(cache.glob("*.nb?"))) == 2


def test_cache_with_an_old_stamp_is_dropped(tmp_path):
    cache = tmp_path / "__pycache__"
    _fake_cache(cache)
    (cache / "numba-sources.stamp").write_text("core.py 1 2")
    assert _cache.drop_stale_cache(cache)
    assert not list(cache.glob("*.nb?"))


def test_stamp_covers_every_solver_module_and_the_card_constants():
    names = [line.split()[0] for line in _cache.sources_stamp().splitlines()]
    modules = ["states", "lanes", "sweep", "entries", "answer", "pipeline", "prepare", "build", "witness/search"]
    expected = {f"solver/{module}.py" for module in modules} | {"solver/witness/settle.py", "engine/cards.py"}
    assert expected <= set(names)


def test_subpackage_caches_are_dropped_with_the_top_one(tmp_path):
    cache = tmp_path / "__pycache__"
    _fake_cache(cache)
    (tmp_path / "witness").mkdir()
    sub = tmp_path / "witness" / "__pycache__"
    _fake_cache(sub)
    assert _cache.drop_stale_cache(cache)
    assert sorted(p.name for p in sub.iterdir()) == ["keep.txt"]  # the stamp is kept in the top one only


def test_unwritable_cache_is_left_alone(tmp_path):
    missing_parent = tmp_path / "file"
    missing_parent.write_text("not a folder")
    assert not _cache.drop_stale_cache(missing_parent / "__pycache__")


def test_a_slow_first_call_says_it_compiles(monkeypatch, capsys):
    monkeypatch.setattr(_cache, "NOTICE_AFTER_S", 0.05)

    def slow_entry(x):  # stands for a compiled entry point met with an empty cache
        time.sleep(0.3)
        return x + 1

    assert _cache.first_call(slow_entry, 1) == 2
    said = capsys.readouterr().err
    assert "compiling the solver's numba code, once" in said and "compiled in" in said
    assert _cache.first_call(slow_entry, 2) == 3  # later calls say nothing, however slow
    assert capsys.readouterr().err == ""


def test_a_quick_first_call_says_nothing(monkeypatch, capsys):
    monkeypatch.setattr(_cache, "NOTICE_AFTER_S", 0.5)
    assert _cache.first_call(lambda x: x * 2, 4) == 8  # a warm cache: loaded at once
    assert capsys.readouterr().err == ""
