"""One learning seat of any game as a single-agent Gymnasium env: the part that does not
depend on the game, and the options both Gymnasium forms share.

A game's single-agent env subclasses :class:`SingleAgentEnv` and supplies three hooks:

* ``_make_aec(render_mode, config)``: its bare AEC env (a
  :class:`~carousel_env.envkit.aec.CardGameEnv`), which raises its own config errors (by
  default the class ``aec_env`` made with them);
* ``resolve_opponent(spec, seed)``: a policy from a name (built with ``seed``) or from the
  user's policy object (returned as it is); a bad spec raises, naming it;
* ``_opponent_action(policy, seat, observation, mask)``: what that policy plays at the AEC
  env's current decision, for ``seat`` (by default as an engine player's policy:
  :func:`carousel_env.envkit.policies.env_action`).

The rest is here, the same for every game:

* ``opponents``: one spec, or a list of them, one per other seat in seat order after the
  learner (:func:`opponent_specs`).
* ``learner_seat``: a seat, or ``"random"``: drawn at each reset from the reset's seed
  (:func:`check_learner_seat`).
* Seeds: ``reset(seed=s)`` seeds ``np_random``, rebuilds named opponents with the seeds
  ``s + 1, s + 2, ...`` (so a seeded reset replays), then draws the learner's seat (when
  ``"random"``) and the game's seed from ``np_random``.
* Reward: the learner's AEC reward from its action through the opponents' moves up to its
  next decision or the episode's end. An episode that ends before the learner decides (every
  decision it had was forced) is skipped at reset and the next game is dealt.
* ``illegal_reward`` (-1): an illegal action ends the episode with this reward (like the
  wrapped AEC env, ``info["illegal_action"]`` names it); ``None`` lets the AEC env raise
  ``IllegalAction``, before anything moves.
* Observation: the AEC observation vector; the mask is ``action_masks()`` (booleans, for
  sb3-contrib's MaskablePPO) and ``info["action_mask"]``; the info also holds the AEC env's
  infos of its last step and ``learner`` (the learner's agent name).

:func:`register_gymnasium` registers every game of :data:`carousel_env.core.registry.GAMES`
with Gymnasium under its id, the vector form as the ``vector_entry_point``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

import gymnasium as gym
import numpy as np

from carousel_env.core.registry import GAMES
from carousel_env.envkit.policies import env_action

if TYPE_CHECKING:  # only a type here: registering the ids imports no env (nor PettingZoo)
    from carousel_env.envkit.aec import CardGameEnv

RANDOM_SEAT = "random"  # learner_seat: a seat drawn at every reset


def check_learner_seat(value: object, num_players: int) -> int | str:
    """``value`` as a learner seat: ``"random"`` or a seat ``0 .. num_players - 1``."""
    if value != RANDOM_SEAT and not (
        isinstance(value, int) and not isinstance(value, bool) and 0 <= value < num_players
    ):
        raise ValueError(f"learner_seat must be 'random' or a seat 0..{num_players - 1}, got {value!r}")
    return value  # type: ignore[return-value]


def opponent_specs(opponents: object, num_players: int) -> list:
    """One opponent spec per other seat, in seat order after the learner: a list as it is
    (checked for its length), or one spec repeated."""
    specs = list(opponents) if isinstance(opponents, (list, tuple)) else [opponents] * (num_players - 1)
    if len(specs) != num_players - 1:
        raise ValueError(f"opponents: expected {num_players - 1} policies for {num_players} players, got {len(specs)}")
    return specs


def register_gymnasium() -> None:
    """Register every game's single-agent forms with Gymnasium (by path: nothing is imported
    until an env is made). ``gymnasium.make_vec(id, num_envs=N, vectorization_mode=
    "vector_entry_point")`` builds the compiled vector form, not ``N`` single envs."""
    for spec in GAMES.values():
        forms = spec.gymnasium
        if forms.id not in gym.registry:
            gym.register(id=forms.id, entry_point=forms.env, vector_entry_point=forms.vector_env)


class SingleAgentEnv(gym.Env):
    """One learning seat of a game's AEC env, the other seats played by policies (see the
    module docstring); subclasses supply the game's hooks."""

    metadata = {"render_modes": ["human", "ansi", "rgb_array"], "render_fps": 2}  # noqa: RUF012

    def __init__(
        self,
        opponents: object = "random",
        learner_seat: int | str = 0,
        illegal_reward: float | None = -1.0,
        render_mode: str | None = None,
        **config: object,
    ) -> None:
        self.aec = self._make_aec(render_mode, config)
        self.render_mode = render_mode
        n = len(self.aec.possible_agents)
        self.learner_seat = check_learner_seat(learner_seat, n)
        self._opponent_specs = opponent_specs(opponents, n)
        self.opponents = [self.resolve_opponent(spec) for spec in self._opponent_specs]
        agent0 = self.aec.possible_agents[0]
        self.observation_space = self.aec.observation_space(agent0)["observation"]
        self.action_space = self.aec.action_space(agent0)
        self._learner = agent0
        self._mask = np.zeros(self.action_space.n, np.int8)
        self.illegal_reward = illegal_reward
        self._done = True

    # ------------------------------------------------------------ hooks

    aec_env: ClassVar[type[CardGameEnv]]  # the game's bare AEC env, for the default ``_make_aec``

    def _make_aec(self, render_mode: str | None, config: dict[str, object]) -> CardGameEnv:
        return self.aec_env(render_mode=render_mode, **config)

    @staticmethod
    def resolve_opponent(spec: Any, seed: int | None = None) -> Any:
        raise NotImplementedError

    def _opponent_action(self, policy: Any, seat: int, observation: np.ndarray, mask: np.ndarray) -> int:
        # By default the game's scripted players are engine players (carousel_env.envkit.policies).
        return env_action(policy, self.aec, observation, mask)

    # ------------------------------------------------------------ Gymnasium API

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if seed is not None:
            # Opponents with randomness follow the episode seed, so a seeded reset replays.
            self.opponents = [self.resolve_opponent(spec, seed + i + 1) for i, spec in enumerate(self._opponent_specs)]
        n = len(self.aec.possible_agents)
        seat = int(self.np_random.integers(n)) if self.learner_seat == RANDOM_SEAT else self.learner_seat
        self._learner = self.aec.possible_agents[seat]
        game_seed = int(self.np_random.integers(2**62))
        while True:
            self.aec.reset(seed=game_seed)
            _, done = self._advance()
            if not done:
                break
            game_seed = int(self.np_random.integers(2**62))
        self._done = False
        return self._observation(), self._info()

    def step(self, action: int):
        if self._done:  # stepping a finished episode (Gymnasium leaves it undefined): stay done
            return self._final_observation.copy(), 0.0, True, False, self._info()
        action = int(action)
        if self.illegal_reward is not None and not (0 <= action < len(self._mask) and self._mask[action]):
            # Like PettingZoo's TerminateIllegalWrapper: the episode ends, the learner pays.
            self._done = True
            self._final_observation = self._observation()
            self._mask = np.zeros(self.action_space.n, np.int8)
            info = self._info()
            info["illegal_action"] = action
            return self._final_observation.copy(), float(self.illegal_reward), True, False, info
        self.aec.step(action)
        reward, done = self._advance()
        self._done = done
        obs = self._observation() if not done else self._final_observation.copy()
        return obs, reward, done, False, self._info()

    def action_masks(self) -> np.ndarray:
        """Legal actions as booleans (what sb3-contrib's MaskablePPO asks for)."""
        return self._mask.astype(bool)

    def render(self):
        return self.aec.render()

    def close(self) -> None:
        self.aec.close()

    # ------------------------------------------------------------ internals

    def _advance(self) -> tuple[float, bool]:
        """Play the opponents until the learner decides or the episode ends; returns the
        learner's reward since its last decision and whether the episode ended."""
        aec = self.aec
        n = len(aec.possible_agents)
        learner_seat = aec.possible_agents.index(self._learner)
        while True:
            agent = aec.agent_selection
            done = aec.terminations[agent] or aec.truncations[agent]
            if done or agent == self._learner:
                break
            obs = aec.observe(agent)
            seat = aec.possible_agents.index(agent)
            opponent = self.opponents[(seat - learner_seat - 1) % n]
            aec.step(self._opponent_action(opponent, seat, obs["observation"], obs["action_mask"]))
        # The AEC env accumulates each agent's rewards until that agent acts again: exactly
        # the learner's reward for its last action. Collect it and clear it, as last() would.
        reward = float(aec._cumulative_rewards[self._learner])
        aec._cumulative_rewards[self._learner] = 0.0
        self._last_infos = dict(aec.infos[self._learner])
        if done:
            self._final_observation = aec.observe(self._learner)["observation"]
            self._mask = np.zeros(self.action_space.n, np.int8)
        else:
            self._mask = aec.observe(self._learner)["action_mask"]
        return reward, done

    def _observation(self) -> np.ndarray:
        # A copy: the AEC env hands the same array to every caller within a step.
        return self.aec.observe(self._learner)["observation"].copy()

    def _info(self) -> dict:
        info = dict(self._last_infos)
        info["action_mask"] = self._mask.copy()
        info["learner"] = self._learner
        return info


__all__ = ["RANDOM_SEAT", "SingleAgentEnv", "check_learner_seat", "opponent_specs", "register_gymnasium"]
