"""The searches' yardsticks in the benchmarks: ``bench_search --deal`` and ``bench_carioca
--deal`` deal the search what no player may see (benchmarks/RESULTS.md quotes their
ceilings), and say so when asked of a player that does not search."""

from __future__ import annotations

import random

import pytest

from benchmarks import bench_carioca, bench_search
from carousel_env.games.carioca.engine import new_game


def test_bench_search_hands_the_search_the_real_hands_or_the_real_state(monkeypatch):
    dealt = []
    real = bench_search.true_deal
    monkeypatch.setattr(
        bench_search, "true_deal", lambda state, rng, stock: dealt.append(stock) or real(state, rng, stock)
    )
    row = bench_search.measure(1, 3, 1, seed=7000, variant="manipulation_rummy", deal="all")
    assert row["deal"] == "all" and row["games"] == 1 and row["decisions"] == len(dealt) > 0
    assert set(dealt) == {True}
    dealt.clear()
    bench_search.measure(2, 3, 1, seed=7000, variant="manipulation_rummy", deal="hands")
    assert dealt and set(dealt) == {False}


def test_true_deal_keeps_the_hands_and_shuffles_only_the_stock():
    state = new_game(3, seed=5)
    world = bench_carioca.true_deal(state, random.Random(1))
    assert world.hands == state.hands and sorted(world.stock) == sorted(state.stock) and world.stock != state.stock


def test_bench_carioca_deals_a_search_agent_and_refuses_others(capsys):
    argv = ["--agent", "search@1", "--deal", "all", "--opponent", "simple", "--deals", "1", "--workers", "1"]
    report = bench_carioca.main(argv)
    assert report["deal"] == "all" and report["games"] == 2
    assert "search@1 (all deals) against simple" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        bench_carioca.main(["--agent", "simple", "--deal", "hands"])
    assert "--deal hands is for a search agent (search@N), not 'simple'" in capsys.readouterr().err
