"""What training needs to know about each game of the registry, beyond the AEC API.

Training drives every game the same way (PettingZoo's AEC API, or the game's compiled
vector env); what differs is gathered here, one :class:`TrainingGame` per registered game:

* its env keys: the training config's ``EnvKeys`` as the game's env options (``variant`` is
  Carousel's variant or Gin Rummy's preset, ``k_suggestions`` Carousel's play slots or
  Gin's knock slots), the defaults a run takes for the keys left null, and the checks;
* its scripted policies (baselines, evaluation opponents) and how a policy plays a seat;
* what a finished episode leaves (``EpisodeResult``), from the AEC env or from a vector
  env's finished game, and the events each round or hand scored (for evaluation);
* its compiled code, compiled before a run's first step.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

from carousel_env.core.errors import CarouselError
from carousel_env.core.registry import DEFAULT_GAME, GAMES, game_spec, vector_env_class
from carousel_env.envkit.episodes import Act, Episode, EpisodeResult
from training.checkpoint_names import GUIDED_MARK, CheckpointError, checkpoint_exists, missing_checkpoint, split_guided


class RoundEvents(NamedTuple):
    """What one round (Carousel) or hand (Gin Rummy) says about a seat, for evaluation."""

    knocked: bool
    undercut: bool  # the seat knocked and was undercut
    went_out: bool  # Carousel: went out; Gin Rummy: knocked with gin


class EventNames(NamedTuple):
    """What a game calls the three :class:`RoundEvents` (an empty name: the game has no such
    event), for evaluation's report."""

    knocked: str = "knock"
    undercut: str = "undercut"
    went_out: str = "go-out"


CARD_GAME_EVENTS = EventNames()  # Carousel's names


