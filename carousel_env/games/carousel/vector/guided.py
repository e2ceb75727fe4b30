"""Search guided by a policy network: determinized Monte Carlo with the network's rollouts.

:class:`GuidedSearchPlayer` decides as the search player does
(:mod:`carousel_env.games.carousel.agents.search`), from its seat's view only, but plays its
rollouts with a policy (a trained network) instead of the greedy rollout policy, and plays
them in a compiled vector env, many at once:

1. it samples ``samples`` determinizations of the seat's view (the unseen cards dealt at
   random to the other hands and the stock: ``engine.information.determinize``);
2. for every legal action and every determinization, one row of a
   :class:`~carousel_env.games.carousel.vector.env.CarouselVectorEnv` is loaded with the
   determinized position (``load``) and makes the action;
3. every row then plays on to the end of its round, each seat (its own included) acting as
   the ``prior`` says, one batched call per step over the rows still playing;
4. it picks the action with the best mean round-score difference for its seat (own round
   points minus the mean of the others', with the game's bonuses where the round ends the
   game: the env's ``round_score`` reward, in points), ties to the lowest action index. Every candidate
   is played out on the same determinizations.

With ``leaf="value"`` and a ``value`` callable (``observations (B, D) -> values (B,)``, the
acting seat's expected reward to come in the env's reward units: a network's value head,
``training.policies.network_value``), a rollout stops at the seat's own next decision and
takes the value of its observation there instead of playing the round out: fewer steps,
but only as good as the value. Measured heads-up with ``ppo_2p``
(``benchmarks/RESULTS.md``), the round played out is far stronger, so it is the default.

The ``prior`` is a callable ``(observations (B, D), masks (B, A)) -> logits (B, A)`` over
the env's observations and masks (a network's policy head: ``training.policies.network_prior``).
Rollouts play its most likely action (``rollout="mode"``, the default: deterministic, so
candidates differ only by their own effect) or sample from it (``rollout="sample"``, from
the player's own random stream).

Budget: ``samples`` determinizations per candidate, so a decision costs ``samples x
candidates`` rollouts, played in chunks of ``chunk`` determinizations (default: all at
once); ``max_ms`` (optional) stops adding chunks once that many milliseconds are spent (the
first chunk is always played). ``python -m benchmarks.bench_guided_search`` prints the
cost per decision and the strength against the network alone.

What the determinizations do not use: what other seats' declined plays and draws say about
their hands (the deal is uniform over the unseen cards, as the search player's; with
``kept=True``, the other hands are dealt with no play on the table, as players keep them).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np

from carousel_env.core.stats import clear_gain, is_margin
from carousel_env.envkit.priors import ROLLOUTS, Prior, prior_choice, roll_out
from carousel_env.games.carousel.agents.search import best_action, check_budget, legal_actions
from carousel_env.games.carousel.engine.information import SeatView, determinize
from carousel_env.games.carousel.engine.rules import Rules
from carousel_env.games.carousel.envs.aec import NUM_FIXED_ACTIONS
from carousel_env.games.carousel.solver import can_play
from carousel_env.games.carousel.vector.env import CarouselVectorEnv

Value = Callable[[np.ndarray], np.ndarray]  # observations -> the acting seat's value, in reward units
LEAVES = ("round", "value")
MAX_ROLLOUT_STEPS = 10_000  # a round ends long before: a guard against a rollout that never does


class GuidedSearchPlayer:
    """Determinized Monte Carlo search with ``prior``'s rollouts (module docstring).
    ``samples``: determinizations per candidate action; ``max_ms``: optional time budget
    per decision; ``chunk``: determinizations played together (None: all); ``rollout``:
    ``"mode"`` or ``"sample"``; ``seed``: its random stream (None: from the system);
    ``name``: what its ``repr`` and reports call it; ``value`` and ``leaf``: where a
    rollout stops (``"round"``: the round's end; ``"value"``: the seat's next decision,
    valued by ``value``); ``kept``: deal the other hands as players keep them, with no play
    on the table (``determinize``'s ``kept``), instead of uniformly; ``margin``: None plays
    the best mean, a number keeps the prior's most likely move unless the best one's gain,
    determinization by determinization, clears that many standard errors.

    ``rollouts`` counts the rollouts played, ``decisions`` the decisions searched,
    ``rollout_steps`` the env steps of every rollout, and ``last_values`` holds each
    candidate's mean value at the last search (action -> value)."""

    decides_from_view: ClassVar[bool] = True

    def __init__(
        self,
        prior: Prior,
        samples: int = 16,
        max_ms: float | None = None,
        chunk: int | None = None,
        rollout: str = "mode",
        seed: int | None = None,
        name: str = "guided",
        value: Value | None = None,
        leaf: str = "round",
        kept: bool = False,
        margin: float | None = None,
    ) -> None:
        if not callable(prior):
            raise TypeError(
                f"guided search option prior must be a callable (observations, masks) -> logits, got {prior!r}"
            )
        if not isinstance(kept, bool):
            raise ValueError(f"guided search option kept must be True or False, got {kept!r}")
        self.kept = kept
        if margin is not None and not is_margin(margin):
            raise ValueError(f"guided search option margin must be None or a number >= 0, got {margin!r}")
        self.margin = margin
        if leaf not in LEAVES:
            raise ValueError(f"guided search option leaf must be one of {', '.join(LEAVES)}, got {leaf!r}")
        if leaf == "value" and not callable(value):
            raise ValueError(
                f"guided search option leaf 'value' needs a value callable (observations -> values), got {value!r}"
            )
        self.samples, self.max_ms = check_budget(samples, max_ms)
        if chunk is not None and (isinstance(chunk, bool) or not isinstance(chunk, int) or chunk < 1):
            raise ValueError(f"guided search option chunk must be an int >= 1 or None, got {chunk!r}")
        if rollout not in ROLLOUTS:
            raise ValueError(f"guided search option rollout must be one of {', '.join(ROLLOUTS)}, got {rollout!r}")
        self.prior = prior
        self.value = value
        self.leaf = leaf
        self.chunk = self.samples if chunk is None else min(chunk, self.samples)
        self.rollout = rollout
        self.seed = seed
        self.name = name
        self.rng = random.Random(seed)
        self.rollouts = 0
        self.rollout_steps = 0
        self.decisions = 0
        self.last_values: dict[int, float] = {}
        self._venvs: dict[tuple[Rules, int], CarouselVectorEnv] = {}

    def __repr__(self) -> str:
        budget = f", max_ms={self.max_ms:g}" if self.max_ms is not None else ""
        return (
            f"GuidedSearchPlayer({self.name}, samples={self.samples}{budget}, rollout={self.rollout}, "
            f"seed={self.seed!r})"
        )

    def __call__(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        raise TypeError(
            "the guided search player decides from its seat's view, not the observation vector: drive it with "
            "carousel_env.games.carousel.agents.match (play_match, advance_to_decision) or call "
            "decide(seat_view(state, seat), action_mask)"
        )

    def decide(self, view: SeatView, action_mask: np.ndarray) -> int:
        """The action for ``view.seat`` at its decision (``action_mask``: the env's mask)."""
        mask = np.asarray(action_mask)
        legal = legal_actions(view, mask)
        if len(legal) == 1:
            return legal[0]
        start = time.perf_counter()
        self.decisions += 1
        venv = self._venv(view.rules, len(mask) - NUM_FIXED_ACTIONS)
        actions = np.random.default_rng(self.rng.getrandbits(63))  # the rollouts' samples, if any
        scores = np.zeros((0, len(legal)))
        while len(scores) < self.samples:
            n = min(self.chunk, self.samples - len(scores))
            scores = np.vstack([scores, self._play_out(venv, view, mask, legal, n, actions)])
            if self.max_ms is not None and (time.perf_counter() - start) * 1000 >= self.max_ms:
                break
        self.last_values = {a: float(v) for a, v in zip(legal, scores.mean(axis=0))}
        best = best_action(self.last_values)
        if self.margin is None:
            return best
        # The prior's own move stands unless the best one's gain, determinization by determinization, is clear.
        own = prior_choice(self.prior, self._decision_observation, mask)
        gains = scores[:, legal.index(best)] - scores[:, legal.index(own)]
        return best if clear_gain(gains.tolist(), self.margin) else own

    # ------------------------------------------------------------ internals

    def _venv(self, rules: Rules, k: int) -> CarouselVectorEnv:
        """A vector env with a row per (determinization of a chunk, action), kept per rules."""
        key = (rules, k)
        if key not in self._venvs:
            self._venvs[key] = CarouselVectorEnv(
                self.chunk * (NUM_FIXED_ACTIONS + k),
                autoreset=False,
                num_players=rules.num_players,
                variant=rules.variant.value,
                round_bonus=rules.round_bonus.value,
                k_suggestions=k,
                episode="round",
            )
        return self._venvs[key]

    def _value_leaves(self, seat: int) -> Callable:
        """A rollout's leaves at ``seat``'s next decision: the value head's estimate from there."""

        def leaf(step: Any, playing: np.ndarray, values: np.ndarray) -> None:
            leaves = np.flatnonzero(playing & (step.to_play == seat))
            if len(leaves):
                values[leaves] += np.asarray(self.value(step.observation[leaves]), np.float64)
                playing[leaves] = False

        return leaf

    def _play_out(
        self,
        venv: CarouselVectorEnv,
        view: SeatView,
        mask: np.ndarray,
        legal: list[int],
        n: int,
        rng: np.random.Generator,
    ) -> np.ndarray:
        """(n, candidates): each candidate's round value on each of ``n`` new determinizations."""
        rows = n * len(legal)
        states = [determinize(view, self.rng, can_play if self.kept else None) for _ in range(n)]
        step = venv.load(range(rows), [s for s in states for _ in legal])
        self._decision_observation = step.observation[0]  # the seat's, whatever the deal
        if not np.array_equal(step.action_mask[0], mask):
            raise ValueError(
                f"the action mask {mask.tolist()} is not the one of this view's decision {step.action_mask[0].tolist()}"
            )
        gain = lambda step: step.rewards[:, view.seat]  # noqa: E731
        leaf = self._value_leaves(view.seat) if self.leaf == "value" else None
        played = roll_out(venv, np.tile(legal, n), self.prior, self.rollout, rng, gain, MAX_ROLLOUT_STEPS, leaf)
        if played.unfinished.any():
            raise RuntimeError(f"a guided rollout did not end its round within {MAX_ROLLOUT_STEPS} steps")
        self.rollout_steps += played.steps
        self.rollouts += rows
        return played.values.reshape(n, len(legal)) / venv.config.reward_scale
