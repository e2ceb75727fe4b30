"""Kaluki (and plain Rummy, its preset ``rummy``) in the family contract (``carousel_env.envkit.family``)."""

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
)
from carousel_env.envkit.layout import card_actions
from carousel_env.envkit.options import OptionDoc, option_docs
from carousel_env.games.kaluki import kernel_solver, policies
from carousel_env.games.kaluki.board import BOARD
from carousel_env.games.kaluki.config import KalukiEnvConfig, KalukiEnvConfigError
from carousel_env.games.kaluki.env import KalukiAction, raw_env
from carousel_env.games.kaluki.observation import GLOBAL_CHANNELS
from carousel_env.games.kaluki.players import PLAYERS, get_player
from carousel_env.games.kaluki.rules import CARD_KINDS, PRESETS, KalukiRules, Scoring
from carousel_env.games.kaluki.terminal import TERMINAL
from carousel_env.games.kaluki.vector import KalukiVectorEnv

COST_SLOTS = 8  # the offer slots of the positions decisions are timed on
# The rules options over a preset are env options too (``opening=40``), documented by the rules.
OPTIONS_DOC: tuple[OptionDoc, ...] = (*option_docs(KalukiEnvConfig), *option_docs(KalukiRules))

_is_player, _unknown_player = named_players("Kaluki", tuple(PLAYERS), get_player)


def kaluki_result(
    episode: Episode, returns: Any, hands: Any, scores: Any, game: Any, scoring: Scoring
) -> EpisodeResult:
    """A Kaluki episode's result: standings are the totals (negated under penalty scoring,
    where the lowest total wins, since the family ranks the highest standing first); a game
    won by one seat names it."""
    sign = -1 if scoring is Scoring.PENALTY else 1
    totals = game.totals if game is not None else scores
    winner = game.winners[0] if game is not None and len(game.winners) == 1 else None
    return EpisodeResult(
        episode, tuple(float(r) for r in returns), tuple(hands), tuple(sign * t for t in totals), winner
    )


def _result(episode: Episode, returns: Any, env: Any) -> EpisodeResult:
    state = env.unwrapped.game_state
    return kaluki_result(episode, returns, state.results, state.totals, state.game_result, state.rules.scoring)


def _finished_result(episode: Episode, returns: Any, game: Any) -> EpisodeResult:
    return kaluki_result(episode, returns, game.hands, game.scores, game.result, game.scoring)


def _events(result: Any, seat: int) -> UnitEvents:
    # Kaluki has no knock: going out is its one event.
    return UnitEvents(False, False, result.out == seat)


def _record(players: int, count: int, seed: int) -> list[CostDecision]:
    simple = policies.resolve_policy("simple", seed)

    def read(env: Any, obs: dict) -> CostDecision:
        raw = env.unwrapped
        return CostDecision(raw.game_state, obs["observation"].copy(), obs["action_mask"].copy(), raw.suggestions)

    reference = lambda env, obs: policies.env_action(simple, env, obs["observation"], obs["action_mask"])  # noqa: E731
    return record_positions(raw_env(num_players=players, k_plays=COST_SLOTS), reference, count, seed, read)


def _compile_ahead(options: dict[str, Any], vector: bool) -> None:
    """The compiled search (the AEC env's, and the vector env's for the plays it builds), and the
    vector env's kernel where ``vector``."""
    kernel_solver.compile_ahead()
    if vector:
        KalukiVectorEnv.compile_ahead(**options)


def _label(options: Any) -> str:
    preset = options.get("preset", next(iter(PRESETS)))
    return "Rummy" if preset == "rummy" else f"Kaluki ({preset} rules)"


def _leaderboard(preset: str, title: str, page: str, name: str) -> LeaderboardFacts:
    """The leaderboard of single hands under ``preset``, heads-up and at 4 players; its page
    only (the README links it)."""
    return LeaderboardFacts(
        table_sizes=(2, 4),
        options=(("preset", preset), ("episode", "hand")),
        baselines=("random", "simple", "wary", "search"),
        guided=False,
        title=title,
        page=page,
        state_name=f"leaderboard_{name}_games.json",
        readme_tag=None,  # the README, an index, links the page
        played_unit="hand",
    )


# An offer is a discard taken with the melds it goes into, or (after drawing) a play.
ACTION_KINDS = (
    ActionKind("take_discard", KalukiAction.TAKE_DISCARD, KalukiAction.TAKE_DISCARD + 1),
    ActionKind("lay", KalukiAction.FIRST_OFFER),
)

FAMILY = FamilyGame(
    name="kaluki",
    options_doc=OPTIONS_DOC,
    settle=preset_resolver(KalukiEnvConfig),
    check=config_check(KalukiEnvConfig, KalukiEnvConfigError),
    train_options={"episode": "hand"},  # a hand's points are the learner's signal, sooner than a match's
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
    compile_ahead=_compile_ahead,
    label=_label,
    yardsticks=("random", "simple"),
    baselines=("simple", "random"),
    cost=CostPositions(_record, engine_decide),
    terminal=TERMINAL,
    board=BOARD,
    # Single hands (a match to 250 runs a dozen hands or more); plain Rummy has its own.
    leaderboard=_leaderboard("book", "Kaluki leaderboard", "docs/LEADERBOARD_KALUKI.md", "kaluki"),
    variant_leaderboards=(("rummy", _leaderboard("rummy", "Rummy leaderboard", "docs/LEADERBOARD_RUMMY.md", "rummy")),),
    demo_players="simple",
    event_names=EventNames(knocked="", undercut=""),
    action_kinds=ACTION_KINDS,
    hidden_cards=lambda state, seat: others_cards(state.hands, seat),
    card_actions=card_actions(GLOBAL_CHANNELS, KalukiAction.FIRST_DISCARD, CARD_KINDS),
)
