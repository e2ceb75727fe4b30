"""Kaluki's vector env against its AEC env, step for step over seeded games (every rules
option the compiled kernel reads, both of its ways to decide), its rows read and written, and
the shared driver's rows: autoreset or not, ``reset_rows``, ``WAIT``, illegal actions,
policies, config."""

from __future__ import annotations

import numpy as np
import pytest

from carousel_env.core.errors import IllegalAction
from carousel_env.envkit.vector import DEALT
from carousel_env.games.kaluki.config import KalukiEnvConfigError
from carousel_env.games.kaluki.env import NUM_FIXED_ACTIONS, apply_moves, raw_env
from carousel_env.games.kaluki.policies import env_action, resolve_policy
from carousel_env.games.kaluki.solver import best_play
from carousel_env.games.kaluki.state import MoveKind
from carousel_env.games.kaluki.vector import WAIT, KalukiVectorEnv
from tests.games.kaluki.positions import position
from tests.support import vector_lockstep
from tests.support.vector_lockstep import check_row, check_step, random_choice

K = 4  # few offer slots: the solver's plays are the step's cost


lockstep = vector_lockstep.envs_lockstep(KalukiVectorEnv, raw_env, k_plays=K)  # over Kaluki's envs


@pytest.mark.parametrize("preset", ["book", "uk40", "rummy"])
@pytest.mark.parametrize("players", [2, 4, 6])
def test_random_hands_agree_with_the_aec_env_at_every_step(preset, players):
    config = {"num_players": players, "preset": preset, "episode": "hand"}
    # Random hands end (out, or the stock spent) within about 300 steps.
    assert lockstep(2, seed=7 * players, steps=320, choose=random_choice(players), **config) > 0


@pytest.mark.parametrize("preset", ["book", "rummy"])
def test_without_autoreset_finished_rows_wait_until_dealt_again(preset):
    choose = random_choice(3)
    config = {"num_players": 3, "preset": preset, "episode": "hand"}
    assert lockstep(2, seed=1, steps=400, choose=choose, autoreset=False, **config) > 1


def simple_choice(i, mask, env):
    """The simple player's move at the AEC env's decision (it goes out, so hands end soon)."""
    return env_action(resolve_policy("simple"), env, None, mask)


@pytest.mark.parametrize(("preset", "short", "steps"), [("book", {"target": 30}, 150), ("uk40", {"limit": 40}, 330)])
def test_whole_matches_agree_with_result_rewards(preset, short, steps):
    # A low target (book: a 3-hand match by step 136) or limit (uk40: seats eliminated over 8 hands) ends it soon.
    config = {"num_players": 3, "preset": preset, "episode": "match", "reward": "result", **short}
    assert lockstep(2, seed=3, steps=steps, choose=simple_choice, **config) > 0


def offer_seeking_choice(seed: int):
    """Half the time the simple player's move, else a random offer where there is one (plays
    are made often, so the table fills with melds, lay-offs and exchanged jokers), else any
    legal action."""
    rng = np.random.default_rng(seed)

    def choose(i, mask, env):
        if rng.random() < 0.5:
            return env_action(resolve_policy("simple"), env, None, mask)
        legal = np.flatnonzero(mask)
        offers = legal[legal >= NUM_FIXED_ACTIONS]
        return int(rng.choice(offers if len(offers) and rng.random() < 0.5 else legal))

    return choose


RULE_OPTIONS = [
    {"preset": "uk51"},
    {"preset": "book", "open_before_lay_off": False, "lay_off_after_own_meld": True},
    {"preset": "book", "retrieved_joker": "reuse_now", "set_joker_release": "either_missing"},
    {"preset": "book", "discard_take": "any", "go_out_by_discard": True, "ace_high_runs": False},
    {"preset": "rummy", "discard_take": "meld", "restocks": 0},
    {"preset": "uk40", "discard_take": "opening", "ace_low_runs": True, "jokers": 4},
]


