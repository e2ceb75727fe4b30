"""Gin Rummy's vector env loaded with engine states, and the search guided by a policy: it
plays legal moves, decides from its seat's information only, is reproducible, keeps to its
budget, finds the gin its prior misses, and refuses what it cannot use. The network-backed
player by name (``search@N+CHECKPOINT``) is at the end."""

from __future__ import annotations

import random
from dataclasses import replace

import numpy as np
import pytest

from carousel_env.games.gin_rummy import engine as ge
from carousel_env.games.gin_rummy.env import NUM_FIXED_ACTIONS, GinAction, decision, engine_move
from carousel_env.games.gin_rummy.guided import GinGuidedSearch
from carousel_env.games.gin_rummy.observation import layout
from carousel_env.games.gin_rummy.players import determinize, simple_move
from carousel_env.games.gin_rummy.rules import GinRules
from carousel_env.games.gin_rummy.vector import GinVectorEnv
from tests.games.gin_rummy.test_gin_players import _discarding, _hidden_reshuffled

K = 8
OPENSPIEL = GinRules.from_options("openspiel")
BOOK = GinRules.from_options("book")


def linear_prior(seed: int = 0):
    """A fixed random linear policy over the observation: cheap, and a function of what the
    observation shows only."""
    weights = np.random.default_rng(seed).normal(size=(layout(K).size, NUM_FIXED_ACTIONS + K)).astype(np.float32)
    return lambda observations, masks: observations @ weights


