"""The family contract: what each game owes everything above its env.

Every game of the registry builds one :class:`FamilyGame` in its own folder
(``games/<game>/family.py``) and the registry names it by path, as it names the env module.
Training, evaluation, exploitability, leaderboards, decision costs, the demo and terminal
play read a game only through it, so adding a game touches its folder, not theirs.

What a game declares:

* its env options, documented (``options_doc``) and checked (``check``), the ones training
  plays under unless told otherwise (``train_options``), the option that picks among its
  registered variants (``variant_key``), and its scoring ``unit`` (the ``episode`` that
  plays one round or hand);
* its scripted players (``players``, ``player``, ``act``) and the search a network can guide
  (``guided_search``; the network itself is training's);
* what a finished episode leaves (``result``, ``finished_result``) and what each unit scored
  (``unit_points``, higher better; ``unit_events``, ``event_names``);
* the kinds of action a training run counts (``action_kinds``: Gin's knock, a pile taken)
  and its measure of progress, read from an observation (``progress``: Gin's deadwood);
* what a seat cannot see of the others' hands (``hidden_cards``), for a training critic;
* its compiled code (``compile_ahead``), its name in a run's log (``label``), the scripted
  players a trained agent is first measured against (``yardsticks``) and mixed in with
  (``baselines``);
* the positions its decision costs are timed on (``cost``), its leaderboard
  (``leaderboard``), its text at the terminal (``terminal``) and its table in cards for the
  page (``board``).

Pure data and callables: nothing here imports torch or a game.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any, NamedTuple

import numpy as np

from carousel_env.core.errors import CarouselError
from carousel_env.core.registry import DEFAULT_GAME, game_spec, load_named
from carousel_env.envkit.board import BoardSpec
from carousel_env.envkit.episodes import Act, Episode, EpisodeResult
from carousel_env.envkit.layout import CardActions, add_card_counts
from carousel_env.envkit.options import OptionDoc
from carousel_env.envkit.policies import env_action, policy_action
from carousel_env.envkit.terminal import Terminal


class UnitEvents(NamedTuple):
    """What one scoring unit (a round or a hand) says about a seat, for evaluation."""

    knocked: bool
    undercut: bool  # the seat knocked and was undercut
    went_out: bool  # Carousel: went out; Gin Rummy: knocked with gin


class EventNames(NamedTuple):
    """What a game calls the three :class:`UnitEvents` (an empty name: the game has no such
    event), for evaluation's report."""

    knocked: str = "knock"
    undercut: str = "undercut"
    went_out: str = "go-out"


KNOCK_EVENTS = EventNames()  # a knocking game's names (Carousel's)


HIDDEN_WIDTH = 53  # the hidden cards' vector: a count per card of the pack, then the joker
HIDDEN_JOKERS = 4  # the joker's count is over 4, the most jokers a pack of the family holds


def others_cards(hands: Sequence[Iterable[int]], seat: int) -> np.ndarray:
    """The cards every seat but ``seat`` holds, as :data:`HIDDEN_WIDTH` counts in the
    observations' card channel form (``envkit.layout.add_card_counts``: a card's count over 2,
    the joker's over :data:`HIDDEN_JOKERS`), every entry in [0, 1]: what ``seat`` cannot see and
    a training critic may (``FamilyGame.hidden_cards``)."""
    out = np.zeros(HIDDEN_WIDTH, np.float32)
    for other, hand in enumerate(hands):
        if other != seat:
            add_card_counts(out, 0, tuple(hand), HIDDEN_JOKERS)
    return out


class ActionKind(NamedTuple):
    """A kind of action a training run counts (Gin's knock): the env's actions ``first`` up to
    ``stop`` (None: every action from ``first`` on, the offer slots however many there are).
    Training logs, of the learner's decisions where one of them was legal, the share where it
    took one (``actions/<name>``)."""

    name: str
    first: int
    stop: int | None = None

    def actions(self, num_actions: int) -> range:
        """The kind's actions in an action space of ``num_actions``."""
        return range(self.first, num_actions if self.stop is None else min(self.stop, num_actions))


class EnvKeyError(CarouselError):
    """An env key a game does not take, or a value its env refuses; ``key`` names it."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(message)
        self.key = key


class CostDecision(NamedTuple):
    """A recorded position as an agent meets it: the engine state, the env's observation
    and mask for the player to act, and the env's suggestions (plays, knocks, arrangements)."""

    state: Any
    observation: np.ndarray
    mask: np.ndarray
    suggestions: tuple


@dataclass(frozen=True)
class CostPositions:
    """How a game's positions are recorded for timing decisions, and decided."""

    record: Callable[[int, int, int], list[CostDecision]]  # (players, count, seed)
    decide: Callable[[Any, CostDecision], int]  # (policy, decision) -> the action


