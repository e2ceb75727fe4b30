"""A determinized Monte Carlo search player, deciding from what its seat may know.

At each decision with more than one legal action, :class:`SearchPlayer`:

1. takes the seat's :class:`~carousel_env.games.carousel.engine.information.SeatView` (own hand, table,
   hand sizes, stock size, scores, the unseen cards: never another hand or the stock
   order);
2. samples ``samples`` determinizations: the unseen cards dealt at random to the other
   hands and the stock (:func:`~carousel_env.games.carousel.engine.information.determinize`);
3. for every legal env action (the action mask and the solver's suggestions come from
   :func:`carousel_env.games.carousel.envs.aec.decision`, which reads only the acting seat's hand and the
   table, so they are the same in every determinization), applies it in each
   determinization and plays on to the end of the round with a fast rollout policy
   (:func:`rollout_action`, every seat alike);
4. picks the action with the best mean round-score difference for its seat (own round
   points minus the mean of the others'). Every candidate is played out on the same
   determinizations (common random numbers), and the rollout policy is deterministic, so
   candidates differ only by their own effect. Ties go to the lowest action index.

Budget: ``samples`` determinizations per candidate (default :data:`DEFAULT_SAMPLES`), so a
decision costs ``samples x candidates`` rollouts; ``max_ms`` (optional) stops adding
samples once that many milliseconds are spent on a decision (at least one sample is always
played). A time budget depends on the machine and its load, so it is not reproducible:
the sample budget is the default and what the tests use. The player's randomness is one
``random.Random(seed)`` stream over its decisions: the same seed and the same views give
the same decisions, whatever the hidden cards are.

The rollout policy (:func:`rollout_action`) is greedy at the engine level with one solver
call per decision that may play: knock when allowed, else the solver's max-points play
(``k=1``), else draw again, else end the turn; after a play it ends the turn (a second play
rarely exists: the max-points play already took what fitted). A round rolls out in under
a millisecond heads-up and a few in 4-player Manipulation Rummy on one core; the solver
call is most of it (``python -m benchmarks.bench_search`` prints the cost per decision).

How the match runner drives it: a search player cannot decide from the env's observation
vector (the vector has no meld structure, history or rules options), so it is a
*view policy* (:class:`ViewPolicy`: ``decides_from_view = True`` and
``decide(view, action_mask)``). :func:`carousel_env.games.carousel.agents.match.advance_to_decision` (so
``play_match``, evaluation and tournaments) and ``engine_player`` hand it
``seat_view(state, seat)`` instead of the observation. Called like an observation policy,
it raises a TypeError that says so.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import ClassVar, Protocol, runtime_checkable

import numpy as np

from carousel_env.games.carousel.engine.game import Action, ActionKind, GameState, Phase, allowed, apply
from carousel_env.games.carousel.engine.information import SeatView, determinize
from carousel_env.games.carousel.envs.aec import NUM_FIXED_ACTIONS, decision, engine_move
from carousel_env.games.carousel.solver import can_play, solve

DEFAULT_SAMPLES = 8


@runtime_checkable
class ViewPolicy(Protocol):
    """A policy that decides from its seat's :class:`SeatView` and the env's action mask
    (``decide(view, action_mask) -> action``) instead of the observation vector. The match
    runner recognises one by ``decides_from_view = True``."""

    decides_from_view: ClassVar[bool]

    def decide(self, view: SeatView, action_mask: np.ndarray) -> int: ...


def is_view_policy(policy: object) -> bool:
    """Whether ``policy`` decides from a :class:`SeatView` (see :class:`ViewPolicy`)."""
    return getattr(policy, "decides_from_view", False) is True


def rollout_action(state: GameState) -> Action:
    """The rollout policy's action for the player to act in ``state`` (module docstring)."""
    kinds = allowed(state)
    if ActionKind.KNOCK in kinds:
        return ActionKind.KNOCK
    if ActionKind.PLAY in kinds and state.phase is not Phase.PLAYED:
        best = solve(state.table, state.hands[state.current], state.rules, k=1, check_position=False).suggestions
        if best:
            return best[0].play
    if ActionKind.DRAW_AGAIN in kinds:
        return ActionKind.DRAW_AGAIN
    if ActionKind.END_TURN in kinds:
        return ActionKind.END_TURN
    raise AssertionError(f"no rollout action in phase {state.phase.value}: a forced play with no play")


def round_value(state: GameState, seat: int) -> float:
    """``seat``'s round points minus the mean of the others', for a state whose round is over."""
    points = state.round_scores[-1].points
    n = len(points)
    return points[seat] - (sum(points) - points[seat]) / (n - 1)


