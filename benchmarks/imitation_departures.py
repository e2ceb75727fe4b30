"""Where networks depart from a scripted player, on that player's own decisions, by the kind
of its move (``training/departures.py``): which decision an imitation has not learnt.

    .venv/bin/python -m benchmarks.imitation_departures checkpoints/kaluki runs/other --teacher simple --decisions 4000

Every checkpoint is asked the same decisions, from the first one's game and rules at
``--players``; one that reads another observation is refused, named.
"""

from __future__ import annotations

import argparse

import torch

from training.checkpoint_names import CheckpointError
from training.departures import departures
from training.evaluate import checkpoint_env_spec
from training.imitation import collect


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
    print(f"{len(data):,} decisions of {args.teacher} in {spec.game} at {args.players} players, seed {args.seed}")
    for name in args.checkpoints:
        try:
            agreement, rows = departures(name, spec, data)
        except CheckpointError as exc:
            raise SystemExit(f"imitation_departures: {exc}") from None
        print(f"\n{name}: the teacher's move at {agreement:.3f} of them")
        print("| the teacher's move | decisions | the network's move differs | share | it plays instead |")
        print("| --- | ---: | ---: | ---: | --- |")
        for row in rows:
            share = row.departed / row.decisions
            instead = ", ".join(f"{k} {n}" for k, n in row.instead) or "-"
            print(f"| {row.kind} | {row.decisions:,} | {row.departed:,} | {share:.3f} | {instead} |")


if __name__ == "__main__":
    main()
