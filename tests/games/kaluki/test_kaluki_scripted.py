"""Kaluki's scripted players at compiled speed: ``simple`` and ``wary`` read from the
observation (``priors.ScriptedPrior``) and played inside the vector kernel
(``KalukiVectorEnv.play_scripted``), the same moves and games as the engine's players; a
position loaded into a row (``KalukiVectorEnv.load``); and ``search``'s playouts there, the
engine's hand for hand."""

from __future__ import annotations

import random

import numpy as np
import pytest

from carousel_env.core.errors import IllegalAction
from carousel_env.games.kaluki.config import KalukiEnvConfig
from carousel_env.games.kaluki.deal import new_game
from carousel_env.games.kaluki.env import apply_moves, decision, engine_moves, hand_rewards
from carousel_env.games.kaluki.observation import encode, layout
from carousel_env.games.kaluki.players import (
    PlayoutEnvs,
    determinize,
    get_player,
    play_hand_or_game,
    playout_value,
    playout_values,
    random_player,
    simple_action,
    wary_action,
)
from carousel_env.games.kaluki.priors import ScriptedPrior
from carousel_env.games.kaluki.rules import PRESETS
from carousel_env.games.kaluki.vector import KalukiVectorEnv
from tests.games.kaluki.positions import position

K = 4


def mid_hand(preset: str, players: int, seed: int, steps: int):
    """A hand of ``preset`` played by ``simple`` for up to ``steps`` moves, at a decision with a
    choice (where a loaded row waits)."""
    state = new_game(PRESETS[preset], players, seed)
    while True:
        mask, offers = decision(state, K)
        legal = np.flatnonzero(mask)
        if len(legal) > 1 and steps <= 0:
            return state
        action = int(legal[0]) if len(legal) == 1 else simple_action(state, offers)
        after = apply_moves(state, engine_moves(state, action, offers))
        if after.over:
            raise AssertionError(f"the hand of seed {seed} ended before {steps} more moves")
        state, steps = after, steps - 1


@pytest.mark.parametrize("preset", ["book", "uk40", "rummy"])
@pytest.mark.parametrize("players", [2, 5])
def test_the_prior_reads_simples_and_warys_moves_from_the_observation(preset, players):
    priors = {name: ScriptedPrior(name, PRESETS[preset], K) for name in ("simple", "wary")}
    chooser, seen = random_player(players), set()
    for seed in range(2):
        state, rng = new_game(PRESETS[preset], players, seed), random.Random(seed)
        while not state.over:
            mask, offers = decision(state, K)
            legal = np.flatnonzero(mask)
            if len(legal) > 1:
                observation = encode(state, state.current, offers, layout(K))[None]
                for name, player in (("simple", simple_action), ("wary", wary_action)):
                    action = int(priors[name].actions(observation, mask[None])[0])
                    assert action == player(state, offers), (name, state)
                    seen.add(action)
                logits = priors["simple"](observation, mask[None])
                assert logits.shape == (1, len(mask)) and logits[0].argmax() == simple_action(state, offers)
            # Random moves now and then: positions simple alone would not reach.
            action = chooser(state, offers) if rng.random() < 0.3 else simple_action(state, offers)
            state = apply_moves(state, engine_moves(state, int(legal[0]) if len(legal) == 1 else action, offers))
    assert len(seen) > 10  # draws, takes, offers and many discards


def test_a_prior_is_simple_or_wary():
    with pytest.raises(ValueError, match="one of simple, wary"):
        ScriptedPrior("search", PRESETS["book"], K)


GAMES = [("book", 2, "simple"), ("uk40", 3, "wary"), ("rummy", 6, "simple"), ("book", 4, "wary")]


@pytest.mark.parametrize(("preset", "players", "name"), GAMES)
def test_play_scripted_plays_the_engines_games(preset, players, name):
    config = KalukiEnvConfig.from_kwargs(num_players=players, preset=preset, episode="hand", k_plays=K)
    venv = KalukiVectorEnv(3, autoreset=False, num_players=players, preset=preset, episode="hand", k_plays=K)
    venv.reset(seed=50)
    earned = venv.play_scripted(name)
    for g in range(3):
        dealt = new_game(config.rules, players, 50 + g)
        end = play_hand_or_game([get_player(name)] * players, dealt, k=K, hand_only=True)
        assert venv.game_state(g) == end
        assert earned[g].tolist() == pytest.approx(hand_rewards(config, end.last_hand, end))
    assert not venv.step(np.full(3, -1)).action_mask.any()  # every row waits at its episode's end


