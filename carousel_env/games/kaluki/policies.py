"""Kaluki's policies at the env's decisions: what the Gymnasium forms (and any driver of
scripted seats) play at an opponent's seat.

A policy is given as

* a scripted player's name (:mod:`carousel_env.games.kaluki.players`: ``random``,
  ``simple``), resolved to a :class:`ScriptedPolicy`: the player, handed the game and the
  decision's offers (it reads only what its seat may know), answering with an env action;
* or a callable ``(observation, action_mask) -> action``, handed its seat's observation
  vector and mask (the AEC env's).
"""

from __future__ import annotations

from carousel_env.envkit import policies as envkit_policies
from carousel_env.envkit.policies import ObservationPolicy, env_action, policy_action
from carousel_env.games.kaluki.players import KalukiPlayer, get_player
from carousel_env.games.kaluki.state import KalukiState


class ScriptedPolicy(envkit_policies.ScriptedPolicy):
    """A scripted Kaluki player at the env's decisions (its ``name`` for messages); Kaluki's
    players answer with the env's action themselves."""

    player: KalukiPlayer

    def action(self, state: KalukiState, offers: tuple) -> int:
        return int(self.player(state, offers))


KalukiPolicy = ScriptedPolicy | ObservationPolicy


def resolve_policy(spec: str | KalukiPolicy, seed: int | None = None) -> KalukiPolicy:
    """A policy from a scripted player's name (built with ``seed``), or a policy as it is."""
    scripted = lambda name, seed: ScriptedPolicy(name, get_player(name, seed))  # noqa: E731
    return envkit_policies.resolve_policy(spec, seed, scripted, "a Kaluki policy")


__all__ = ["KalukiPolicy", "ScriptedPolicy", "env_action", "policy_action", "resolve_policy"]
