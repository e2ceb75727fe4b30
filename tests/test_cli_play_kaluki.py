"""``carousel play --game kaluki``: what the terminal says of a take that lays the pile's top."""

from __future__ import annotations

import io

from carousel_cli.play import play


def test_a_take_that_lays_the_pile_s_top_is_said_in_words():
    answers = iter(["p1", "q"])
    out = io.StringIO()
    assert play(["simple", "simple"], "kaluki", num_players=3, seed=3, input_fn=lambda p: next(answers), out=out) == 0
    text = out.getvalue()
    # Offered while drawing: the top named and the melds it is laid in; then narrated so.
    assert "p1  take the pile's top JS and lay 7C 8C 9C 10C | JK=9S 10S JS" in text
    assert "player 2 takes the pile's top KD and lays " in text
    assert "take discard" not in text
