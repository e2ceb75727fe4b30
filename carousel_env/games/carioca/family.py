"""Carioca in the family contract (``carousel_env.envkit.family``)."""

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
    record_positions,
    vector_compile_ahead,
)
from carousel_env.envkit.layout import card_actions
from carousel_env.envkit.options import option_docs
from carousel_env.games.carioca import observation, policies
from carousel_env.games.carioca.board import BOARD
from carousel_env.games.carioca.config import CariocaEnvConfig, CariocaEnvConfigError
from carousel_env.games.carioca.env import CariocaAction, raw_env
from carousel_env.games.carioca.players import PLAYERS, get_player
from carousel_env.games.carioca.rules import CARD_KINDS
from carousel_env.games.carioca.terminal import TERMINAL
from carousel_env.games.carioca.vector import CariocaVectorEnv

_is_player, _unknown_player = named_players("Carioca", tuple(PLAYERS), get_player)


def carioca_result(episode: Episode, returns: Any, rounds: Any, scores: Any, game: Any) -> EpisodeResult:
    """A Carioca episode's result: its standings are the totals negated, because the lowest
    total wins and the family ranks the highest standing first; tied seats share the win."""
    winner = game.winners[0] if game is not None and len(game.winners) == 1 else None
    standings = tuple(-int(t) for t in scores)
    return EpisodeResult(episode, tuple(float(r) for r in returns), tuple(rounds), standings, winner)


def _result(episode: Episode, returns: Any, env: Any) -> EpisodeResult:
    state = env.unwrapped.game_state
    return carioca_result(episode, returns, state.rounds, state.scores, state.game_result)


def _events(result: Any, seat: int) -> UnitEvents:
    # Carioca has no knock: going down (laying out the contract) is counted in its place.
    return UnitEvents(bool(result.down and result.down[seat]), False, result.out == seat)


def _record(players: int, count: int, seed: int) -> list[CostDecision]:
    simple = policies.resolve_policy("simple", seed)

    def read(env: Any, obs: dict) -> CostDecision:
        raw = env.unwrapped
        return CostDecision(raw.game_state, obs["observation"].copy(), obs["action_mask"].copy(), raw.suggestions)

    reference = lambda env, obs: policies.env_action(simple, env, obs["observation"], obs["action_mask"])  # noqa: E731
    return record_positions(raw_env(num_players=players), reference, count, seed, read)


ACTION_KINDS = (
    ActionKind("take_discard", CariocaAction.TAKE_DISCARD, CariocaAction.TAKE_DISCARD + 1),
    ActionKind("lay_off", CariocaAction.FIRST_LAY_OFF, CariocaAction.FIRST_GO_DOWN),
    ActionKind("go_down", CariocaAction.FIRST_GO_DOWN),
)

FAMILY = FamilyGame(
    name="carioca",
    options_doc=option_docs(CariocaEnvConfig),
    check=config_check(CariocaEnvConfig, CariocaEnvConfigError),
    train_options={},
    legacy_keys={
        "k_suggestions": "k_go_down",
        "episode": "episode",
        "reward": "reward",
        "reward_scale": "reward_scale",
    },
    variant_key=None,
    unit="round",
    players=tuple(PLAYERS),
    is_player=_is_player,
    unknown_player=_unknown_player,
    player=lambda name, seed: policies.resolve_policy(name, seed=seed),
    act=engine_act,
    result=_result,
    finished_result=lambda episode, returns, game: carioca_result(
        episode, returns, game.rounds, game.scores, game.result
    ),
    unit_events=_events,
    unit_points=lambda result: result.points,
    compile_ahead=vector_compile_ahead(CariocaVectorEnv),
    label=lambda options: "Carioca",
    yardsticks=("random", "simple"),
    baselines=("simple", "random"),
    cost=CostPositions(_record, engine_decide),
    terminal=TERMINAL,
    board=BOARD,
    # Whole games of six rounds (the env's default episode). Its search player is left out
    # by default: no stronger than simple there, at 50 times a game's time.
    leaderboard=LeaderboardFacts(
        table_sizes=(2, 4),
        options=(),
        baselines=("random", "simple", "outs"),
        guided=False,
        title="Carioca leaderboard",
        page="docs/LEADERBOARD_CARIOCA.md",
        state_name="leaderboard_carioca_games.json",
        readme_tag="leaderboard carioca",
    ),
    event_names=EventNames(knocked="go-down", undercut=""),
    action_kinds=ACTION_KINDS,
    hidden_cards=lambda state, seat: others_cards(state.hands, seat),
    card_actions=card_actions(observation.GLOBAL_CHANNELS, CariocaAction.FIRST_DISCARD, CARD_KINDS),
    progress=observation.progress,
)
