"""The soak run: many complete games through the AEC env, every invariant checked after
every action. ``benchmarks.soak`` is its command line; ``tests/games/carousel/test_soak.py`` its CI slice.

    .venv/bin/python -m benchmarks.soak --games N [--workers W] [--seed S]

Game ``g`` of a run is dealt with seed ``S + g``. That seed alone picks the game's table
(Carousel with either ``round_bonus`` option, or Manipulation Rummy; 2 to 5 players, 3 to
5 for the variant) and who sits in each seat (``random``, ``greedy`` or ``smart``), so a
game replays on its own: ``--games 1 --seed <its seed> --workers 0``.

Checked after the reset and after every action (``env.step``):

* cards: hands + table (a table joker counts as a joker) + stock = the deck, as multisets;
* melds: every meld on the table is a valid set or run (``engine.melds``);
* observations, of every agent: inside the observation space (the Box bounds, shape and
  dtype); the agent to act, the engine's current player, has a mask with at least two
  legal actions (the env takes single choices itself) that agrees with the engine's
  allowed kinds and suggestions; every other agent has an all-zero mask and empty slots;
* infos: every agent sees the same fixed-key numeric infos, which agree with the raw env's
  well-formed ``auto_actions`` and ``round_results``; in Manipulation Rummy the stock
  shrinks by exactly the forced draws reported; ``round_results`` holds exactly the
  rounds that finished in the step;
* rounds: each finished round is scored again here from its final hands by RULES.md's
  formulas, not by ``engine.scoring``: hand values, how it ended, points, winners and
  undercut, then the running totals and rounds won; neither game-length cap is reached;
* the game's end: it ends exactly when a total reaches 150; the winner, bonuses (the
  ``round_bonus`` option), totals and standings; each agent's summed rewards are
  ``0.01 * (own total - mean of the others')`` (the env's default ``round_score``).

A violation names the game (its seed), the step (player decisions so far) and what
broke; the game stops there, the run goes on, and the command exits 1 if there was any.
Worker processes (spawned) share the games; the figures are printed, never asserted.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import random
import time
import traceback
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from carousel_env.games.carousel.agents.baselines import Policy
from carousel_env.games.carousel.agents.registry import get_policy, policy_names
from carousel_env.games.carousel.engine.rules import Variant
from tests.support.soak_checks import CheckedEnv, GameChecker

# (variant, round_bonus) of the tables played, drawn with equal chances.
TABLE_KINDS = (("carousel", "losers"), ("carousel", "everyone"), ("manipulation_rummy", "losers"))
POLICIES = policy_names()  # random, greedy, smart
MAX_PLAYERS = 5
# Rounds end within stock + players turns (engine/game.py); a game that takes more player
# decisions than this is stuck, whatever the engine's own caps say.
MAX_DECISIONS = 100_000


# ---------------------------------------------------------------- what is played


@dataclass(frozen=True)
class GameSpec:
    """One soak game: its seed, table and the policy in each seat, all drawn from the seed."""

    seed: int
    variant: str
    round_bonus: str
    seats: tuple[str, ...]

    @classmethod
    def of(cls, seed: int) -> GameSpec:
        # A string seed hashes with SHA-512 inside `random`: the same draw in every process.
        rng = random.Random(f"soak:{seed}")
        variant, round_bonus = rng.choice(TABLE_KINDS)
        fewest = 3 if variant == Variant.MANIPULATION_RUMMY.value else 2
        players = rng.randint(fewest, MAX_PLAYERS)
        return cls(seed, variant, round_bonus, tuple(rng.choice(POLICIES) for _ in range(players)))

    @property
    def num_players(self) -> int:
        return len(self.seats)

    @property
    def table(self) -> str:
        """The table's kind, for the per-table counts: ``carousel/everyone 3p``."""
        option = f"/{self.round_bonus}" if self.variant == Variant.CAROUSEL.value else ""
        return f"{self.variant}{option} {self.num_players}p"

    def policies(self) -> list[Policy]:
        # Seeds from the game's seed, so a replay plays the same moves.
        return [get_policy(name, seed=self.seed * MAX_PLAYERS + seat) for seat, name in enumerate(self.seats)]


@dataclass(frozen=True)
class Violation:
    seed: int
    step: int
    table: str
    what: str

    def __str__(self) -> str:
        replay = f"python -m benchmarks.soak --games 1 --seed {self.seed} --workers 0"
        return f"game seed {self.seed} ({self.table}), step {self.step}: {self.what}  [replay: {replay}]"


