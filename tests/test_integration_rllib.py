"""RLlib (new API stack) against the real library: the env adapter, the masked module, one
training iteration on a local Ray instance, and the export into our checkpoint format.

The two-node cluster test is in ``test_integration_rllib_cluster.py``, the command line's
train and resume in ``test_cli_rllib.py``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import ClassVar

import numpy as np
import pytest

ray = pytest.importorskip("ray")
torch = pytest.importorskip("torch")

from ray.rllib.core.columns import Columns  # noqa: E402
from ray.rllib.env.multi_agent_env_runner import MultiAgentEnvRunner  # noqa: E402
from ray.rllib.utils.pre_checks.env import check_multiagent_environments  # noqa: E402

from carousel_env.games.carousel.agents.match import play_match  # noqa: E402
from carousel_env.integrations.rllib import MASK_KEY, OBS_KEY, CarouselMultiAgentEnv, register  # noqa: E402
from training import checkpoint  # noqa: E402
from training.config import ConfigError, format_config  # noqa: E402
from training.envs import EnvSpec, shape_for  # noqa: E402
from training.games import training_game  # noqa: E402
from training.network import Agent  # noqa: E402
from training.policies import load_network_policy, load_policy  # noqa: E402
from training.rllib.config import from_dict, load_config  # noqa: E402
from training.rllib.module import agent_from_state, export_checkpoint, module_spec, module_state  # noqa: E402
from training.rllib.train import RESTARTS_NOTE, algorithm_config, load_run_config, restore_run, train  # noqa: E402

pytestmark = pytest.mark.integration  # RLlib and Ray

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = ROOT / "checkpoints" / "ppo_2p"
TINY = {"hidden_size": 16, "slot_hidden_size": 8, "pool_size": 2, "eval_games": 0, "num_envs_per_env_runner": 1}
# A warning- or error-level line of Python's logging (Ray's format: "... WARNING file.py:N --"),
# of Ray's C++ core ("[date time E pid tid] file.cc:N: ..."), or of PettingZoo ("[WARNING]: ...").
ALARM = re.compile(r"\b(WARNING|ERROR|CRITICAL)\b|DeprecationWarning|^\[[^]]* [EWF] \d+ \d+\]", re.MULTILINE)


def true_returns(env: CarouselMultiAgentEnv) -> list[float]:
    """Each seat's return over the game just ended, from the engine's final totals (the
    env's round_score reward over whole games: scale * (own total - mean of the others'))."""
    totals = env.env.unwrapped.game_state.game_result.totals
    n = len(totals)
    return [0.01 * (t - (sum(totals) - t) / (n - 1)) for t in totals]


def test_adapter_spaces_keys_and_rllib_env_check():
    env = CarouselMultiAgentEnv({"num_players": 3, "k_suggestions": 5})
    assert env.possible_agents == ["player_0", "player_1", "player_2"]
    for agent in env.possible_agents:
        space = env.observation_spaces[agent]
        assert set(space.spaces) == {OBS_KEY, MASK_KEY}
        assert space[MASK_KEY].shape == (8,) and env.action_spaces[agent].n == 8
        assert space[OBS_KEY].shape == (env.observation_layout.size,)
    obs, infos = env.reset(seed=3)
    ((agent, first),) = obs.items()
    assert env.observation_spaces[agent].contains(first) and agent in infos
    check_multiagent_environments(CarouselMultiAgentEnv({"num_players": 2}))  # RLlib's own checker
    assert register() == "carousel"


def test_adapter_rewards_sum_to_true_returns_over_whole_games():
    # Random legal play, 3 players, whole games: rounds end on one seat's move, yet every
    # seat's reported rewards add up to its true return.
    env = CarouselMultiAgentEnv({"num_players": 3, "episode": "game"})
    rng = np.random.default_rng(0)
    for game in range(3):
        obs, _ = env.reset(seed=game)
        got = dict.fromkeys(env.possible_agents, 0.0)
        while True:
            ((agent, o),) = obs.items()
            obs, rewards, terminateds, truncateds, _ = env.step({agent: int(rng.choice(np.flatnonzero(o[MASK_KEY])))})
            for a, r in rewards.items():
                got[a] += r
            if terminateds["__all__"]:
                break
            assert len(obs) == 1 and not truncateds["__all__"]
        assert sorted(obs) == env.possible_agents  # every seat sees the end
        assert list(got.values()) == pytest.approx(true_returns(env), abs=1e-9)


def _play(env: CarouselMultiAgentEnv, seed: int):
    """One random game through the adapter: each seat's rewards, one an action, and its observations."""
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    seen = {a: [] for a in env.possible_agents}
    got = {a: [] for a in env.possible_agents}
    for a, o in obs.items():
        seen[a].append(o[OBS_KEY])
    while True:
        ((agent, o),) = obs.items()
        obs, rewards, terminateds, _, _ = env.step({agent: int(rng.choice(np.flatnonzero(o[MASK_KEY])))})
        for a, r in rewards.items():
            if seen[a]:  # a reward for the seat's previous action (none comes with its first observation)
                got[a].append(r)
            seen[a].append(obs[a][OBS_KEY])
        if terminateds["__all__"]:
            return got, seen


