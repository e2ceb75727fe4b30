"""Self-play plumbing, resume exactness and workers, on the fast fake environment."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest
import torch

from carousel_env.games.carousel.agents.match import Episode, EpisodeResult
from carousel_env.games.carousel.agents.registry import UnknownPolicyError
from carousel_env.games.carousel.envs.observation import ObservationLayout
from training import checkpoint
from training.config import load_config
from training.envs import EnvSpec
from training.logger import TIMING_METRICS
from training.network import Agent
from training.policies import LEARNER, Controller
from training.pool import OpponentPool, PoolEntry
from training.ppo import train
from training.rollout import collect_rollout, draw_episode
from training.runners import Driver

FAKE = "tests.support.fake_env:env"
CONFIGS = Path(__file__).resolve().parent.parent / "configs"
LAYOUT = ObservationLayout(global_size=6, num_slots=4, slot_features=3)


def _config(*extra: str):
    return load_config(
        CONFIGS / "smoke.yaml",
        [
            f"env_factory={FAKE}",
            "k_suggestions=4",
            "baselines=random",
            "eval_opponent=random",
            "eval_games=2",
            "num_envs=3",
            "num_steps=16",
            "total_timesteps=192",
            *extra,
        ],
    )


def test_episode_returns_sum_every_round_of_a_game():
    # In game episodes the env pays at every round's end, between network decisions: the
    # result's returns must hold all of it, 0.01 * (own total - the mean of the others').
    spec = EnvSpec.of(2, k_suggestions=8, episode="game")
    driver = Driver(spec, num_envs=1)
    rng = np.random.default_rng(0)
    reports = driver.step({}, {0: Episode(7, (LEARNER, Controller.scripted("greedy")))})
    while not reports[0].done:
        legal = np.flatnonzero(reports[0].mask)
        reports = driver.step({0: int(rng.choice(legal))}, {})
    driver.close()
    result = reports[0].result
    assert len(result.rounds) > 1
    totals = np.array(result.totals, dtype=float)
    expected = 0.01 * (totals - (totals.sum() - totals) / (len(totals) - 1))
    assert np.allclose(result.returns, expected)


def test_rewards_are_routed_to_the_seat_that_earned_them():
    spec = EnvSpec.of(3, FAKE, k_suggestions=4)
    driver = Driver(spec, num_envs=2)
    torch.manual_seed(0)
    agent = Agent(LAYOUT, 16, 8)
    seeds = iter(range(100, 200))

    def new_episode():
        return Episode(next(seeds), (LEARNER, Controller.scripted("random"), LEARNER))

    rollout = collect_rollout(driver, agent, {}, new_episode, target=40)
    driver.close()
    assert rollout.decisions >= 40 and rollout.decisions == sum(len(t.actions) for t in rollout.trajectories)
    paid = {}
    for result in rollout.results:
        assert sum(result.returns) == pytest.approx(0.0, abs=1e-9)  # zero-sum
        paid.update({(result.episode.seed, seat): r for seat, r in enumerate(result.returns)})
    # Every learner seat's trajectory return equals what the env paid that seat (a seat
    # that never got to decide before the episode ended has no trajectory).
    assert len(rollout.trajectories) >= len(rollout.results)
    for t in rollout.trajectories:
        assert sum(t.rewards) == pytest.approx(paid[(t.episode_seed, t.seat)])
    for t in rollout.trajectories:  # the reward sits on the seat's last decision, not spread or lost
        assert all(r == 0 for r in t.rewards[:-1])
        assert all(m[a] == 1 for m, a in zip(t.masks, t.actions))


def test_pfsp_prefers_opponents_the_learner_loses_to(tmp_path):
    pool = OpponentPool(tmp_path, max_size=3)
    pool.entries = [
        PoolEntry("a", "a.pt", 0, games=50, learner_wins=45),
        PoolEntry("b", "b.pt", 1, games=50, learner_wins=10),
    ]
    w = pool.weights(power=2.0)
    assert w[1] > 5 * w[0] and w.sum() == pytest.approx(1.0)
    agent = Agent(LAYOUT, 16, 8)
    for u in range(5):
        pool.add(agent, u)
    assert [e.update for e in pool.entries] == [2, 3, 4]  # oldest dropped
    rng = np.random.default_rng(0)
    episodes = [draw_episode(rng, 2, 1, pool, ["random"], 0.25, 2.0) for _ in range(400)]
    share = np.mean([e.controllers.count(Controller.scripted("random")) for e in episodes])
    assert 0.18 < share < 0.32
    assert all(e.controllers.count(LEARNER) == 1 for e in episodes)


def test_pool_opponents_are_credited_from_episode_results(tmp_path):
    pool = OpponentPool(tmp_path, max_size=3)
    pool.entries = [PoolEntry("u000001", "a.pt", 1), PoolEntry("u000002", "b.pt", 2)]
    seats = (LEARNER, Controller.pool("u000001"), Controller.scripted("random"), Controller.pool("u000002"))
    pool.record_episode(EpisodeResult(Episode(0, seats), returns=(1.0, -2.0, 0.5, 1.0)))
    ahead, level = pool.entries
    assert (ahead.games, ahead.learner_wins) == (1.0, 1.0)
    assert (level.games, level.learner_wins) == (1.0, 0.5)


def test_controllers_sort_and_check_scripted_names():
    # Network seats are batched in this order (pool opponents share the torch RNG).
    pool_late, pool_early = Controller.pool("u000010"), Controller.pool("u000002")
    scripted, network = Controller.scripted("random"), Controller.network("candidate")
    assert sorted([scripted, pool_late, pool_early, network]) == [network, pool_early, pool_late, scripted]
    with pytest.raises(UnknownPolicyError, match=r"'gredy'.*random, greedy, smart"):
        Controller.scripted("gredy")
    # Every name the registry plays is a scripted seat, the search player at any budget too.
    assert Controller.scripted("search@16").name == "search@16" and Controller.scripted("search").name == "search"
    with pytest.raises(UnknownPolicyError, match="search@0"):
        Controller.scripted("search@0")


def test_a_search_seat_is_stepped_from_its_seat_view():
    # A runner plays a view policy from seat_view of the real engine state, not from the
    # observation (called with one, the search player raises TypeError).
    driver = Driver(EnvSpec.of(3, k_suggestions=8, episode="round"), num_envs=1)
    seats = (Controller.scripted("greedy"), Controller.scripted("search@1"), Controller.scripted("smart"))
    [report] = driver.step({}, {0: Episode(5, seats)})
    searcher = driver.local.scripted[0][1]
    driver.close()
    assert report.done and len(report.result.rounds) == 1
    assert searcher.decisions > 0 and searcher.rollouts >= 2 * searcher.decisions


def _params(run_dir: Path) -> torch.Tensor:
    data = checkpoint.load(run_dir / "latest.pt")
    return torch.cat([v.flatten().float() for v in data["model"].values()])


def _rows(run_dir: Path) -> list[tuple]:
    timing = TIMING_METRICS
    with (run_dir / "metrics.csv").open() as f:
        return [(r["step"], r["name"], r["value"]) for r in csv.DictReader(f) if r["name"] not in timing]


@pytest.mark.training
def test_resume_continues_exactly(tmp_path):
    # With the returns' running moments (normalize_returns) and best.pt carried through the checkpoint.
    config = _config("eval_interval=1", "checkpoint_interval=1", "normalize_returns=true")
    assert config.num_updates == 4
    train(config, tmp_path / "straight")
    train(config, tmp_path / "pieces", max_updates=2)
    assert checkpoint.load(tmp_path / "pieces" / "latest.pt")["counters"]["update"] == 2
    # a partial extra update's logs (a crash after logging) must be purged on resume
    with (tmp_path / "pieces" / "metrics.csv").open("a") as f:
        f.write("999999,charts/episodic_return,1.0\n")
    train(config, tmp_path / "pieces", resume=True)
    assert torch.equal(_params(tmp_path / "straight"), _params(tmp_path / "pieces"))
    straight, pieces = _rows(tmp_path / "straight"), _rows(tmp_path / "pieces")
    assert straight == pieces
    steps = [int(s) for s, name, _ in straight if name == "charts/learning_rate"]
    assert len(steps) == 4 and steps == sorted(set(steps))  # no step logged twice
    names = {name for _, name, _ in straight}
    diagnostics = ("actions/draw", "actions/play", "charts/return_std", "charts/episode_decisions")
    assert set(diagnostics) <= names, names  # what shows whether a run learns (training/diagnostics.py)
    for name in ("config.yaml", "learning_curves.png", "tb", "best.pt"):
        assert (tmp_path / "pieces" / name).exists()
    assert checkpoint.load(tmp_path / "pieces" / "latest.pt")["return_moments"]["count"] > 0
    manifest = checkpoint.load(tmp_path / "pieces" / "latest.pt")["pool"]
    assert manifest and all((tmp_path / "pieces" / m["path"]).exists() for m in manifest)


@pytest.mark.training
def test_resume_refuses_a_corrupt_checkpoint(tmp_path):
    config = _config("total_timesteps=48")
    train(config, tmp_path / "run")
    (tmp_path / "run" / "latest.pt").write_bytes(b"garbage")
    with pytest.raises(checkpoint.CheckpointError, match="corrupt"):
        train(config, tmp_path / "run", resume=True)


@pytest.mark.training
@pytest.mark.xdist_group("cores")
def test_workers_give_the_same_run_as_in_process(tmp_path):
    base = ["total_timesteps=96", "eval_games=0"]
    train(_config(*base, "num_workers=0"), tmp_path / "w0")
    train(_config(*base, "num_workers=2"), tmp_path / "w2")
    assert torch.equal(_params(tmp_path / "w0"), _params(tmp_path / "w2"))
    assert _rows(tmp_path / "w0") == _rows(tmp_path / "w2")


@pytest.mark.training
def test_same_seed_same_run_and_other_seed_differs(tmp_path):
    base = ["total_timesteps=96", "eval_games=0"]
    train(_config(*base), tmp_path / "a")
    train(_config(*base), tmp_path / "b")
    train(_config(*base, "seed=2"), tmp_path / "c")
    assert torch.equal(_params(tmp_path / "a"), _params(tmp_path / "b"))
    assert not torch.equal(_params(tmp_path / "a"), _params(tmp_path / "c"))


@pytest.mark.training
def test_init_checkpoint_starts_a_new_run_from_another_runs_network(tmp_path):
    train(_config("total_timesteps=48", "eval_games=0"), tmp_path / "source")
    train(_config("total_timesteps=48", "eval_games=0", f"init_checkpoint={tmp_path / 'source'}"), tmp_path / "warm")
    # The pool's first snapshot is the network the new run started from.
    start = checkpoint.load(tmp_path / "warm" / "pool" / "u000000.pt")["model"]
    source = checkpoint.load(tmp_path / "source" / "latest.pt")["model"]
    assert all(torch.equal(start[k], source[k]) for k in source)
    fresh = checkpoint.load(tmp_path / "source" / "pool" / "u000000.pt")["model"]
    assert not all(torch.equal(start[k], fresh[k]) for k in fresh)


@pytest.mark.training
@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["init_checkpoint=no/such/run"], "config key 'init_checkpoint': no checkpoint at 'no/such/run'"),
        (
            ["init_checkpoint=SOURCE", "hidden_size=16"],
            r"config key 'init_checkpoint': .* hidden_size/slot_hidden_size",
        ),
    ],
)
def test_init_checkpoint_errors_name_the_key(tmp_path, extra, message):
    train(_config("total_timesteps=48", "eval_games=0"), tmp_path / "source")
    extra = [e.replace("SOURCE", str(tmp_path / "source")) for e in extra]
    with pytest.raises(checkpoint.CheckpointError, match=message):
        train(_config("total_timesteps=48", "eval_games=0", *extra), tmp_path / "warm")
    assert not (tmp_path / "warm").exists()  # checked before the run directory is made


@pytest.mark.training
def test_best_pt_holds_the_network_of_the_best_evaluation(tmp_path):
    train(_config("eval_interval=1", "checkpoint_interval=1", "eval_games=4"), tmp_path / "run")
    evaluations = [(int(step), float(v)) for step, name, v in _rows(tmp_path / "run") if name == "eval/win_rate"]
    best_step, best = max(evaluations, key=lambda e: (e[1], -e[0]))  # the first of the best
    data = checkpoint.load(tmp_path / "run" / "best.pt")
    assert data["counters"]["global_step"] == best_step and data["counters"]["best_win_rate"] == best
    train(_config("eval_interval=1", "eval_games=4", "keep_best=false"), tmp_path / "off")
    assert not (tmp_path / "off" / "best.pt").exists()


@pytest.mark.training
def test_a_staged_run_gives_its_opponent_seats_to_scripted_players_first(tmp_path):
    stages = ["baseline_share_start=1.0", "baseline_share=0.0", "baseline_schedule_decisions=100", "eval_games=0"]
    train(_config(*stages), tmp_path / "run")
    shares = [float(v) for _, name, v in _rows(tmp_path / "run") if name == "charts/baseline_share"]
    assert shares[0] == 1.0 and shares[-1] == 0.0 and shares == sorted(shares, reverse=True)