def flat_prior(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """Every action alike: the most likely is the lowest legal one (a discard before a knock)."""
    return np.zeros(masks.shape, np.float32)


def mid_hand(rules: GinRules, seed: int, moves: int) -> ge.GinState:
    """A position ``moves`` of ``simple``'s moves into a hand dealt from ``seed``."""
    state = ge.new_game(rules, seed)
    for _ in range(moves):
        state = ge.apply(state, simple_move(state))
    assert not state.over
    return state


def venv_for(rules: GinRules, num_envs: int = 3) -> GinVectorEnv:
    options = {"preset": "openspiel"} if rules == OPENSPIEL else {"preset": "book", "episode": "hand"}
    return GinVectorEnv(num_envs, autoreset=False, **options)


# ---------------------------------------------------------------- the vector env's load


@pytest.mark.parametrize("rules", [OPENSPIEL, BOOK], ids=["openspiel", "book"])
def test_a_loaded_row_is_the_engine_state_and_plays_on_as_the_engine_does(rules):
    for seed in range(3):
        state = mid_hand(rules, seed, 5 + 4 * seed)
        venv = venv_for(rules)
        venv.reset(seed=100)
        others = [venv.game_state(0), venv.game_state(2)]
        step = venv.load([1], [state])
        assert [venv.game_state(0), venv.game_state(2)] == others
        loaded = venv.game_state(1)
        assert loaded == state  # a state as dealt keeps its whole deck
        assert np.array_equal(step.action_mask[1], decision(state, K)[0])
        rng = np.random.default_rng(seed)
        while True:
            action = int(rng.choice(np.flatnonzero(step.action_mask[1])))
            state = ge.apply(state, engine_move(action, decision(state, K)[1]))
            moves = np.full(3, -1)
            moves[1] = action
            step = venv.step(moves)
            # The env takes single-legal-action decisions itself: follow them in the engine.
            while not state.over and len(np.flatnonzero(decision(state, K)[0])) == 1:
                state = ge.apply(state, engine_move(int(np.flatnonzero(decision(state, K)[0])[0]), ()))
            if step.terminated[1]:
                assert state.over and step.info.hand_points[1].tolist() == list(state.last_hand.points)
                break
            assert venv.game_state(1) == state


def test_a_determinized_state_loads_with_the_stock_it_holds():
    state = mid_hand(OPENSPIEL, 4, 7)
    world = determinize(state, random.Random(0))
    assert world.stock_top == 0 and world.stock_size == state.stock_size
    venv = venv_for(OPENSPIEL, 1)
    step = venv.load([0], [world])
    loaded = venv.game_state(0)
    assert loaded.stock[loaded.stock_top :] == world.stock and loaded.hands == world.hands
    assert np.array_equal(step.action_mask[0], decision(state, K)[0])


def test_load_refuses_bad_rows_and_states_and_moves_no_row():
    state = mid_hand(OPENSPIEL, 1, 6)
    venv = venv_for(OPENSPIEL)
    venv.reset(seed=7)
    before = [venv.game_state(g) for g in range(3)]
    over = state
    while not over.over:
        over = ge.apply(over, simple_move(over))
    missing = replace(state, stock=state.stock[state.stock_top + 1 :], stock_top=0)
    cases = [
        (([1, 1], [state, state]), ValueError, "rows must be distinct"),
        (([3], [state]), ValueError, "3"),
        (([0], ["state"]), TypeError, "must be a GinState"),
        (([0], [replace(state, rules=BOOK)]), ValueError, "rules"),
        (([0], [over]), ValueError, "hand is over"),
        (([0, 2], [state, missing]), ValueError, "row 2: the hands, the pile and the stock"),
    ]
    for (rows, states), error, match in cases:
        with pytest.raises(error, match=match):
            venv.load(rows, states)
        assert [venv.game_state(g) for g in range(3)] == before


# ---------------------------------------------------------------- the guided search


@pytest.mark.parametrize("rules", [OPENSPIEL, BOOK], ids=["openspiel", "book"])
def test_it_plays_legal_moves_to_the_end_of_hands_under_both_presets(rules):
    guided = GinGuidedSearch(linear_prior(1), samples=2, seed=0)
    for seed in range(2):
        state = ge.new_game(rules, seed)
        while not state.over:
            move = guided(state) if state.current == seed % 2 else simple_move(state)
            state = ge.apply(state, move)  # apply refuses an illegal move
    assert guided.decisions > 0 and guided.rollouts >= 2 * guided.decisions


def test_it_decides_the_same_whatever_the_hidden_cards():
    rng = random.Random(3)
    compared = 0
    for seed in range(3):
        state = ge.new_game(OPENSPIEL, seed)
        while not state.over and compared < 3 * (seed + 1):
            if len(np.flatnonzero(decision(state, K)[0])) > 1:
                other = _hidden_reshuffled(state, rng)
                assert other.hands != state.hands or other.stock != state.stock
                first = GinGuidedSearch(linear_prior(2), samples=3, seed=seed)(state)
                assert GinGuidedSearch(linear_prior(2), samples=3, seed=seed)(other) == first
                compared += 1
            state = ge.apply(state, simple_move(state))
    assert compared >= 6


def test_it_finds_the_gin_its_prior_misses_and_otherwise_keeps_the_priors_move():
    # Three melds and a loose king once the JH is drawn: discarding the king is gin.
    state = _discarding("AS 2S 3S 4S 7C 7D 7S 9H 10H KD", "JH")
    guided = GinGuidedSearch(flat_prior, samples=4, seed=0)
    move = guided(state)
    assert move.kind is ge.MoveKind.KNOCK and move.arrangement.deadwood == 0
    # The first knock slot is the gin: worth the gin bonus and the opponent's deadwood on every deal.
    assert guided.last_values[GinAction.FIRST_KNOCK] == max(guided.last_values.values()) > 25
    # With a margin nothing clears, the prior's move (the lowest discard) is played.
    cautious = GinGuidedSearch(flat_prior, samples=4, seed=0, margin=1e9)
    assert cautious(state) == ge.Move(ge.MoveKind.DISCARD, min(ge.legal_discards(state)))


def test_the_same_seed_plays_the_same_and_a_budget_stops_after_one_chunk():
    state = mid_hand(OPENSPIEL, 2, 8)
    legal = len(np.flatnonzero(decision(state, K)[0]))
    moves = {GinGuidedSearch(linear_prior(3), samples=4, seed=9)(state) for _ in range(2)}
    assert len(moves) == 1
    quick = GinGuidedSearch(linear_prior(3), samples=6, chunk=2, max_ms=1e-6, seed=9)
    quick(state)
    assert quick.rollouts == 2 * legal  # the first chunk only


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"samples": 0}, "samples must be an int >= 1"),
        ({"k_knocks": True}, "k_knocks must be an int >= 1"),
        ({"chunk": 0}, "chunk must be an int >= 1 or None"),
        ({"max_ms": -1}, "max_ms must be a number > 0 or None"),
        ({"margin": -0.5}, "margin must be a number >= 0"),
        ({"rollout": "best"}, "rollout must be one of mode, sample"),
    ],
)
def test_bad_options_are_clear_errors(options, match):
    with pytest.raises(ValueError, match=match):
        GinGuidedSearch(flat_prior, **options)


