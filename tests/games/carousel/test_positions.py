"""Possible positions at the public edge: ``check_position`` and the entry points that run
it (``solve``, ``has_play``, ``check_play``, ``carousel solve``) refuse a table and hand
that no game could reach, naming what is wrong; the environment's own path skips it."""

from __future__ import annotations

import argparse
import contextlib
import copy
import io
import json
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from carousel_cli import solve as cli
from carousel_env.core.cards import JOKER, hand_str, is_table_joker, joker_as, parse_hand, parse_table, table_str
from carousel_env.core.errors import CarouselError
from carousel_env.games.carousel.engine import positions
from carousel_env.games.carousel.engine.errors import ImpossiblePosition, PositionRule
from carousel_env.games.carousel.engine.manipulation import Play, check_play, is_legal_play
from carousel_env.games.carousel.engine.positions import check_position, is_possible_position
from carousel_env.games.carousel.engine.rules import Rules, carousel, manipulation_rummy
from carousel_env.games.carousel.envs.aec import FIRST_SUGGESTION, raw_env
from carousel_env.games.carousel.solver import has_play, solve
from tests.support.positions import synthetic_positions

ONE = carousel(2)  # one deck, one joker
TWO = carousel(3)  # two decks, two jokers
MR = manipulation_rummy(4)  # two decks, no jokers, aces high only


def _refusal(table, hand, rules: Rules) -> ImpossiblePosition:
    with pytest.raises(ImpossiblePosition) as err:
        check_position(table, hand, rules)
    return err.value


def _cli_args(table: str, hand: str, rules: Rules) -> list[str]:
    args = ["solve", "--table", table, "--hand", hand, "--variant", rules.variant.value]
    return [*args, "--players", str(rules.num_players)]


def _cli(table: str, hand: str, rules: Rules) -> tuple[int, str]:
    """``carousel solve`` on one position: exit code and what it wrote to stderr."""
    parser = argparse.ArgumentParser(prog="carousel")
    cli.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(_cli_args(table, hand, rules))
    err, out = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
        code = args.func(args)
    assert code != 0 or not err.getvalue()
    return code, err.getvalue()


def _batch_line(table: str, hand: str, rules: Rules) -> str:
    return json.dumps({"table": table, "hand": hand, "variant": rules.variant.value, "players": rules.num_players})


def _every_entry_refuses(table, hand, rules: Rules, rule: PositionRule) -> list[str]:
    """Run solve, has_play and check_play on the position; each must raise ``rule``.
    Returns their messages."""
    # Any play will do: the position is judged before the play.
    play = Play.of_normalised(tuple(hand[:1]), tuple(table))
    messages = []
    for call in (
        lambda: solve(table, hand, rules),
        lambda: has_play(table, hand, rules),
        lambda: check_play(table, hand, play, rules),
        lambda: is_legal_play(table, hand, play, rules),
    ):
        with pytest.raises(ImpossiblePosition) as err:
            call()
        assert err.value.rule is rule, err.value
        messages.append(str(err.value))
    return messages


# ---------------------------------------------------------------- each problem, named


def test_a_broken_table_is_not_repaired_by_the_play():
    table, hand = parse_table("3C 4C"), parse_hand("5C")
    repair = Play(hand, parse_table("3C 4C 5C"))
    messages = _every_entry_refuses(table, hand, ONE, PositionRule.INVALID_MELD)
    assert all("meld 1 of 1 (3C 4C) is neither a set nor a run" in m for m in messages)
    # Unchecked (the engine's own positions), the play would pass: the check is what refuses.
    check_play(table, hand, repair, ONE, check_position=False)
    code, err = _cli("3C 4C", "5C", ONE)
    assert code == 2 and "impossible position" in err and "meld 1 of 1 (3C 4C)" in err


def test_an_invalid_meld_is_named_by_its_position_and_text():
    err = _refusal(parse_table("3C 4C 5C | 7H 7S 8D | 9D 9H 9S"), (), TWO)
    assert err.rule is PositionRule.INVALID_MELD
    assert "meld 2 of 3 (7H 7S 8D) is neither a set nor a run" in str(err)


def test_aces_low_in_manipulation_rummy_is_an_invalid_meld_and_says_why():
    err = _refusal(parse_table("AH 2H 3H"), (), MR)
    assert err.rule is PositionRule.INVALID_MELD
    assert "aces high only" in str(err)
    check_position(parse_table("AH 2H 3H"), (), TWO)
    check_position(parse_table("QH KH AH"), (), MR)


