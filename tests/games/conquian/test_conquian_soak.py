"""The Conquian soak's CI slice, and proof that its checks catch what they look for (the
broken state, score or move built by hand)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from carousel_env.core.cards import parse_hand
from carousel_env.games.conquian.engine import apply, new_game
from carousel_env.games.conquian.melds import melds_of
from carousel_env.games.conquian.rules import ConquianRules
from carousel_env.games.conquian.state import PASS, Phase, take
from tests.games.conquian.test_conquian_engine import position
from tests.support import conquian_soak as cs

SLICE = 120  # games: about 5 s on one core
BOOK = cs.Book("free", 8, points=False, pool=False, target=None)


@pytest.mark.soak
def test_soak_slice_breaks_no_invariant():
    report = cs.run(SLICE, seed=0, workers=0)
    assert not report.violations, "\n".join(report.violations[:20])
    assert report.games == SLICE and report.ends["games over"] == SLICE
    assert report.ends["out"] > 0 and report.ends["tableau"] > 0 and report.ends["forced"] > 0


def test_lost_or_doubled_cards_are_found():
    state = new_game(ConquianRules(), 0)
    assert cs.card_problems(state) == []
    assert cs.card_problems(replace(state, stock=state.stock[1:]))
    assert cs.card_problems(replace(state, dead=(state.hands[0][0],)))


def test_wrong_counts_are_found():
    state = new_game(ConquianRules(), 0)
    assert cs.count_problems(state) == []
    short = replace(state, hands=(state.hands[0][1:], state.hands[1]))
    assert "holds 9 cards" in cs.count_problems(short)[0]


def test_invalid_melds_are_found():
    assert cs.is_meld(parse_hand("5H 6H 7H JH"), BOOK)
    assert not cs.is_meld(parse_hand("QS KS AS"), BOOK)
    assert not cs.is_meld(parse_hand("AH 2H 3H 4H 5H 6H 7H JH QH"), BOOK)
    assert cs.is_meld(parse_hand("AH 2H 3H 4H 5H 6H 7H JH QH"), replace(BOOK, max_run=None))


def test_a_split_meld_is_found_under_none():
    before = position("5D 5C", melds=["3H 4H 5H 6H 7H JH"], faced="2H")
    after = replace(
        before, melds=(melds_of([parse_hand("2H 3H 4H"), parse_hand("5H 5D 5C"), parse_hand("6H 7H JH")]), ())
    )
    assert cs.kept_problems(before, after, BOOK, 0) == []
    assert "rearranged under none" in cs.kept_problems(before, after, replace(BOOK, rearrange="none"), 0)[0]


def test_forcing_not_asked_is_found():
    state = position("AC 2C 3C 4H 5H 6H 7S", melds=["2D 3D 4D"], phase=Phase.TURNED, faced="5D")
    after = apply(state, PASS)
    assert cs.move_problems(state, PASS, after, BOOK) == []
    skipped = replace(after, phase=Phase.FACED, current=1)
    assert "forcing not asked" in cs.move_problems(state, PASS, skipped, BOOK)[0]


def test_a_wrong_score_is_found():
    state = position("QH QD", melds=["AC 2C 3C 4C 5C", "KH KD KS"], faced="QS")
    won = apply(state, take(melds_of([parse_hand("AC 2C 3C 4C 5C"), parse_hand("KH KD KS"), parse_hand("QH QD QS")])))
    watch = cs.Watch(BOOK)
    watch.hand_over(won)
    assert watch.found == []
    watch = cs.Watch(replace(BOOK, pool=True))
    watch.pool = 2  # two tableaus before: the hand is worth 3
    watch.hand_over(won)
    assert "RULES.md gives (3, -3)" in watch.found[0]
