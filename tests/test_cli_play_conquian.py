"""``carousel play --game conquian``: takes listed with their melds, a discard typed as a card,
and a card forced on the human said in words."""

from __future__ import annotations

import io

from carousel_cli.play import play


def test_takes_discards_and_forcing_at_the_terminal():
    answers = iter(["t1", "KS", "p", "p", "p", "p", "p", "p", "q"])
    out = io.StringIO()
    assert play(["simple"], "conquian", num_players=2, seed=3, input_fn=lambda p: next(answers, "q"), out=out) == 0
    text = out.getvalue()
    assert "t1  take 3H: melds AH 2H 3H | 4C 4H 4S" in text  # the upcard, taken into two melds
    assert "a card to discard it: 3C 5H 6D 6H KS" in text
    assert "p   leave the turned card" in text
    assert "player 1 forces 4D on player 0" in text
    assert "Conquian, hand 1, forced, player 0 to act" in text
