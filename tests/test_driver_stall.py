"""A worker that stalls on a step is named on stderr, with the games it holds (``Driver``)."""

from __future__ import annotations

import multiprocessing as mp
import threading

from carousel_env.games.carousel.agents.match import Episode
from training import runners


def test_a_late_worker_is_named_with_its_games(monkeypatch, capsys):
    monkeypatch.setattr(runners, "STALL_NOTICE_S", 0.05)
    driver = object.__new__(runners.Driver)  # no env nor process: only the bookkeeping and the wait
    driver._seeds, driver._decisions = {}, {}
    driver._seeds[3], driver._decisions[3] = Episode(4243, (0, 1, 2)).seed, 17
    learner, worker = mp.Pipe()
    answer = threading.Timer(0.3, worker.send, args=(["report"],))
    answer.start()
    assert driver._receive(1, learner, [1, 3], {3: 0}, {}) == ["report"]
    said = capsys.readouterr().err.splitlines()
    assert len(said) >= 2  # one line per STALL_NOTICE_S waited
    assert said[0].startswith("carousel: worker 1 has spent 0 s on one step of copy 3 (seed 4243, decision 17)")
    assert "copy 1" not in said[0]  # a copy that was not stepped is not named


def test_the_notice_names_every_game_of_the_step():
    driver = object.__new__(runners.Driver)
    driver._seeds, driver._decisions = {0: 11, 2: 13}, {0: 5, 2: 1}
    line = driver.stall_notice(0, 120.0, [0, 2])
    assert "120 s" in line and "copy 0 (seed 11, decision 5)" in line and "copy 2 (seed 13, decision 1)" in line
    assert "whole games where no network sits" in line  # why an all-scripted match is slow without a stall
