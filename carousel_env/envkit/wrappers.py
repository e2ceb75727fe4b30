"""PettingZoo's classic-game wrappers, with the env's attributes read in one step.

PettingZoo's wrappers reach the wrapped env's attributes (``agent_selection``,
``terminations``, ``infos`` ...) through ``__getattr__``, one Python call per wrapper
layer: a random-play loop reads about twenty of them per step through three layers, a
large share of a step's cost. These subclasses give each layer a
descriptor that reads the attribute from the unwrapped env directly. Nothing else changes:
the wrappers between them define none of these attributes, so ``__getattr__`` would have
found the same object there; the descriptor has no ``__set__``, so assigning the attribute
on a wrapper still shadows it as before; and the order-enforcing checks (no access before
``reset``) still apply.
"""

from __future__ import annotations

from pettingzoo.utils import wrappers
from pettingzoo.utils.wrappers.base import BaseWrapper

# The ones OrderEnforcingWrapper refuses before the first reset.
_NEED_RESET = frozenset({"rewards", "terminations", "truncations", "infos", "agent_selection", "agents"})


class _Forward:
    """Reads the attribute from the unwrapped env (``_raw``); a plain attribute of the same
    name on the wrapper instance takes precedence, as it did over ``__getattr__``."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name
        self.needs_reset = name in _NEED_RESET

    def __get__(self, wrapper, owner=None):
        if wrapper is None:
            return self
        if self.needs_reset and not wrapper.__dict__.get("_has_reset", True):
            # Python then calls OrderEnforcingWrapper.__getattr__, which raises its error.
            raise AttributeError(self.name)
        return getattr(wrapper._raw, self.name)


class _Forwarding:
    """The unwrapped env's attributes that the wrappers and the AEC loop read on every step."""

    agent_selection = _Forward()
    agents = _Forward()
    rewards = _Forward()
    terminations = _Forward()
    truncations = _Forward()
    infos = _Forward()
    _cumulative_rewards = _Forward()


class TerminateIllegalWrapper(_Forwarding, wrappers.TerminateIllegalWrapper):
    def __init__(self, env, illegal_reward: float) -> None:
        self._raw = env.unwrapped
        super().__init__(env, illegal_reward)


class AssertOutOfBoundsWrapper(_Forwarding, wrappers.AssertOutOfBoundsWrapper):
    def __init__(self, env) -> None:
        self._raw = env.unwrapped
        super().__init__(env)

    def step(self, action) -> None:
        # The parent asserts ``action_space.contains(action)``, and gymnasium's Discrete
        # builds ``np.iinfo`` on every call. A plain int in range, the usual action, passes
        # that assert, so it is checked here directly; anything else takes the parent's path.
        if type(action) is int and 0 <= action < self._raw._num_actions:
            BaseWrapper.step(self, action)
        else:
            super().step(action)


class OrderEnforcingWrapper(_Forwarding, wrappers.OrderEnforcingWrapper):
    def __init__(self, env) -> None:
        self._raw = env.unwrapped
        super().__init__(env)

    def __str__(self) -> str:
        # PettingZoo names the plain OrderEnforcingWrapper after the env it wraps.
        return str(self.env) if hasattr(self, "metadata") else repr(self)
