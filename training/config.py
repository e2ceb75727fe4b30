"""The training configuration: one flat dataclass, the one place every key is documented.

Each field is declared with its default and its documentation side by side (CleanRL style);
the documentation is field metadata, which ``field_docs()`` reads back without parsing source.
The YAML files in ``configs/`` hold only the keys that differ from these defaults, and
``carousel train --print-config`` prints a resolved config with each key's documentation as
a comment. Loading is strict on purpose: a typo in a YAML key or a ``--set`` override would
otherwise silently train with the default.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import sys
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import yaml

from carousel_env.core.errors import CarouselError
from carousel_env.core.registry import DEFAULT_GAME, GAMES, UnknownGame, game_spec
from carousel_env.envkit.layout import CardActions
from training.checkpoint_names import CHECKPOINT_FORMS, checkpoint_exists, is_checkpoint_name, missing_checkpoint
from training.device import DEVICE_DEFAULT, DEVICE_DOC, check_device_name
from training.envs import DEFAULT_ENV_FACTORY, EnvSpec
from training.games import EnvKeyError, FamilyGame, is_player_name, player_names, training_game

C = TypeVar("C")  # a config dataclass


class ConfigError(CarouselError):
    """A configuration file or override is wrong; the message names the key."""


def _documented(default: Any, doc: str) -> Any:
    """A config field whose (immutable) default and documentation are written together, once.

    A list field is declared with ``field(default_factory=..., metadata={"doc": ...})``
    instead, so that each config owns its list.
    """
    return field(default=default, metadata={"doc": doc})


@dataclass
class EnvKeys:
    """The environment's keys, declared once: both trainers' configs (``TrainConfig`` and
    ``training.rllib.config.RllibConfig``) embed them, as top-level YAML keys. ``game`` picks
    the game (``carousel_env.core.registry``); ``env`` holds the game's own env options, by
    the game's names, each checked and documented by the game's env config class
    (``carousel train --game G --print-config`` lists them). An option left out takes the
    game's training default (its ``train_options``), else its env's default."""

    game: str = _documented(DEFAULT_GAME, f"the game: {' or '.join(GAMES)}")
    num_players: int = _documented(2, "players at the table (the game's own range)")
    env: dict[str, Any] = field(
        default_factory=dict,
        metadata={
            "doc": "the game's env options, as carousel_env.env(game=..., **env) takes them (--set env.KEY=VALUE);"
            " an option left out takes the game's default, shown below"
        },
    )

    def family(self) -> FamilyGame:
        try:
            return training_game(self.game)
        except UnknownGame as exc:
            raise ConfigError(f"config key 'game': {exc}") from None

    def env_options(self) -> dict[str, Any]:
        """The game env's keyword arguments: the game's training defaults, ``env`` over them,
        and ``num_players``."""
        return {**self.family().train_options, **self.env, "num_players": self.num_players}

    def resolved_env(self) -> dict[str, Any]:
        """Every option of the game's env as this config plays it (the env's defaults filled in)."""
        return self.family().resolved(self.env_options())

    def label(self) -> str:
        """What a run's log calls the game and its rules."""
        return self.family().label(self.env_options())

    def evaluation_opponent(self) -> str:
        """``eval_opponent`` (of the config embedding these keys), or the game's first yardstick."""
        return getattr(self, "eval_opponent", None) or self.family().yardsticks[0]


# The env keys of the configs before 0.5, each read once into ``env`` under the game's name
# for it (the game's ``legacy_keys``); a null one is dropped.
LEGACY_ENV_KEYS = ("variant", "round_bonus", "k_suggestions", "episode", "reward", "reward_scale", "solve_time_budget")


def map_legacy_env_keys(values: dict[str, Any], game: str) -> tuple[dict[str, Any], list[str]]:
    """``values`` with the older env keys moved into ``env`` (``values``' own ``env`` wins),
    and the older keys that were given (a key the game has not is an error naming it)."""
    given = [key for key in LEGACY_ENV_KEYS if key in values]
    if not given:
        return values, []
    try:
        legacy = training_game(game).legacy_keys
    except UnknownGame as exc:
        raise ConfigError(f"config key 'game': {exc}") from None
    values = dict(values)
    moved: dict[str, Any] = {}
    for key in given:
        value = values.pop(key)
        if value is None:
            continue
        if key not in legacy:
            raise ConfigError(f"config key {key!r}: {game_spec(game).title} has no such option")
        moved[legacy[key]] = value
    env = values.get("env") or {}
    values["env"] = {**moved, **env} if isinstance(env, dict) else env
    return values, given


