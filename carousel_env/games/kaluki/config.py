"""Validated configuration of the Kaluki env (see :mod:`carousel_env.games.kaluki.env`).

The env's own keys, and any rules option of :class:`~carousel_env.games.kaluki.rules.KalukiRules`
by name over a preset (``preset="uk40", limit=100``; ``preset="rummy"`` is plain Rummy).
Every bad value raises :class:`KalukiEnvConfigError` naming the offending key.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

from carousel_env.core.errors import CarouselError
from carousel_env.envkit.options import check_render, checked_reward_scale, documented
from carousel_env.games.kaluki.rules import MAX_PLAYERS, MIN_PLAYERS, PRESETS, GameLength, KalukiRules, KalukiRulesError

EPISODES = ("match", "hand")
REWARDS = ("score", "result")
# A hand's points run to a couple of hundred: 1/100 keeps a hand's reward near [-2, 2].
DEFAULT_REWARD_SCALE = {"score": 0.01, "result": 1.0}
MAX_PLAY_SLOTS = 64
_RULE_KEYS = frozenset(f.name for f in fields(KalukiRules))


class KalukiEnvConfigError(CarouselError):
    """A bad Kaluki env configuration value; ``key`` names the offending key."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(f"kaluki env config {key!r}: {message}")
        self.key = key


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True)
class KalukiEnvConfig:
    preset: str = documented(
        "book", f"the rules: {', '.join(repr(p) for p in PRESETS)} (any rules option overrides it)"
    )
    rules_options: dict = field(default_factory=dict)  # KalukiRules options over the preset
    num_players: int = documented(2, f"players at the table, {MIN_PLAYERS} to {MAX_PLAYERS}")
    k_plays: int = documented(
        8, f"plays offered per decision, and ways to take the discard with melds (slots K), 1 to {MAX_PLAY_SLOTS}"
    )
    episode: str | None = documented(None, "'match' or 'hand' (None: the rules' game, a match by default)")
    reward: str = documented("score", "'score' (each hand's points, zero-sum) or 'result' (+1 win .. -1 last)")
    reward_scale: float | None = documented(None, "reward multiplier (None: 1/100 for score, 1 for result)")
    render_mode: str | None = documented(None, "None, 'human', 'ansi' or 'rgb_array'")
    render_observer: int | None = documented(None, "the seat whose hand render shows (None: the player to act)")
    rules: KalukiRules = field(init=False, compare=False)

    def __post_init__(self) -> None:
        try:
            rules = KalukiRules.from_options(self.preset, **self.rules_options)
        except KalukiRulesError as exc:
            raise KalukiEnvConfigError(exc.option, str(exc)) from None
        object.__setattr__(self, "rules", rules)
        if not _is_int(self.num_players) or not MIN_PLAYERS <= self.num_players <= MAX_PLAYERS:
            raise KalukiEnvConfigError(
                "num_players", f"must be an int from {MIN_PLAYERS} to {MAX_PLAYERS}, got {self.num_players!r}"
            )
        if not _is_int(self.k_plays) or not 1 <= self.k_plays <= MAX_PLAY_SLOTS:
            raise KalukiEnvConfigError("k_plays", f"must be an int from 1 to {MAX_PLAY_SLOTS}, got {self.k_plays!r}")
        episode = self.episode if self.episode is not None else rules.game_length.value
        if episode not in EPISODES:
            raise KalukiEnvConfigError("episode", f"must be one of {EPISODES}, got {self.episode!r}")
        if episode == "match" and rules.game_length is GameLength.HAND:
            raise KalukiEnvConfigError(
                "episode", "'match' needs rules with game_length='match' (these rules play single hands)"
            )
        object.__setattr__(self, "episode", episode)
        if self.reward not in REWARDS:
            raise KalukiEnvConfigError("reward", f"must be one of {REWARDS}, got {self.reward!r}")
        object.__setattr__(
            self,
            "reward_scale",
            checked_reward_scale(self.reward_scale, DEFAULT_REWARD_SCALE[self.reward], KalukiEnvConfigError),
        )
        check_render(self.render_mode, self.render_observer, self.num_players, KalukiEnvConfigError)

    @classmethod
    def from_kwargs(cls, **config: object) -> KalukiEnvConfig:
        """The config from env keyword arguments: the env's keys, and any rules option by name
        (``variant`` is the preset's other name, the family's word for a game's rules)."""
        own = {f.name for f in fields(cls) if f.init and f.name != "rules_options"}
        if "variant" in config:
            variant = config.pop("variant")
            if config.setdefault("preset", variant) != variant:
                raise KalukiEnvConfigError(
                    "variant", f"is the preset's other name: give one of them, not {variant!r} too"
                )
        options = {key: config.pop(key) for key in list(config) if key in _RULE_KEYS}
        unknown = sorted(set(config) - own)
        if unknown:
            known = ", ".join(sorted(own | _RULE_KEYS))
            raise KalukiEnvConfigError(unknown[0], f"unknown key (known keys: {known})")
        return cls(rules_options=options, **config)  # type: ignore[arg-type]
