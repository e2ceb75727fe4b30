"""Config loading, checkpoint files, evaluation statistics."""

from __future__ import annotations

import dataclasses
import math
import os
from pathlib import Path

import pytest
import torch
import yaml

from carousel_cli.main import main
from carousel_env.core.errors import CarouselError
from carousel_env.games.carousel.envs.observation import ObservationLayout
from training import checkpoint
from training.config import (
    ConfigError,
    TrainConfig,
    field_docs,
    format_config,
    from_dict,
    load_config,
    save_config,
)
from training.evaluate import Z_95, deal_interval, deals_for, eval_specs, evaluate, wilson_interval
from training.network import Agent

CONFIGS = Path(__file__).resolve().parent.parent / "configs"


SHIPPED_CONFIGS = ["default", "four_player", "smoke"]


@pytest.mark.parametrize("name", SHIPPED_CONFIGS)
def test_shipped_configs_hold_only_keys_that_differ_from_the_defaults(name):
    # TrainConfig is the one place a default is written: a YAML restating one would go stale.
    values = yaml.safe_load((CONFIGS / f"{name}.yaml").read_text()) or {}
    defaults = TrainConfig()
    for key, value in values.items():
        assert getattr(from_dict({key: value}), key) != getattr(defaults, key), f"{name}.yaml restates {key}"
    config = load_config(CONFIGS / f"{name}.yaml")
    assert config.num_players == (4 if name == "four_player" else 2)


def test_every_field_is_documented_once_in_the_dataclass():
    docs = field_docs()
    assert list(docs) == [f.name for f in dataclasses.fields(TrainConfig)]
    for key, doc in docs.items():
        assert isinstance(doc, str) and doc.strip(), key
    # a null list takes the game's own, a fresh list each time
    assert TrainConfig().baselines is None
    TrainConfig().baseline_names().append("x")
    assert TrainConfig().baseline_names() == ["greedy", "random"]
    assert TrainConfig(game="carioca").baseline_names() == ["simple", "random"]