def check_names(config: Any) -> None:
    """Every key that names a policy or a checkpoint names one that exists, so that a typo
    fails when the config is resolved, not after training (``eval_opponent``: scripted or a
    checkpoint, comma-separated; ``baselines``: scripted; ``init_checkpoint``: a checkpoint)."""
    game = training_game(config.game)
    known = ", ".join(player_names(game))
    if hasattr(config, "baselines"):
        for name in config.baseline_names():
            if not is_player_name(game, name):
                raise ConfigError(f"config key 'baselines': {name!r} is not a scripted policy ({known})")
    for name in [n.strip() for n in config.evaluation_opponent().split(",") if n.strip()]:
        if is_player_name(game, name) or checkpoint_exists(name):
            continue
        if is_checkpoint_name(name):
            raise ConfigError(f"config key 'eval_opponent': {missing_checkpoint(name)}")
        raise ConfigError(
            f"config key 'eval_opponent': {name!r} is neither a scripted policy ({known}) nor a checkpoint"
            f" ({CHECKPOINT_FORMS})"
        )
    fixed = getattr(config, "fixed_opponent", None)
    if fixed is not None and not (is_player_name(game, fixed) or checkpoint_exists(fixed)):
        raise ConfigError(
            f"config key 'fixed_opponent': {missing_checkpoint(fixed)}"
            if is_checkpoint_name(fixed)
            else f"config key 'fixed_opponent': {fixed!r} is neither a scripted policy ({known}) nor a checkpoint"
        )
    start = config.init_checkpoint
    if start is not None and (is_player_name(game, start) or not checkpoint_exists(start)):
        raise ConfigError(f"config key 'init_checkpoint': {missing_checkpoint(start)}")


def check_env_keys(config: EnvKeys) -> None:
    """The env's own checks of the embedded keys, as a ``ConfigError`` naming the key
    (``env.KEY`` for the game's options)."""
    options = config.env_options()  # first: an unknown game, named
    for key, value in config.env.items():
        if not isinstance(key, str) or isinstance(value, (dict, list)):
            raise ConfigError(f"config key 'env': {key!r}: {value!r} is not an option's name and value")
    if "num_players" in config.env:
        raise ConfigError("config key 'env.num_players': the table size is the top-level key num_players")
    try:
        config.family().check(options)
    except EnvKeyError as exc:
        name = exc.key if exc.key == "num_players" else f"env.{exc.key}"
        raise ConfigError(f"config key {name!r}: {exc}") from None


CARD_HEAD_DOC = (
    "score the game's discards card by card: one MLP reads each card's values in the observation's card channels"
    " (training/network.py), so a rule learnt of one card holds for every card; the games with discards only"
)


def card_actions_of(config: EnvKeys) -> CardActions | None:
    """The card actions a network of ``config`` scores with its card head (config key
    ``card_head``); None without one. A game without discards is refused, naming the key."""
    if not getattr(config, "card_head", False):
        return None
    cards = config.family().card_actions
    if cards is None:
        raise ConfigError(f"config key 'card_head': {config.game} has no card actions (discards) to score card by card")
    return cards


STOP_WIN_RATE_DOC = (
    "stop the run (checkpoint written) at the first evaluation whose win rate against eval_opponent is at least"
    " this (null: train to the end); time to strength: benchmarks/bench_time_to_strength.py"
)


CRITICS = ("observation", "state")  # config key critic

SHAPING_DOC = (
    "potential-based shaping: add coef * (gamma * phi(next) - phi(now)) to each learner reward, phi the game's"
    " measure of progress read from its observation (Gin: minus the deadwood over 100; Carioca: minus the"
    " distance to the contract over its cards); the best policy is unchanged, evaluation unshaped (0: off)"
)


def check_shaping(config: Any) -> None:
    """Both trainers' ``shaping_coef``: finite, at least 0, and 0 in a game with no measure of progress."""
    coef = config.shaping_coef
    if not (math.isfinite(coef) and coef >= 0.0):
        raise ConfigError(f"config key 'shaping_coef': must be a finite number >= 0, got {coef}")
    if coef and config.family().progress is None:
        raise ConfigError(
            f"config key 'shaping_coef': {config.game} declares no measure of progress to shape with (set it to 0)"
        )


