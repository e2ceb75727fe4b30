"""Regenerate ``solver_stress_positions.jsonl``: adversarial positions for the solver's memory.

    .venv/bin/python -m tests.data.generate_stress_positions [--candidates 1500] [--keep 40] [--seed 21]

How they are built: two decks and both jokers (``carousel(3)``, the most copies per card
the rules allow), crowded tables and long hands, the two things the sweeps' state count
grows with (more open-run combinations per cell, more cards to play per cell). Each
candidate comes from ``tests.support.positions``' dealer with its table target raised to
``T`` units (45 to 96: the dealer stops when no meld fits) and its hand forced to ``H``
cards (12 to 40; at most what the decks have left), of which up to 8 are "hot" (cards
that split, extend or steal from the table's melds) and, with probability 1/2 each, one
or two jokers. Every candidate is solved
in a worker of ``benchmarks.bench_solver_memory`` (same measure: the resident-set growth of
the solve); the ``--keep`` with the largest peak are written, each with ``how`` (seed,
index, T, H, the measured peak and time) and its MILP optima, so that the tests can check
the solver on them. The stored file: the defaults (3.5 minutes, then the MILPs): of the
1,500 candidates 32 passed 128 MiB and 17 passed 256 MiB (see ``benchmarks/RESULTS.md``).
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

from carousel_env.core.cards import JOKER, hand_str, table_str
from carousel_env.games.carousel.engine.rules import carousel
from tests.support import positions as gen

OUT = Path(__file__).resolve().parent / "solver_stress_positions.jsonl"
RULES = carousel(3)  # two decks, two jokers


class _Crowded(gen._Dealer):
    def __init__(self, rng: random.Random, units: int, hand: int) -> None:
        super().__init__(rng, RULES.decks, RULES.jokers, RULES)
        self.units, self.hand_size = units, hand

    def position(self):
        rng = self.rng
        want_jokers = sum(rng.random() < 0.5 for _ in range(2))
        self.jokers_left -= want_jokers  # kept for the hand
        units = failures = 0
        while units < self.units and failures < 200:
            meld = self._deal_meld()
            if meld is None or units + len(meld) > self.units:
                if meld is not None:
                    self._return(meld)
                failures += 1
                continue
            self.melds.append(gen.sort_meld(meld, self.rules))
            units += len(meld)
        rng.shuffle(self.melds)
        hand = [JOKER] * want_jokers
        hot = self._hot_faces()
        for _ in range(rng.randint(0, 8)):
            hot = [f for f in hot if self.pool[f]]
            if not hot or len(hand) >= self.hand_size:
                break
            f = rng.choice(hot)
            self.pool[f] -= 1
            hand.append(f)
        rest = [f for f in range(len(self.pool)) for _ in range(self.pool[f])]
        rng.shuffle(rest)
        hand += rest[: max(0, self.hand_size - len(hand))]
        return tuple(self.melds), tuple(sorted(hand))


def candidates(n: int, seed: int):
    for index in range(n):
        rng = random.Random(f"carousel-stress/{seed}/{index}")
        units, hand = rng.randint(45, 96), rng.randint(12, 40)
        table, cards = _Crowded(rng, units, hand).position()
        yield {
            "table": table_str(table),
            "hand": hand_str(cards),
            "decks": RULES.decks,
            "variant": RULES.variant.value,
            "source": "stress",
            "how": f"seed {seed} index {index} T={units} H={hand}",
        }


def measure(items: list[dict], timeout: float) -> list[tuple[float, float] | None]:
    """(peak MiB, seconds) per item; ``None`` for one whose worker ran past ``timeout``."""
    from tests.support.solver_memory import measure as bench_measure

    out: list[tuple[float, float] | None] = [None] * len(items)
    for r in bench_measure([json.dumps(item) for item in items], 10, timeout=timeout):
        if not r.get("timeout"):
            out[r["i"]] = (r["peak_kib"] / 1024, r["seconds"])
        print(items[r["i"]]["how"], out[r["i"]], flush=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--candidates", type=int, default=1500)
    ap.add_argument("--keep", type=int, default=40)
    ap.add_argument("--seed", type=int, default=21)
    ap.add_argument(
        "--timeout",
        type=float,
        default=300.0,
        help="seconds per worker of 10 candidates (the one running then is dropped)",
    )
    ap.add_argument("--no-milp", action="store_true")
    args = ap.parse_args()
    items = list(candidates(args.candidates, args.seed))
    scored = [(m, item) for m, item in zip(measure(items, args.timeout), items) if m is not None]
    scored.sort(key=lambda x: -x[0][0])
    lines = []
    for (peak, seconds), item in scored[: args.keep]:
        item["how"] += f" peak {peak:.1f} MiB {seconds:.2f} s"
        if not args.no_milp:
            from carousel_env.core.cards import parse_hand, parse_table
            from tests.support.milp_reference import milp_best

            table, hand = parse_table(item["table"]), parse_hand(item["hand"])
            item["best_points"] = milp_best(table, hand, RULES, "points", cross_check=True)
            item["best_cards"] = milp_best(table, hand, RULES, "cards", cross_check=True)
        lines.append(json.dumps(item))
    OUT.write_text("\n".join(lines) + "\n")
    print(f"wrote {len(lines)} positions to {OUT}")


if __name__ == "__main__":
    main()
