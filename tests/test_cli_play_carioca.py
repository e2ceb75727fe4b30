"""``carousel play --game carioca``: a whole game at the terminal, choices parsed, quitting."""

from __future__ import annotations

import io

import numpy as np

import carousel_env
from carousel_cli.main import main
from carousel_cli.play import play
from carousel_env.core.cards import card_str
from carousel_env.envkit.family import family_game
from carousel_env.games.carioca.env import CariocaAction
from carousel_env.games.carioca.terminal import TYPED


def answering(out: io.StringIO):
    """An input function that reads the choices last shown and picks: go down, else lay off,
    else draw from the stock, else discard the first card listed."""

    def answer(prompt: str) -> str:
        shown = out.getvalue().rsplit("Your choices:", 1)[-1]
        for key in ("d1 ", "l1 ", "s "):
            if f"\n  {key}" in shown:
                return key.strip()
        line = [row for row in shown.splitlines() if "a card to discard it:" in row][-1]
        return line.split(":")[1].split()[0]

    return answer


def test_a_whole_game_at_three_players():
    out = io.StringIO()
    answer = answering(out)
    assert play(["simple", "random"], "carioca", num_players=3, seat=1, seed=4, input_fn=answer, out=out) == 0
    text = out.getvalue()
    assert "You are player 1. Opponents: player 0 = simple, player 2 = random" in text
    assert "== round 6 over" in text and "Game over:" in text and "go down:" in text


def test_quitting_and_bad_input():
    answers = iter(["x9", "l7", "q"])
    out = io.StringIO()
    assert play(["simple"], "carioca", input_fn=lambda prompt: next(answers), out=out) == 0
    assert "not a choice here" in out.getvalue()


def test_choices_parse_to_legal_actions_only():
    mask = np.zeros(CariocaAction.FIRST_GO_DOWN + 8, np.int8)
    mask[[CariocaAction.DRAW_STOCK, CariocaAction.FIRST_DISCARD + 52, CariocaAction.FIRST_GO_DOWN + 1]] = 1
    assert TYPED.parse("s", mask) == CariocaAction.DRAW_STOCK
    assert TYPED.parse("jk", mask) == CariocaAction.FIRST_DISCARD + 52
    assert TYPED.parse("d2", mask) == CariocaAction.FIRST_GO_DOWN + 1
    assert TYPED.parse("d1", mask) is None and TYPED.parse("t", mask) is None and TYPED.parse("l1", mask) is None


def test_lay_offs_are_numbered_among_the_legal_ones_and_every_key_is_listed():
    """Lay-off actions are sparse (a card, a meld, an end): ``l2`` is the second legal one."""
    mask = np.zeros(CariocaAction.FIRST_GO_DOWN + 8, np.int8)
    layoffs = [CariocaAction.FIRST_LAY_OFF + 7, CariocaAction.FIRST_LAY_OFF + 300]
    mask[[CariocaAction.TAKE_DISCARD, CariocaAction.FIRST_DISCARD + 12, *layoffs, CariocaAction.FIRST_GO_DOWN]] = 1
    assert TYPED.parse("l1", mask) == layoffs[0] and TYPED.parse("L2", mask) == layoffs[1]
    assert TYPED.parse("l3", mask) is None and TYPED.parse("l0", mask) is None
    assert TYPED.keys(mask) == ["d1", "l1", "l2", "t", card_str(12)]


def test_the_command_refuses_a_variant(capsys):
    assert main(["play", "--game", "carioca", "--checkpoint", "simple", "--variant", "book"]) != 0
    assert "--variant: Carioca has no variants" in capsys.readouterr().err


def test_a_lay_off_on_a_trio_names_no_end():
    """Lay-offs offered in simple's games: one on a trio names no end, one on an escalera does."""
    from carousel_env.games.carioca.terminal import describe_choices

    family = family_game("carioca")
    env = carousel_env.env(game="carioca", num_players=2)
    shown: list[str] = []
    for seed in range(40):
        env.reset(seed=seed)
        simple = family.player("simple", seed)
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            shown += [line for line in describe_choices(env, obs["action_mask"]) if line.startswith("l")]
            seat = env.unwrapped.possible_agents.index(agent)
            env.step(family.act(simple, env, seat, obs["observation"], obs["action_mask"]))
        if any(line.endswith(" end)") for line in shown) and any(not line.endswith(" end)") for line in shown):
            break
    trios = [line.split(" on ", 1)[1].split(" (player")[0] for line in shown if not line.endswith(" end)")]
    assert trios and any(line.endswith(" end)") for line in shown)
    for meld in trios:  # every real card of one rank: a trio
        assert len({card[:-1] for card in meld.split() if not card.startswith("JK")}) == 1, meld
