"""Validated configuration of the Conquian env (see :mod:`carousel_env.games.conquian.env`).

The env's own keys, and any rules option of :class:`~carousel_env.games.conquian.rules.ConquianRules`
by name over a preset (``preset="foster", game_length="match"``). Every bad value raises
:class:`ConquianEnvConfigError` naming the offending key.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

from carousel_env.core.errors import CarouselError
from carousel_env.envkit.options import check_render, checked_reward_scale, documented
from carousel_env.games.conquian.rules import (
    NUM_PLAYERS,
    PRESETS,
    ConquianRules,
    ConquianRulesError,
    GameLength,
    Scoring,
)

EPISODES = ("match", "hand")
REWARDS = ("score", "result")
MAX_PLAY_SLOTS = 64
_RULE_KEYS = frozenset(f.name for f in fields(ConquianRules))


class ConquianEnvConfigError(CarouselError):
    """A bad Conquian env configuration value; ``key`` names the offending key."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(f"conquian env config {key!r}: {message}")
        self.key = key


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True)
class ConquianEnvConfig:
    preset: str = documented(
        "book", f"the rules: {', '.join(repr(p) for p in PRESETS)} (any rules option overrides it)"
    )
    rules_options: dict = field(default_factory=dict)  # ConquianRules options over the preset
    k_plays: int = documented(8, f"ways to meld a taken card offered per decision (slots K), 1 to {MAX_PLAY_SLOTS}")
    episode: str | None = documented(None, "'match' or 'hand' (None: the rules' game, a single hand by default)")
    reward: str = documented("score", "'score' (each hand's points, zero-sum) or 'result' (+1 win, -1 loss)")
    reward_scale: float | None = documented(None, "reward multiplier (None: 1, or 1/100 under scoring 'points')")
    render_mode: str | None = documented(None, "None, 'human', 'ansi' or 'rgb_array'")
    render_observer: int | None = documented(None, "the seat whose hand render shows (None: the player to act)")
    rules: ConquianRules = field(init=False, compare=False)

    def __post_init__(self) -> None:
        try:
            rules = ConquianRules.from_options(self.preset, **self.rules_options)
        except ConquianRulesError as exc:
            raise ConquianEnvConfigError(exc.option, str(exc)) from None
        object.__setattr__(self, "rules", rules)
        if not _is_int(self.k_plays) or not 1 <= self.k_plays <= MAX_PLAY_SLOTS:
            raise ConquianEnvConfigError("k_plays", f"must be an int from 1 to {MAX_PLAY_SLOTS}, got {self.k_plays!r}")
        episode = self.episode if self.episode is not None else rules.game_length.value
        if episode not in EPISODES:
            raise ConquianEnvConfigError("episode", f"must be one of {EPISODES}, got {self.episode!r}")
        if episode == "match" and rules.game_length is GameLength.HAND:
            raise ConquianEnvConfigError(
                "episode", "'match' needs rules with game_length='match' (these rules play single hands)"
            )
        object.__setattr__(self, "episode", episode)
        if self.reward not in REWARDS:
            raise ConquianEnvConfigError("reward", f"must be one of {REWARDS}, got {self.reward!r}")
        # A hand is worth one under scoring 'unit', up to 110 points under 'points'.
        default_scale = 0.01 if self.reward == "score" and rules.scoring is Scoring.POINTS else 1.0
        object.__setattr__(
            self, "reward_scale", checked_reward_scale(self.reward_scale, default_scale, ConquianEnvConfigError)
        )
        check_render(self.render_mode, self.render_observer, NUM_PLAYERS, ConquianEnvConfigError)

    @property
    def num_players(self) -> int:
        return NUM_PLAYERS

    @classmethod
    def from_kwargs(cls, **config: object) -> ConquianEnvConfig:
        """The config from env keyword arguments: the env's keys, and any rules option by name
        (``variant`` is the preset's other name, the family's word for a game's rules)."""
        own = {f.name for f in fields(cls) if f.init and f.name != "rules_options"}
        if "variant" in config:
            variant = config.pop("variant")
            if config.setdefault("preset", variant) != variant:
                raise ConquianEnvConfigError(
                    "variant", f"is the preset's other name: give one of them, not {variant!r} too"
                )
        # The family's common key: Conquian is heads-up only.
        if "num_players" in config and config.pop("num_players") != NUM_PLAYERS:
            raise ConquianEnvConfigError("num_players", "Conquian is played by 2 players")
        options = {key: config.pop(key) for key in list(config) if key in _RULE_KEYS}
        unknown = sorted(set(config) - own)
        if unknown:
            known = ", ".join(sorted(own | _RULE_KEYS | {"num_players"}))
            raise ConquianEnvConfigError(unknown[0], f"unknown key (known keys: {known})")
        return cls(rules_options=options, **config)  # type: ignore[arg-type]
