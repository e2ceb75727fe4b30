"""Gin Rummy's policies at the env's decisions: what the Gymnasium forms (and any driver of
scripted seats) play at an opponent's seat.

A policy is given as

* a scripted player's name (:mod:`carousel_env.games.gin_rummy.players`: ``random``,
  ``greedy``, ``simple``, ``search@N``), resolved to a :class:`ScriptedPolicy`: the engine player, handed the game at
  the decision (it reads only what its seat may know), its move made the env's action;
* or a callable ``(observation, action_mask) -> action``, handed its seat's observation
  vector and mask (the AEC env's).

The env offers the knocks as ``K`` slots (:func:`carousel_env.games.gin_rummy.env.ordered_knocks`):
a scripted knock is played as the slot holding its arrangement or, when the arrangement is
not offered (the random player draws from every arrangement), as the first slot, the offer
of least deadwood.

.. code-block:: python

    from carousel_env.games.gin_rummy.policies import env_action, resolve_policy

    greedy = resolve_policy("greedy", seed=0)
    obs = env.observe(env.agent_selection)  # env: the AEC env, at greedy's decision
    action = env_action(greedy, env, obs["observation"], obs["action_mask"])
"""

from __future__ import annotations

from carousel_env.envkit import policies as envkit_policies
from carousel_env.envkit.policies import ObservationPolicy, env_action, policy_action
from carousel_env.games.gin_rummy.engine import GinState, Move, MoveKind
from carousel_env.games.gin_rummy.env import GinAction
from carousel_env.games.gin_rummy.players import GinPlayer, get_player


class ScriptedPolicy(envkit_policies.ScriptedPolicy):
    """A scripted Gin player at the env's decisions (its ``name`` for messages)."""

    player: GinPlayer

    def action(self, state: GinState, offers: tuple) -> int:
        return move_action(self.player(state), offers)


GinPolicy = ScriptedPolicy | ObservationPolicy


def resolve_policy(spec: str | GinPolicy, seed: int | None = None) -> GinPolicy:
    """A policy from a scripted player's name (built with ``seed``), or a policy as it is."""
    scripted = lambda name, seed: ScriptedPolicy(name, get_player(name, seed))  # noqa: E731
    return envkit_policies.resolve_policy(spec, seed, scripted, "a Gin Rummy policy")


def move_action(move: Move, knocks: tuple) -> int:
    """The env's action for the engine's ``move``, given the decision's knock offers."""
    if move.kind is MoveKind.KNOCK:
        offered = [arrangement for arrangement, _ in knocks]
        slot = offered.index(move.arrangement) if move.arrangement in offered else 0
        return GinAction.FIRST_KNOCK + slot
    if move.kind is MoveKind.DISCARD:
        return GinAction.FIRST_DISCARD + move.card
    return int(GinAction[move.kind.name])


__all__ = [
    "GinPolicy",
    "ScriptedPolicy",
    "env_action",
    "move_action",
    "policy_action",
    "resolve_policy",
]