def test_play_scripted_moves_only_its_rows_and_refuses_what_it_cannot_do():
    venv = KalukiVectorEnv(3, autoreset=False, num_players=2, episode="hand", k_plays=K)
    with pytest.raises(IllegalAction, match="before play_scripted"):
        venv.play_scripted("simple")
    venv.reset(seed=3)
    others = [venv.game_state(0), venv.game_state(2)]
    venv.play_scripted("wary", rows=[1])
    assert venv.game_state(1).over and [venv.game_state(0), venv.game_state(2)] == others
    with pytest.raises(ValueError, match="one of simple, wary"):
        venv.play_scripted("random")
    with pytest.raises(ValueError, match="3"):
        venv.play_scripted("simple", rows=[3])
    with pytest.raises(ValueError, match="must not autoreset"):
        KalukiVectorEnv(1, num_players=2, k_plays=K).play_scripted("simple")
    assert [venv.game_state(0), venv.game_state(2)] == others


@pytest.mark.parametrize(("preset", "players"), [("book", 2), ("uk51", 4), ("rummy", 3)])
def test_a_loaded_row_is_the_engine_state_with_its_decision(preset, players):
    venv = KalukiVectorEnv(3, autoreset=False, num_players=players, preset=preset, episode="hand", k_plays=K)
    venv.reset(seed=100)
    for seed in range(3):
        state = mid_hand(preset, players, seed, 6 + 9 * seed)
        others = [venv.game_state(0), venv.game_state(2)]
        step = venv.load([1], [state])
        assert venv.game_state(1) == state and [venv.game_state(0), venv.game_state(2)] == others
        mask, offers = decision(state, K)
        assert np.array_equal(step.action_mask[1], mask)
        assert np.array_equal(step.observation[1], encode(state, state.current, offers, layout(K)))


def test_load_refuses_bad_rows_and_states_and_moves_no_row():
    venv = KalukiVectorEnv(3, autoreset=False, num_players=2, episode="hand", k_plays=K)
    venv.reset(seed=7)
    before = [venv.game_state(g) for g in range(3)]
    state = mid_hand("book", 2, 1, 8)
    over = play_hand_or_game([simple_action] * 2, state, k=K, hand_only=True)
    cases = [
        (([1, 1], [state, state]), ValueError, "rows must be distinct"),
        (([3], [state]), ValueError, "3"),
        (([0], ["state"]), TypeError, "must be a KalukiState"),
        (([0], [mid_hand("uk40", 2, 1, 8)]), ValueError, "rules"),
        (([0], [mid_hand("book", 3, 1, 8)]), ValueError, "3 players"),
        (([0], [over]), ValueError, "hand is over"),
        (([0, 2], [state, position(["KD QH QH QH", "2C 4D"])]), ValueError, "row 2: .* beyond the pack's: QH"),
    ]
    for (rows, states), error, match in cases:
        with pytest.raises(error, match=match):
            venv.load(rows, states)
        assert [venv.game_state(g) for g in range(3)] == before


@pytest.mark.parametrize(("preset", "players"), [("book", 2), ("uk40", 4), ("rummy", 6)])
def test_searchs_playouts_in_the_vector_env_are_the_engines(preset, players):
    envs, rng = PlayoutEnvs(), random.Random(players)
    for seed in range(2):
        state = mid_hand(preset, players, seed, 3 + 11 * seed)
        worlds = [determinize(state, rng) for _ in range(6)]
        # A position whose hand is over is scored where it stands.
        worlds.append(play_hand_or_game([simple_action] * players, worlds[0], k=K, hand_only=True))
        values = playout_values(worlds, state.current, envs)
        assert values == pytest.approx([playout_value(w, state.current) for w in worlds])
