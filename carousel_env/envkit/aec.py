"""What every game's PettingZoo AEC env shares: the seats and their spaces, the order of a
step (check the action, make it, take the automatic decisions, publish the infos, pay the
rewards), the report of automatic decisions, the reset seeds and the render modes.

A game's env subclasses :class:`CardGameEnv` and supplies the game through the hooks
``_new_game`` (deal game ``seed``) and ``_encode`` (a seat's observation), and through class
attributes: its ``info_keys`` (read by ``_publish_infos`` through ``_unit_points``,
``_game_over`` and ``_more_infos``), ``action_name``, and its renderers by path
(``text_renderer``, ``picture_renderer``). The base keeps the
engine state (``game_state``), the current decision's mask and ``suggestions``, the units
(rounds or hands) the last step ended (``_units``) and the last action (``_last_step``).

Between two real decisions, :meth:`CardGameEnv._settle` runs the game the same way for every
game: at the end of a scoring unit (a round or a hand) it pays the unit and deals the next,
or ends the episode; at a decision with a single legal action it takes it (reported in
``auto_actions``). Its hooks: ``_unit_over``, ``_pay_unit``, ``_episode_ends``,
``_next_unit``, ``_decide`` (the mask and suggestions), ``_apply`` (an env action), and
``_arrived`` (every state reached, for a game that reports what a transition forced).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.logger import warn
from pettingzoo import AECEnv

from carousel_env.core.errors import IllegalAction
from carousel_env.core.registry import load_named
from carousel_env.envkit.options import RENDER_MODES
from carousel_env.envkit.seats import AutoAction, GameSeeds, agent_names


def env_metadata(name: str) -> dict:
    """A game's AEC env ``metadata`` (PettingZoo's keys): its name and what every game renders."""
    return {"name": name, "render_modes": list(RENDER_MODES), "is_parallelizable": False, "render_fps": 2}


class CardGameEnv(AECEnv):
    """The AEC env's plumbing, the same for every game (see the module docstring)."""

    # The infos: automatic actions, units ended, points per seat, game over, then a game's own.
    info_keys: ClassVar[tuple[str, ...]]
    action_name: Callable[[int], str]  # an action's name (a staticmethod of the game's env)
    # ``module:function`` paths of the renderers: (state, observer=) -> text, and
    # (state, observer, last action, auto actions) -> an RGB array.
    text_renderer: ClassVar[str]
    picture_renderer: ClassVar[str]

    def __init__(self, config: Any) -> None:
        """``config``: the game's checked env config (its ``render_mode`` is the env's)."""
        super().__init__()
        self.config = config
        self.render_mode = config.render_mode

    def _init_seats(self, num_players: int, observation_high, observation_size: int, num_actions: int) -> None:
        """The agents, their spaces (one object per agent, returned on every call: PettingZoo's
        api_test checks identity) and the empty mask of the agents not to act."""
        self.possible_agents = agent_names(num_players)
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        self._num_actions = num_actions
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, observation_high, (observation_size,), dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (num_actions,), dtype=np.int8),
            }
        )
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(num_actions) for a in self.possible_agents}
        self._zero_mask = np.zeros(num_actions, np.int8)
        self._zero_mask.flags.writeable = False
        self._seeds = GameSeeds()
        self._state = None

    def observation_space(self, agent: str) -> spaces.Dict:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        return self.action_spaces[agent]

    @property
    def action_mask(self) -> np.ndarray:
        return self._mask

    @property
    def auto_actions(self) -> tuple[AutoAction, ...]:
        """The actions the env took on its own in the last step (or reset), in order."""
        return tuple(self._auto)

    @property
    def unit_results(self) -> tuple:
        """The units (rounds or hands) the last step (or reset) ended, in order: the engine's results."""
        return tuple(self._units)

    @property
    def game_state(self):
        """The engine state (full information: for tests, demos and debugging only)."""
        assert self._state is not None, "call reset() first"
        return self._state

    @property
    def suggestions(self) -> tuple:
        """What the current decision's suggestion slots offer, by slot."""
        return self._suggestions

    def observe(self, agent: str) -> dict:
        obs = self._obs_cache.get(agent)
        if obs is None:
            seat = self._seat[agent]
            acting = seat == self._state.current and not self._over
            obs = {"observation": self._encode(seat, acting), "action_mask": self._mask if acting else self._zero_mask}
            self._obs_cache[agent] = obs
        return obs

    # ------------------------------------------------------------ hooks

    def _new_game(self, game_seed: int):
        """The first state of game ``game_seed``."""
        raise NotImplementedError

    def _encode(self, seat: int, acting: bool) -> np.ndarray:
        """``seat``'s observation (``acting``: it is the seat to decide)."""
        raise NotImplementedError

    def _publish_infos(self) -> None:
        """Every agent's infos, the same keys and shapes at every step (so generic wrappers can
        batch them): :attr:`info_keys` read from the units the step ended."""
        points = np.zeros(len(self.possible_agents), np.int64)
        for result in self._units:
            points += self._unit_points(result)
        game_over = self._game_over(self._state) and bool(self._units)
        head = (len(self._auto), len(self._units))
        more = self._more_infos()
        self.infos = {a: dict(zip(self.info_keys, (*head, points.copy(), game_over, *more))) for a in self.agents}

    def _unit_points(self, result) -> tuple[int, ...]:
        """Every seat's points (or penalties) in a unit's ``result``, for the infos."""
        raise NotImplementedError

    def _game_over(self, state) -> bool:
        """Whether the game (not only the episode) is over in ``state``."""
        raise NotImplementedError

    def _more_infos(self) -> tuple:
        """The values of the info keys after the first four, where a game has more."""
        return ()

    def _action_name(self, action: int) -> str:
        return self.action_name(action)

    def _start(self, game_seed: int) -> None:
        self._units: list = []
        self._last_step: tuple | None = None
        self._state = self._new_game(game_seed)
        self._settle()

    def _make(self, agent: str, action: int) -> None:
        """Make the checked ``action`` of ``agent`` and settle."""
        self._units = []
        self._last_step = self._record_step(agent, action)
        self._state = self._apply(self._state, action)
        self._settle()

    def _record_step(self, agent: str, action: int) -> tuple:
        """What the last step keeps of its action, before it is made."""
        return agent, action, self._describe(action)

    def _last_action(self) -> tuple[str, int, str] | None:
        """``(agent, action, name)`` of the last step's action (None after a reset)."""
        return self._last_step

    def _to_act(self) -> int:
        return self._state.current

    def _state_text(self, observer: int) -> str:
        return load_named(self.text_renderer)(self._state, observer=observer)

    def _picture(self, observer: int) -> np.ndarray:
        # Imported when first drawn: Pillow is needed only here.
        return load_named(self.picture_renderer)(self._state, observer, self._last_action(), tuple(self._auto))

    # the settle loop's hooks

    def _unit_over(self, state) -> bool:
        return state.over

    def _unit_result(self, state):
        """The result of the unit ``state`` ended (``RoundScore``, ``HandResult``...)."""
        raise NotImplementedError

    def _unit_rewards(self, state) -> list[float]:
        """Every seat's reward for the unit ``state`` ended."""
        raise NotImplementedError

    def _pay_unit(self, state) -> None:
        """Record the unit ``state`` ended and add its rewards to ``self.rewards``."""
        self._units.append(self._unit_result(state))
        paid = self._unit_rewards(state)
        for seat, agent in enumerate(self.possible_agents):
            self.rewards[agent] += paid[seat]

    def _episode_ends(self, state) -> bool:
        raise NotImplementedError

    def _next_unit(self, state):
        raise NotImplementedError

    def _decide(self, state) -> tuple[np.ndarray, tuple]:
        """The action mask of the seat to act and the decision's suggestions."""
        raise NotImplementedError

    def _apply(self, state, action: int):
        """The state after env ``action`` at the current decision."""
        raise NotImplementedError

    def _describe(self, action: int) -> str:
        """The name of ``action`` at the current decision (an automatic one's report)."""
        return self._action_name(action)

    def _arrived(self, state) -> None:
        """Every state the settle loop reaches passes here once."""

    def _settle(self) -> None:
        """Advance to a real decision or the end: pay and deal the ends of units, and take
        every decision with a single legal action (reported in ``auto_actions``)."""
        self._obs_cache: dict[str, dict] = {}
        while True:
            state = self._state
            self._arrived(state)
            if self._unit_over(state):
                self._pay_unit(state)
                if self._episode_ends(state):
                    self._over = True
                    self._mask, self._suggestions = self._zero_mask, ()
                    self.terminations = dict.fromkeys(self.agents, True)
                    return
                self._state = self._next_unit(state)
                continue
            self._mask, self._suggestions = self._decide(state)
            self._over = False
            legal = np.flatnonzero(self._mask)
            if len(legal) != 1:
                return
            only = int(legal[0])
            self._auto.append(AutoAction(self.possible_agents[state.current], only, self._describe(only)))
            self._state = self._apply(state, only)

    # ------------------------------------------------------------ the AEC API

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self.game_seed = self._seeds.next(seed)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self._auto: list[AutoAction] = []
        self._start(self.game_seed)
        self._end_step()

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        checked = self._checked(agent, action)
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._auto = []
        self._make(agent, checked)
        self._end_step()
        if self.render_mode == "human":
            self.render()

    def _checked(self, agent: str, action: int | None) -> int:
        """``action`` as an int, or ``IllegalAction`` naming it and the legal ones."""
        if action is None or not 0 <= int(action) < self._num_actions:
            raise IllegalAction(f"{agent}: action must be an int in 0..{self._num_actions - 1}, got {action!r}")
        a = int(action)
        if not self._mask[a]:
            legal = ", ".join(self._action_name(i) for i in np.flatnonzero(self._mask))
            raise IllegalAction(f"{agent}: action {a} ({self._action_name(a)}) is not legal now; legal: {legal}")
        return a

    def _end_step(self) -> None:
        """After a reset or a step: the infos, the agent to act, the rewards paid."""
        self._publish_infos()
        to_act = self._to_act()
        self.agent_selection = self.possible_agents[to_act if to_act >= 0 else 0]
        self._accumulate_rewards()  # nonzero at a reset only if a whole hand resolved itself
        self._deads_step_first()

    def render(self):
        if self.render_mode is None:
            warn("You are calling render method without specifying any render mode.")
            return None
        if self._state is None:
            return None
        observer = self.config.render_observer
        if observer is None:
            observer = max(self._to_act(), 0)
        if self.render_mode == "rgb_array":
            return self._picture(observer)
        text = self._text(observer)
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def _text(self, observer: int) -> str:
        """The game as ``observer`` sees it, then the last action and the env's own choices after it."""
        lines = [self._state_text(observer)]
        last = self._last_action()
        if last is not None:
            agent, _, name = last
            lines.append(f"Last action: {agent} {name}")
        lines += [f"  then (only choice): {agent} {name}" for agent, _, name in self._auto]
        return "\n".join(lines)

    def close(self) -> None:
        """Nothing to release: rendering keeps no window or image between calls."""
