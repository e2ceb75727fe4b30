"""The Gin Rummy soak's CI slice, and proof that its checks catch what they look for."""

from __future__ import annotations

import dataclasses

import pytest

from carousel_env.games.gin_rummy import engine as ge
from carousel_env.games.gin_rummy.rules import GinRules
from tests.support import gin_soak

SLICE = 300


@pytest.mark.soak
def test_soak_slice_breaks_no_invariant():
    report = gin_soak.run(SLICE, seed=0, workers=0)
    assert not report.violations, "\n".join(report.violations[:20])
    assert report.games == SLICE and report.ends["knock"] > 0 and report.ends["layoffs"] > 0


def test_lost_cards_are_found():
    state = ge.new_game(GinRules(), 0)
    assert gin_soak.card_problems(state) == []
    broken = dataclasses.replace(state, stock_top=state.stock_top + 1)
    assert "cards not conserved" in gin_soak.card_problems(broken)[0]


def test_wrong_hand_scores_are_found():
    result = _a_knock_result()
    assert gin_soak.hand_problems(result, GinRules()) == []
    wrong = dataclasses.replace(result, points=(result.points[0] + 1, result.points[1]))
    assert "RULES.md gives" in gin_soak.hand_problems(wrong, GinRules())[0]


def _a_knock_result() -> ge.HandResult:
    for seed in range(500):
        state = ge.new_game(GinRules(), seed)
        while not state.over:
            options = ge.knock_options(state)
            if options:
                return ge.apply(state, ge.Move(ge.MoveKind.KNOCK, arrangement=options[0])).last_hand
            kinds = ge.legal_kinds(state)
            if ge.MoveKind.DISCARD in kinds:
                hand = state.hands[state.current]
                card = min(ge.legal_discards(state), key=lambda c: ge.gm.deadwood(hand ^ 1 << c))
                state = ge.apply(state, ge.Move(ge.MoveKind.DISCARD, card))
            else:
                state = ge.apply(state, ge.DRAW_STOCK if ge.MoveKind.DRAW_STOCK in kinds else ge.PASS)
    raise AssertionError("no knock in 500 games")