@dataclass(frozen=True)
class LeaderboardFacts:
    """What a game's leaderboard plays: its table sizes, the env options every match plays
    under, its baselines, whether its shipped agents guide a search, its page."""

    table_sizes: tuple[int, ...]
    options: tuple[tuple[str, Any], ...]
    baselines: tuple[str, ...]
    guided: bool
    title: str
    page: str  # ``--out``'s default
    state_name: str  # the state file's default name, beside the page
    readme_tag: str | None  # the README's markers: ``<!-- {tag}:start -->``; None: the page alone (the README links it)
    how: str = ""  # how its matches are played, for its page (empty: every pair and table of 4, each deal per seat)
    played_unit: str = "game"  # what one of its games is: a whole "game", a "match" or a single "hand"
    # OpenSpiel's bots of the default roster, by OpenSpiel's names: played inside OpenSpiel's
    # game, single hands, and reported in a table of their own (not rated with the matches).
    openspiel_bots: tuple[str, ...] = ()
    # Other variants whose networks play this board too (the same observations and actions).
    seats_variants: tuple[str, ...] = ()
    timed: bool = True  # agents' decisions timed on the game's own positions


# A guided search player: (prior, samples or None for the game's default, suggestion slots,
# seed, name) -> a policy as the game's ``act`` plays it. ``prior``: batched
# ``(observations, masks) -> logits`` of a network.
GuidedSearch = Callable[[Callable[[np.ndarray, np.ndarray], np.ndarray], int | None, int, int | None, str], Any]


