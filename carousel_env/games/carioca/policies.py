"""Carioca's policies at the env's decisions: what the Gymnasium forms (and any driver of
scripted seats) play at an opponent's seat.

A policy is given as

* a scripted player's name (:mod:`carousel_env.games.carioca.players`: ``random``,
  ``simple``, ``outs``, ``search@N``), resolved to a :class:`ScriptedPolicy`: the engine player, handed the game at
  the decision (it reads only what its seat may know), its move made the env's action;
* or a callable ``(observation, action_mask) -> action``, handed its seat's observation
  vector and mask (the AEC env's).

The env offers the going-down arrangements as ``K`` slots (the solver's first ``K``): a
scripted player's arrangement is played as the slot holding it or, when it is not offered,
as the first slot.
"""

from __future__ import annotations

from carousel_env.envkit import policies as envkit_policies
from carousel_env.envkit.policies import ObservationPolicy, env_action, policy_action
from carousel_env.games.carioca.engine import CariocaState, Move, MoveKind
from carousel_env.games.carioca.env import CariocaAction, layoff_action
from carousel_env.games.carioca.players import CariocaPlayer, get_player


class ScriptedPolicy(envkit_policies.ScriptedPolicy):
    """A scripted Carioca player at the env's decisions (its ``name`` for messages)."""

    player: CariocaPlayer

    def action(self, state: CariocaState, offers: tuple) -> int:
        return move_action(self.player(state), state, offers)


CariocaPolicy = ScriptedPolicy | ObservationPolicy


def resolve_policy(spec: str | CariocaPolicy, seed: int | None = None) -> CariocaPolicy:
    """A policy from a scripted player's name (built with ``seed``), or a policy as it is."""
    scripted = lambda name, seed: ScriptedPolicy(name, get_player(name, seed))  # noqa: E731
    return envkit_policies.resolve_policy(spec, seed, scripted, "a Carioca policy")


def move_action(move: Move, state: CariocaState, offers: tuple) -> int:
    """The env's action for the engine's ``move`` in ``state``, given the go-down ``offers``."""
    if move.kind is MoveKind.GO_DOWN:
        offered = list(offers)
        slot = offered.index(move.melds) if move.melds in offered else 0
        return CariocaAction.FIRST_GO_DOWN + slot
    if move.kind is MoveKind.LAY_OFF:
        return layoff_action(move.layoff, state.current, state.num_players)
    if move.kind is MoveKind.DISCARD:
        return CariocaAction.FIRST_DISCARD + move.card
    return int(CariocaAction[move.kind.name])


__all__ = [
    "CariocaPolicy",
    "ScriptedPolicy",
    "env_action",
    "move_action",
    "policy_action",
    "resolve_policy",
]