def test_adapter_shaping_is_potential_based():
    """Gin's shaping through the adapter: each seat's discounted shaped rewards are its own less
    ``coef * phi`` of its first observation, game after game; a game with no progress refuses it."""
    from carousel_env.envkit.family import family_game

    progress = family_game("gin_rummy").progress
    plain = CarouselMultiAgentEnv({"game": "gin_rummy", "episode": "hand"})
    shaped = CarouselMultiAgentEnv({"game": "gin_rummy", "episode": "hand", "shaping_coef": 2.0, "shaping_gamma": 0.9})
    for seed in range(3):
        (bare, _), (extra, seen) = _play(plain, seed), _play(shaped, seed)
        for agent, rewards in extra.items():
            discounts = 0.9 ** np.arange(len(rewards))
            change = discounts @ (np.array(rewards) - np.array(bare[agent]))
            assert change == pytest.approx(-2.0 * progress(seen[agent][0][None])[0], abs=1e-9)
    with pytest.raises(ValueError, match="shaping_coef: carousel declares no measure of progress"):
        CarouselMultiAgentEnv({"shaping_coef": 1.0})


class RecordingEnv(CarouselMultiAgentEnv):
    """The adapter, also noting each finished game's true returns (in this process)."""

    games: ClassVar[list[list[float]]] = []

    def step(self, action_dict):
        result = super().step(action_dict)
        if result[2]["__all__"]:
            RecordingEnv.games.append(true_returns(self))
        return result


def test_rllib_env_runner_credits_every_seat_and_never_acts_illegally():
    # RLlib's own MultiAgentEnvRunner (in this process) plays whole 3-player games with the
    # masked module at every seat; the returns it records per seat are the true returns.
    RecordingEnv.games = []
    config = from_dict({**TINY, "num_env_runners": 0, "num_players": 3, "episode": "game"})
    rllib_config = algorithm_config(config).environment(RecordingEnv)
    runner = MultiAgentEnvRunner(config=rllib_config)
    try:
        episodes = runner.sample(num_episodes=2)
    finally:
        runner.stop()
    assert len(episodes) == 2 and all(ep.is_done for ep in episodes)
    recorded = []
    for ep in episodes:
        recorded.append([ep.agent_episodes[f"player_{i}"].get_return() for i in range(3)])
        assert {ep.module_for(a) for a in ep.agent_episodes} <= {"main", "pool_0", "pool_1"}
        assert "main" in {ep.module_for(a) for a in ep.agent_episodes}
        for agent_episode in ep.agent_episodes.values():
            masks = agent_episode.get_observations()[MASK_KEY]
            actions = np.asarray(agent_episode.get_actions())
            assert masks[np.arange(len(actions)), actions].all()
    assert sorted(np.round(recorded, 9).tolist()) == sorted(np.round(RecordingEnv.games, 9).tolist())


