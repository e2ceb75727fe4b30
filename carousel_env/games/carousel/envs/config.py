"""Validated configuration of the Carousel environment (see :mod:`carousel_env.games.carousel.envs.aec`).

Every bad value raises :class:`EnvConfigError` naming the offending key, so a typo in a
training config fails at construction with a message that says what to fix.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from carousel_env.core.errors import CarouselError
from carousel_env.envkit.options import check_render, checked_reward_scale, documented
from carousel_env.games.carousel.engine.rules import Rules
from carousel_env.games.carousel.solver import TIME_BUDGET_S

EPISODES = ("game", "round")
REWARDS = ("round_score", "game_result")
# The family's names for the same rewards (Gin Rummy's and Carioca's), read as Carousel's.
REWARD_ALIASES = {"score": "round_score", "result": "game_result"}
# Default reward_scale per reward kind: round_score differences are tens of points, so
# 1/100 keeps per-round rewards near [-1, 1]; game_result is already in [-1, 1].
DEFAULT_REWARD_SCALE = {"round_score": 0.01, "game_result": 1.0}


class EnvConfigError(CarouselError):
    """A bad environment configuration value; ``key`` names the offending key."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(f"carousel env config {key!r}: {message}")
        self.key = key


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True)
class EnvConfig:
    num_players: int = documented(2, "players at the table, 2 to 5 (3 to 5 for manipulation_rummy)")
    variant: str = documented("carousel", "the rules: 'carousel' or 'manipulation_rummy' (source 004)")
    round_bonus: str = documented("losers", "who scores a round's bonus: 'losers' or 'everyone'")
    k_suggestions: int = documented(8, "the solver's plays offered per decision (actions 3.., slots K), 1 to 64")
    episode: str = documented("game", "'game' (to the target score) or 'round' (one round an episode)")
    reward: str = documented(
        "round_score",
        "'round_score' (each round's points, zero-sum) or 'game_result' (+1 win, -1 loss, at the end); 'score' and"
        " 'result', the other games' names, are read as them",
    )
    reward_scale: float | None = documented(None, "reward multiplier (None: 1/100 for round_score, 1 for game_result)")
    render_mode: str | None = documented(None, "None, 'human', 'ansi' or 'rgb_array'")
    render_observer: int | None = documented(None, "the seat whose hand render shows (None: the player to act)")
    solve_time_budget: float = documented(
        TIME_BUDGET_S, "seconds per solve before the solver offers the best plays it found"
    )

    def __post_init__(self) -> None:
        if not _is_int(self.num_players) or not 2 <= self.num_players <= 5:
            raise EnvConfigError("num_players", f"must be an int from 2 to 5, got {self.num_players!r}")
        try:
            rules = Rules(num_players=self.num_players, variant=self.variant, round_bonus=self.round_bonus)
        except CarouselError as exc:
            key = "round_bonus" if "round_bonus" in str(exc) else "variant"
            raise EnvConfigError(key, str(exc)) from None
        object.__setattr__(self, "variant", rules.variant.value)
        object.__setattr__(self, "round_bonus", rules.round_bonus.value)
        if not _is_int(self.k_suggestions) or not 1 <= self.k_suggestions <= 64:
            raise EnvConfigError("k_suggestions", f"must be an int from 1 to 64, got {self.k_suggestions!r}")
        if self.episode not in EPISODES:
            raise EnvConfigError("episode", f"must be one of {EPISODES}, got {self.episode!r}")
        object.__setattr__(self, "reward", REWARD_ALIASES.get(self.reward, self.reward))
        if self.reward not in REWARDS:
            raise EnvConfigError(
                "reward", f"must be one of {REWARDS} (or {tuple(REWARD_ALIASES)}), got {self.reward!r}"
            )
        object.__setattr__(
            self,
            "reward_scale",
            checked_reward_scale(self.reward_scale, DEFAULT_REWARD_SCALE[self.reward], EnvConfigError),
        )
        budget = self.solve_time_budget
        if isinstance(budget, bool) or not isinstance(budget, (int, float)) or not 0.001 <= budget <= 3600:
            raise EnvConfigError("solve_time_budget", f"must be a number of seconds from 0.001 to 3600, got {budget!r}")
        check_render(self.render_mode, self.render_observer, self.num_players, EnvConfigError)

    @property
    def rules(self) -> Rules:
        return Rules(num_players=self.num_players, variant=self.variant, round_bonus=self.round_bonus)

    @classmethod
    def from_kwargs(cls, **config: object) -> EnvConfig:
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(config) - known)
        if unknown:
            raise EnvConfigError(unknown[0], f"unknown key (known keys: {', '.join(sorted(known))})")
        return cls(**config)  # type: ignore[arg-type]