@pytest.mark.parametrize("options", RULE_OPTIONS, ids=lambda o: "-".join(f"{k}={v}" for k, v in o.items()))
def test_hands_under_every_rules_option_the_kernel_reads_agree(options):
    config = {"num_players": 3, "episode": "hand", **options}
    assert lockstep(2, seed=11, steps=300, choose=offer_seeking_choice(11), **config) > 0


def test_both_ways_to_decide_and_to_make_offers_are_taken_and_agree(monkeypatch):
    # Under reuse_now an exchange's play is checked against the engine's order of moves: the
    # kernel leaves such decisions to Python (and their offers to the engine), and decides and
    # makes the rest itself, but for offers that go out, which the engine makes to end the hand.
    decided_in_python, by_engine = [], []
    python_decision, engine_apply = KalukiVectorEnv._python_decision, KalukiVectorEnv._engine_apply

    def spy_decision(self, g, *args):
        decided_in_python.append(g)
        return python_decision(self, g, *args)

    def spy_engine(self, state, action, suggestions):
        by_engine.append(action >= NUM_FIXED_ACTIONS)
        return engine_apply(self, state, action, suggestions)

    chosen = []
    choose = offer_seeking_choice(5)

    def choose_counting(i, mask, env):
        action = choose(i, mask, env)
        chosen.append(action >= NUM_FIXED_ACTIONS)
        return action

    monkeypatch.setattr(KalukiVectorEnv, "_python_decision", spy_decision)
    monkeypatch.setattr(KalukiVectorEnv, "_engine_apply", spy_engine)
    config = {"num_players": 4, "preset": "uk40", "episode": "hand"}
    assert lockstep(2, seed=5, steps=300, choose=choose_counting, **config) > 0
    assert decided_in_python
    assert 0 < sum(by_engine) < sum(chosen) // 2  # most offers made by the kernel, some by the engine


def test_an_opening_that_exchanges_a_joker_is_made_by_the_kernel_as_the_engine_makes_it():
    # Not opened: KKK and QQQ open (60), 10C wins the table's joker, which 5H 7H then lay. The
    # engine's order is the opening, the exchange, the other meld; the kernel makes it itself.
    hand = "KH KS KD QH QS QD 10C 5H 5S 2D 7H"
    state = position([hand, "3S 4S"], melds=[[], ["8C 9C JK=10C JC"]], opened=(False, True))
    plays = best_play(state, K)
    assert [m.kind for m in plays[0].moves] == [MoveKind.OPEN, MoveKind.EXCHANGE, MoveKind.MELD]
    venv = KalukiVectorEnv(1, num_players=2, k_plays=K, episode="hand")
    venv.reset(seed=0)
    venv._write(0, state)
    venv._step_kernel(np.array([DEALT]))
    assert not venv.arrays.python[0] and venv.arrays.offers_n[0] == len(plays)
    venv._step_kernel(np.array([NUM_FIXED_ACTIONS]))  # the first offer
    after = apply_moves(state, plays[0].moves)
    assert venv.game_state(0) == after and str(after.melds[0][2]) == "5H JK=6H 7H"


def test_a_rows_arrays_hold_its_whole_state():
    env = raw_env(num_players=3, k_plays=K, preset="uk40", episode="match", limit=40)
    venv = KalukiVectorEnv(1, num_players=3, k_plays=K, preset="uk40", episode="match", limit=40)
    venv.reset(seed=0)
    env.reset(seed=8)
    choose, written = offer_seeking_choice(8), 0
    for _ in env.agent_iter(max_iter=400):
        observation, _, termination, truncation, _ = env.last()
        if termination or truncation:
            break
        state = env.unwrapped.game_state
        venv._write(0, state)  # a position with melds, known cards, results and totals
        assert venv.game_state(0) == state
        written += 1
        env.step(choose(0, observation["action_mask"], env))
    assert written > 100 and env.unwrapped.game_state.results


