"""Manipulation Rummy's forced draws (a player who cannot play draws one card at a time
until able): the engine records them in ``GameState.forced_draws`` and the env reports
each one in ``raw_env.auto_actions`` like every other action it takes for a player."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from carousel_env.core.cards import parse_card, parse_hand
from carousel_env.games.carousel.agents.baselines import greedy
from carousel_env.games.carousel.engine.game import ActionKind, Phase, apply, new_game
from carousel_env.games.carousel.engine.rules import manipulation_rummy
from carousel_env.games.carousel.envs.aec import DRAW_AGAIN, FORCED_DRAW_NAME, raw_env
from carousel_env.games.carousel.solver import can_play, solve

PLAYERS = 3
SEED = 0  # greedy's game from this deal has forced draws at reset and in most steps


def _forced(auto_actions) -> list[tuple[str, int, str]]:
    return [entry for entry in auto_actions if entry[1] == DRAW_AGAIN]


def _table_cards(table) -> Counter:
    return Counter(unit for meld in table for unit in meld)  # Manipulation Rummy has no jokers


def test_every_forced_draw_is_reported_with_the_player_who_drew():
    """For each step of a whole seeded game, the reported draws are exactly the cards that
    left the stock, in order, and each went into the hand of the player named."""
    e = raw_env(num_players=PLAYERS, variant="manipulation_rummy")
    e.reset(seed=SEED)
    rules = e.rules
    state = e.game_state
    reported = _forced(e.auto_actions)
    # The deal leaves deck - 7n cards in the stock; only forced draws took any since.
    assert len(reported) == rules.deck_size - rules.hand_size * PLAYERS - len(state.stock) > 0
    assert reported[0][0] == e.possible_agents[(state.dealer + 1) % PLAYERS]  # the first to play drew first

    checked_steps = drawn_cards = 0
    while not e.terminations[e.agent_selection]:
        before = e.game_state
        obs = e.observe(e.agent_selection)
        e.step(greedy(obs["observation"], obs["action_mask"]))
        after = e.game_state
        auto = e.auto_actions
        assert all(info["num_auto_actions"] == len(auto) for info in e.infos.values())
        reported = _forced(auto)
        # Reported as drawing a card, with the card unnamed: every agent sees the infos.
        assert all(name == FORCED_DRAW_NAME == "DRAW_AGAIN" for _, _, name in reported)
        if after.round_index != before.round_index:
            continue  # the stock of the round that ended is gone
        kept = len(after.stock)
        assert after.stock == before.stock[:kept]  # draws come off the top (the end)
        taken = before.stock[kept:][::-1]  # in the order drawn
        assert len(reported) == len(taken)
        pairs = [(e.possible_agents.index(agent), card) for (agent, _, _), card in zip(reported, taken)]
        # The engine's record holds the step's last transition (the env may take several).
        assert pairs[len(pairs) - len(after.forced_draws) :] == list(after.forced_draws)
        # Each card went to the player named: no hand gained a card it was not reported to
        # draw, and what the hands lost (drawn cards counted in) is what the table gained.
        drawn = [Counter() for _ in range(PLAYERS)]
        for (agent, _, _), card in zip(reported, taken):
            drawn[e.possible_agents.index(agent)][card] += 1
        played = Counter()
        for seat in range(PLAYERS):
            gained = Counter(after.hands[seat]) - Counter(before.hands[seat])
            assert not gained - drawn[seat], f"seat {seat} gained cards it was not reported to draw"
            played += Counter(before.hands[seat]) + drawn[seat] - Counter(after.hands[seat])
        assert played == _table_cards(after.table) - _table_cards(before.table)
        if reported and after.phase is Phase.MUST_PLAY and reported[-1][0] == e.agent_selection:
            tail = [a for a, _, _ in auto[len(auto) - after.draws_this_turn :]]
            assert tail == [e.agent_selection] * after.draws_this_turn
        checked_steps += 1
        drawn_cards += len(taken)
    assert checked_steps > 50 and drawn_cards > 50


def _stock_out_state():
    """Player 0 ends a turn; player 1 cannot play and the last two stock cards do not help."""
    state = new_game(manipulation_rummy(PLAYERS), 5, can_play=can_play)
    hands = (parse_hand("2C 9D"), parse_hand("2C 5D 9H KS 7C 4H JD"), parse_hand("8C 8D 8H 3S"))
    return replace(
        state,
        hands=hands,
        table=(),
        stock=(parse_card("6S"), parse_card("QC")),  # QC on top
        current=0,
        phase=Phase.PLAYED,
        forced_draws=(),
    )


def test_draws_before_a_pass_are_recorded_for_the_player_who_drew():
    """A player who draws the stock out without a play passes within the same transition:
    the record still names them, not the next player, whose turn it then is."""
    state = apply(_stock_out_state(), ActionKind.END_TURN)
    assert state.forced_draws == ((1, parse_card("QC")), (1, parse_card("6S")))
    assert state.current == 2 and state.phase is Phase.MUST_PLAY and state.draws_this_turn == 0
    assert state.final_turns_left == PLAYERS and not state.stock
    assert sorted(state.hands[1]) == sorted(parse_hand("2C 5D 9H KS 7C 4H JD QC 6S"))
    # The next transition keeps its own record only.
    play = solve(state.table, state.hands[2], state.rules).suggestions[0].play
    assert apply(state, play).forced_draws == ()


def test_the_record_is_not_part_of_the_position():
    """Equal positions stay equal and hash alike whatever the record says."""
    state = _stock_out_state()
    recorded = replace(state, forced_draws=((1, 0),))
    assert recorded == state and hash(recorded) == hash(state)
