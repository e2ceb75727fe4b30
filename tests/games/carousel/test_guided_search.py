"""The vector env loaded with engine states, and the search player guided by a policy: it
decides from its seat's view only, is reproducible, keeps to its budget, plays every table
size and both variants, and refuses what it cannot use. The network-backed player by name
(``search@N+CHECKPOINT``) is at the end."""

from __future__ import annotations

import random

import numpy as np
import pytest

from carousel_env.games.carousel.agents.match import engine_player, play_match
from carousel_env.games.carousel.agents.search import rollout_action
from carousel_env.games.carousel.engine.game import Phase, apply
from carousel_env.games.carousel.engine.information import determinize, seat_view
from carousel_env.games.carousel.engine.rules import carousel, manipulation_rummy
from carousel_env.games.carousel.envs.aec import FIRST_SUGGESTION, decision, engine_move
from carousel_env.games.carousel.envs.observation import encode, layout
from carousel_env.games.carousel.vector import CarouselVectorEnv
from carousel_env.games.carousel.vector import guided as guided_module
from carousel_env.games.carousel.vector.guided import GuidedSearchPlayer
from tests.games.carousel.test_search import decision_state, one_run_from_out, other_world, reached_state

K = 8
LAYOUT = layout(K)


def linear_prior(seed: int = 0):
    """A fixed random linear policy over the observation: cheap, and a function of what the
    observation shows only."""
    weights = np.random.default_rng(seed).normal(size=(LAYOUT.size, FIRST_SUGGESTION + K)).astype(np.float32)

    def logits(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return observations @ weights

    return logits


def venv_for(rules, num_envs: int = 2) -> CarouselVectorEnv:
    return CarouselVectorEnv(
        num_envs, autoreset=False, num_players=rules.num_players, variant=rules.variant.value, episode="round"
    )


# ---------------------------------------------------------------- the vector env's load


@pytest.mark.parametrize(
    "rules", [carousel(2), carousel(4), manipulation_rummy(3)], ids=lambda r: f"{r.variant.value}-{r.num_players}p"
)
def test_a_loaded_row_is_the_engine_state_and_plays_on_as_the_engine_does(rules):
    venv = venv_for(rules)
    for seed in range(3):
        state = decision_state(rules, seed)
        step = venv.load([1], [state])
        mask, suggestions = decision(state, K)
        assert int(step.to_play[1]) == state.current
        assert np.array_equal(step.action_mask[1], mask)
        assert np.array_equal(step.observation[1], encode(state, state.current, suggestions, LAYOUT))
        assert venv.game_state(1) == state
        # Step both the engine and the row to the round's end with the same legal actions.
        rng = random.Random(seed)
        while True:
            action = rng.choice(np.flatnonzero(mask).tolist())
            state = apply(state, engine_move(action, suggestions))
            step = venv.step([-1, action])
            while state.phase not in (Phase.ROUND_OVER, Phase.GAME_OVER):
                mask, suggestions = decision(state, K)
                if mask.sum() > 1:
                    break
                state = apply(state, engine_move(int(np.flatnonzero(mask)[0]), suggestions))
            if state.phase in (Phase.ROUND_OVER, Phase.GAME_OVER):
                assert step.terminated[1] and step.info.finished[0].rounds == state.round_scores
                break
            assert not step.terminated[1]
            assert np.array_equal(step.action_mask[1], mask)
            assert np.array_equal(step.observation[1], encode(state, state.current, suggestions, LAYOUT))


def test_load_refuses_bad_rows_and_states_and_moves_no_row():
    rules = carousel(2)
    venv = venv_for(rules)
    state = decision_state(rules, 1)
    before = venv.load([0, 1], [state, state])
    over = reached_state(rules, 0, 0)
    while over.phase not in (Phase.ROUND_OVER, Phase.GAME_OVER):
        over = apply(over, rollout_action(over))
    cases = [
        (([2], [state]), ValueError, "row"),
        (([0, 0], [state, state]), ValueError, "distinct"),
        (([0], [state, state]), ValueError, "one state each"),
        (([0], ["state"]), TypeError, "GameState"),
        (([0], [decision_state(carousel(3), 1)]), ValueError, "rules"),
        (([1], [over]), ValueError, "round is over"),
    ]
    for (rows, states), error, match in cases:
        with pytest.raises(error, match=match):
            venv.load(rows, states)
    assert venv.game_state(0) == state and venv.game_state(1) == state
    assert np.array_equal(venv.arrays.mask, before.action_mask)


def test_rows_never_loaded_wait_until_dealt():
    venv = venv_for(carousel(2), num_envs=3)
    step = venv.load([1], [decision_state(carousel(2), 0)])
    assert step.action_mask[0].sum() == 0 and step.action_mask[2].sum() == 0 and step.action_mask[1].sum() > 1


# ---------------------------------------------------------------- the guided player


@pytest.mark.parametrize(
    "rules", [carousel(2), carousel(4), manipulation_rummy(3)], ids=lambda r: f"{r.variant.value}-{r.num_players}p"
)
def test_it_decides_the_same_whatever_the_hidden_cards(rules):
    for seed in range(2):
        state = decision_state(rules, seed)
        world = other_world(state, state.current)
        for kept in (False, True):
            a = GuidedSearchPlayer(linear_prior(), samples=3, seed=11, kept=kept)
            b = GuidedSearchPlayer(linear_prior(), samples=3, seed=11, kept=kept)
            assert engine_player(a)(state) == engine_player(b)(world)
            assert a.last_values == b.last_values


def test_its_rollouts_play_the_determinized_games_out_with_the_prior():
    """Each candidate's value is the mean over the determinizations of the round played out
    by the prior's most likely actions: the engine, driven by hand, agrees."""
    state = decision_state(carousel(2), 2)
    mask, suggestions = decision(state, K)
    view = seat_view(state, state.current)
    prior = linear_prior(3)
    player = GuidedSearchPlayer(prior, samples=2, seed=4)
    player.decide(view, mask)
    rng = random.Random(4)
    rng.getrandbits(63)  # the rollouts' own stream, drawn first
    worlds = [determinize(view, rng) for _ in range(2)]
    for action, value in player.last_values.items():
        total = 0.0
        for world in worlds:
            s = apply(world, engine_move(action, suggestions))
            while s.phase not in (Phase.ROUND_OVER, Phase.GAME_OVER):
                m, sugg = decision(s, K)
                logits = prior(encode(s, s.current, sugg, LAYOUT)[None], m[None])[0]
                s = apply(s, engine_move(int(np.where(m != 0, logits, -np.inf).argmax()), sugg))
            points = s.round_scores[-1].points
            total += points[view.seat] - points[1 - view.seat]
        assert value == pytest.approx(total / 2)


def test_the_same_seed_plays_the_same():
    state = decision_state(carousel(2), 2)
    mask, _ = decision(state, K)
    view = seat_view(state, state.current)
    for rollout in ("mode", "sample"):
        first = GuidedSearchPlayer(linear_prior(), samples=3, rollout=rollout, seed=5)
        again = GuidedSearchPlayer(linear_prior(), samples=3, rollout=rollout, seed=5)
        assert [first.decide(view, mask) for _ in range(3)] == [again.decide(view, mask) for _ in range(3)]
        assert first.last_values == again.last_values


def test_it_keeps_to_its_sample_budget():
    state = decision_state(carousel(3), 1)
    mask, _ = decision(state, K)
    legal = int(mask.sum())
    view = seat_view(state, state.current)
    player = GuidedSearchPlayer(linear_prior(), samples=5, chunk=2, seed=0)
    player.decide(view, mask)
    assert player.rollouts == 5 * legal and player.decisions == 1
    assert set(player.last_values) == set(np.flatnonzero(mask).tolist())
    # A time budget stops adding chunks once spent (the first chunk always plays).
    hurried = GuidedSearchPlayer(linear_prior(), samples=50, chunk=2, max_ms=1e-6, seed=0)
    hurried.decide(view, mask)
    assert hurried.rollouts == 2 * legal
    # A single legal action is taken without search.
    only = np.zeros_like(mask)
    only[int(np.flatnonzero(mask)[-1])] = 1
    assert player.decide(view, only) == int(np.flatnonzero(mask)[-1]) and player.decisions == 1


def test_it_goes_out_when_it_can():
    state = one_run_from_out()
    mask, suggestions = decision(state, K)
    action = GuidedSearchPlayer(linear_prior(), samples=2, seed=0).decide(seat_view(state, 0), mask)
    assert action >= FIRST_SUGGESTION and suggestions[action - FIRST_SUGGESTION].hand_after == ()


def test_a_margin_keeps_the_priors_move_unless_a_gain_is_clear():
    state = one_run_from_out()
    mask, suggestions = decision(state, K)
    view = seat_view(state, 0)

    def prior(observations, masks):  # every action alike: its most likely is the lowest legal one
        return np.zeros(masks.shape, np.float32)

    own = int(np.flatnonzero(mask)[0])
    best = GuidedSearchPlayer(prior, samples=3, seed=0).decide(view, mask)
    assert best != own and suggestions[best - FIRST_SUGGESTION].hand_after == ()  # it goes out
    # Going out wins the round on every determinization: a clear gain at any reasonable margin.
    assert GuidedSearchPlayer(prior, samples=3, seed=0, margin=2.0).decide(view, mask) == best
    # A margin nothing clears leaves the prior's own move.
    assert GuidedSearchPlayer(prior, samples=3, seed=0, margin=1e9).decide(view, mask) == own


@pytest.mark.parametrize(
    ("players", "variant"), [(2, "carousel"), (3, "carousel"), (5, "carousel"), (4, "manipulation_rummy")]
)
def test_it_plays_every_table_size_and_both_variants(players, variant):
    player = GuidedSearchPlayer(linear_prior(), samples=1, seed=players)
    match = play_match([player] + ["smart"] * (players - 1), games=1, seed=players, variant=variant, episode="round")
    assert len(match.games) == 1 and len(match.games[0].rounds) == 1
    assert player.decisions > 0 and player.rollouts >= 2 * player.decisions and player.rollout_steps > 0


def test_a_value_leaf_stops_each_rollout_at_the_seats_next_decision():
    state = decision_state(carousel(2), 2)
    mask, _ = decision(state, K)
    view = seat_view(state, state.current)
    seen: list[np.ndarray] = []

    def value(observations: np.ndarray) -> np.ndarray:
        seen.append(observations)
        return np.full(len(observations), 0.25)

    played_out = GuidedSearchPlayer(linear_prior(), samples=3, seed=2)
    valued = GuidedSearchPlayer(linear_prior(), samples=3, seed=2, value=value, leaf="value")
    played_out.decide(view, mask)
    valued.decide(view, mask)
    assert seen and valued.rollouts == played_out.rollouts
    assert valued.rollout_steps < played_out.rollout_steps
    # A leaf is worth its value in points (reward scale 0.01): 25 where no round ended first.
    assert any(v == pytest.approx(25.0) for v in valued.last_values.values())


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"leaf": "end"}, "leaf"),
        ({"leaf": "value"}, "value callable"),
        ({"samples": 0}, "samples"),
        ({"samples": 2.5}, "samples"),
        ({"max_ms": -1}, "max_ms"),
        ({"chunk": 0}, "chunk"),
        ({"chunk": True}, "chunk"),
        ({"rollout": "best"}, "rollout"),
        ({"kept": 1}, "kept must be True or False"),
        ({"margin": -1}, "margin must be None or a number >= 0"),
    ],
)
def test_bad_options_are_clear_errors(options, match):
    with pytest.raises(ValueError, match=match):
        GuidedSearchPlayer(linear_prior(), **options)