def test_policy_moves_are_the_scripted_players_moves():
    venv = KalukiVectorEnv(3, num_players=3, k_plays=K, episode="hand")
    aecs = [raw_env(num_players=3, k_plays=K, episode="hand") for _ in range(3)]
    step = venv.reset(seed=20)
    for i, env in enumerate(aecs):
        env.reset(seed=20 + i)
    simple = resolve_policy("simple")
    for _ in range(40):
        # Row 2's seats decide elsewhere: it waits.
        moves = venv.policy_moves(step, [0, 1, 2], lambda r, seat: None if r == 2 else simple)
        assert moves[2] == WAIT
        for i in (0, 1):
            assert moves[i] == env_action(simple, aecs[i], step.observation[i], step.action_mask[i])
            aecs[i].step(int(moves[i]))
        step = venv.step(moves)
        for i in (0, 1):
            check_step(step, i, aecs[i])
            if step.terminated[i]:
                aecs[i].reset()
            check_row(step, i, aecs[i])
        check_row(step, 2, aecs[2])


def test_wait_rows_do_not_move():
    venv = KalukiVectorEnv(2, num_players=2, k_plays=K, episode="hand")
    step = venv.reset(seed=4)
    before = venv.game_state(1)
    first = int(np.flatnonzero(step.action_mask[0])[0])
    after = venv.step(np.array([first, WAIT]))
    assert venv.game_state(1) == before
    assert after.rewards[1].tolist() == [0.0, 0.0] and after.info.num_auto_actions[1] == 0
    np.testing.assert_array_equal(after.observation[1], step.observation[1])
    np.testing.assert_array_equal(after.action_mask[1], step.action_mask[1])


def test_an_illegal_action_names_its_row_and_moves_nothing():
    venv = KalukiVectorEnv(2, num_players=2, k_plays=K)
    step = venv.reset(seed=0)
    states = [venv.game_state(g) for g in range(2)]
    illegal = int(np.flatnonzero(step.action_mask[1] == 0)[0])
    legal = int(np.flatnonzero(step.action_mask[0])[0])
    with pytest.raises(IllegalAction, match=f"game 1: action {illegal}"):
        venv.step(np.array([legal, illegal]))
    with pytest.raises(IllegalAction, match="game 0: action 99"):
        venv.step(np.array([99, WAIT]))
    assert [venv.game_state(g) for g in range(2)] == states


def test_reset_rows_before_any_reset_deals_only_those_rows():
    venv = KalukiVectorEnv(3, num_players=4, k_plays=K, preset="rummy")
    step = venv.reset_rows([1], [42])
    env = raw_env(num_players=4, k_plays=K, preset="rummy")
    env.reset(seed=42)
    check_row(step, 1, env)
    assert step.info.seeds[1] == 42
    for g in (0, 2):  # undealt rows wait, over, with empty masks
        assert not step.action_mask[g].any() and step.to_play[g] == 0
    with pytest.raises(IllegalAction, match=r"game 0: .*none \(the episode is over\)"):
        venv.step(np.array([0, WAIT, WAIT]))


def test_compile_ahead_steps_one_env():
    KalukiVectorEnv.compile_ahead(num_players=3, k_plays=K, preset="uk40")


@pytest.mark.parametrize(
    ("key", "config"),
    [
        ("num_players", {"num_players": 7}),
        ("k_plays", {"k_plays": 0}),
        ("preset", {"preset": "nope"}),
        ("episode", {"episode": "round"}),
        ("render_mode", {"render_mode": "ansi"}),
        ("num_envs", {"num_envs": 0}),
        ("autoreset", {"autoreset": "yes"}),
        ("colour", {"colour": "red"}),
    ],
)
def test_a_bad_config_names_the_key(key, config):
    config = {"num_envs": 2, **config}
    with pytest.raises(KalukiEnvConfigError) as raised:
        KalukiVectorEnv(**config)
    assert raised.value.key == key