@dataclass(frozen=True)
class Bound:
    """A number key's allowed values: finite, from ``low`` (itself allowed unless ``open_low``)
    to ``high``; None passes where the key may be null."""

    low: float = 0.0
    high: float = math.inf
    open_low: bool = False

    def holds(self, value: float) -> bool:
        above = value > self.low if self.open_low else value >= self.low
        return math.isfinite(value) and above and value <= self.high

    def __str__(self) -> str:
        if self.high < math.inf:
            return f"in {'(' if self.open_low else '['}{self.low:g}, {self.high:g}]"
        return f"{'>' if self.open_low else '>='} {self.low:g}"


POSITIVE, AT_LEAST_0, UNIT = Bound(open_low=True), Bound(), Bound(high=1.0)


def check_bounds(config: Any, bounds: dict[str, Bound]) -> None:
    """Each key of ``bounds`` within its bound, or a ConfigError naming the key (both trainers:
    a bad learning rate fails at load time, not in torch's optimiser mid-run)."""
    for key, bound in bounds.items():
        value = getattr(config, key)
        if value is not None and not bound.holds(value):
            raise ConfigError(f"config key {key!r}: must be a finite number {bound}, got {value}")


def check_stop_win_rate(stop_win_rate: float | None, eval_games: int) -> None:
    """Config key ``stop_win_rate`` (both trainers): a win rate in (0, 1], with evaluations to reach it."""
    if stop_win_rate is None:
        return
    if isinstance(stop_win_rate, bool) or not isinstance(stop_win_rate, (int, float)) or not 0 < stop_win_rate <= 1:
        raise ConfigError(f"config key 'stop_win_rate': must be in (0, 1] or null, got {stop_win_rate!r}")
    if eval_games <= 0:
        raise ConfigError("config key 'stop_win_rate': needs evaluations (eval_games above 0)")


