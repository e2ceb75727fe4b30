"""``carousel_env.options(game)`` lists every option of every game with its default and its
meaning, read from the game's env config class; ``help(carousel_env.env)`` points to it."""

import dataclasses

import pytest

import carousel_env
from carousel_env.core.registry import GAMES
from carousel_env.envkit.family import family_game


def _defaults(config_class: type) -> dict[str, object]:
    defaults = {}
    for f in dataclasses.fields(config_class):
        if f.init:
            defaults[f.name] = f.default_factory() if f.default is dataclasses.MISSING else f.default
    return defaults


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_option_the_env_takes_is_documented_with_its_default(game):
    family = family_game(game)
    documented = {d.key: d.default for d in family.options_doc}
    assert all(d.doc for d in family.options_doc)
    options = {**family.play_options, **{key: default for key, default in documented.items()}}
    family.check(options)  # every documented option is one the env takes, at its default
    env = carousel_env.raw_env(game=game, **options)
    env.reset(seed=0)
    lines = carousel_env.options(game).splitlines()
    assert [line.split("=", 1)[0] for line in lines] == list(documented)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_env_config_class_declares_every_documented_option(game):
    config_class = type(carousel_env.raw_env(game=game).config)
    declared = _defaults(config_class)
    for option in family_game(game).options_doc:
        if option.key in declared:
            assert declared[option.key] == option.default, option.key


@pytest.mark.parametrize("entry", [carousel_env.env, carousel_env.raw_env, carousel_env.vector_env])
def test_help_of_each_entry_point_names_the_options(entry):
    assert "carousel_env.options(game)" in entry.__doc__
    assert "knock_limit=10" in carousel_env.options("gin_rummy")
    assert "solve_time_budget=1.0" in carousel_env.options("carousel")


@pytest.mark.parametrize(
    ("game", "given", "settled"),
    [
        ("gin_rummy", {"preset": "eaai"}, {"gin_bonus": 25, "undercut_bonus": 25, "match_bonuses": False}),
        ("gin_rummy", {"preset": "openspiel", "knock_limit": 7}, {"game_length": "hand", "knock_limit": 7}),
        ("kaluki", {"preset": "rummy"}, {"decks": 1, "jokers": 0, "opening": 0, "episode": "match"}),
        ("conquian", {}, {"episode": "hand", "reward_scale": 1.0}),
        ("carousel", {"variant": "manipulation_rummy", "num_players": 3}, {"num_players": 3, "round_bonus": "losers"}),
    ],
)
def test_resolved_options_are_those_the_env_plays(game, given, settled):
    # A preset's rules, not the book's documented defaults: what a run's records say it played.
    resolved = family_game(game).resolved(given)
    assert {key: resolved[key] for key in settled} == settled
    assert set(resolved) == set(family_game(game).option_names())
    env = carousel_env.raw_env(game=game, **given)
    rules = getattr(env.config, "rules", None)
    for key, value in settled.items():
        if rules is not None and hasattr(rules, key):
            played = getattr(rules, key)
            assert getattr(played, "value", played) == value, key