def test_it_refuses_a_bad_prior_and_a_finished_hand():
    with pytest.raises(TypeError, match="prior must be a callable"):
        GinGuidedSearch("simple")
    state = mid_hand(OPENSPIEL, 0, 4)
    bad = GinGuidedSearch(lambda observations, masks: np.zeros((len(masks), 3)), samples=1, seed=0)
    with pytest.raises(ValueError, match="logits of shape"):
        bad(state)
    over = state
    while not over.over:
        over = ge.apply(over, simple_move(over))
    with pytest.raises(ValueError, match="the hand is over"):
        GinGuidedSearch(flat_prior)(over)


# ---------------------------------------------------------------- by name, with a Gin network


@pytest.fixture(scope="module")
def gin_network(tmp_path_factory):
    from training.imitation import imitate

    path = tmp_path_factory.mktemp("gin") / "gin_net"
    imitate("simple", path, {"game": "gin_rummy", "variant": "openspiel"}, decisions=300, epochs=1)
    return str(path)


@pytest.mark.training
def test_a_guided_name_is_a_gin_player_of_its_checkpoint(gin_network):
    from carousel_env.games.gin_rummy.policies import ScriptedPolicy
    from training.checkpoint_names import CheckpointError
    from training.games import is_player_name, player_names, training_game, unknown_player
    from training.policies import scripted_player

    game = training_game("gin_rummy")
    assert is_player_name(game, f"search@4+{gin_network}") and is_player_name(game, f"search+{gin_network}")
    assert not is_player_name(game, f"search@0+{gin_network}") and not is_player_name(game, "search@2+nowhere/x.pt")
    assert "search@N+CHECKPOINT" in player_names(game)
    error = unknown_player(game, "search@2+nowhere/x.pt")
    assert isinstance(error, CheckpointError) and "no checkpoint at 'nowhere/x.pt'" in str(error)
    policy = scripted_player("gin_rummy", f"search@3+{gin_network}", 7)
    assert isinstance(policy, ScriptedPolicy) and isinstance(policy.player, GinGuidedSearch)
    assert policy.player.samples == 3 and policy.player.seed == 7 and policy.player.k == K
    with pytest.raises(CheckpointError, match="plays carousel, not gin_rummy"):
        scripted_player("gin_rummy", "search@2+checkpoints/ppo_2p", 0)


@pytest.mark.integration
@pytest.mark.training
def test_evaluation_and_openspiels_runner_seat_a_guided_gin_player(gin_network):
    from training.envs import EnvSpec
    from training.evaluate import evaluate

    name = f"search@1+{gin_network}"
    result = evaluate(name, ["simple"], games=2, seed=0, env_spec=EnvSpec.of(2, game="gin_rummy", preset="openspiel"))
    assert result.games == 2 and result.candidate == name
    pytest.importorskip("pyspiel")
    from carousel_env.integrations.openspiel_gin import parse_opponent, play_openspiel
    from training.policies import guided_search_player

    played = play_openspiel(guided_search_player(name, 0, "gin_rummy"), parse_opponent("openspiel:simple"), 1, seed=0)
    assert len(played.hands) == 2 and played.agent == name
