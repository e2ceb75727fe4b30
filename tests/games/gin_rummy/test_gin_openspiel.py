"""Gin Rummy in lock-step with the real OpenSpiel: 2,000 games under preset ``openspiel``
with every chance outcome mirrored (tests/support/openspiel_gin.py). At every decision the
player to act and the legal moves agree, and at the end the returns agree, except for the
differences named in ``DIFFERENCES``, which are counted."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.support.openspiel_gin import DIFFERENCES, play

pytestmark = pytest.mark.integration  # the real OpenSpiel

GAMES = 2000


def test_two_thousand_games_in_lock_step_with_openspiel():
    counts: Counter = Counter()
    ends: Counter = Counter()
    for seed in range(GAMES):
        ours, returns = play(seed, counts)
        points = ours.last_hand.points
        assert returns == [points[0] - points[1], points[1] - points[0]], f"seed {seed}: {ours.last_hand}"
        ends[ours.last_hand.end.value] += 1
        ends["undercut"] += ours.last_hand.undercut
        ends["layoffs"] += bool(ours.last_hand.layoffs and ours.last_hand.layoffs.laid_off)
    assert counts["games"] == GAMES
    assert set(counts) - {"games", "decisions"} <= set(DIFFERENCES)
    # The games reach every way a hand ends, and knocks with lay-offs and undercuts.
    assert min(ends[end] for end in ("knock", "gin", "dead", "upcard_limit", "undercut", "layoffs")) > 0, ends
    print(f"\nlock-step: {dict(counts)}; ends: {dict(ends)}")