def test_three_copies_of_a_card_with_two_decks():
    table, hand = parse_table("7H 8H 9H | 7H 7S 7C"), parse_hand("7H 2C")
    messages = _every_entry_refuses(table, hand, TWO, PositionRule.TOO_MANY_COPIES)
    assert all("3 copies of 7H (2 on the table, in melds 1, 2; 1 in the hand)" in m for m in messages)
    assert all("allows 2" in m for m in messages)
    err = _refusal(parse_table("7H 8H 9H | 7H 7S 7C | 7H 7D 7C"), (), TWO)
    assert "3 copies of 7H (3 on the table, in melds 1, 2, 3)" in str(err)
    code, text = _cli("7H 8H 9H | 7H 7S 7C", "7H 2C", TWO)
    assert code == 2 and "3 copies of 7H" in text


def test_two_copies_of_a_card_with_one_deck():
    err = _refusal(parse_table("3C 4C 5C"), parse_hand("3C 9D"), ONE)
    assert err.rule is PositionRule.TOO_MANY_COPIES
    assert "2 copies of 3C (1 on the table, in meld 1; 1 in the hand)" in str(err) and "allows 1" in str(err)


def test_a_joker_declaring_a_card_is_no_copy_of_it():
    # RULES.md: a two-deck table can hold three "7H" units, two real and a joker.
    check_position(parse_table("7H 8H 9H | 7H 7S 7C | 5H 6H JK=7H"), parse_hand("JK 2C"), TWO)
    check_position(parse_table("7H 8H 9H | 5H 6H JK=7H"), parse_hand("2C"), ONE)


def test_two_jokers_in_the_one_deck_game():
    table, hand = parse_table("7H 8H JK=9H"), parse_hand("JK 2C")
    messages = _every_entry_refuses(table, hand, ONE, PositionRule.TOO_MANY_JOKERS)
    assert all("2 jokers (JK in the hand, JK=9H in meld 1 (7H 8H JK=9H))" in m for m in messages)
    assert all("carousel for 2 players (1 deck, 1 joker) allows 1" in m for m in messages)
    err = _refusal(parse_table("7H 8H JK=9H | JK=5C 5D 5S"), (), ONE)
    assert err.rule is PositionRule.TOO_MANY_JOKERS
    err = _refusal((), parse_hand("JK JK JK"), TWO)
    assert "3 jokers" in str(err) and "allows 2" in str(err)
    code, text = _cli("7H 8H JK=9H", "JK 2C", ONE)
    assert code == 2 and "2 jokers" in text


@pytest.mark.parametrize(
    ("table", "hand", "named"),
    [
        ("", "JK 3C", "JK in the hand"),
        ("7H 7S JK=7D", "3C", "JK=7D in meld 1 (7H 7S JK=7D)"),
        ("3C 4C 5C | 7H 7S JK=7D", "", "JK=7D in meld 2 (7H 7S JK=7D)"),
    ],
)
def test_a_joker_in_manipulation_rummy(table, hand, named):
    table, hand_cards = parse_table(table), parse_hand(hand)
    message = f"{named}: manipulation_rummy for 4 players (2 decks, no jokers) has no jokers"
    if hand_cards:
        messages = _every_entry_refuses(table, hand_cards, MR, PositionRule.JOKERS_NOT_IN_VARIANT)
        assert all(message in m for m in messages)
    err = _refusal(table, hand_cards, MR)
    assert err.rule is PositionRule.JOKERS_NOT_IN_VARIANT and message in str(err)
    code, text = _cli(table_str(table), hand, MR)
    assert code == 2 and message in text


@pytest.mark.parametrize("unit", [146, 116, 52, 53, 63, -1])
def test_a_table_unit_out_of_range(unit):
    table = ((unit, 4, 8),)
    messages = _every_entry_refuses(table, (0,), ONE, PositionRule.NOT_A_CARD)
    assert all(f"meld 1 of the table holds {unit}: a table unit is a real card 0..51" in m for m in messages)


def test_unit_146_is_not_read_as_a_joker_declaring_5h():
    # 146 & 63 is 5H's code: before the check the solver read it as JK=5H.
    assert not is_possible_position(((146, 19, 20),), parse_hand("2C"), ONE)


@pytest.mark.parametrize("card", [53, 63, 116, -1])
def test_a_hand_card_out_of_range(card):
    messages = _every_entry_refuses((), (card,), ONE, PositionRule.NOT_A_CARD)
    assert all(f"the hand holds {card}: a hand card is a real card 0..51 or a joker, 52" in m for m in messages)