@dataclass
class TrainConfig(EnvKeys):
    # ---- experiment
    exp_name: str = _documented("ppo", "name of the run; the run directory defaults to runs/<exp_name>")
    seed: int = _documented(1, "seed of every random generator (python, numpy, torch, deals)")
    torch_deterministic: bool = _documented(True, "use deterministic torch kernels so CPU runs repeat exactly")
    torch_threads: int = _documented(1, "torch intra-op threads in the learner (tiny networks run fastest on one)")
    device: str = _documented(DEVICE_DEFAULT, DEVICE_DOC)

    # ---- environment: the keys of EnvKeys (above), then how training builds it
    env_factory: str = _documented(
        DEFAULT_ENV_FACTORY, "callable building the environment, as module:function (tests plug in a fake here)"
    )
    vector_env: bool = _documented(
        EnvSpec.vector,
        "step the game copies with the compiled vector env (false: one AEC env per copy; the same games, slower;"
        " an env_factory other than Carousel's always uses AEC envs)",
    )

    # ---- rollout and self-play
    total_timesteps: int = _documented(
        2_000_000,
        "learner decisions to train for, as total_timesteps // (num_envs x num_steps) updates (and the learning"
        " rate's schedule); rollouts finish their running episodes, so a run trains more: how much more is printed"
        " after its first update (env steps of opponents are not counted here)",
    )
    num_envs: int = _documented(16, "game copies played in parallel")
    num_steps: int = _documented(
        64,
        "learner decisions per game copy per rollout; a rollout then finishes running episodes (never cut: a cut"
        " would leave their later hands out of every batch), so with episodes longer than num_steps a rollout"
        " holds about num_envs whole episodes",
    )
    num_workers: int = _documented(0, "worker processes stepping the game copies (0: in the learner process)")
    learner_seats: int = _documented(1, "seats per game played by the learner; the other seats are opponents")
    pool_size: int = _documented(8, "frozen past checkpoints kept in the opponent pool (oldest dropped first)")
    pool_snapshot_interval: int = _documented(10, "updates between adding the current policy to the opponent pool")
    baseline_share: float = _documented(
        0.2, "share of opponent seats given to scripted baselines instead of pool checkpoints"
    )
    baseline_share_start: float | None = _documented(
        None,
        "staged opponents: the share of scripted baselines at the start, moving linearly to baseline_share over the"
        " first baseline_schedule_decisions learner decisions (null: baseline_share throughout)",
    )
    baseline_schedule_decisions: int = _documented(
        0, "learner decisions over which the share moves from baseline_share_start to baseline_share"
    )
    baselines: list[str] | None = _documented(  # noqa: RUF009 (the default is None, not a list)
        None,
        "scripted baselines (by name) used for that share, sampled uniformly (null: the game's own: greedy and"
        " random for Carousel and Gin Rummy, simple and random for Carioca)",
    )
    pfsp_power: float = _documented(
        2.0, "PFSP weight of a pool opponent: (1 - learner win rate against it) ** pfsp_power"
    )
    opponent_greedy: bool = _documented(False, "pool opponents play their most likely action instead of sampling")
    fixed_opponent: str | None = _documented(
        None,
        "every opponent seat played by this one agent instead of the pool and baselines: a checkpoint (its "
        "network frozen) or a scripted policy; a best response to it (carousel exploit)",
    )

    # ---- network
    hidden_size: int = _documented(128, "width of the global encoder and of the value/action trunk")
    slot_hidden_size: int = _documented(64, "width of the shared per-suggestion-slot MLP")
    card_head: bool = _documented(False, CARD_HEAD_DOC)
    init_checkpoint: str | None = _documented(
        None,
        "start from this checkpoint's network (a .pt file, run directory or shipped agent folder, "
        "e.g. checkpoints/ppo_2p; a relative path is from the current directory, as every path the CLI takes); "
        "it must have the same layout and sizes; optimiser starts fresh",
    )

    # ---- PPO
    learning_rate: float = _documented(3e-4, "Adam learning rate (start value when annealed)")
    anneal_lr: bool = _documented(True, "decay the learning rate linearly to zero over total_timesteps")
    gamma: float = _documented(0.995, "discount factor (per learner decision)")
    gae_lambda: float = _documented(0.95, "lambda of generalised advantage estimation")
    num_minibatches: int = _documented(4, "minibatches per epoch (their size follows the rollout's size)")
    update_epochs: int = _documented(4, "passes over each rollout")
    norm_adv: bool = _documented(True, "normalise advantages per minibatch")
    clip_coef: float = _documented(0.2, "PPO surrogate clipping coefficient")
    clip_vloss: bool = _documented(True, "clip the value loss around the rollout's values (PPO2 style)")
    ent_coef: float = _documented(0.01, "entropy bonus coefficient (entropy over legal actions only)")
    vf_coef: float = _documented(0.5, "value loss coefficient")
    max_grad_norm: float = _documented(0.5, "global gradient-norm clip")
    target_kl: float | None = _documented(
        None, "stop an update's epochs early once the approximate KL exceeds this (null: never)"
    )

    # ---- what a seat cannot see, for training only (training/network.py)
    critic: str = _documented(
        "observation",
        "what the value head reads: 'observation' (the acting seat's) or 'state' (also the cards the other seats"
        " hold: a centralised critic; the policy still sees only its observation)",
    )
    hidden_coef: float = _documented(
        0.0,
        "weight of an auxiliary loss: a head predicting which cards the other seats hold, fitted by cross-entropy"
        " to the true hands (0: no head)",
    )

    # ---- the learner's rewards (training/rewards.py)
    shaping_coef: float = _documented(0.0, SHAPING_DOC)
    normalize_returns: bool = _documented(
        False, "divide the learner's rewards by the running standard deviation of its episode returns"
    )

    # ---- evaluation, logging, checkpoints
    eval_interval: int = _documented(20, "updates between evaluations (0: only at the end)")
    eval_games: int = _documented(
        20, "games per evaluation (each deal played from every seat: rounded up to a multiple of num_players)"
    )
    eval_opponent: str | None = _documented(
        None,
        "who the periodic evaluation plays against: scripted players or checkpoints, comma-separated (null: the"
        " game's first yardstick: greedy for Carousel and Gin Rummy, random for Carioca)",
    )
    stop_win_rate: float | None = _documented(None, STOP_WIN_RATE_DOC)
    checkpoint_interval: int = _documented(10, "updates between checkpoints (the last update always writes one)")
    keep_best: bool = _documented(
        True, "write best.pt in the run directory at every evaluation whose win rate beats every earlier one"
    )
    progress_bar: bool = _documented(True, "show a tqdm progress bar (off: a line at each evaluation)")

    def baseline_names(self) -> list[str]:
        """The scripted baselines: ``baselines``, or the game's own when null."""
        return list(self.baselines) if self.baselines is not None else list(self.family().baselines)

    def baseline_share_at(self, decisions: int) -> float:
        """The share of scripted opponent seats after ``decisions`` learner decisions (the
        staged schedule of ``baseline_share_start``, else ``baseline_share``)."""
        if self.baseline_share_start is None:
            return self.baseline_share
        done = min(decisions / self.baseline_schedule_decisions, 1.0)
        return self.baseline_share_start + done * (self.baseline_share - self.baseline_share_start)

    @property
    def reads_hidden_cards(self) -> bool:
        """Whether training reads what the seats cannot see (a state critic or the auxiliary head)."""
        return self.critic == "state" or self.hidden_coef > 0

    @property
    def batch_target(self) -> int:
        """Learner decisions collected before a rollout stops starting new episodes."""
        return self.num_envs * self.num_steps

    @property
    def num_updates(self) -> int:
        return max(1, self.total_timesteps // self.batch_target)


# Values the loader checks beyond their type, so a bad one fails at load time, not mid-run.
_POSITIVE = (
    "num_envs",
    "num_steps",
    "num_minibatches",
    "update_epochs",
    "hidden_size",
    "slot_hidden_size",
    "learner_seats",
    "pool_size",
    "pool_snapshot_interval",
    "checkpoint_interval",
    "torch_threads",
)


_BOUNDS = {  # the numbers a key may take beyond its type
    "learning_rate": POSITIVE,
    "gamma": UNIT,
    "gae_lambda": UNIT,
    "clip_coef": POSITIVE,
    "ent_coef": AT_LEAST_0,
    "vf_coef": AT_LEAST_0,
    "max_grad_norm": POSITIVE,
    "target_kl": POSITIVE,
    "pfsp_power": AT_LEAST_0,
    "hidden_coef": AT_LEAST_0,
}


def _coerce(key: str, value: Any, annotation: Any) -> Any:
    """``value`` as the field's type, or a ConfigError naming ``key``."""
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        args = typing.get_args(annotation)
        if value is None and type(None) in args:
            return None
        (inner,) = [a for a in args if a is not type(None)]
        return _coerce(key, value, inner)
    if origin is dict:
        if value is None:
            return {}
        if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
            raise ConfigError(f"config key {key!r}: expected a mapping of option names to values, got {value!r}")
        return dict(value)
    if origin is list:
        (inner,) = typing.get_args(annotation)
        if isinstance(value, str):  # `--set baselines=greedy,random`
            value = [v.strip() for v in value.split(",") if v.strip()]
        if not isinstance(value, list):
            raise ConfigError(f"config key {key!r}: expected a list, got {value!r}")
        return [_coerce(key, v, inner) for v in value]
    if annotation in (int, float) and isinstance(value, str):
        # YAML 1.1 reads "1e-3" (no dot) as a string; a number field still means a number.
        with contextlib.suppress(ValueError):
            value = annotation(value)
    # bool is an int subclass, so it is rejected explicitly for int and float fields.
    if annotation is bool:
        if isinstance(value, bool):
            return value
    elif annotation is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, float) and value.is_integer():  # 1e6 in YAML is a float
            return int(value)
    elif annotation is float:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
    elif annotation is str and isinstance(value, str):
        return value
    name = getattr(annotation, "__name__", str(annotation))
    raise ConfigError(f"config key {key!r}: expected {name}, got {value!r} ({type(value).__name__})")


