"""Carousel (and Manipulation Rummy) in the family contract (``carousel_env.envkit.family``)."""

from __future__ import annotations

from collections.abc import Mapping
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
    others_cards,
    record_positions,
)
from carousel_env.envkit.options import option_docs
from carousel_env.games.carousel import solver
from carousel_env.games.carousel.agents import match
from carousel_env.games.carousel.agents.registry import (
    SEARCH,
    UnknownPolicyError,
    get_policy,
    is_policy_name,
    policy_names,
    search_samples,
)
from carousel_env.games.carousel.board import BOARD
from carousel_env.games.carousel.envs.aec import CarouselAction, decision, raw_env
from carousel_env.games.carousel.envs.config import EnvConfig, EnvConfigError
from carousel_env.games.carousel.envs.observation import encode, layout
from carousel_env.games.carousel.terminal import TERMINAL
from carousel_env.games.carousel.vector import CarouselVectorEnv
from carousel_env.games.carousel.vector.guided import GuidedSearchPlayer

COST_SLOTS = 8  # the suggestion slots of the positions decisions are timed on (the shipped agents')


def _result(episode: Episode, returns: Any, env: Any) -> EpisodeResult:
    try:
        state = env.unwrapped.game_state
    except (AttributeError, AssertionError):  # an env that exposes no engine state, or one never reset
        state = None
    return match.episode_result(episode, returns, state)


def _events(score: Any, seat: int) -> UnitEvents:
    knocked = score.knocker == seat
    return UnitEvents(knocked, knocked and bool(score.undercut), score.went_out == seat)


def _compile_ahead(options: dict[str, Any], vector: bool) -> None:
    if vector:
        CarouselVectorEnv.compile_ahead(**options)
    else:
        solver.compile_ahead()


def _record(players: int, count: int, seed: int) -> list[CostDecision]:
    smart = get_policy("smart")
    lay = layout(COST_SLOTS)

    def read(env: Any, obs: dict) -> CostDecision:
        state = env.unwrapped.game_state
        mask, suggestions = decision(state, COST_SLOTS)
        return CostDecision(state, encode(state, state.current, suggestions, lay), mask, suggestions)

    reference = lambda env, obs: smart(obs["observation"], obs["action_mask"])  # noqa: E731
    return record_positions(raw_env(num_players=players, k_suggestions=COST_SLOTS), reference, count, seed, read)


def _decide(policy: Any, d: CostDecision) -> int:
    return match.state_action(policy, lambda: d.state, d.state.current, d.observation, d.mask)


def _guided_search(prior: Any, search: str, slots: int, seed: int | None, name: str) -> GuidedSearchPlayer:
    del slots  # the player reads its slots from the observations it is handed
    return GuidedSearchPlayer(prior, samples=search_samples(search), seed=seed, name=name)


def _label(options: Mapping[str, Any]) -> str:
    return options.get("variant", "carousel").replace("_", " ").title()


ACTION_KINDS = (
    ActionKind("draw", CarouselAction.DRAW_AGAIN, CarouselAction.DRAW_AGAIN + 1),
    ActionKind("knock", CarouselAction.KNOCK, CarouselAction.KNOCK + 1),
    ActionKind("play", CarouselAction.FIRST_SUGGESTION),
)

FAMILY = FamilyGame(
    name="carousel",
    options_doc=option_docs(EnvConfig),
    check=config_check(EnvConfig, EnvConfigError),
    train_options={"episode": "round"},  # a round's score is the learner's signal, sooner than a game's
    legacy_keys={
        key: key
        for key in ("variant", "round_bonus", "k_suggestions", "episode", "reward", "reward_scale", "solve_time_budget")
    },
    variant_key="variant",
    unit="round",
    players=(*policy_names(), SEARCH),
    is_player=is_policy_name,
    unknown_player=UnknownPolicyError,
    player=lambda name, seed: get_policy(name, seed=seed),
    act=match.policy_action,
    result=_result,
    finished_result=lambda episode, returns, game: EpisodeResult.of_game(
        episode, returns, game.rounds, game.scores, game.result
    ),
    unit_events=_events,
    unit_points=lambda result: result.points,
    compile_ahead=_compile_ahead,
    label=_label,
    yardsticks=("greedy", "smart"),
    baselines=("greedy", "random"),
    cost=CostPositions(_record, _decide),
    terminal=TERMINAL,
    board=BOARD,
    leaderboard=LeaderboardFacts(
        table_sizes=(2, 4),
        options=(("episode", "game"),),
        baselines=("random", "greedy", "smart", "search@4", "search@16"),
        guided=True,
        title="Leaderboard",
        page="docs/LEADERBOARD.md",
        state_name="leaderboard_games.json",
        readme_tag="leaderboard",
    ),
    play_options={"episode": "game"},
    variant_event_names=(("manipulation_rummy", EventNames(knocked="", undercut="")),),  # RULES.md: no knocking
    demo_players="smart",
    guided_search=_guided_search,
    solver_inexact=lambda: solver.solve_counts().inexact,
    action_kinds=ACTION_KINDS,
    hidden_cards=lambda state, seat: others_cards(state.hands, seat),
)
