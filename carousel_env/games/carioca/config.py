"""Validated configuration of the Carioca env (see :mod:`carousel_env.games.carioca.env`).

Every bad value raises :class:`CariocaEnvConfigError` naming the offending key.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from carousel_env.core.errors import CarouselError
from carousel_env.envkit.options import check_render, checked_reward_scale, documented
from carousel_env.games.carioca.rules import MAX_PLAYERS, MIN_PLAYERS

EPISODES = ("game", "round")
REWARDS = ("score", "result")
# A round's penalties run to a few hundred points: 1/100 keeps a round's reward near [-2, 2].
DEFAULT_REWARD_SCALE = {"score": 0.01, "result": 1.0}
MAX_GO_DOWN_SLOTS = 64


class CariocaEnvConfigError(CarouselError):
    """A bad Carioca env configuration value; ``key`` names the offending key."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(f"carioca env config {key!r}: {message}")
        self.key = key


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True)
class CariocaEnvConfig:
    num_players: int = documented(2, f"players at the table, {MIN_PLAYERS} to {MAX_PLAYERS}")
    k_go_down: int = documented(
        8, f"going-down arrangements offered per decision (actions 1645.., slots K), 1 to {MAX_GO_DOWN_SLOTS}"
    )
    episode: str = documented("game", "'game' (the six rounds) or 'round' (the first round only)")
    reward: str = documented("score", "'score' (each round's penalties, zero-sum) or 'result' (+1 win, -1 loss)")
    reward_scale: float | None = documented(None, "reward multiplier (None: 1/100 for score, 1 for result)")
    render_mode: str | None = documented(None, "None, 'human', 'ansi' or 'rgb_array'")
    render_observer: int | None = documented(None, "the seat whose hand render shows (None: the player to act)")

    def __post_init__(self) -> None:
        if not _is_int(self.num_players) or not MIN_PLAYERS <= self.num_players <= MAX_PLAYERS:
            raise CariocaEnvConfigError(
                "num_players", f"must be an int from {MIN_PLAYERS} to {MAX_PLAYERS}, got {self.num_players!r}"
            )
        if not _is_int(self.k_go_down) or not 1 <= self.k_go_down <= MAX_GO_DOWN_SLOTS:
            raise CariocaEnvConfigError(
                "k_go_down", f"must be an int from 1 to {MAX_GO_DOWN_SLOTS}, got {self.k_go_down!r}"
            )
        if self.episode not in EPISODES:
            raise CariocaEnvConfigError("episode", f"must be one of {EPISODES}, got {self.episode!r}")
        if self.reward not in REWARDS:
            raise CariocaEnvConfigError("reward", f"must be one of {REWARDS}, got {self.reward!r}")
        object.__setattr__(
            self,
            "reward_scale",
            checked_reward_scale(self.reward_scale, DEFAULT_REWARD_SCALE[self.reward], CariocaEnvConfigError),
        )
        check_render(self.render_mode, self.render_observer, self.num_players, CariocaEnvConfigError)

    @classmethod
    def from_kwargs(cls, **config: object) -> CariocaEnvConfig:
        """The config from env keyword arguments; an unknown key is named with the known ones."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(config) - known)
        if unknown:
            raise CariocaEnvConfigError(unknown[0], f"unknown key (known keys: {', '.join(sorted(known))})")
        return cls(**config)  # type: ignore[arg-type]