def _validate(config: TrainConfig) -> None:
    check_env_keys(config)
    check_device_name(config.device)
    for key in _POSITIVE:
        if getattr(config, key) < 1:
            raise ConfigError(f"config key {key!r}: must be at least 1, got {getattr(config, key)}")
    if config.learner_seats >= config.num_players:
        raise ConfigError("config key 'learner_seats': must leave at least one opponent seat")
    check_bounds(config, _BOUNDS)
    check_stop_win_rate(config.stop_win_rate, config.eval_games)
    for key in ("baseline_share", "baseline_share_start"):
        share = getattr(config, key)
        if share is not None and not 0.0 <= share <= 1.0:
            raise ConfigError(f"config key {key!r}: must be in [0, 1], got {share}")
    if config.baseline_share_start is not None and config.baseline_schedule_decisions < 1:
        raise ConfigError(
            "config key 'baseline_schedule_decisions': a staged share (baseline_share_start) needs at least 1 "
            f"learner decision to move over, got {config.baseline_schedule_decisions}"
        )
    if config.baseline_schedule_decisions < 0:
        raise ConfigError(
            f"config key 'baseline_schedule_decisions': must be >= 0, got {config.baseline_schedule_decisions}"
        )
    if config.num_workers < 0 or config.num_workers > config.num_envs:
        raise ConfigError(f"config key 'num_workers': must be 0 to num_envs, got {config.num_workers}")
    check_shaping(config)
    if config.critic not in CRITICS:
        raise ConfigError(f"config key 'critic': must be one of {', '.join(CRITICS)}, got {config.critic!r}")
    card_actions_of(config)
    if config.reads_hidden_cards and config.family().hidden_cards is None:
        key = "critic" if config.critic == "state" else "hidden_coef"
        raise ConfigError(f"config key {key!r}: {config.game} offers no hidden cards to train from")