def rollout(state: GameState, seat: int) -> float:
    """Play ``state`` to the end of its round with :func:`rollout_action`; ``seat``'s value."""
    end = (Phase.ROUND_OVER, Phase.GAME_OVER)
    while state.phase not in end:
        state = apply(state, rollout_action(state))
    return round_value(state, seat)


def check_budget(samples: object, max_ms: object) -> tuple[int, float | None]:
    if isinstance(samples, bool) or not isinstance(samples, int) or samples < 1:
        raise ValueError(f"search option samples must be an int >= 1 (determinizations per action), got {samples!r}")
    if max_ms is not None:
        if isinstance(max_ms, bool) or not isinstance(max_ms, (int, float)) or not max_ms > 0:
            raise ValueError(f"search option max_ms must be a number > 0 (milliseconds per decision), got {max_ms!r}")
        max_ms = float(max_ms)
    return samples, max_ms


def legal_actions(view: SeatView, action_mask: np.ndarray) -> list[int]:
    """The actions ``action_mask`` allows at ``view.seat``'s decision: what a view policy
    chooses among. A view that is not the seat's decision, or an empty mask, is an error."""
    if not view.is_decision:
        raise ValueError(f"seat {view.seat} is not the one to act (seat {view.current}, phase {view.phase.value})")
    legal = [int(a) for a in np.flatnonzero(action_mask)]
    if not legal:
        raise ValueError("the action mask allows no action")
    return legal


def best_action(values: dict[int, float]) -> int:
    """The action of the best mean value; a tie goes to the lowest action index."""
    return max(values, key=lambda a: (values[a], -a))


class SearchPlayer:
    """Determinized Monte Carlo search (module docstring). ``samples``: determinizations
    per candidate action; ``max_ms``: optional time budget per decision; ``seed``: its
    random stream (None: from the system); ``kept``: deal the other hands as players keep
    them, with no play on the table (``determinize``'s ``kept``), instead of uniformly.

    ``rollouts`` counts the rollouts played, ``decisions`` the decisions searched, and
    ``last_values`` holds the mean value of each candidate at the last search
    (action -> value)."""

    decides_from_view: ClassVar[bool] = True

    def __init__(
        self, samples: int = DEFAULT_SAMPLES, max_ms: float | None = None, seed: int | None = None, kept: bool = False
    ) -> None:
        self.samples, self.max_ms = check_budget(samples, max_ms)
        if not isinstance(kept, bool):
            raise ValueError(f"search option kept must be True or False, got {kept!r}")
        self.kept = kept
        self.seed = seed
        self.rng = random.Random(seed)
        self.rollouts = 0
        self.decisions = 0
        self.last_values: dict[int, float] = {}

    def __repr__(self) -> str:
        budget = f", max_ms={self.max_ms:g}" if self.max_ms is not None else ""
        kept = ", kept=True" if self.kept else ""
        return f"SearchPlayer(samples={self.samples}{budget}{kept}, seed={self.seed!r})"

    def __call__(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        raise TypeError(
            "the search player decides from its seat's view, not the observation vector: drive it with "
            "carousel_env.games.carousel.agents.match (play_match, advance_to_decision, engine_player) or call "
            "decide(seat_view(state, seat), action_mask)"
        )

    def decide(self, view: SeatView, action_mask: np.ndarray) -> int:
        """The action for ``view.seat`` at its decision (``action_mask``: the env's mask)."""
        return self.search(view, action_mask, lambda: determinize(view, self.rng, can_play if self.kept else None))

    def search(self, view: SeatView, action_mask: np.ndarray, deal: Callable[[], GameState]) -> int:
        """:meth:`decide` with the worlds drawn by ``deal()`` (each a full state at this
        decision) instead of from the view: a yardstick may deal what no player may see,
        such as the others' real hands (``benchmarks/bench_search.py --deal hands``)."""
        mask = np.asarray(action_mask)
        legal = legal_actions(view, mask)
        if len(legal) == 1:
            return legal[0]
        k = len(mask) - NUM_FIXED_ACTIONS
        start = time.perf_counter()
        self.decisions += 1
        totals = dict.fromkeys(legal, 0.0)
        suggestions: tuple | None = None
        done = 0
        for _ in range(self.samples):
            state = deal()
            if suggestions is None:
                own_mask, suggestions = decision(state, k)
                if not np.array_equal(own_mask, mask):
                    raise ValueError(
                        f"the action mask {mask.tolist()} is not the one of this view's decision {own_mask.tolist()}"
                    )
            for action in legal:
                totals[action] += rollout(apply(state, engine_move(action, suggestions)), view.seat)
            self.rollouts += len(legal)
            done += 1
            if self.max_ms is not None and (time.perf_counter() - start) * 1000 >= self.max_ms:
                break
        self.last_values = {a: totals[a] / done for a in legal}
        return best_action(self.last_values)
