"""Conquian's policies at the env's decisions: what the Gymnasium forms (and any driver of
scripted seats) play at an opponent's seat.

A policy is given as

* a scripted player's name (:mod:`carousel_env.games.conquian.players`: ``random``,
  ``simple``), resolved to a :class:`ScriptedPolicy`: the player, handed the game and the
  decision's offers (it reads only what its seat may know), answering with an env action;
* or a callable ``(observation, action_mask) -> action``, handed its seat's observation
  vector and mask (the AEC env's).
"""

from __future__ import annotations

from carousel_env.envkit import policies as envkit_policies
from carousel_env.envkit.policies import ObservationPolicy, env_action, policy_action
from carousel_env.games.conquian.players import ConquianPlayer, get_player
from carousel_env.games.conquian.state import ConquianState


class ScriptedPolicy(envkit_policies.ScriptedPolicy):
    """A scripted Conquian player at the env's decisions (its ``name`` for messages); Conquian's
    players answer with the env's action themselves."""

    player: ConquianPlayer

    def action(self, state: ConquianState, offers: tuple) -> int:
        return int(self.player(state, offers))


ConquianPolicy = ScriptedPolicy | ObservationPolicy


def resolve_policy(spec: str | ConquianPolicy, seed: int | None = None) -> ConquianPolicy:
    """A policy from a scripted player's name (built with ``seed``), or a policy as it is."""
    scripted = lambda name, seed: ScriptedPolicy(name, get_player(name, seed))  # noqa: E731
    return envkit_policies.resolve_policy(spec, seed, scripted, "a Conquian policy")


__all__ = ["ConquianPolicy", "ScriptedPolicy", "env_action", "policy_action", "resolve_policy"]