def build_config(
    cls: type[C], values: dict[str, Any], base: C | None, validate: Callable[[C], None], where: str = ""
) -> C:
    """A validated config of dataclass ``cls``: ``base`` (defaults if None) with ``values``
    replacing fields, each coerced to its annotation; ``where`` ends an unknown key's message.
    ``env`` merges into the base's (an option set to null goes back to its default), and
    an ``EnvKeys`` config reads the older env keys into it (``map_legacy_env_keys``)."""
    if not isinstance(values, dict):
        raise ConfigError(f"a config must be a mapping of keys to values, got {type(values).__name__}")
    base = base or cls()
    if isinstance(base, EnvKeys):
        values, _ = map_legacy_env_keys(values, values.get("game", base.game))
    types_by_key = typing.get_type_hints(cls)
    clean = {}
    for key, value in values.items():
        if key not in types_by_key:
            raise ConfigError(f"unknown config key {key!r}{where}")
        clean[key] = _coerce(key, value, types_by_key[key])
    if "env" in clean and isinstance(base, EnvKeys):
        game_changes = clean.get("game", base.game) != base.game
        merged = {**({} if game_changes else base.env), **clean["env"]}
        clean["env"] = {key: value for key, value in merged.items() if value is not None}
    elif clean.get("game", getattr(base, "game", None)) != getattr(base, "game", None):
        clean["env"] = {}  # another game's options do not carry over
    config = dataclasses.replace(base, **clean)
    validate(config)
    return config


def from_dict(values: dict[str, Any], base: TrainConfig | None = None) -> TrainConfig:
    """A validated config: ``base`` (defaults if None) with ``values`` replacing fields."""
    return build_config(TrainConfig, values, base, _validate)


def parse_overrides(pairs: list[str]) -> dict[str, Any]:
    """``["lr=0.1", "baselines=greedy,random", "env.knock_limit=7"]`` -> a dict; values are
    YAML scalars, and ``env.KEY`` sets one of the game's env options."""
    result: dict[str, Any] = {}
    for pair in pairs:
        key, sep, text = pair.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ConfigError(f"override {pair!r} is not key=value")
        try:
            value = yaml.safe_load(text) if text.strip() else ""
        except yaml.YAMLError:
            value = text
        head, dot, option = key.partition(".")
        if dot:
            if head != "env" or not option:
                raise ConfigError(f"override {pair!r}: only env options are set by a dotted key (env.KEY=VALUE)")
            result.setdefault("env", {})[option] = value
        else:
            result[key] = value
    return result


def read_config_file(path: str | Path | None) -> dict[str, Any]:
    """The keys of a YAML config file (None: no file, no keys)."""
    if path is None:
        return {}
    try:
        text = Path(path).read_text()
    except OSError as exc:
        raise ConfigError(f"cannot read config {path}: {exc.strerror}") from None
    try:
        return yaml.safe_load(text) or {}
    except yaml.YAMLError as exc:
        raise ConfigError(f"config {path} is not valid YAML: {exc}") from None


