"""Conquian in the family contract (``carousel_env.envkit.family``)."""

from __future__ import annotations

from typing import Any

from carousel_env.envkit.episodes import Episode, EpisodeResult
from carousel_env.envkit.family import (
    ActionKind,
    CostDecision,
    CostPositions,
    EventNames,
    FamilyGame,
    LeaderboardFacts,
    UnitEvents,
    config_check,
    engine_act,
    engine_decide,
    named_players,
    others_cards,
    preset_resolver,
    record_positions,
    vector_compile_ahead,
)
from carousel_env.envkit.layout import card_actions
from carousel_env.envkit.options import OptionDoc, option_docs
from carousel_env.games.conquian import policies
from carousel_env.games.conquian.board import BOARD
from carousel_env.games.conquian.config import ConquianEnvConfig, ConquianEnvConfigError
from carousel_env.games.conquian.decision import ConquianAction
from carousel_env.games.conquian.env import raw_env
from carousel_env.games.conquian.observation import GLOBAL_CHANNELS
from carousel_env.games.conquian.players import PLAYERS, get_player
from carousel_env.games.conquian.rules import NUM_CARDS, PRESETS, ConquianRules
from carousel_env.games.conquian.terminal import TERMINAL
from carousel_env.games.conquian.vector import ConquianVectorEnv

COST_SLOTS = 8  # the offer slots of the positions decisions are timed on
# The rules options over a preset are env options too (``rearrange="none"``), documented by the rules.
OPTIONS_DOC: tuple[OptionDoc, ...] = (*option_docs(ConquianEnvConfig), *option_docs(ConquianRules))

_is_player, _unknown_player = named_players("Conquian", tuple(PLAYERS), get_player)


def conquian_result(episode: Episode, returns: Any, hands: Any, totals: Any, game: Any) -> EpisodeResult:
    """A Conquian episode's result: standings are the totals; a game won by one seat names it."""
    totals = game.totals if game is not None else totals
    winner = game.winners[0] if game is not None and len(game.winners) == 1 else None
    return EpisodeResult(episode, tuple(float(r) for r in returns), tuple(hands), tuple(totals), winner)


def _result(episode: Episode, returns: Any, env: Any) -> EpisodeResult:
    state = env.unwrapped.game_state
    return conquian_result(episode, returns, state.results, state.totals, state.game_result)


def _finished_result(episode: Episode, returns: Any, game: Any) -> EpisodeResult:
    return conquian_result(episode, returns, game.hands, game.scores, game.result)


def _events(result: Any, seat: int) -> UnitEvents:
    # Conquian has no knock: melding 11 is its one event.
    return UnitEvents(False, False, result.winner == seat)


def _record(players: int, count: int, seed: int) -> list[CostDecision]:
    simple = policies.resolve_policy("simple", seed)

    def read(env: Any, obs: dict) -> CostDecision:
        raw = env.unwrapped
        return CostDecision(raw.game_state, obs["observation"].copy(), obs["action_mask"].copy(), raw.suggestions)

    reference = lambda env, obs: policies.env_action(simple, env, obs["observation"], obs["action_mask"])  # noqa: E731
    return record_positions(raw_env(k_plays=COST_SLOTS), reference, count, seed, read)


def _label(options: Any) -> str:
    return f"Conquian ({options.get('preset', next(iter(PRESETS)))} rules)"


LEADERBOARD = LeaderboardFacts(
    table_sizes=(2,),
    options=(("preset", "book"), ("episode", "hand")),
    baselines=("random", "simple", "search"),
    guided=False,
    title="Conquian leaderboard",
    page="docs/LEADERBOARD_CONQUIAN.md",
    state_name="leaderboard_conquian_games.json",
    readme_tag=None,  # the README, an index, links the page
    played_unit="hand",
)

ACTION_KINDS = (
    ActionKind("take", ConquianAction.FIRST_OFFER),  # a faced card taken with the melds it goes into
    ActionKind("force", ConquianAction.FORCE, ConquianAction.FORCE + 1),
)

FAMILY = FamilyGame(
    name="conquian",
    options_doc=OPTIONS_DOC,
    settle=preset_resolver(ConquianEnvConfig),
    check=config_check(ConquianEnvConfig, ConquianEnvConfigError),
    train_options={"episode": "hand"},
    legacy_keys={},
    variant_key="preset",
    unit="hand",
    players=tuple(PLAYERS),
    is_player=_is_player,
    unknown_player=_unknown_player,
    player=lambda name, seed: policies.resolve_policy(name, seed=seed),
    act=engine_act,
    result=_result,
    finished_result=_finished_result,
    unit_events=_events,
    unit_points=lambda result: result.points,
    compile_ahead=vector_compile_ahead(ConquianVectorEnv),
    label=_label,
    yardsticks=("random", "simple"),
    baselines=("simple", "random"),
    cost=CostPositions(_record, engine_decide),
    terminal=TERMINAL,
    board=BOARD,
    leaderboard=LEADERBOARD,  # single hands under the book's rules
    demo_players="simple",
    event_names=EventNames(knocked="", undercut="", went_out="meld-11"),
    action_kinds=ACTION_KINDS,
    hidden_cards=lambda state, seat: others_cards(state.hands, seat),
    card_actions=card_actions(GLOBAL_CHANNELS, ConquianAction.FIRST_DISCARD, NUM_CARDS),
)