class EnvKeyError(CarouselError):
    """An env key a game does not take, or a value its env refuses; ``key`` names it."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(message)
        self.key = key


@dataclass(frozen=True)
class TrainingGame:
    """One game as training sees it (module docstring). ``defaults``: the values a run takes
    for the env keys left null; keys absent from it (and from ``options``) the game has not."""

    name: str
    defaults: Mapping[str, Any]
    options: Callable[[Mapping[str, Any]], dict[str, Any]]  # resolved EnvKeys -> env kwargs
    check: Callable[[dict[str, Any]], None]  # the env's own checks; raises EnvKeyError
    policy_names: Callable[[], tuple[str, ...]]
    is_policy_name: Callable[[str], bool]
    scripted_policy: Callable[[str, int | None], Any]
    act: Act  # how a policy plays a seat's decision in the AEC env
    result: Callable[[Episode, Any, Any], EpisodeResult]  # (episode, returns, AEC env)
    finished_result: Callable[[Episode, Any, Any], EpisodeResult]  # (episode, returns, finished game)
    unknown_policy: Callable[[str, str], Exception]  # (name, what else it is not) -> the error to raise
    round_events: Callable[[Any, int], RoundEvents]
    compile_ahead: Callable[[dict[str, Any], bool], None]  # (env kwargs, vector)
    label: Callable[[Mapping[str, Any]], str]  # resolved env keys -> what a run's log calls the game
    yardsticks: tuple[str, ...]  # the scripted players a trained agent is first measured against
    baselines: tuple[str, ...]  # the scripted players training mixes in by default (``baselines: null``)
    event_names: EventNames = CARD_GAME_EVENTS
    solver_inexact: Callable[[], int] = lambda: 0  # solves of this process not proven exact

    @property
    def vector_env(self) -> type:
        return vector_env_class(self.name)

    def env_keys(self) -> tuple[str, ...]:
        return tuple(self.defaults)


# ---------------------------------------------------------------- Carousel


def _carousel() -> TrainingGame:
    from carousel_env.games.carousel import solver
    from carousel_env.games.carousel.agents import match
    from carousel_env.games.carousel.agents.registry import (
        UnknownPolicyError,
        get_policy,
        is_policy_name,
        policy_names,
    )
    from carousel_env.games.carousel.envs.config import EnvConfig, EnvConfigError

    def check(options: dict[str, Any]) -> None:
        try:
            EnvConfig.from_kwargs(**options)
        except EnvConfigError as exc:
            raise EnvKeyError(exc.key, str(exc)) from None

    def result(episode: Episode, returns: Any, env: Any) -> EpisodeResult:
        try:
            state = env.unwrapped.game_state
        except (AttributeError, AssertionError):  # a stand-in env (the training tests'), or one never reset
            state = None
        return match.episode_result(episode, returns, state)

    def events(score: Any, seat: int) -> RoundEvents:
        knocked = score.knocker == seat
        return RoundEvents(knocked, knocked and bool(score.undercut), score.went_out == seat)

    def is_player(name: str) -> bool:
        guided = split_guided(name)
        if guided is None:
            return is_policy_name(name)
        return is_policy_name(guided[0]) and checkpoint_exists(guided[1])

    def player(name: str, seed: int | None) -> Any:
        if split_guided(name) is None:
            return get_policy(name, seed=seed)
        from training.policies import guided_search_player  # torch: only where one plays

        return guided_search_player(name, seed)

    def unknown(name: str, also_not: str) -> Exception:
        guided = split_guided(name)
        if guided is not None and is_policy_name(guided[0]):
            return CheckpointError(f"guided search player {name!r}: {missing_checkpoint(guided[1])}")
        return UnknownPolicyError(name, also_not)

    def compile_code(options: dict[str, Any], vector: bool) -> None:
        if vector:
            vector_env_class("carousel").compile_ahead(**options)
        else:
            solver.compile_ahead()

    return TrainingGame(
        name="carousel",
        defaults={
            "num_players": 2,
            "variant": "carousel",
            "round_bonus": "losers",
            "k_suggestions": 8,
            "episode": "round",
            "reward": "round_score",
            "reward_scale": None,
            "solve_time_budget": solver.TIME_BUDGET_S,
        },
        options=dict,
        check=check,
        policy_names=lambda: (*policy_names(), "search", "search@N", f"search@N{GUIDED_MARK}CHECKPOINT"),
        is_policy_name=is_player,
        scripted_policy=player,
        act=match.policy_action,
        result=result,
        finished_result=lambda episode, returns, game: EpisodeResult.of_game(
            episode, returns, game.rounds, game.scores, game.result
        ),
        unknown_policy=unknown,
        round_events=events,
        compile_ahead=compile_code,
        label=lambda keys: keys["variant"].replace("_", " ").title(),
        yardsticks=("greedy", "smart"),
        baselines=("greedy", "random"),
        solver_inexact=lambda: solver.solve_counts().inexact,
    )


# ---------------------------------------------------------------- Gin Rummy


def _gin_rummy() -> TrainingGame:
    from carousel_env.games.gin_rummy import policies
    from carousel_env.games.gin_rummy.config import GinEnvConfig, GinEnvConfigError
    from carousel_env.games.gin_rummy.engine import HandEnd
    from carousel_env.games.gin_rummy.players import PLAYERS, get_player

    # The family's key names for Gin's own, and back (an error names the key the config has).
    renamed = {"variant": "preset", "k_suggestions": "k_knocks"}
    config_key = {option: key for key, option in renamed.items()}

    def options(keys: Mapping[str, Any]) -> dict[str, Any]:
        return {renamed.get(key, key): value for key, value in keys.items()}

    def check(options: dict[str, Any]) -> None:
        try:
            GinEnvConfig.from_kwargs(**options)
        except GinEnvConfigError as exc:
            raise EnvKeyError(config_key.get(exc.key, exc.key), str(exc)) from None

    def is_player(name: str) -> bool:
        guided = split_guided(name)
        try:
            get_player(name if guided is None else guided[0])
        except CarouselError:
            return False
        return guided is None or checkpoint_exists(guided[1])

    def player(name: str, seed: int | None) -> Any:
        if split_guided(name) is None:
            return policies.resolve_policy(name, seed=seed)
        from training.policies import gin_guided_search_player  # torch: only where one plays

        return gin_guided_search_player(name, seed)

    def act(policy: Any, env: Any, seat: int, observation: Any, mask: Any) -> int:
        return policies.env_action(policy, env, observation, mask)

    def result(episode: Episode, returns: Any, env: Any) -> EpisodeResult:
        raw = env.unwrapped
        state = raw.game_state
        return EpisodeResult.of_game(episode, returns, raw.episode_hands, state.scores, state.game_result)

    def unknown(name: str, also_not: str) -> Exception:
        guided = split_guided(name)
        if guided is not None and is_player(guided[0]):
            return CheckpointError(f"guided search player {name!r}: {missing_checkpoint(guided[1])}")
        tried = f"not {also_not}, and " if also_not else ""
        return CarouselError(
            f"unknown Gin Rummy policy {name!r}: {tried}not a player ({', '.join(PLAYERS)}, search@N, "
            f"search@N{GUIDED_MARK}CHECKPOINT)"
        )

    def events(hand: Any, seat: int) -> RoundEvents:
        knocked = hand.knocker == seat
        return RoundEvents(knocked, knocked and bool(hand.undercut), knocked and hand.end is HandEnd.GIN)

    def compile_code(options: dict[str, Any], vector: bool) -> None:
        if vector:  # the AEC env runs no compiled code
            vector_env_class("gin_rummy").compile_ahead(**options)

    return TrainingGame(
        name="gin_rummy",
        defaults={
            "num_players": 2,
            "variant": game_spec("gin_rummy").variants[0],
            "k_suggestions": 8,
            "episode": "hand",
            "reward": "score",
            "reward_scale": None,
        },
        options=options,
        check=check,
        policy_names=lambda: (*PLAYERS, "search@N", f"search@N{GUIDED_MARK}CHECKPOINT"),
        is_policy_name=is_player,
        scripted_policy=player,
        act=act,
        result=result,
        finished_result=lambda episode, returns, game: EpisodeResult.of_game(
            episode, returns, game.hands, game.scores, game.result
        ),
        unknown_policy=unknown,
        round_events=events,
        compile_ahead=compile_code,
        label=lambda keys: f"Gin Rummy ({keys['variant']} rules)",
        yardsticks=("greedy", "simple"),
        baselines=("greedy", "random"),
        event_names=EventNames(went_out="gin"),
    )


# ---------------------------------------------------------------- Carioca


def carioca_result(episode: Episode, returns: Any, rounds: Any, scores: Any, game: Any) -> EpisodeResult:
    """A Carioca episode's result: its standings are the totals negated, because the lowest
    total wins and the family ranks the highest standing first; tied seats share the win."""
    winner = game.winners[0] if game is not None and len(game.winners) == 1 else None
    standings = tuple(-int(t) for t in scores)
    return EpisodeResult(episode, tuple(float(r) for r in returns), tuple(rounds), standings, winner)


def _carioca() -> TrainingGame:
    from carousel_env.games.carioca import policies
    from carousel_env.games.carioca.config import CariocaEnvConfig, CariocaEnvConfigError
    from carousel_env.games.carioca.players import PLAYERS, get_player

    renamed = {"k_suggestions": "k_go_down"}  # the family's key name for Carioca's own
    config_key = {option: key for key, option in renamed.items()}

    def options(keys: Mapping[str, Any]) -> dict[str, Any]:
        return {renamed.get(key, key): value for key, value in keys.items()}

    def check(options: dict[str, Any]) -> None:
        try:
            CariocaEnvConfig.from_kwargs(**options)
        except CariocaEnvConfigError as exc:
            raise EnvKeyError(config_key.get(exc.key, exc.key), str(exc)) from None

    def is_player(name: str) -> bool:
        try:
            get_player(name)
        except CarouselError:
            return False
        return True

    def act(policy: Any, env: Any, seat: int, observation: Any, mask: Any) -> int:
        return policies.env_action(policy, env, observation, mask)

    def result(episode: Episode, returns: Any, env: Any) -> EpisodeResult:
        state = env.unwrapped.game_state
        return carioca_result(episode, returns, state.rounds, state.scores, state.game_result)

    def unknown(name: str, also_not: str) -> Exception:
        tried = f"not {also_not}, and " if also_not else ""
        return CarouselError(f"unknown Carioca policy {name!r}: {tried}not a player ({', '.join(PLAYERS)}, search@N)")

    def events(result: Any, seat: int) -> RoundEvents:
        # Carioca has no knock: going down (laying out the contract) is counted in its place.
        return RoundEvents(bool(result.down and result.down[seat]), False, result.out == seat)

    def compile_code(options: dict[str, Any], vector: bool) -> None:
        if vector:  # the AEC env runs no compiled code
            vector_env_class("carioca").compile_ahead(**options)

    return TrainingGame(
        name="carioca",
        defaults={"num_players": 2, "k_suggestions": 8, "episode": "game", "reward": "score", "reward_scale": None},
        options=options,
        check=check,
        policy_names=lambda: (*PLAYERS, "search@N"),
        is_policy_name=is_player,
        scripted_policy=lambda name, seed: policies.resolve_policy(name, seed=seed),
        act=act,
        result=result,
        finished_result=lambda episode, returns, game: carioca_result(
            episode, returns, game.rounds, game.scores, game.result
        ),
        unknown_policy=unknown,
        round_events=events,
        compile_ahead=compile_code,
        label=lambda keys: "Carioca",
        yardsticks=("random", "simple"),
        baselines=("simple", "random"),
        event_names=EventNames(knocked="go-down", undercut=""),
    )


_BUILDERS: dict[str, Callable[[], TrainingGame]] = {
    "carousel": _carousel,
    "gin_rummy": _gin_rummy,
    "carioca": _carioca,
}
_built: dict[str, TrainingGame] = {}
assert set(_BUILDERS) == set(GAMES), "every registered game is trainable"


def training_game(name: str = DEFAULT_GAME) -> TrainingGame:
    """The registered game ``name`` as training sees it (an ``UnknownGame`` error names the games)."""
    game_spec(name)
    if name not in _built:  # each game's modules are imported when a run first asks for it
        _built[name] = _BUILDERS[name]()
    return _built[name]
