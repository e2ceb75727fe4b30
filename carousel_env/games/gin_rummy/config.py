"""Validated configuration of the Gin Rummy env (see :mod:`carousel_env.games.gin_rummy.env`).

Every bad value raises :class:`GinEnvConfigError` naming the offending key.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

from carousel_env.core.errors import CarouselError
from carousel_env.envkit.options import check_render, checked_reward_scale, documented
from carousel_env.games.gin_rummy.rules import NUM_PLAYERS, GameLength, GinRules, GinRulesError

EPISODES = ("hand", "match")
REWARDS = ("score", "result")
# Hands are worth tens of points: 1/100 keeps a hand's reward near [-1, 1].
DEFAULT_REWARD_SCALE = {"score": 0.01, "result": 1.0}
_RULE_KEYS = frozenset(f.name for f in fields(GinRules))


class GinEnvConfigError(CarouselError):
    """A bad Gin env configuration value; ``key`` names the offending key."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(f"gin_rummy env config {key!r}: {message}")
        self.key = key


@dataclass(frozen=True)
class GinEnvConfig:
    preset: str = documented("book", "the rules: 'book', 'openspiel' or 'eaai' (any rules option overrides it)")
    rules_options: dict = field(default_factory=dict)  # GinRules options over the preset
    k_knocks: int = documented(8, "knock arrangements offered per decision (actions 55.., slots K), 1 to 64")
    episode: str | None = documented(
        None, "'hand' or 'match' (None: the rules' game: a match for book and eaai, a hand for openspiel)"
    )
    reward: str = documented("score", "'score' (each hand's points, zero-sum) or 'result' (+1 win, -1 loss)")
    reward_scale: float | None = documented(None, "reward multiplier (None: 1/100 for score, 1 for result)")
    render_mode: str | None = documented(None, "None, 'human', 'ansi' or 'rgb_array'")
    render_observer: int | None = documented(None, "the seat whose hand render shows (None: the player to act)")
    rules: GinRules = field(init=False, compare=False)

    def __post_init__(self) -> None:
        try:
            rules = GinRules.from_options(self.preset, **self.rules_options)
        except GinRulesError as exc:
            raise GinEnvConfigError(exc.option, str(exc)) from None
        object.__setattr__(self, "rules", rules)
        if not isinstance(self.k_knocks, int) or isinstance(self.k_knocks, bool) or not 1 <= self.k_knocks <= 64:
            raise GinEnvConfigError("k_knocks", f"must be an int from 1 to 64, got {self.k_knocks!r}")
        episode = self.episode if self.episode is not None else rules.game_length.value
        if episode not in EPISODES:
            raise GinEnvConfigError("episode", f"must be one of {EPISODES}, got {self.episode!r}")
        if episode == "match" and rules.game_length is GameLength.HAND:
            raise GinEnvConfigError(
                "episode", "'match' needs rules with game_length='match' (this preset plays single hands)"
            )
        object.__setattr__(self, "episode", episode)
        if self.reward not in REWARDS:
            raise GinEnvConfigError("reward", f"must be one of {REWARDS}, got {self.reward!r}")
        object.__setattr__(
            self,
            "reward_scale",
            checked_reward_scale(self.reward_scale, DEFAULT_REWARD_SCALE[self.reward], GinEnvConfigError),
        )
        check_render(self.render_mode, self.render_observer, NUM_PLAYERS, GinEnvConfigError)

    @classmethod
    def from_kwargs(cls, **config: object) -> GinEnvConfig:
        """The config from env keyword arguments: the env's keys, and any rules option by name."""
        own = {f.name for f in fields(cls) if f.init and f.name != "rules_options"}
        if "variant" in config:  # the family's word for a game's rules (the command line's --variant)
            variant = config.pop("variant")
            if config.setdefault("preset", variant) != variant:
                raise GinEnvConfigError("variant", f"is the preset's other name: give one of them, not {variant!r} too")
        # The family's common key: Gin is heads-up only.
        if "num_players" in config and config.pop("num_players") != 2:
            raise GinEnvConfigError("num_players", "Gin Rummy is played by 2 players")
        options = {key: config.pop(key) for key in list(config) if key in _RULE_KEYS}
        unknown = sorted(set(config) - own)
        if unknown:
            known = ", ".join(sorted(own | _RULE_KEYS | {"num_players"}))
            raise GinEnvConfigError(unknown[0], f"unknown key (known keys: {known})")
        return cls(rules_options=options, **config)  # type: ignore[arg-type]