def test_it_refuses_a_bad_prior_an_observation_or_another_seats_turn():
    with pytest.raises(TypeError, match="prior"):
        GuidedSearchPlayer("ppo_2p")
    state = decision_state(carousel(2), 0)
    mask, _ = decision(state, K)
    view = seat_view(state, state.current)
    player = GuidedSearchPlayer(linear_prior(), samples=1, seed=0)
    with pytest.raises(TypeError, match="view"):
        player(np.zeros(10, np.float32), mask)
    with pytest.raises(ValueError, match="not the one to act"):
        player.decide(seat_view(state, 1 - state.current), mask)
    with pytest.raises(ValueError, match="action mask"):
        player.decide(view, np.ones_like(mask))
    flat = GuidedSearchPlayer(lambda obs, masks: np.zeros((len(obs), 3)), samples=1, seed=0)
    with pytest.raises(ValueError, match="logits of shape"):
        flat.decide(view, mask)
    assert guided_module.MAX_ROLLOUT_STEPS > 1000


# ---------------------------------------------------------------- by name, with a shipped network

SHIPPED = "checkpoints/ppo_2p"


def test_a_guided_name_is_a_player_of_its_checkpoint_not_a_checkpoint():
    from training.checkpoint_names import CheckpointError, is_checkpoint_name, split_guided
    from training.games import is_player_name, player_names, training_game, unknown_player
    from training.policies import scripted_player

    game = training_game("carousel")
    assert split_guided(f"search@4+{SHIPPED}") == ("search@4", SHIPPED)
    assert split_guided("search") is None and split_guided("smart+x") is None and split_guided("search@4+") is None
    assert not is_checkpoint_name(f"search@4+{SHIPPED}") and is_checkpoint_name(SHIPPED)
    assert is_player_name(game, f"search@4+{SHIPPED}") and is_player_name(game, f"search+{SHIPPED}")
    assert not is_player_name(game, f"search@0+{SHIPPED}") and not is_player_name(game, "search@2+nowhere/x.pt")
    assert "search@N+CHECKPOINT" in player_names(game)
    error = unknown_player(game, "search@2+nowhere/x.pt")
    assert isinstance(error, CheckpointError) and "no checkpoint at 'nowhere/x.pt'" in str(error)
    player = scripted_player("carousel", f"search@3+{SHIPPED}", 7)
    assert isinstance(player, GuidedSearchPlayer) and player.samples == 3 and player.seed == 7
    assert f"search@3+{SHIPPED}" in repr(player)


def test_the_network_prior_names_a_checkpoint_trained_on_other_observations(tmp_path):
    from training.checkpoint_names import CheckpointError
    from training.policies import guided_search_player, network_prior

    prior = network_prior(SHIPPED)
    state = decision_state(carousel(2), 0)
    mask, suggestions = decision(state, K)
    logits = prior(encode(state, state.current, suggestions, LAYOUT)[None], mask[None])
    assert logits.shape == (1, len(mask))
    with pytest.raises(CheckpointError, match="observations of"):
        prior(np.zeros((1, layout(4).size), np.float32), np.ones((1, FIRST_SUGGESTION + 4), np.int8))
    with pytest.raises(CheckpointError, match="no checkpoint"):
        guided_search_player(f"search@2+{tmp_path / 'none.pt'}")
    with pytest.raises(ValueError, match="guided"):
        guided_search_player("search@2")


def test_evaluation_seats_a_guided_player_by_name():
    from training.evaluate import evaluate

    result = evaluate(f"search@1+{SHIPPED}", ["greedy"], games=2, seed=0)
    assert result.games == 2 and result.candidate == f"search@1+{SHIPPED}"
