"""``carousel play --game gin_rummy``: a whole hand at the terminal, narrated, and its errors."""

from __future__ import annotations

import io

import numpy as np

from carousel_cli.main import main
from carousel_cli.play import play
from carousel_env.core.cards import NUM_CARDS, card_str
from carousel_env.games.gin_rummy.env import GinAction
from carousel_env.games.gin_rummy.terminal import TYPED


def _stubborn_player():
    """Tries, at every prompt, knock, stock, pass, then every card in turn, until one is taken."""
    tries = ["k1", "s", "p", *(card_str(c) for c in range(NUM_CARDS))]
    state = {"next": 0}

    def answer(_prompt: str) -> str:
        text = tries[state["next"] % len(tries)]
        state["next"] += 1
        return text

    return answer, state


def test_parse_choice_takes_only_what_the_mask_allows():
    mask = np.zeros(GinAction.FIRST_KNOCK + 2, np.int8)
    mask[[GinAction.PASS, GinAction.FIRST_DISCARD + 5, GinAction.FIRST_KNOCK + 1]] = 1
    assert TYPED.parse(" P ", mask) == GinAction.PASS
    assert TYPED.parse(card_str(5).lower(), mask) == GinAction.FIRST_DISCARD + 5
    assert TYPED.parse("k2", mask) == GinAction.FIRST_KNOCK + 1
    for bad in ("s", "u", "k1", "k0", "k9", "ZZ", card_str(6), "", "d 7H"):
        assert TYPED.parse(bad, mask) is None, bad


def test_a_whole_hand_is_played_and_narrated():
    answer, _ = _stubborn_player()
    out = io.StringIO()
    assert play(["simple"], "gin_rummy", seat=1, seed=4, variant="openspiel", input_fn=answer, out=out) == 0
    text = out.getvalue()
    assert "You are player 1. Opponents: player 0 = simple. Gin Rummy." in text
    assert "player 0 discards " in text  # the opponent's moves, between yours
    assert "== hand over (" in text and "Game over: " in text


def test_the_game_is_refused_options_it_has_not(capsys):
    assert main(["play", "--game", "gin_rummy", "--checkpoint", "simple", "--seat", "2"]) == 2
    assert "--seat must be a seat from 0 to 1 with 2 players" in capsys.readouterr().err
    assert main(["play", "--game", "gin_rummy", "--checkpoint", "simple", "--players", "3"]) == 2
    assert "--players: Gin Rummy is played by 2 players, got 3" in capsys.readouterr().err
    assert main(["play", "--game", "gin_rummy", "--checkpoint", "smart"]) == 2
    assert "unknown Gin Rummy policy 'smart'" in capsys.readouterr().err
    assert main(["play", "--checkpoint", "greedy", "--variant", "openspiel"]) == 2
    assert "--variant: " in capsys.readouterr().err  # Carousel has no variant of that name


def test_a_wrong_entry_is_answered_with_the_keys_legal_now(capsys, monkeypatch):
    answers = iter(["zz", "q"])
    monkeypatch.setattr("builtins.input", lambda prompt: next(answers))
    assert main(["play", "--game", "gin_rummy", "--checkpoint", "simple", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "not a choice here: type u or p (q quits)" in out and "Your deadwood: 46" in out


def test_the_narration_names_your_draw_and_the_knock_and_lay_offs():
    answer, _ = _stubborn_player()
    out = io.StringIO()
    assert play(["simple"], "gin_rummy", seat=1, seed=4, variant="openspiel", input_fn=answer, out=out) == 0
    text = out.getvalue()
    assert "you drew " in text and " knocked: " in text and " laid off " in text


def test_play_takes_the_game_and_rules_from_a_checkpoint(capsys, monkeypatch):
    monkeypatch.setattr("builtins.input", lambda prompt: "q")
    assert main(["play", "--checkpoint", "checkpoints/gin_2p"]) == 0  # no --game: Gin Rummy under the EAAI rules
    assert "Opponents: player 1 = checkpoints/gin_2p. Gin Rummy." in capsys.readouterr().out
    assert main(["play", "--checkpoint", "checkpoints/gin_2p", "--game", "carousel"]) == 2
    assert "the checkpoint checkpoints/gin_2p plays gin_rummy" in capsys.readouterr().err