def test_a_hand_holding_a_declared_joker():
    declared = joker_as(parse_hand("7H")[0])
    messages = _every_entry_refuses((), (0, declared), ONE, PositionRule.NOT_A_CARD)
    assert all(
        f"the hand holds {declared} (JK=7H), a declared joker: a joker in a hand is JK (52)" in m for m in messages
    )


@pytest.mark.parametrize(
    ("table", "hand", "named"),
    [
        ((), "3C 4C", "the hand is text '3C 4C': parse it first"),
        ("3C 4C 5C", (), "the table is text '3C 4C 5C': parse it first"),
        ((), 7, "the hand is 7 (int), not a sequence of cards"),
        (((0, 4, "8"),), (), "meld 1 of the table holds '8' (str)"),
        (((0, 4, 8),), (True,), "the hand holds True (bool)"),
        (((0, 4, 8.0),), (), "meld 1 of the table holds 8.0 (float)"),
    ],
)
def test_input_that_is_no_position_is_named(table, hand, named):
    err = _refusal(table, hand, ONE)
    assert err.rule is PositionRule.NOT_A_CARD and named in str(err)


def test_the_error_is_a_carousel_error_naming_its_rule():
    err = _refusal(parse_table("3C 4C"), (), ONE)
    assert isinstance(err, CarouselError)
    assert str(err).startswith(f"impossible position: {PositionRule.INVALID_MELD.value}: ")
    assert err.detail in str(err)


def test_an_impossible_table_is_refused_even_with_an_empty_hand():
    assert _every_entry_refuses(parse_table("3C 4C"), (), ONE, PositionRule.INVALID_MELD)


def test_possible_positions_in_any_sequence_types():
    check_position([[0, 4, 8], [20, 21, 22]], [1, JOKER], ONE)
    check_position((), (), MR)
    assert solve([[0, 4, 8]], [12], ONE).best_cards == 1
    assert has_play([(0, 4, 8)], (12,), ONE)


# ---------------------------------------------------------------- the command line


def test_batch_reports_an_impossible_position_and_goes_on():
    lines = [
        _batch_line("3C 4C 5C", "6C", ONE),
        _batch_line("3C 4C", "5C", ONE),
        _batch_line("", "JK 3C", MR),
        _batch_line("7H 8H 9H | 7H 7S 7C", "7H", TWO),
        _batch_line("3C 4C 5C", "6C", ONE),
    ]
    sink = io.StringIO()
    assert cli.run_batch(lines, sink) == 0
    answers = [json.loads(line) for line in sink.getvalue().splitlines()]
    assert answers[0]["best_cards"] == 1 and answers[4] == answers[0]
    assert answers[1] == {"error": str(_refusal(parse_table("3C 4C"), parse_hand("5C"), ONE))}
    assert "meld 1 of 1 (3C 4C)" in answers[1]["error"]
    assert "JK in the hand" in answers[2]["error"]
    assert "3 copies of 7H" in answers[3]["error"]


# ---------------------------------------------------------------- nothing changes


def test_failed_calls_change_nothing():
    table = [[0, 4], [29, 30, 31]]
    hand = [8, 8, JOKER]
    before = copy.deepcopy((table, hand))
    for call in (
        lambda: check_position(table, hand, ONE),
        lambda: solve(table, hand, ONE),
        lambda: has_play(table, hand, ONE),
        lambda: check_play(table, hand, Play.of_normalised((8,), ((0, 4, 8), (29, 30, 31))), ONE),
    ):
        with pytest.raises(ImpossiblePosition):
            call()
        assert (table, hand) == before


# ---------------------------------------------------------------- real positions pass


def test_every_stored_position_is_possible(stored):
    impossible = [p.line for p in stored if not is_possible_position(p.table, p.hand, p.rules)]
    assert not impossible, impossible[:3]


@pytest.mark.parametrize(("rules", "decks", "jokers"), [(ONE, 1, 1), (TWO, 2, 2), (MR, 2, 0)])
def test_every_synthetic_position_is_possible(rules, decks, jokers):
    for table, hand in synthetic_positions(200, 7, decks, jokers, rules):
        check_position(table, hand, rules)


@pytest.mark.parametrize("config", [{"num_players": 3, "variant": "manipulation_rummy"}, {"num_players": 2}])
def test_every_game_position_is_possible(config):
    env = raw_env(episode="round", **config)
    env.reset(seed=5)
    for _ in env.agent_iter(400):
        state = env.unwrapped._state
        for hand in state.hands:
            check_position(state.table, hand, state.rules)
        _, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else _first_legal(env))


def _first_legal(env) -> int:
    mask = env.observe(env.agent_selection)["action_mask"]
    return FIRST_SUGGESTION if mask[FIRST_SUGGESTION] else int(mask.argmax())


