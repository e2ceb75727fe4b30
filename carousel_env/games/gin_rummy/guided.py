"""Gin Rummy's search guided by a policy network: determinized Monte Carlo with the
network's rollouts, played many at once in the compiled vector env.

:class:`GinGuidedSearch` is a Gin player (``GinState -> Move``, as
:mod:`carousel_env.games.gin_rummy.players`): it reads only what its seat may know. At a
decision with a choice:

1. it deals the cards its seat cannot see ``samples`` times, each deal consistent with what
   the seat has seen (``players.determinize``: the opponent keeps the cards it took from the
   pile, and the rest of its hand is drawn as play keeps one);
2. for every legal action of the env (each draw, pass, discard and offered knock) and every
   deal, one row of a :class:`~carousel_env.games.gin_rummy.vector.GinVectorEnv` is loaded
   with the deal (``load``) and makes the action;
3. every row plays on to the end of the hand, both seats acting as the ``prior`` says (its
   most likely action, or a sample of it with ``rollout="sample"``), one batched call per
   step over the rows still playing;
4. each action's value is its mean hand score for the seat (own points less the
   opponent's), every action played on the same deals. The prior's own choice is played
   unless another action's gain over it, deal by deal, clears ``margin`` standard errors:
   a hand's score is noisy, and the prior is what the rollouts trust.

The ``prior`` is a callable ``(observations (B, D), masks (B, A)) -> logits (B, A)`` over the
env's observations and masks for ``k_knocks`` knock slots (a network's policy head:
``training.policies.network_prior``). The hand's score ignores what it does to a match (the
game's bonuses). ``python -m benchmarks.bench_gin_guided`` prints the cost per decision and
the strength against the network alone.
"""

from __future__ import annotations

import random
import time
from dataclasses import fields
from typing import Any

import numpy as np

from carousel_env.core.stats import clear_gain, is_margin
from carousel_env.envkit.priors import ROLLOUTS, Prior, prior_choice, roll_out
from carousel_env.games.gin_rummy.engine import GinState, Move
from carousel_env.games.gin_rummy.env import decision, engine_move
from carousel_env.games.gin_rummy.players import SEARCH_MARGIN, determinize
from carousel_env.games.gin_rummy.rules import GinRules
from carousel_env.games.gin_rummy.vector import GinVectorEnv

GUIDED_SAMPLES = 8  # deals per decision by default
# A hand of real play ends within about 100 steps; without OpenSpiel's upcard limits two
# deterministic rollout policies can pass a card back and forth for ever. A rollout still
# playing after this many steps is cut and scored as a dead hand (0), and counted.
MAX_ROLLOUT_STEPS = 300


