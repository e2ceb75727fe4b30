"""Where a network departs from a scripted player: on that player's own decisions (games
between copies of it, recorded as ``carousel imitate`` records them), the share of each kind
of its move that the network's most likely move differs from, and what the network plays
there instead. It tells which decision an imitation has not learnt, and so what its
observation may lack.

    .venv/bin/python -m benchmarks.imitation_departures checkpoints/kaluki runs/other --teacher simple --decisions 4000

Kinds are the game's (``FamilyGame.action_kinds``, its discards from ``card_actions``); the
rest of the fixed actions are ``other`` (a draw from the stock, a pass). Every checkpoint is
measured on the same decisions, from the first one's game and rules at ``--players``.
"""

from __future__ import annotations

import argparse
from collections import Counter

import numpy as np
import torch

from carousel_env.envkit.family import family_game
from training.checkpoint_names import CheckpointError
from training.envs import layout_for
from training.evaluate import checkpoint_env_spec
from training.imitation import collect
from training.policies import load_network_policy


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


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("checkpoints", nargs="+", help="checkpoints (or run directories) of one game")
    p.add_argument("--teacher", default="simple", help="the scripted player whose decisions are asked")
    p.add_argument("--decisions", type=int, default=4000)
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--seed", type=int, default=4242, help="the seed of the teacher's games")
    args = p.parse_args(argv)
    torch.set_num_threads(1)
    spec = checkpoint_env_spec(args.checkpoints[0], args.players)
    data = collect(spec, args.teacher, args.decisions, seed=args.seed)
    kinds = [kind_of(int(a), spec.game) for a in data.actions]
    print(f"{len(data):,} decisions of {args.teacher} in {spec.game} at {args.players} players, seed {args.seed}")
    for name in args.checkpoints:
        try:
            agent = load_network_policy(name, layout_for(spec)).agent  # each must read this game's observation
        except CheckpointError as exc:
            raise SystemExit(f"imitation_departures: {exc}") from None
        with torch.no_grad():
            dist = agent.distribution(torch.as_tensor(data.observations), torch.as_tensor(data.masks))
            played = dist.mode().numpy()
        print(f"\n{name}: the teacher's move at {float(np.mean(played == data.actions)):.3f} of them")
        print("| the teacher's move | decisions | the network's move differs | share | it plays instead |")
        print("| --- | ---: | ---: | ---: | --- |")
        for kind, count in Counter(kinds).most_common():
            rows = [i for i, k in enumerate(kinds) if k == kind]
            departed = [i for i in rows if played[i] != data.actions[i]]
            instead = Counter(kind_of(int(played[i]), spec.game) for i in departed)
            text = ", ".join(f"{k} {n}" for k, n in instead.most_common()) or "-"
            print(f"| {kind} | {count:,} | {len(departed):,} | {len(departed) / count:.3f} | {text} |")


if __name__ == "__main__":
    main()
