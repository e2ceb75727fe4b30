"""Every game of the family for Tianshou 2.x: every seat's rewards credited on its own transitions.

.. code-block:: python

    from tianshou.env import DummyVectorEnv
    from carousel_env.integrations.tianshou import tianshou_env

    envs = DummyVectorEnv([lambda: tianshou_env(num_players=2) for _ in range(4)])
    gin = tianshou_env(game="gin_rummy", preset="openspiel")

Tianshou's multi-agent algorithms credit a seat only with the reward recorded on the
transitions that seat made (``rew[t, seat]`` where ``obs.agent_id`` is the seat). The games
pay a round's or a hand's points to every seat on whichever step ends it, so most of a seat's
reward would land on other seats' transitions and never reach its learner.
:class:`OwnTurnRewards` holds each seat's rewards until that seat's next transition, and
when the game is over gives every other seat one *settlement turn* (its only legal action
is :data:`SETTLE_ACTION`, which changes nothing) to collect the rest. So the rewards on a
seat's own transitions add up to exactly its return in the game.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from pettingzoo import AECEnv
from tianshou.env import PettingZooEnv

from carousel_env.core.errors import IllegalAction
from carousel_env.core.registry import DEFAULT_GAME, env_module

SETTLE_ACTION = 0  # the one legal action of a settlement turn


class OwnTurnRewards(AECEnv):
    """An AEC env whose ``rewards`` after a step pay only the seat that acted: everything
    it earned since its last turn, this step included; other seats' rewards wait for their
    own turns. After the last real step, each other seat gets one settlement turn."""

    metadata: ClassVar[dict] = {"name": "carousel_own_turn_rewards_v0", "is_parallelizable": False}

    def __init__(self, env: AECEnv) -> None:
        super().__init__()
        self.env = env
        self.possible_agents = list(env.possible_agents)
        self.render_mode = getattr(env, "render_mode", None)

    def observation_space(self, agent: str):
        return self.env.observation_space(agent)

    def action_space(self, agent: str):
        return self.env.action_space(agent)

    @property
    def unwrapped(self) -> AECEnv:
        return self.env.unwrapped

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self.env.reset(seed=seed, options=options)
        self.agents = list(self.possible_agents)
        self._pending = {a: float(self.env.rewards[a]) for a in self.agents}  # a round may end at the deal
        self._settling: list[str] = []
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = self.env.infos
        self.agent_selection = self.env.agent_selection

    def observe(self, agent: str) -> dict:
        obs = self.env.observe(agent)
        if self._settling and agent == self._settling[0]:
            mask = np.zeros_like(obs["action_mask"])
            mask[SETTLE_ACTION] = 1
            obs = {**obs, "action_mask": mask}
        return obs

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if self._settling:
            if action is None or int(action) != SETTLE_ACTION:
                raise IllegalAction(
                    f"{agent}: the game is over; a settlement turn takes only action {SETTLE_ACTION}, got {action!r}"
                )
            self._settling.pop(0)
            # Nothing happens in a settlement turn: the same info keys, all zero.
            self.infos = {
                a: {k: np.zeros_like(v) if isinstance(v, np.ndarray) else type(v)(0) for k, v in info.items()}
                for a, info in self.env.infos.items()
            }
        else:
            self.env.step(action)
            for other, reward in self.env.rewards.items():
                self._pending[other] += float(reward)
            self.infos = self.env.infos
            if self._inner_over():
                # Seats after the actor, in turn order, collect what the game's end paid them.
                seat = self.possible_agents.index(agent)
                n = len(self.possible_agents)
                self._settling = [self.possible_agents[(seat + i) % n] for i in range(1, n)]
        self._pay(agent)
        if self._settling:
            self.agent_selection = self._settling[0]
        elif self._inner_over():
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            self.agent_selection = self.env.agent_selection

    def _inner_over(self) -> bool:
        inner = self.env.agent_selection
        return bool(self.env.terminations[inner] or self.env.truncations[inner])

    def _pay(self, agent: str) -> None:
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self.rewards[agent], self._pending[agent] = self._pending[agent], 0.0
        self._accumulate_rewards()

    def render(self):
        return self.env.render()

    def close(self) -> None:
        self.env.close()


def tianshou_env(game: str = DEFAULT_GAME, **config: object) -> PettingZooEnv:
    """``carousel_env.env(game=game, **config)`` as Tianshou's ``PettingZooEnv``, rewards
    credited to the seat that earned them (:class:`OwnTurnRewards`)."""
    return PettingZooEnv(OwnTurnRewards(env_module(game).env(**config)))
