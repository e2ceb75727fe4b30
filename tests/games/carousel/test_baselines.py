"""Baseline players: legal actions from the observation and mask alone, and ``smart``'s
rules on set positions (the registry and the match runner: test_agents_match.py)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from carousel_env.core.cards import hand_str, parse_hand, parse_table
from carousel_env.games.carousel.agents.baselines import _position, greedy
from carousel_env.games.carousel.agents.registry import get_policy
from carousel_env.games.carousel.engine.game import Phase, new_game
from carousel_env.games.carousel.engine.rules import by_name, carousel
from carousel_env.games.carousel.envs.aec import DRAW_AGAIN, END_TURN, FIRST_SUGGESTION, KNOCK, decision, raw_env
from carousel_env.games.carousel.envs.observation import encode, layout
from carousel_env.games.carousel.solver import solve


def decisions(n=2, seed=0, count=25, **config):
    """(observation, mask, suggestions) of successive decisions under random play."""
    e = raw_env(num_players=n, **config)
    e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        agent = e.agent_selection
        if e.terminations[agent]:
            e.reset(seed=seed + len(out))
            continue
        obs = e.observe(agent)
        out.append((obs["observation"].copy(), obs["action_mask"].copy(), e.suggestions))
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return out


@pytest.mark.parametrize("name", ["random", "greedy", "smart"])
def test_policies_choose_legal_actions(name):
    policy = get_policy(name)
    for obs, mask, _ in decisions(n=3, seed=2):
        action = policy(obs, mask)
        assert isinstance(action, int) and mask[action]


def test_greedy_knocks_first_then_plays_most_points():
    for obs, mask, suggestions in decisions(seed=5, count=60):
        action = greedy(obs, mask)
        if mask[KNOCK]:
            assert action == KNOCK
        elif suggestions:
            assert action >= FIRST_SUGGESTION
            assert suggestions[action - FIRST_SUGGESTION].points == max(s.points for s in suggestions)
        elif mask[DRAW_AGAIN]:
            assert action == DRAW_AGAIN


# ---------------------------------------------------------------- smart: its rules on set positions


def situation(hand, table="", phase=Phase.DRAWN, n=2, opponent=None, stock=True):
    """(observation, mask, suggestions) of the player to act holding ``hand`` with ``table``
    on the table (cards in text notation); ``opponent`` replaces the next seat's hand."""
    state = new_game(carousel(n), 0)
    hands = list(state.hands)
    hands[state.current] = parse_hand(hand)
    if opponent is not None:
        hands[(state.current + 1) % n] = parse_hand(opponent)
    state = replace(state, hands=tuple(hands), table=parse_table(table), phase=phase)
    if not stock:
        state = replace(state, stock=(), final_turns_left=n if phase is Phase.FINAL_TURN else None)
    mask, suggestions = decision(state, 8)
    return encode(state, state.current, suggestions, layout(8)), mask, suggestions


def smart_choice(hand, table="", policy=None, **kwargs):
    """What ``smart`` does: a fixed action name, or the hand cards of the play it makes."""
    obs, mask, suggestions = situation(hand, table, **kwargs)
    action = (policy or get_policy("smart"))(obs, mask)
    assert mask[action]
    if action >= FIRST_SUGGESTION:
        return hand_str(suggestions[action - FIRST_SUGGESTION].play.added)
    return {DRAW_AGAIN: "draw", KNOCK: "knock", END_TURN: "end"}[action]


def test_smart_goes_out():
    assert smart_choice("8H 9H", "5H 6H 7H") == "8H 9H"


def test_smart_keeps_a_reserve_card_when_the_best_play_would_use_up_its_plays():
    # Playing 8H 9H leaves KS QD 2C, with no play: the next turn would draw until it can
    # play (up to three cards). 8H alone keeps 9H, which still fits the run.
    assert smart_choice("8H 9H KS QD 2C", "5H 6H 7H") == "8H"
    # After a play, ending the turn keeps the reserve.
    assert smart_choice("9H KS QD 2C", "5H 6H 7H 8H", phase=Phase.PLAYED) == "end"


def test_smart_keeps_no_reserve_with_more_players():
    assert smart_choice("8H 9H KS QD 2C", "5H 6H 7H", n=3) == "8H 9H"
    assert smart_choice("9H KS QD 2C", "5H 6H 7H 8H", phase=Phase.PLAYED, n=3) == "9H"
    keeps = get_policy("smart", multi_reserve_limit=20)
    assert smart_choice("8H 9H KS QD 2C", "5H 6H 7H", n=3, policy=keeps) == "8H"


def test_smart_keeps_the_cheapest_reserve():
    # Everything but KS can go, after which KS has no play: the cheapest card to keep back
    # that still fits the table is 9H (keeping 2C 3C 4C would cost 9, keeping 8H 9H 17).
    assert smart_choice("8H 9H 2C 3C 4C KS", "5H 6H 7H") == "2C 3C 4C 8H"


def test_smart_reserve_limit():
    # The only reserve is the KS itself: ending the turn keeps 10 points.
    assert smart_choice("KS 2C 3D 9S", "KC KD KH", phase=Phase.PLAYED) == "end"
    tight = get_policy("smart", reserve_limit=5)
    assert smart_choice("KS 2C 3D 9S", "KC KD KH", phase=Phase.PLAYED, policy=tight) == "KS"


def test_smart_sheds_to_knock_then_knocks():
    # 8H leaves 2C 3D (5 points): no reserve, shed and then knock (heads-up).
    assert smart_choice("8H 2C 3D", "5H 6H 7H") == "8H"
    assert smart_choice("2C 3D", "5H 6H 7H 8H", phase=Phase.PLAYED) == "knock"


def test_smart_keeps_no_reserve_once_the_stock_is_empty():
    kwargs = {"phase": Phase.FINAL_TURN, "stock": False}
    assert smart_choice("9H KS QD 2C", "5H 6H 7H 8H", **kwargs) == "9H"


def test_smart_knock_with_more_players_needs_a_likely_lowest_hand():
    # Hand 5; the next player holds one card (about 0.6 x 6.5 points expected): no knock.
    assert smart_choice("2C 3D", n=3, opponent="4S") == "draw"
    # Against ten-card hands it knocks.
    assert smart_choice("2C 3D", n=3) == "knock"
    # Heads-up it knocks at once.
    assert smart_choice("2C 3D", opponent="4S") == "knock"


@pytest.mark.parametrize(("n", "variant"), [(2, "carousel"), (3, "carousel"), (3, "manipulation_rummy")])
def test_smart_rebuilds_the_envs_suggestions_from_its_observation(n, variant):
    # The solver reads only card counts, so the observation's hand and table (as one
    # pseudo-meld) give back the env's suggestions; the rules follow from the deck size.
    lay = layout(8)
    seen = 0
    for obs, _mask, suggestions in decisions(n=n, seed=11, count=80, variant=variant):
        if not suggestions:
            continue
        table, hand, rules = _position(obs, lay)
        assert rules == by_name(variant, n)
        rebuilt = solve(table, hand, rules, k=8, check_position=False).suggestions  # one pseudo-meld
        assert [s.play.added for s in rebuilt] == [s.play.added for s in suggestions]
        assert [s.hand_after_points for s in rebuilt] == [s.hand_after_points for s in suggestions]
        seen += 1
    assert seen > 5