@dataclass
class SoakReport:
    """What a soak run (or a part of one) played and found."""

    games: int = 0
    rounds: int = 0
    decisions: int = 0  # actions chosen by the players
    auto_actions: int = 0  # actions the env took for them (single choices, forced draws)
    violations: list[Violation] = field(default_factory=list)
    tables: Counter = field(default_factory=Counter)  # games per table kind
    seconds: float = 0.0  # wall time of the whole run (set by run_soak)

    @property
    def actions(self) -> int:
        return self.decisions + self.auto_actions

    def merge(self, other: SoakReport) -> None:
        self.games += other.games
        self.rounds += other.rounds
        self.decisions += other.decisions
        self.auto_actions += other.auto_actions
        self.violations.extend(other.violations)
        self.tables.update(other.tables)


# ---------------------------------------------------------------- playing


_envs: dict[tuple[str, int, str], CheckedEnv] = {}  # one env per table kind, per process


def _env_for(spec: GameSpec) -> CheckedEnv:
    key = (spec.variant, spec.num_players, spec.round_bonus)
    if key not in _envs:
        _envs[key] = CheckedEnv(
            num_players=spec.num_players, variant=spec.variant, round_bonus=spec.round_bonus, episode="game"
        )
    return _envs[key]


def play_game(seed: int) -> SoakReport:
    """Play and check the game of ``seed`` (see :class:`GameSpec`)."""
    spec = GameSpec.of(seed)
    report = SoakReport(games=1, tables=Counter({spec.table: 1}))
    step = 0
    try:
        env = _env_for(spec)
        policies = spec.policies()
        env.reset(seed=seed)
        checker = GameChecker(env)
        problems = checker.problems(None)
        report.auto_actions += len(env.auto_actions)
        returns = dict.fromkeys(env.possible_agents, 0.0)
        while env.agents and not problems:
            agent = env.agent_selection
            observation, reward, termination, truncation, _ = env.last()
            returns[agent] += reward
            if termination or truncation:
                env.step(None)
                continue
            if step >= MAX_DECISIONS:
                problems = [f"no end after {step} decisions"]
                break
            before = env.game_state
            action = policies[env.possible_agents.index(agent)](observation["observation"], observation["action_mask"])
            env.step(action)
            step += 1
            if env.agents:
                report.auto_actions += len(env.auto_actions)
            problems = checker.problems(before)
        if not problems:
            problems = checker.final_problems(returns)
        report.rounds = checker.rounds_seen
    except Exception as exc:  # a crash is a finding too: report it with where it happened
        where = traceback.extract_tb(exc.__traceback__)[-1]
        problems = [f"{type(exc).__name__}: {exc} (at {where.filename}:{where.lineno})"]
    report.decisions = step
    report.violations = [Violation(seed, step, spec.table, what) for what in problems]
    return report


def play_games(seeds: Sequence[int]) -> SoakReport:
    report = SoakReport()
    for seed in seeds:
        report.merge(play_game(seed))
    return report


def run_soak(
    games: int, workers: int = 2, seed: int = 0, progress: Callable[[SoakReport, float], None] | None = None
) -> SoakReport:
    """Play and check games ``seed .. seed + games - 1``, in ``workers`` spawned worker
    processes (0: in this process). ``progress(report so far, seconds)`` is called as
    batches of games come in."""
    if games < 0 or workers < 0 or seed < 0:
        raise ValueError(f"games, workers and seed must be >= 0, got {games}, {workers}, {seed}")
    start = time.perf_counter()
    seeds = range(seed, seed + games)
    # Small batches keep every worker busy to the end.
    size = max(1, min(50, games // (max(workers, 1) * 8)))
    batches = [seeds[i : i + size] for i in range(0, games, size)]
    report = SoakReport()
    with contextlib.ExitStack() as stack:
        if workers == 0:
            parts = map(play_games, batches)
        else:  # spawn, not fork, as training's workers
            pool = stack.enter_context(mp.get_context("spawn").Pool(workers))
            parts = pool.imap_unordered(play_games, batches)
        for part in parts:
            report.merge(part)
            if progress is not None:
                progress(report, time.perf_counter() - start)
    report.violations.sort(key=lambda v: (v.seed, v.step))
    report.seconds = time.perf_counter() - start
    return report