@pytest.mark.parametrize("name", [*SHIPPED_CONFIGS, None])
def test_print_config_is_documented_yaml_that_round_trips(name, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    # The shipped configs name checkpoints relative to the repository root, where they are run.
    (tmp_path / "checkpoints").symlink_to(CONFIGS.parent / "checkpoints")
    path = None if name is None else CONFIGS / f"{name}.yaml"
    assert main(["train", "--print-config", *([] if path is None else ["--config", str(path)])]) == 0
    text = capsys.readouterr().out
    assert not (tmp_path / "runs").exists()  # printed, not trained
    for doc in field_docs().values():
        assert f"# {doc}\n" in text
    (tmp_path / "printed.yaml").write_text(text)
    assert load_config(tmp_path / "printed.yaml") == load_config(path)


def test_print_config_applies_set_overrides(tmp_path, capsys):
    smoke = str(CONFIGS / "smoke.yaml")
    overrides = ["--set", "num_envs=3", "--set", "baselines=random", "--set", "target_kl=0.02"]
    assert main(["train", "--config", smoke, "--print-config", *overrides]) == 0
    text = capsys.readouterr().out
    assert "\nnum_envs: 3  # default: 16\n" in text and "\nbaselines: [random]  # default: null\n" in text
    (tmp_path / "printed.yaml").write_text(text)
    printed = load_config(tmp_path / "printed.yaml")
    assert printed == load_config(smoke, ["num_envs=3", "baselines=random", "target_kl=0.02"])
    assert printed.num_envs == 3 and printed.baselines == ["random"] and printed.target_kl == 0.02


def test_print_config_names_a_bad_set_key(capsys):
    assert main(["train", "--print-config", "--set", "nmu_envs=3"]) == 2
    assert main(["train", "--print-config", "--set", "num_envs=many"]) == 2
    err = capsys.readouterr().err
    assert "nmu_envs" in err and "'num_envs'" in err


def test_format_config_quotes_values_yaml_would_misread(tmp_path):
    config = from_dict(
        {"exp_name": "a: b # c", "eval_opponent": "yes", "reward_scale": 1e-5, "baselines": [], "seed": 0}
    )
    path = tmp_path / "c.yaml"
    path.write_text(format_config(config, ["two\nlines"]))
    assert load_config(path) == config


def test_unknown_key_is_an_error_naming_it(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("learning_rat: 0.1\n")
    with pytest.raises(ConfigError, match="learning_rat"):
        load_config(path)
    with pytest.raises(ConfigError, match="nmu_envs"):
        load_config(None, ["nmu_envs=3"])


@pytest.mark.parametrize(
    "text,key",
    [
        ("num_envs: 2.5", "num_envs"),
        ("anneal_lr: 3", "anneal_lr"),
        ("learning_rate: fast", "learning_rate"),
        ("baselines: 7", "baselines"),
        ("num_envs: true", "num_envs"),
        ("episode: match", "episode"),
        ("num_envs: 0", "num_envs"),
        ("stop_win_rate: 0", "stop_win_rate"),
        ("stop_win_rate: 1.5", "stop_win_rate"),
        ("stop_win_rate: 0.9\neval_games: 0", "stop_win_rate"),
    ],
)
def test_ill_typed_values_are_errors_naming_the_key(tmp_path, text, key):
    path = tmp_path / "c.yaml"
    path.write_text(text + "\n")
    with pytest.raises(ConfigError, match=key):
        load_config(path)


@pytest.mark.parametrize(
    ("key", "bad", "good"),
    [
        ("learning_rate", -1.0, 1e-5),
        ("learning_rate", 0.0, 1.0),
        ("gamma", 1.5, 1.0),
        ("gae_lambda", -0.1, 0.0),
        ("clip_coef", 0.0, 0.1),
        ("ent_coef", -0.01, 0.0),
        ("vf_coef", float("nan"), 0.0),
        ("max_grad_norm", float("inf"), 10.0),
        ("target_kl", 0.0, None),
        ("pfsp_power", -1.0, 0.0),
    ],
)
def test_the_optimisers_numbers_are_checked_at_load_time_naming_the_key(key, bad, good):
    from training.config import from_dict

    with pytest.raises(ConfigError, match=f"config key '{key}': must be a finite number"):
        from_dict({key: bad})
    assert getattr(from_dict({key: good}), key) == good


@pytest.mark.parametrize(
    ("key", "bad"), [("learning_rate", -1.0), ("gamma", 2.0), ("entropy_coeff", -1.0), ("grad_clip", 0.0)]
)
def test_the_rllib_backends_numbers_are_checked_too(key, bad):
    from training.rllib.config import from_dict as rllib_from_dict

    with pytest.raises(ConfigError, match=f"config key '{key}': must be a finite number"):
        rllib_from_dict({key: bad})


def test_overrides_are_parsed_to_the_field_type(tmp_path):
    config = load_config(
        CONFIGS / "smoke.yaml",
        [
            "learning_rate=1e-3",
            "num_envs=3",
            "anneal_lr=false",
            "baselines=greedy,random",
            "target_kl=0.02",
            "exp_name=x",
        ],
    )
    assert config.learning_rate == 1e-3 and isinstance(config.learning_rate, float)
    assert config.num_envs == 3 and config.anneal_lr is False
    assert config.baselines == ["greedy", "random"] and config.target_kl == 0.02 and config.exp_name == "x"
    assert load_config(None, ["target_kl=null"]).target_kl is None
    with pytest.raises(ConfigError, match="not key=value"):
        load_config(None, ["num_envs"])
    save_config(config, tmp_path / "saved.yaml")
    assert load_config(tmp_path / "saved.yaml") == config


def test_config_errors_are_carousel_errors():
    assert issubclass(ConfigError, CarouselError) and issubclass(checkpoint.CheckpointError, CarouselError)


# ---------------------------------------------------------------- checkpoints

LAYOUT = ObservationLayout(global_size=6, num_slots=4, slot_features=3)


def _ckpt(agent):
    return checkpoint.make(agent, agent.spec(), counters={"update": 1})


def test_checkpoint_roundtrip_and_atomic_write(tmp_path, monkeypatch):
    agent = Agent(LAYOUT, 16, 8)
    path = tmp_path / "run" / "latest.pt"
    checkpoint.atomic_torch_save(_ckpt(agent), path)
    loaded = checkpoint.build_agent(checkpoint.load(path), path)
    for a, b in zip(agent.parameters(), loaded.parameters()):
        assert torch.equal(a, b)
    before = path.read_bytes()

    def crash(*args, **kwargs):
        raise OSError("disk full")

    # A crash during the write leaves the old file untouched and no temporary behind.
    monkeypatch.setattr(torch, "save", crash)
    with pytest.raises(OSError):
        checkpoint.atomic_torch_save(_ckpt(Agent(LAYOUT, 16, 8)), path)
    assert path.read_bytes() == before
    assert os.listdir(path.parent) == ["latest.pt"]


def test_corrupt_checkpoint_is_a_clear_error(tmp_path):
    path = tmp_path / "latest.pt"
    checkpoint.atomic_torch_save(_ckpt(Agent(LAYOUT, 16, 8)), path)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(checkpoint.CheckpointError, match="corrupt"):
        checkpoint.load(path)
    path.write_bytes(b"not a checkpoint at all")
    with pytest.raises(checkpoint.CheckpointError, match="corrupt"):
        checkpoint.load(path)
    with pytest.raises(checkpoint.CheckpointError, match="no checkpoint at"):
        checkpoint.load(tmp_path / "missing.pt")


def test_incompatible_checkpoint_is_a_clear_error(tmp_path):
    path = tmp_path / "latest.pt"
    torch.save({"format": "something-else"}, path)
    with pytest.raises(checkpoint.CheckpointError, match="not a carousel-ppo checkpoint"):
        checkpoint.load(path)
    data = _ckpt(Agent(LAYOUT, 16, 8))
    checkpoint.atomic_torch_save({**data, "version": 99}, path)
    with pytest.raises(checkpoint.CheckpointError, match="version"):
        checkpoint.load(path)
    checkpoint.atomic_torch_save(data, path)
    with pytest.raises(checkpoint.CheckpointError, match="layout"):
        checkpoint.build_agent(checkpoint.load(path), path, expect_layout=ObservationLayout(6, 8, 3))
    bigger = Agent(LAYOUT, 32, 8)
    with pytest.raises(checkpoint.CheckpointError, match="does not fit"):
        checkpoint.load_model_state(bigger, checkpoint.load(path), path)


# ---------------------------------------------------------------- evaluation maths


def test_wilson_interval_known_values():
    lo, hi = wilson_interval(8, 10)
    # textbook value for 8/10 at 95%: (0.4902, 0.9433)
    assert lo == pytest.approx(0.4902, abs=1e-4) and hi == pytest.approx(0.9433, abs=1e-4)
    lo, hi = wilson_interval(0, 20)
    assert lo == 0.0 and hi == pytest.approx(0.1611, abs=1e-4)
    lo, hi = wilson_interval(50, 100)
    assert lo + hi == pytest.approx(1.0) and hi - lo < 2 * 1.96 * math.sqrt(0.25 / 100) + 1e-9
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_heads_up_eval_specs_are_mirror_pairs_with_rotating_seats():
    specs = eval_specs(2, 8, seed=100, candidate="C", opponents=["a", "b"])
    assert len(specs) == 8
    for first, second in zip(specs[::2], specs[1::2]):
        assert first.seed == second.seed
        assert first.controllers == tuple(reversed(second.controllers))
    assert {s.controllers.index("C") for s in specs} == {0, 1}
    assert {c for s in specs for c in s.controllers} == {"C", "a", "b"}
    four = eval_specs(4, 8, seed=0, candidate="C", opponents=["x"])
    assert {s.controllers.index("C") for s in four} == {0, 1, 2, 3}
    assert all(sorted(s.controllers) == ["C", "x", "x", "x"] for s in four)


def test_heads_up_deals_are_the_mirror_pairs():
    # 3 games round up to 2 deals of 2; the second deal starts from the candidate's other seat.
    specs = eval_specs(2, 3, seed=0, candidate="C", opponents=["a"])
    assert [(s.seed, s.controllers) for s in specs] == [
        (0, ("C", "a")),
        (0, ("a", "C")),
        (1, ("a", "C")),
        (1, ("C", "a")),
    ]


def test_three_players_play_each_deal_from_every_seat_with_the_table_order_kept():
    # 5 games round up to 2 deals of 3 games. In a deal the candidate sits in every seat once
    # and the table turns as a whole: clockwise from the candidate, the same opponents in the
    # same order. The second deal starts from the next opponent (and the next seat).
    specs = eval_specs(3, 5, seed=10, candidate="C", opponents=["a", "b"])
    assert [(s.seed, s.controllers, s.opponent) for s in specs] == [
        (10, ("C", "a", "b"), "a"),
        (10, ("b", "C", "a"), "a"),
        (10, ("a", "b", "C"), "a"),
        (11, ("a", "C", "b"), "b"),
        (11, ("b", "a", "C"), "b"),
        (11, ("C", "b", "a"), "b"),
    ]
    assert deals_for(3, 5) == 2 and deals_for(3, 6) == 2 and deals_for(3, 7) == 3 and deals_for(2, 3) == 2


def test_deal_interval_spreads_with_the_deals_scores():
    lo, hi = deal_interval([1.0, 0.5, 0.5, 0.0])  # mean 0.5, sample variance 1/6, 4 deals
    half = Z_95 * math.sqrt(1 / 6 / 4)
    assert lo == pytest.approx(0.5 - half) and hi == pytest.approx(0.5 + half)
    assert deal_interval([1.0, 1.0, 1.0]) == (1.0, 1.0)  # no spread, nothing to widen it
    assert deal_interval([0.0, 1.0]) == (0.0, 1.0)  # clipped to [0, 1]
    assert deal_interval([0.5]) == (0.0, 1.0)  # one deal: no spread to estimate


def test_a_three_player_evaluation_reports_its_deals_and_the_fair_share(capsys):
    result = evaluate("smart", ["greedy", "random"], games=4, num_players=3, seed=3)
    assert (result.games, result.deals, result.players) == (6, 2, 3)
    assert result.fair_share == pytest.approx(1 / 3)
    deal_means = [sum(result.per_game[:3]) / 3, sum(result.per_game[3:]) / 3]
    assert result.win_rate_ci_deals == deal_interval(deal_means)
    assert (
        main(["eval", "--checkpoint", "smart", "--opponents", "greedy,random", "--players", "3", "--games", "4"]) == 0
    )
    out = capsys.readouterr().out
    assert "6 games on 2 deals" in out and "fair share 0.333" in out and "over deals" in out


@pytest.mark.parametrize(
    ("opponents", "games", "message"),
    [(",", 2, "at least one opponent"), ("greedy", 0, "at least 1 game, got 0"), ("greedy", -3, "got -3")],
)
def test_an_evaluation_with_nothing_to_play_is_an_error(opponents, games, message, capsys):
    with pytest.raises(CarouselError, match=message):
        evaluate("random", opponents, games=games)
    assert main(["eval", "--checkpoint", "random", "--opponents", opponents, "--games", str(games)]) == 2
    assert message in capsys.readouterr().err


def test_both_trainers_embed_the_env_keys_once():
    from training.config import EnvKeys, TrainConfig
    from training.rllib.config import RllibConfig

    env_keys = [f.name for f in dataclasses.fields(EnvKeys)]
    for cls in (TrainConfig, RllibConfig):
        assert issubclass(cls, EnvKeys)
        assert [f.name for f in dataclasses.fields(cls)][: len(env_keys)] == env_keys


@pytest.mark.parametrize(
    ("values", "key"),
    [
        ({"env": {"variant": "manipulation_rummy"}, "num_players": 2}, "env.variant"),
        ({"env": {"variant": "gin"}}, "env.variant"),
        ({"env": {"round_bonus": "nobody"}}, "env.round_bonus"),
        ({"env": {"solve_time_budget": 0}}, "env.solve_time_budget"),
        ({"env": {"episode": "match"}}, "env.episode"),
        ({"env": {"nope": 1}}, "env.nope"),
        ({"game": "gin_rummy", "env": {"knock_limit": 11}}, "env.knock_limit"),
        ({"game": "carioca", "num_players": 6}, "num_players"),
        ({"env": {"num_players": 3}}, "env.num_players"),
        ({"env": "carousel"}, "env"),
        ({"variant": "gin"}, "env.variant"),  # an older key, read into env
    ],
)
def test_env_keys_are_checked_by_the_env_and_named(values, key):
    from training.config import from_dict
    from training.rllib.config import from_dict as rllib_from_dict

    for load in (from_dict, rllib_from_dict):
        with pytest.raises(ConfigError, match=f"config key '{key}'"):
            load(values)


def test_a_games_own_options_pass_through_whole():
    from training.config import load_config
    from training.rllib.config import load_config as load_rllib_config

    for load in (load_config, load_rllib_config):
        config = load(None, ["game=gin_rummy", "env.preset=eaai", "env.knock_limit=7"])
        assert config.env == {"preset": "eaai", "knock_limit": 7}
        assert config.env_options() == {"episode": "hand", "preset": "eaai", "knock_limit": 7, "num_players": 2}
        # an override merges into the env options already set; null puts one back to its default
        config = load(None, ["game=gin_rummy", "env.preset=eaai", "env.knock_limit=7", "env.knock_limit=null"])
        assert config.env == {"preset": "eaai"}
    # another game keeps none of the first game's options
    from training.config import from_dict

    rummy = load_config(None, ["env.variant=manipulation_rummy", "num_players=3"])
    assert from_dict({"game": "carioca"}, base=rummy).env == {}


def test_older_env_keys_are_read_into_the_games_own_names(capsys):
    from training.config import from_dict, load_config

    config = from_dict({"game": "gin_rummy", "variant": "openspiel", "k_suggestions": 4, "reward_scale": None})
    assert config.env == {"preset": "openspiel", "k_knocks": 4}
    assert from_dict({"game": "carioca", "k_suggestions": 5}).env == {"k_go_down": 5}
    with pytest.raises(ConfigError, match="config key 'round_bonus': Carioca has no such option"):
        from_dict({"game": "carioca", "round_bonus": "everyone"})
    load_config(None, ["variant=manipulation_rummy", "num_players=3"])
    assert "variant is read as the game's env options" in capsys.readouterr().err


def test_print_config_lists_the_games_options_with_their_docs(capsys):
    assert main(["train", "--game", "gin_rummy", "--set", "env.knock_limit=7", "--print-config"]) == 0
    out = capsys.readouterr().out
    assert "env:\n" in out and "  knock_limit: 7" in out and "  #k_knocks: 8  (the env's default)" in out
    assert "  #episode: hand  (training's default)" in out and "knock arrangements offered" in out
    from training.config import load_config

    assert load_config(None, ["game=gin_rummy", "env.knock_limit=7"]).env == {"knock_limit": 7}
