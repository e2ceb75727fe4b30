"""A tiny, fast stand-in for the Carousel AEC env, for the training tests.

Same surface as ``carousel_env.env``: agents ``player_i``, Dict observations with an int8
``action_mask``, actions 0 draw again / 1 knock / 2 end turn / 3+k suggestion k, an
``observation_layout`` of its own sizes (global block + K slot blocks), zero-sum rewards
through ``_cumulative_rewards``, and the same wrappers. The game: each seat holds a "hand value";
suggestion k lowers it by the value shown in slot k; knocking is legal at 5 or less and
wins if the knocker's value is the lowest. Small enough that a policy can learn it.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from carousel_env.games.carousel.envs.aec import NUM_FIXED_ACTIONS
from carousel_env.games.carousel.envs.observation import ObservationLayout

GLOBAL = 6
SLOT_F = 3
MAX_DECISIONS = 40


class FakeCarouselEnv(AECEnv):
    metadata = {"name": "fake_carousel_v0", "is_parallelizable": False}  # noqa: RUF012

    def __init__(
        self,
        num_players=2,
        k_suggestions=4,
        episode="round",
        reward="round_score",
        reward_scale=None,
        render_mode=None,
        variant="carousel",  # the real env's keys, taken as they come: this toy game has one rule set
        round_bonus="losers",
        solve_time_budget=1.0,
    ):
        super().__init__()
        self.n = num_players
        self.k = k_suggestions
        self.episode = episode
        self.scale = 0.1 if reward_scale is None else reward_scale
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        self.observation_layout = ObservationLayout(global_size=GLOBAL, num_slots=self.k, slot_features=SLOT_F)
        size = self.observation_layout.size
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(0.0, 100.0, (size,), np.float32),
                    "action_mask": spaces.Box(0, 1, (NUM_FIXED_ACTIONS + self.k,), np.int8),
                }
            )
            for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(NUM_FIXED_ACTIONS + self.k) for a in self.possible_agents}
        self.render_mode = render_mode

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def reset(self, seed=None, options=None):
        self.rng = np.random.default_rng(seed)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.values = self.rng.integers(10, 30, self.n).astype(float)
        self.current = int(self.rng.integers(self.n))
        self.draws = 0
        self.decisions = 0
        self._new_offers()
        self.agent_selection = self.possible_agents[self.current]

    def _new_offers(self):
        count = int(self.rng.integers(0, self.k + 1))
        self.offers = np.zeros(self.k)
        self.offers[:count] = self.rng.integers(1, 8, count)

    def _mask(self):
        m = np.zeros(NUM_FIXED_ACTIONS + self.k, np.int8)
        m[0] = self.draws < 2
        m[1] = self.values[self.current] <= 5
        m[2] = 1
        m[3:] = self.offers > 0
        return m

    def observe(self, agent):
        seat = int(agent.rsplit("_", 1)[1])
        v = np.zeros(self.observation_layout.size, np.float32)
        v[0] = self.values[seat] / 30
        v[1] = min(self.values) / 30
        v[2] = self.draws / 2
        v[3] = float(self.values[seat] <= 5)
        v[4] = self.decisions / MAX_DECISIONS
        v[5] = 1.0
        acting = seat == self.current and agent in self.agents and not self.terminations[agent]
        if acting:
            for k in range(self.k):
                base = GLOBAL + k * SLOT_F
                v[base : base + 3] = (self.offers[k] > 0, self.offers[k] / 8, (self.values[seat] - self.offers[k]) / 30)
        mask = self._mask() if acting else np.zeros(NUM_FIXED_ACTIONS + self.k, np.int8)
        return {"observation": v, "action_mask": mask}

    def _end(self, winner):
        others = [s for s in range(self.n) if s != winner]
        pts = {s: self.values[s] - self.values[winner] for s in others}
        total = sum(pts.values())
        for s, a in enumerate(self.possible_agents):
            self.rewards[a] = self.scale * (total if s == winner else -pts[s])
        self.terminations = dict.fromkeys(self.agents, True)

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        assert self._mask()[action], (action, self._mask())
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self.decisions += 1
        seat = self.current
        if action == 0:
            self.draws += 1
            self.values[seat] += self.rng.integers(0, 4)
            self._new_offers()
        elif action == 1:
            self._end(int(np.argmin(self.values)))
        elif action == 2 or self.decisions >= MAX_DECISIONS:
            if self.decisions >= MAX_DECISIONS:
                self._end(int(np.argmin(self.values)))
            self.current = (self.current + 1) % self.n
            self.draws = 0
            self._new_offers()
        else:
            self.values[seat] = max(0.0, self.values[seat] - self.offers[action - 3])
            self.offers[action - 3] = 0
        self.agent_selection = self.possible_agents[self.current]
        self._accumulate_rewards()
        self._deads_step_first()

    def close(self):
        pass


def env(**config):
    e = FakeCarouselEnv(**config)
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    return wrappers.OrderEnforcingWrapper(e)