# ---------------------------------------------------------------- random impossible positions


RULES_AND_DECK = [(ONE, 1, 1), (TWO, 2, 2), (MR, 2, 0)]


@st.composite
def possible_positions(draw):
    """A synthetic position (possible by construction) and its rules."""
    rules, decks, jokers = draw(st.sampled_from(RULES_AND_DECK))
    table, hand = next(iter(synthetic_positions(1, draw(st.integers(0, 10**6)), decks, jokers, rules)))
    check_position(table, hand, rules)
    return table, hand, rules


@st.composite
def impossible_positions(draw):
    """A possible position made impossible in one way, with the rule it then breaks."""
    table, hand, rules = draw(possible_positions())
    melds = [list(m) for m in table]
    hand = list(hand)
    held = Counter(hand) + Counter(u for m in table for u in m if not is_table_joker(u))
    held[JOKER] = hand.count(JOKER) + sum(map(is_table_joker, (u for m in table for u in m)))
    ways = ["extra copy", "extra joker"] + (["broken meld", "joker on the table"] if table else [])
    way = draw(st.sampled_from(ways))
    if way == "extra copy":
        card = draw(st.integers(0, 51))
        hand += [card] * (rules.decks + 1 - held[card])
        rule = PositionRule.TOO_MANY_COPIES
    elif way == "extra joker":
        hand += [JOKER] * (rules.jokers + 1 - held[JOKER])
        rule = PositionRule.TOO_MANY_JOKERS if rules.jokers else PositionRule.JOKERS_NOT_IN_VARIANT
    elif way == "broken meld":
        index = draw(st.integers(0, len(melds) - 1))
        melds[index] = melds[index][: draw(st.integers(1, 2))]
        rule = PositionRule.INVALID_MELD
    else:
        # A real table card becomes a joker declaring it (the meld stays valid), and the
        # hand gets the jokers the deck has left: one joker too many.
        reals = [(i, j) for i, m in enumerate(melds) for j, u in enumerate(m) if not is_table_joker(u)]
        i, j = draw(st.sampled_from(reals))
        melds[i][j] = joker_as(melds[i][j])
        hand += [JOKER] * max(0, rules.jokers - held[JOKER])
        rule = PositionRule.TOO_MANY_JOKERS if rules.jokers else PositionRule.JOKERS_NOT_IN_VARIANT
    return tuple(tuple(m) for m in melds), tuple(sorted(hand)), rules, rule


@settings(max_examples=120, deadline=None)
@given(impossible_positions())
def test_nothing_impossible_is_solved(position):
    table, hand, rules, rule = position
    _every_entry_refuses(table, hand, rules, rule)
    assert cli.solve_line(_batch_line(table_str(table), hand_str(hand), rules))["error"].startswith(
        f"impossible position: {rule.value}"
    )
    code, err = _cli(table_str(table), hand_str(hand), rules)
    assert code == 2 and f"impossible position: {rule.value}" in err


NOT_TABLE_UNITS = st.one_of(st.integers(-300, -1), st.integers(52, 63), st.integers(116, 300))
NOT_HAND_CARDS = st.one_of(st.integers(-300, -1), st.integers(53, 300))


@settings(max_examples=60, deadline=None)
@given(possible_positions(), NOT_TABLE_UNITS, NOT_HAND_CARDS, st.booleans())
def test_a_unit_out_of_range_is_refused_wherever_it_is(position, table_unit, hand_card, on_table):
    table, hand, rules = position
    if on_table and table:
        table = ((table_unit, *table[0][1:]), *table[1:])
    else:
        hand = (hand_card, *hand[1:])
    _every_entry_refuses(table, hand, rules, PositionRule.NOT_A_CARD)


# ---------------------------------------------------------------- the environment skips it


def test_the_environment_does_not_check_its_own_positions(monkeypatch):
    def refuse(table, hand, rules):
        raise AssertionError("the environment checked a position the engine built")

    monkeypatch.setattr(positions, "check_position", refuse)
    with pytest.raises(AssertionError):
        solve((), (0,), ONE)
    for config in ({"num_players": 3, "variant": "manipulation_rummy"}, {"num_players": 2}):
        env = raw_env(episode="round", **config)
        env.reset(seed=3)
        plays = 0
        for _ in env.agent_iter(300):
            _, _, terminated, truncated, _ = env.last()
            action = None if terminated or truncated else _first_legal(env)
            plays += action is not None and action >= FIRST_SUGGESTION
            env.step(action)
        assert plays  # solve, has_play (Manipulation Rummy) and game.apply's check_play all ran
