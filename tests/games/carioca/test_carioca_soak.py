"""The Carioca soak's CI slice, and proof that its checks catch what they look for."""

from __future__ import annotations

import dataclasses

import pytest

from carousel_env.core.cards import parse_meld
from carousel_env.games.carioca import engine as ce
from carousel_env.games.carioca import melds as cm
from tests.support import carioca_soak

SLICE = 12


@pytest.mark.soak
def test_soak_slice_breaks_no_invariant():
    report = carioca_soak.run(SLICE, seed=0, workers=0)
    assert not report.violations, "\n".join(report.violations[:20])
    assert report.games == SLICE and report.rounds == 6 * SLICE
    assert report.ends["out"] > 0 and report.ends["lay-offs"] > 0


def test_lost_cards_are_found():
    state = ce.new_game(3, 0)
    assert carioca_soak.card_problems(state) == []
    broken = dataclasses.replace(state, stock=state.stock[1:])
    assert "cards not conserved" in carioca_soak.card_problems(broken)[0]


def test_wrong_round_scores_are_found():
    result = ce.RoundResult(1, ce.RoundEnd.OUT, 0, (0, 57), ((), (0, 48, 52, 17)), (True, False))
    assert carioca_soak.round_problems(result) == []  # AS KH JK 5C: 14 + 13 + 25 + 5
    wrong = dataclasses.replace(result, penalties=(0, 56))
    assert "RULES.md 57" in carioca_soak.round_problems(wrong)[0]


def test_a_joker_moved_against_the_rules_is_found():
    def meld(text):
        return cm.meld_from_units(parse_meld(text))

    start = meld("JK=3D 4D 5D 6D")
    assert carioca_soak.joker_problems(start, meld("JK=2D 3D 4D 5D 6D")) == []  # tucked in
    assert carioca_soak.tucked(start, meld("JK=2D 3D 4D 5D 6D"))
    assert carioca_soak.joker_problems(start, meld("2D JK=3D 4D 5D 6D")) == []  # beyond it
    assert carioca_soak.joker_problems(start, meld("3D 4D 5D 6D JK=7D"))  # moved to the other end
    inside = meld("3D JK=4D 5D 6D")
    assert carioca_soak.joker_problems(inside, cm.Meld(cm.MeldKind.ESCALERA, parse_meld("JK=2D 3D 4D 5D 6D"), 2))
