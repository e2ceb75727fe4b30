"""Gin Rummy in the family contract (``carousel_env.envkit.family``)."""

from __future__ import annotations

from typing import Any

from carousel_env.core.cards import NUM_CARDS
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
from carousel_env.games.gin_rummy import observation, policies
from carousel_env.games.gin_rummy.board import BOARD
from carousel_env.games.gin_rummy.config import GinEnvConfig, GinEnvConfigError
from carousel_env.games.gin_rummy.engine import HandEnd, Phase
from carousel_env.games.gin_rummy.env import GinAction, decision, own_deadwood, raw_env
from carousel_env.games.gin_rummy.guided import GUIDED_SAMPLES, GinGuidedSearch
from carousel_env.games.gin_rummy.melds import cards_of
from carousel_env.games.gin_rummy.observation import encode
from carousel_env.games.gin_rummy.players import PLAYERS, get_player
from carousel_env.games.gin_rummy.rules import PRESETS, GinRules
from carousel_env.games.gin_rummy.terminal import TERMINAL
from carousel_env.games.gin_rummy.vector import GinVectorEnv

COST_SLOTS = 8  # the knock slots of the positions decisions are timed on (the shipped agents')

# The rules options over a preset are env options too (``knock_limit=7``), documented by the rules.
OPTIONS_DOC = (
    OptionDoc("num_players", 2, "players at the table: 2 (heads-up only)"),
    *option_docs(GinEnvConfig),
    *option_docs(GinRules),
)


_is_player, _unknown_player = named_players("Gin Rummy", tuple(PLAYERS), get_player)


def _result(episode: Episode, returns: Any, env: Any) -> EpisodeResult:
    raw = env.unwrapped
    state = raw.game_state
    return EpisodeResult.of_game(episode, returns, raw.episode_hands, state.scores, state.game_result)


def _events(hand: Any, seat: int) -> UnitEvents:
    knocked = hand.knocker == seat
    return UnitEvents(knocked, knocked and bool(hand.undercut), knocked and hand.end is HandEnd.GIN)


def _record(players: int, count: int, seed: int) -> list[CostDecision]:
    del players  # heads-up only
    simple = policies.resolve_policy("simple")

    def read(env: Any, obs: dict) -> CostDecision:
        raw = env.unwrapped
        state = raw.game_state
        mask, knocks = decision(state, COST_SLOTS)
        eleven = state.phase is Phase.DISCARD
        deadwood = own_deadwood(state.hands[state.current], eleven)
        observation = encode(state, state.current, knocks, deadwood, raw.observation_layout)
        return CostDecision(state, observation, mask, knocks)

    reference = lambda env, obs: policies.env_action(simple, env, obs["observation"], obs["action_mask"])  # noqa: E731
    return record_positions(raw_env(preset="openspiel", k_knocks=COST_SLOTS), reference, count, seed, read)


def _guided_search(prior: Any, search: str, slots: int, seed: int | None, name: str) -> policies.ScriptedPolicy:
    get_player(search)  # a bad budget is named as the player's
    samples = GUIDED_SAMPLES if search == "search" else int(search.partition("@")[2])
    return policies.ScriptedPolicy(name, GinGuidedSearch(prior, k_knocks=slots, samples=samples, seed=seed, name=name))


ACTION_KINDS = (
    ActionKind("take_upcard", GinAction.TAKE_UPCARD, GinAction.TAKE_UPCARD + 1),
    ActionKind("knock", GinAction.FIRST_KNOCK),
)

FAMILY = FamilyGame(
    name="gin_rummy",
    options_doc=OPTIONS_DOC,
    settle=preset_resolver(GinEnvConfig),
    check=config_check(GinEnvConfig, GinEnvConfigError),
    train_options={"episode": "hand"},  # a hand's score is the learner's signal, sooner than a match's
    legacy_keys={
        "variant": "preset",
        "k_suggestions": "k_knocks",
        "episode": "episode",
        "reward": "reward",
        "reward_scale": "reward_scale",
    },
    variant_key="preset",
    unit="hand",
    players=tuple(PLAYERS),
    is_player=_is_player,
    unknown_player=_unknown_player,
    player=lambda name, seed: policies.resolve_policy(name, seed=seed),
    act=engine_act,
    result=_result,
    finished_result=lambda episode, returns, game: EpisodeResult.of_game(
        episode, returns, game.hands, game.scores, game.result
    ),
    unit_events=_events,
    unit_points=lambda result: result.points,
    compile_ahead=vector_compile_ahead(GinVectorEnv),
    label=lambda options: f"Gin Rummy ({options.get('preset', next(iter(PRESETS)))} rules)",
    yardsticks=("greedy", "simple"),
    baselines=("greedy", "random"),
    cost=CostPositions(_record, engine_decide),
    terminal=TERMINAL,
    board=BOARD,
    # Single hands under OpenSpiel's rules: what OpenSpiel's bots play.
    leaderboard=LeaderboardFacts(
        table_sizes=(2,),
        options=(("preset", "eaai"),),
        baselines=("random", "greedy", "simple", "search"),
        guided=True,
        title="Gin Rummy leaderboard",
        page="docs/LEADERBOARD_GIN.md",
        state_name="leaderboard_gin_rummy_eaai_games.json",
        readme_tag="leaderboard gin_rummy",
        how=(
            "Every pair plays heads-up matches to 100 under the EAAI challenge's rules (preset `eaai`: gin 25, "
            "undercut 25, no match bonuses), each deal's match twice with the seats swapped; a Gin network trained "
            "under another preset plays here too (the observations and actions are the same). The table in hands "
            "gives each agent's points a hand, decided hands won and gin and undercut rates over all its matches. "
            "OpenSpiel's simple bot plays inside OpenSpiel's own `gin_rummy` through "
            "`carousel_env/integrations/openspiel_gin.py`, single hands under its rules (its deals are the "
            "runner's), in a table of its own: a single hand is not a match, so it is not rated with them."
        ),
        played_unit="match",
        openspiel_bots=("simple",),
        seats_variants=("openspiel", "book"),
    ),
    demo_players="greedy",
    event_names=EventNames(went_out="gin"),
    guided_search=_guided_search,
    action_kinds=ACTION_KINDS,
    hidden_cards=lambda state, seat: others_cards([cards_of(hand) for hand in state.hands], seat),
    card_actions=card_actions(observation.GLOBAL_CHANNELS, GinAction.FIRST_DISCARD, NUM_CARDS),
    progress=observation.progress,
)
