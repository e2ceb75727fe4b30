"""Where a network departs from a scripted player: on that player's own decisions (games
between copies of it, recorded as ``carousel imitate`` records them), the share of each kind
of its move that the network's most likely move differs from, and what the network plays
there instead. It tells which decision an imitation has not learnt, and so what its
observation may lack (``benchmarks/imitation_departures.py`` prints it).

Kinds are the game's (``FamilyGame.action_kinds``, its discards from ``card_actions``); the
rest of the fixed actions are ``other`` (a draw from the stock, a pass).
"""

from __future__ import annotations

from collections import Counter
from typing import NamedTuple

import numpy as np

from carousel_env.envkit.family import family_game
from training.envs import EnvSpec, layout_for
from training.imitation import Demonstrations, most_likely
from training.policies import load_network_policy


class Departures(NamedTuple):
    """One kind of the teacher's move: how often it was made, how often the network's most
    likely move differed, and the kinds the network played instead (most first)."""

    kind: str
    decisions: int
    departed: int
    instead: tuple[tuple[str, int], ...]


def kind_of(action: int, game: str) -> str:
    """The name of the kind of ``action`` in ``game``."""
    family = family_game(game)
    cards = family.card_actions
    if cards is not None and cards.first_action <= action < cards.first_action + cards.num_cards:
        return "discard"
    for kind in family.action_kinds:
        if kind.first <= action and (kind.stop is None or action < kind.stop):
            return kind.name
    return "other"


def departures(checkpoint: str, spec: EnvSpec, data: Demonstrations) -> tuple[float, list[Departures]]:
    """The share of ``data``'s decisions where ``checkpoint``'s network makes the teacher's
    move, and the departures by kind, most frequent kind first. The network must read
    ``spec``'s observation (a CheckpointError says where it does not). ``data``: the teacher's
    decisions, as :func:`training.imitation.collect` records them."""
    agent = load_network_policy(checkpoint, layout_for(spec)).agent
    played = most_likely(agent, data, np.arange(len(data)))
    kinds = [kind_of(int(a), spec.game) for a in data.actions]
    rows = []
    for kind, count in Counter(kinds).most_common():
        departed = [i for i, k in enumerate(kinds) if k == kind and played[i] != data.actions[i]]
        instead = Counter(kind_of(int(played[i]), spec.game) for i in departed)
        rows.append(Departures(kind, count, len(departed), tuple(instead.most_common())))
    return float(np.mean(played == data.actions)), rows