def _observations(count: int = 40, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    env = CarouselMultiAgentEnv({"num_players": 2, "episode": "game"})
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    vectors, masks = [], []
    while len(vectors) < count:
        ((agent, o),) = obs.items()
        vectors.append(o[OBS_KEY])
        masks.append(o[MASK_KEY])
        obs, _, terminateds, _, _ = env.step({agent: int(rng.choice(np.flatnonzero(o[MASK_KEY])))})
        if terminateds["__all__"]:
            obs, _ = env.reset()
    return np.stack(vectors), np.stack(masks)


def test_module_is_our_network_masked_and_maps_one_to_one_onto_checkpoints(tmp_path):
    env = CarouselMultiAgentEnv({"num_players": 2})
    space, action_space = env.observation_spaces["player_0"], env.action_spaces["player_0"]
    spec = module_spec()  # RLlib fills the spaces in from the env; here by hand
    spec.observation_space, spec.action_space = space, action_space
    module = spec.build()
    # The shipped agent's weights load into the module and give the same masked logits.
    shipped = checkpoint.build_agent(checkpoint.load(SHIPPED / "model.pt"))
    module.set_state(module_state(shipped))
    vectors, masks = _observations()
    batch = {Columns.OBS: {OBS_KEY: torch.as_tensor(vectors), MASK_KEY: torch.as_tensor(masks)}}
    logits = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS]
    expected = shipped.distribution(torch.as_tensor(vectors), torch.as_tensor(masks)).logits
    assert torch.allclose(logits, expected, atol=1e-6)
    assert (logits[torch.as_tensor(masks) == 0] == torch.finfo(torch.float32).min).all()
    train_out = module.forward_train(batch)
    values = module.compute_values(batch, embeddings=train_out[Columns.EMBEDDINGS])
    assert torch.allclose(values, shipped.get_value(torch.as_tensor(vectors)), atol=1e-6)
    assert torch.allclose(module.compute_values(batch), values)
    # Every parameter maps one to one (no key left over either way) and back.
    assert set(module.get_state()) == {"net." + k for k in shipped.state_dict()}
    again = agent_from_state(module.get_state(), shipped.spec())
    assert all(torch.equal(a, b) for a, b in zip(again.state_dict().values(), shipped.state_dict().values()))
    # Exported, it loads as our policies do and plays the same greedy actions.
    path = export_checkpoint(module.get_state(), shipped.spec(), tmp_path / "exported.pt")
    policy = load_network_policy(str(path), layout=env.observation_layout, greedy=True)
    assert isinstance(policy.agent, Agent)
    assert (policy.act(vectors, masks) == expected.argmax(-1).numpy()).all()


def test_a_module_with_a_card_head_is_the_same_network_as_ours(tmp_path):
    env = CarouselMultiAgentEnv({"game": "conquian", "num_players": 2})
    cards = training_game("conquian").card_actions
    spec = module_spec(shape=shape_for(EnvSpec.of(2, game="conquian")), card_actions=cards)
    spec.observation_space, spec.action_space = env.observation_spaces["player_0"], env.action_spaces["player_0"]
    module = spec.build()
    assert module.net.card_actions == cards
    exported = export_checkpoint(module.get_state(), module.net.spec(), tmp_path / "exported.pt")
    agent = checkpoint.build_agent(checkpoint.load(exported))
    assert agent.card_actions == cards
    assert all(torch.equal(a, b) for a, b in zip(agent.state_dict().values(), module.net.state_dict().values()))


def test_config_is_strict_and_documented(tmp_path):
    config = load_config(ROOT / "configs" / "rllib_2p.yaml", ["num_env_runners=4"])
    assert config.num_env_runners == 4 and config.exp_name == "rllib_2p"
    text = format_config(config)
    assert "# Ray actors sampling games" in text and "num_env_runners: 4  # default: 1" in text
    (tmp_path / "c.yaml").write_text(text)
    assert load_config(tmp_path / "c.yaml") == config
    for bad, key in [
        ({"num_env_runner": 2}, "num_env_runner"),
        ({"iterations": 0}, "iterations"),
        ({"episode": "match"}, "episode"),
        ({"train_batch_size": "many"}, "train_batch_size"),
        ({"minibatch_size": 10_000}, "minibatch_size"),
        ({"variant": "gin"}, "variant"),
        ({"k_suggestions": 0}, "k_suggestions"),
        ({"stop_win_rate": 2}, "stop_win_rate"),
        ({"stop_win_rate": 0.9, "eval_games": 0}, "stop_win_rate"),
    ]:
        with pytest.raises(ConfigError, match=key):
            from_dict(bad)