@dataclass(frozen=True)
class FamilyGame:
    """One game as everything above its env sees it (module docstring). Its env options are
    the keyword arguments of its env (``carousel_env.env(game=name, **options)``), by the
    game's own names."""

    name: str
    options_doc: tuple[OptionDoc, ...]  # every option the env takes, with its default and meaning
    check: Callable[[dict[str, Any]], None]  # the env config's own checks; raises EnvKeyError naming the option
    train_options: Mapping[str, Any]  # the options training plays under where its config sets none
    legacy_keys: Mapping[
        str, str
    ]  # the training configs' older env keys -> the game's options (read for one version, until 0.6)
    variant_key: str | None  # the option naming the registry's variants (None: the game has none)
    unit: str  # "round" or "hand": the scoring unit, and the ``episode`` that plays one
    players: tuple[str, ...]  # scripted players by name (``search@N`` aside)
    is_player: Callable[[str], bool]  # a scripted player's name (``search@N`` included)
    unknown_player: Callable[[str, str], Exception]  # (name, what else it is not) -> the error to raise
    player: Callable[[str, int | None], Any]  # (name, seed) -> the policy ``act`` plays
    act: Act  # how a policy plays a seat's decision in the AEC env
    result: Callable[[Episode, Any, Any], EpisodeResult]  # (episode, returns, AEC env)
    finished_result: Callable[[Episode, Any, Any], EpisodeResult]  # (episode, returns, finished game)
    unit_events: Callable[[Any, int], UnitEvents]  # (a unit's result, seat)
    unit_points: Callable[[Any], tuple[int, ...]]  # a unit's result -> each seat's points, higher better
    compile_ahead: Callable[[dict[str, Any], bool], None]  # (env kwargs, vector)
    label: Callable[[Mapping[str, Any]], str]  # env options -> what a run's log calls the game
    yardsticks: tuple[str, ...]  # the scripted players a trained agent is first measured against
    baselines: tuple[str, ...]  # the scripted players training mixes in by default
    cost: CostPositions
    terminal: Terminal
    board: BoardSpec  # its table in cards, for the page (``carousel serve``)
    leaderboard: LeaderboardFacts | None = None
    # Leaderboards of other variants, by variant name: ``carousel leaderboard --variant V``.
    variant_leaderboards: tuple[tuple[str, LeaderboardFacts], ...] = ()
    play_options: Mapping[str, Any] = field(default_factory=dict)  # env options of a whole game at the terminal
    demo_players: str = "simple"  # the demo's default player
    event_names: EventNames = KNOCK_EVENTS
    # A variant whose units' events differ from the game's (Manipulation Rummy has no knock).
    variant_event_names: tuple[tuple[str, EventNames], ...] = ()
    action_kinds: tuple[ActionKind, ...] = ()  # what training counts of the learner's actions
    # Observations (N, size) -> each observer's measure of progress, higher better (Gin: minus
    # its deadwood): training's potential for shaping (``shaping_coef``); None: the game has none.
    progress: Callable[[np.ndarray], np.ndarray] | None = None
    # (engine state, seat) -> what the seat cannot see of the other hands (``others_cards``):
    # training's state critic and auxiliary head read it; None: the game offers none.
    hidden_cards: Callable[[Any, int], np.ndarray] | None = None
    guided_search: GuidedSearch | None = None
    # Its discards and the observation's card channels, for a network's card head (config key
    # ``card_head``); None: the game has no card actions (Carousel plays the solver's offers).
    card_actions: CardActions | None = None
    solver_inexact: Callable[[], int] = lambda: 0  # solves of this process not proven exact
    # Given options -> the values the env settles them to (a preset's rules; None: the
    # documented defaults are what it plays): ``preset_resolver``.
    settle: Callable[[Mapping[str, Any]], Mapping[str, Any]] | None = None

    def events_of(self, variant: str | None) -> EventNames:
        """What ``variant`` (None: the game's default) calls its units' events."""
        return dict(self.variant_event_names).get(variant, self.event_names)

    def option_names(self) -> tuple[str, ...]:
        return tuple(d.key for d in self.options_doc)

    def resolved(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """Every option's value as the env plays ``options``: the given ones over the env's
        defaults, and what the game settles from them (a preset's rules)."""
        values = {**{d.key: d.default for d in self.options_doc}, **options}
        return values if self.settle is None else {**values, **self.settle(options)}


RECORD_EVERY = 3  # recorded positions keep every 3rd decision, so that they spread over a game


def record_positions(env: Any, reference: Callable[[Any, dict], int], count: int, seed: int, read: Callable) -> list:
    """``count`` decisions with more than one legal action (every :data:`RECORD_EVERY`-th),
    from seeded games of ``reference`` at every seat of the AEC ``env``;
    ``read(env, observation dict)`` records one."""
    positions: list = []
    seen = 0
    game = seed
    while len(positions) < count:
        env.reset(seed=game)
        for _ in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            if np.count_nonzero(obs["action_mask"]) > 1:
                if seen % RECORD_EVERY == 0 and len(positions) < count:
                    positions.append(read(env, obs))
                seen += 1
            env.step(int(reference(env, obs)))
        game += 1
    env.close()
    return positions


def engine_act(policy: Any, env: Any, seat: int, observation: np.ndarray, mask: np.ndarray) -> int:
    """``act`` for a game whose scripted players are engine players (:mod:`carousel_env.envkit.policies`):
    the seat to act is the engine state's."""
    del seat
    return env_action(policy, env, observation, mask)


def engine_decide(policy: Any, decision: CostDecision) -> int:
    """``cost.decide`` for a game whose scripted players are engine players."""
    return policy_action(policy, lambda: decision.state, decision.suggestions, decision.observation, decision.mask)


def vector_compile_ahead(vector_env: Any) -> Callable[[dict[str, Any], bool], None]:
    """``compile_ahead`` for a game whose AEC env runs no compiled code: its vector env's."""

    def compile_ahead(options: dict[str, Any], vector: bool) -> None:
        if vector:
            vector_env.compile_ahead(**options)

    return compile_ahead


def preset_resolver(config_class: type) -> Callable[[Mapping[str, Any]], dict[str, Any]]:
    """A game's ``settle`` for an env config built from a preset (``from_kwargs``, its
    ``rules``): the rules the preset and the given options make, and the config's own keys as
    it settles them (an episode or reward scale left to the rules). Enums by their values."""

    def plain(value: Any) -> Any:
        return value.value if isinstance(value, enum.Enum) else value

    def settle(options: Mapping[str, Any]) -> dict[str, Any]:
        config = config_class.from_kwargs(**dict(options))
        own = {f.name: getattr(config, f.name) for f in fields(config) if f.init and f.name != "rules_options"}
        return {**own, **{f.name: plain(getattr(config.rules, f.name)) for f in fields(config.rules)}}

    return settle


def config_check(config_class: type, error_class: type[Exception]) -> Callable[[dict[str, Any]], None]:
    """A game's ``check``: its env config class built from the options, its error (which
    names its key) raised as an :class:`EnvKeyError`."""

    def check(options: dict[str, Any]) -> None:
        try:
            config_class.from_kwargs(**options)
        except error_class as exc:
            raise EnvKeyError(exc.key, str(exc)) from None

    return check


def named_players(
    title: str, names: tuple[str, ...], get_player: Callable[[str], Any]
) -> tuple[Callable[[str], bool], Callable[[str, str], Exception]]:
    """A game's ``is_player`` and ``unknown_player`` from its ``get_player``, which raises a
    ``CarouselError`` for a name it has not (``names``: its players, for the error)."""

    def is_player(name: str) -> bool:
        try:
            get_player(name)
        except CarouselError:
            return False
        return True

    def unknown_player(name: str, also_not: str) -> Exception:
        tried = f"not {also_not}, and " if also_not else ""
        return CarouselError(f"unknown {title} policy {name!r}: {tried}not a player ({', '.join(names)}, search@N)")

    return is_player, unknown_player


def family_game(name: str = DEFAULT_GAME) -> FamilyGame:
    """The registered game ``name``'s family contract (its module imported now; an
    ``UnknownGame`` error names the games)."""
    return load_named(game_spec(name).family)
