"""``help(carousel_env.env)`` lists every game's options with their defaults: the list in
``carousel_env.OPTIONS`` is checked here against the games' config classes."""

import ast
import dataclasses
import re

import pytest

import carousel_env
from carousel_env.core.registry import GAMES
from carousel_env.games.carioca.config import CariocaEnvConfig
from carousel_env.games.carousel.envs.config import EnvConfig
from carousel_env.games.gin_rummy.config import GinEnvConfig

CONFIG_CLASSES = {"carousel": EnvConfig, "gin_rummy": GinEnvConfig, "carioca": CariocaEnvConfig}


def _documented(game: str) -> dict[str, object]:
    """The ``name=default`` pairs of ``game``'s bullet in the options doc."""
    bullets = re.split(r"\n\s*\* ", carousel_env.OPTIONS)
    [bullet] = [b for b in bullets if b.startswith(f'``game="{game}"``')]
    text = re.sub(r"\([^)]*\)", "", bullet.split(":", 1)[1])  # asides in parentheses dropped
    return {name: ast.literal_eval(value) for name, value in re.findall(r"(\w+)=([^,\s]+)", text)}


def _defaults(config_class: type) -> dict[str, object]:
    defaults = {}
    for f in dataclasses.fields(config_class):
        if not f.init:
            continue
        defaults[f.name] = f.default_factory() if f.default is dataclasses.MISSING else f.default
    return defaults


def test_every_registered_game_is_documented():
    assert set(CONFIG_CLASSES) == set(GAMES)


@pytest.mark.parametrize("game", sorted(CONFIG_CLASSES))
def test_the_options_doc_lists_each_option_with_its_default(game):
    assert _documented(game) == _defaults(CONFIG_CLASSES[game])


@pytest.mark.parametrize("entry", [carousel_env.env, carousel_env.raw_env, carousel_env.vector_env])
def test_help_of_each_entry_point_shows_the_options(entry):
    assert carousel_env.OPTIONS in entry.__doc__
    assert "solve_time_budget=1.0" in entry.__doc__ and "preset='book'" in entry.__doc__