@pytest.mark.training
@pytest.mark.xdist_group("ray")
def test_one_iteration_on_local_ray_then_export_and_play(shared_ray, tmp_path, capfd):
    # One env runner: a Ray actor on the local instance already running (``carousel train
    # --backend rllib`` starting and stopping its own: tests/test_cli_rllib.py).
    config = from_dict(
        {
            **TINY,
            "num_env_runners": 1,
            "iterations": 1,
            "train_batch_size": 256,
            "minibatch_size": 64,
            "num_epochs": 1,
            "snapshot_interval": 1,
        }
    )
    lines: list[str] = []
    summary = train(config, tmp_path / "run", log=lines.append)
    assert ray.is_initialized() and "using the Ray instance this process already runs" in lines  # left running
    # Nothing from Ray, RLlib or PettingZoo on the terminal: no env checker's "Illegal move",
    # no notices, and (no restarts on one machine) not Ray core's error line about an actor
    # with "max_restarts > 0" (logged once per process; no earlier test in it makes actors).
    captured = capfd.readouterr()
    output = captured.out + captured.err
    assert "max_restarts" not in output and "Illegal move" not in output, output
    assert ALARM.search(output) is None, output
    assert not any(RESTARTS_NOTE in line for line in lines)  # the note is for clusters
    assert summary.iteration == 1 and summary.env_steps >= 256 and len(summary.runner_nodes) == 1
    assert any(line.startswith("iter 1/1:") and "snapshot into pool_0" in line for line in lines), lines
    exported = tmp_path / "run" / "latest.pt"
    data = checkpoint.load(exported)
    assert data["counters"]["update"] == 1 and data["counters"]["global_step"] > 0
    # Loaded the way carousel eval, tournament and play load agents, it plays full games.
    policy = load_network_policy(str(tmp_path / "run"), seed=0)
    assert policy.agent.hidden_size == 16
    result = play_match([load_policy(str(exported), policy.agent.layout, seed=0), "random"], games=2, seed=0)
    assert len(result.games) == 2 and 0.0 <= result.win_rate(0) <= 1.0

    # What --resume restores: the exported network in the learner, and every module's
    # learner weights on the env runner too (Algorithm.restore_from_path alone leaves
    # stale ones there).
    algorithm = algorithm_config(load_run_config(tmp_path / "run")).build_algo()
    try:
        restore_run(algorithm, tmp_path / "run")
        assert algorithm.iteration == 1
        learner = algorithm.learner_group.get_weights()
        (runner,) = algorithm.env_runner_group.foreach_env_runner(
            lambda r: r.module.get_state(), local_env_runner=False
        )
        assert set(learner) == set(runner) == {"main", "pool_0", "pool_1"}
        for module_id, weights in learner.items():
            assert all(np.array_equal(weights[k], runner[module_id][k]) for k in weights), module_id
        for key, value in data["model"].items():
            assert torch.equal(torch.as_tensor(learner["main"]["net." + key]), value), key
    finally:
        algorithm.stop()


@pytest.mark.training
@pytest.mark.xdist_group("ray")
def test_an_address_is_refused_while_this_process_runs_ray(shared_ray, tmp_path):
    """Which Ray to train on would be ambiguous: refused before anything is written."""
    from training.rllib.train import RayAddressError

    with pytest.raises(RayAddressError, match="already runs Ray"):
        train(from_dict(dict(TINY)), tmp_path / "run", address="auto", log=lambda line: None)
    assert not (tmp_path / "run").exists() and shared_ray.is_initialized()


def test_a_progress_line_says_when_no_episode_ended():
    from training.rllib.train import _progress_line

    config = from_dict({"game": "gin_rummy", "iterations": 3})
    result = {"training_iteration": 1, "env_runners": {"num_episodes_lifetime": 0}}
    line, _ = _progress_line(config, result, 1.0)
    assert "no episode ended in this iteration yet" in line and "nan" not in line
    result["env_runners"].update(module_episode_returns_mean={"main": 0.25}, main_win_rate=0.5)
    assert "return +0.250, win rate 0.50" in _progress_line(config, result, 1.0)[0]