def load_config(path: str | Path | None, overrides: list[str] | None = None) -> TrainConfig:
    """Read a YAML config (None: the defaults) and apply ``key=value`` overrides."""
    config = from_dict(note_legacy_keys(read_config_file(path), str(path)))
    if overrides:
        config = from_dict(note_legacy_keys(parse_overrides(overrides), "--set"), base=config)
    return config


def note_legacy_keys(values: dict[str, Any], where: str) -> dict[str, Any]:
    """``values`` as they are, after a line on stderr naming the older env keys among them
    (read for this version, as ``env.KEY``)."""
    if isinstance(values, dict):
        older = [key for key in LEGACY_ENV_KEYS if key in values]
        if older:
            print(
                f"{where}: {', '.join(older)} {'is' if len(older) == 1 else 'are'} read as the game's env options "
                "(write them under env:, by the game's names, e.g. env.preset for Gin Rummy's variant)",
                file=sys.stderr,
            )
    return values


def to_dict(config: Any) -> dict[str, Any]:
    return dataclasses.asdict(config)


def save_config(config: Any, path: str | Path) -> None:
    """Write a config dataclass (``TrainConfig`` or another built the same way) as YAML."""
    Path(path).write_text(yaml.safe_dump(to_dict(config), sort_keys=False))


def field_docs(cls: type | None = None) -> dict[str, str]:
    """Each config key's documentation, in field order (written once, in the dataclass:
    ``TrainConfig`` unless ``cls`` says another)."""
    return {f.name: f.metadata["doc"] for f in dataclasses.fields(cls or TrainConfig)}


class _ConfigDumper(yaml.SafeDumper):
    """Writes lists inline (``baselines: [greedy, random]``), as a hand-written config does."""


_ConfigDumper.add_representer(
    list, lambda dumper, data: dumper.represent_sequence("tag:yaml.org,2002:seq", data, flow_style=True)
)


def _yaml_value(value: Any) -> str:
    """``value`` as it reads after ``key:`` in a YAML mapping (quoted where YAML needs it)."""
    line = yaml.dump({"v": value}, Dumper=_ConfigDumper, default_flow_style=False, width=math.inf)
    return line.removeprefix("v: ").rstrip("\n")


def format_config(config: Any, header: list[str] | None = None) -> str:
    """``config`` (a ``TrainConfig``, or another config dataclass built the same way) as YAML
    that its ``load_config`` reads back, each key under its documentation.

    ``header`` lines open the text as comments. A key whose value is not the default names
    the default at the end of its line, so the output shows what a config file or override
    changed. ``env`` lists every option of the game that training plays under, each under
    its documentation: the ones the config sets as keys, the others commented out at the
    value the game gives them.
    """
    defaults = type(config)()
    lines = [f"# {line}" for text in header or [] for line in text.splitlines()]
    if lines:
        lines.append("")
    for key, doc in field_docs(type(config)).items():
        value, default = getattr(config, key), getattr(defaults, key)
        lines.extend(f"# {doc_line}" for doc_line in doc.splitlines())
        if key == "env" and isinstance(config, EnvKeys):
            lines.extend(_format_env(config))
            continue
        changed = "" if value == default else f"  # default: {_yaml_value(default)}"
        lines.append(f"{key}: {_yaml_value(value)}{changed}")
    return "\n".join(lines) + "\n"


# The env options a training config does not set: the table size is a key of its own, and
# training never renders.
NOT_TRAINING_OPTIONS = ("num_players", "render_mode", "render_observer")


def _format_env(config: EnvKeys) -> list[str]:
    """The ``env`` mapping's lines: every option of the game, documented, the unset ones
    commented out at the value the game gives them."""
    family = config.family()
    resolved = config.resolved_env()
    lines = ["env:" if config.env else "env: {}"]
    for option in family.options_doc:
        if option.key in NOT_TRAINING_OPTIONS:
            continue
        lines.append(f"  # {option.doc}")
        if option.key in config.env:
            lines.append(f"  {option.key}: {_yaml_value(config.env[option.key])}")
        else:
            given = "training's" if option.key in family.train_options else "the env's"
            lines.append(f"  #{option.key}: {_yaml_value(resolved[option.key])}  ({given} default)")
    documented = set(family.option_names())
    lines.extend(f"  {key}: {_yaml_value(value)}" for key, value in config.env.items() if key not in documented)
    return lines