class GinGuidedSearch:
    """Determinized Monte Carlo search with ``prior``'s rollouts (module docstring).
    ``samples``: deals per decision; ``k_knocks``: the knock slots of the prior's env;
    ``max_ms``: optional time budget a decision (deals are added in chunks of ``chunk``
    until it is spent; the first chunk is always played); ``margin``: standard errors a
    move's gain over the prior's own must clear; ``seed``: its random stream.

    ``decisions``, ``rollouts`` and ``rollout_steps`` count the searches and their work,
    ``cut_rollouts`` the rollouts cut at :data:`MAX_ROLLOUT_STEPS` (scored as dead hands);
    ``last_values`` maps each action of the last search to its mean hand score."""

    def __init__(
        self,
        prior: Prior,
        k_knocks: int = 8,
        samples: int = GUIDED_SAMPLES,
        max_ms: float | None = None,
        chunk: int | None = None,
        margin: float = SEARCH_MARGIN,
        rollout: str = "mode",
        seed: int | None = None,
        name: str = "guided",
    ) -> None:
        if not callable(prior):
            raise TypeError(
                f"Gin guided search: prior must be a callable (observations, masks) -> logits, got {prior!r}"
            )
        for option, value, low in (("samples", samples, 1), ("k_knocks", k_knocks, 1)):
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise ValueError(f"Gin guided search option {option} must be an int >= {low}, got {value!r}")
        if chunk is not None and (isinstance(chunk, bool) or not isinstance(chunk, int) or chunk < 1):
            raise ValueError(f"Gin guided search option chunk must be an int >= 1 or None, got {chunk!r}")
        if max_ms is not None and (isinstance(max_ms, bool) or not isinstance(max_ms, (int, float)) or max_ms <= 0):
            raise ValueError(f"Gin guided search option max_ms must be a number > 0 or None, got {max_ms!r}")
        if not is_margin(margin):
            raise ValueError(f"Gin guided search option margin must be a number >= 0, got {margin!r}")
        if rollout not in ROLLOUTS:
            raise ValueError(f"Gin guided search option rollout must be one of {', '.join(ROLLOUTS)}, got {rollout!r}")
        self.prior = prior
        self.k = k_knocks
        self.samples = samples
        self.chunk = samples if chunk is None else min(chunk, samples)
        self.max_ms = max_ms
        self.margin = float(margin)
        self.rollout = rollout
        self.seed = seed
        self.name = name
        self.rng = random.Random(seed)
        self.decisions = self.rollouts = self.rollout_steps = self.cut_rollouts = 0
        self.last_values: dict[int, float] = {}
        self._venvs: dict[tuple[GinRules, int], GinVectorEnv] = {}

    def __repr__(self) -> str:
        budget = f", max_ms={self.max_ms:g}" if self.max_ms is not None else ""
        return (
            f"GinGuidedSearch({self.name}, samples={self.samples}{budget}, rollout={self.rollout}, seed={self.seed!r})"
        )

    def __call__(self, state: GinState) -> Move:
        """The move of ``state``'s player to act."""
        if state.over:
            raise ValueError(f"Gin guided search: the hand is over (phase {state.phase.value}); there is no move")
        mask, knocks = decision(state, self.k)
        legal = np.flatnonzero(mask).tolist()
        if len(legal) == 1:
            return engine_move(legal[0], knocks)
        start = time.perf_counter()
        self.decisions += 1
        own = self._prior_choice(state, mask)
        actions = np.random.default_rng(self.rng.getrandbits(63))  # the rollouts' samples, if any
        scores = np.zeros((0, len(legal)))
        while len(scores) < self.samples:
            n = min(self.chunk, self.samples - len(scores))
            scores = np.vstack([scores, self._play_out(state, legal, n, actions)])
            if self.max_ms is not None and (time.perf_counter() - start) * 1000 >= self.max_ms:
                break
        means = scores.mean(axis=0)
        self.last_values = {a: float(v) for a, v in zip(legal, means)}
        best = max(range(len(legal)), key=lambda i: (means[i], -legal[i]))
        base = legal.index(own)
        choice = legal[best] if clear_gain((scores[:, best] - scores[:, base]).tolist(), self.margin) else own
        return engine_move(choice, knocks)

    # ------------------------------------------------------------ internals

    def _venv(self, rules: GinRules, rows: int) -> GinVectorEnv:
        """A vector env of ``rows`` rows whose hands end its episodes, kept per rules and size
        (a step encodes every row, so no row is spare)."""
        key = (rules, rows)
        if key not in self._venvs:
            options = {f.name: getattr(rules, f.name) for f in fields(GinRules)}
            venv = GinVectorEnv(rows, autoreset=False, k_knocks=self.k, episode="hand", **options)
            if venv.rules != rules:  # the options rebuild the rules: a new rule must be listed there
                raise ValueError(f"Gin guided search: cannot build an env with the rules {rules}")
            self._venvs[key] = venv
        return self._venvs[key]

    def _prior_choice(self, state: GinState, mask: np.ndarray) -> int:
        """The prior's most likely action at the decision (the deal does not change what the
        seat sees, so any deal's observation is the seat's)."""
        step = self._venv(state.rules, 1).load([0], [determinize(state, self.rng)])
        if not np.array_equal(step.action_mask[0], mask):
            raise ValueError(f"the env's mask {step.action_mask[0].tolist()} is not the decision's {mask.tolist()}")
        return prior_choice(self.prior, step.observation[0], mask)

    def _play_out(self, state: GinState, legal: list[int], n: int, rng: np.random.Generator) -> np.ndarray:
        """(n, actions): each action's hand score for the seat on each of ``n`` new deals."""
        seat = state.current
        rows = n * len(legal)
        venv = self._venv(state.rules, rows)
        deals = [determinize(state, self.rng) for _ in range(n)]
        venv.load(range(rows), [d for d in deals for _ in legal])

        def gain(step: Any) -> np.ndarray:
            points = step.info.hand_points
            return points[:, seat] - points[:, 1 - seat]

        played = roll_out(venv, np.tile(legal, n), self.prior, self.rollout, rng, gain, MAX_ROLLOUT_STEPS)
        self.rollout_steps += played.steps
        self.cut_rollouts += int(played.unfinished.sum())  # still playing: scored as a dead hand
        self.rollouts += rows
        return played.values.reshape(n, len(legal))
