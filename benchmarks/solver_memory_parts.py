"""What a solve's memory and time are made of: the sweeps' arrays and passes for given positions.

    .venv/bin/python -m benchmarks.solver_memory_parts [--stress I ...] [--stored I ...] [--agent I ...]
        [--full-sweep-states N]

Runs the passes of ``pipeline.solve_packed`` one by one from Python (the first call
compiles them standalone, a minute) on the positions given (indices into
``tests/data/solver_stress_positions.jsonl``, ``solver_positions.jsonl`` or
``agent_positions.jsonl``), and prints per pass its measured peak (as
``bench_solver_memory`` measures a solve: run this with ``MALLOC_MMAP_THRESHOLD_=131072``)
and its time (each pass runs twice and the second run is measured: the first loads or
compiles its code), then the states, edges, slots, slot pairs and vector entries with the
bytes each array holds (rows times row size: the capacity ``_grow`` doubled to is up to
twice the states and edges counted here). The path is ``solve``'s without the witnesses:
the unpruned sweep up to ``FULL_SWEEP_STATES`` states (``--full-sweep-states``: another
budget), then its vector pass, or past the budget the integer programs (``solver.milp``).
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from carousel_env.core.cards import parse_hand, parse_table
from carousel_env.games.carousel.solver import FULL_SWEEP_STATES, _position_arrays, milp, prepare, sweep
from carousel_env.games.carousel.solver.entries import vector
from tests.data.generate_stress_positions import OUT as STRESS
from tests.support.solver_memory import PeakResident
from tests.support.stored import AGENT_POSITIONS, STORED_POSITIONS, rules_of

MB = 1024 * 1024
UNCAPPED = np.int64(1 << 62)  # the passes with no memory cap: what they would keep


def sizes(tag: str, nstates: int, edges, pairs, nslots: int, entries) -> None:
    parts = {
        "states (48 B)": 48 * nstates + 8 * (nstates + 1),  # the rows, then first_slots
        "edges (16 B)": edges.nbytes,
        "slot pairs (12 B)": pairs.nbytes,
        "per slot (fut 24 B, offsets/lo/hi 24 B)": 48 * nslots,
        "vector entries (4 B)": entries[0].nbytes,
    }
    total = sum(parts.values())
    print(
        f"  {tag}: {nstates:,} states, {edges.shape[0]:,} edges, {nslots:,} slots, {pairs.shape[0]:,} pairs,"
        f" {entries[0].shape[0]:,} entries: {total / MB:.1f} MiB"
    )
    for name, b in parts.items():
        print(f"    {name}: {b / MB:.1f} MiB")


class Measured(PeakResident):
    """A pass's peak (``PeakResident``) and its seconds."""

    def __enter__(self) -> Measured:
        super().__enter__()
        self.start = time.perf_counter()
        return self

    def __exit__(self, *exc) -> None:
        self.seconds = time.perf_counter() - self.start
        super().__exit__(*exc)

    def __str__(self) -> str:
        return f"peak {self.mib:.1f} MiB, {1000 * self.seconds:.1f} ms"


def measured(run):
    """``(run's result, its Measured)``, from the second of two runs."""
    run()
    with Measured() as cost:
        out = run()
    return out, cost


def parts(item: dict, budget: int) -> None:
    table, hand = parse_table(item["table"]), parse_hand(item["hand"])
    rules = rules_of(item["variant"], item["decks"], item.get("players"))
    lay = prepare.layout(*_position_arrays(table, hand), rules.ace_low, rules.ace_high)
    hj, cells = lay.hand_jokers, lay.cells
    zero = np.int64(0)
    (states, edges, bounds, fut, first, pairs), cost = measured(
        lambda: sweep.explore(cells, hj, zero, zero, np.int64(budget), UNCAPPED)
    )
    print(f"  unpruned sweep (up to {budget:,} states): {cost}")
    if bounds.shape[0] == 1:
        slots = sweep.SLOTS_PER_STATE * budget
        print(f"  unpruned sweep gave up (past {budget:,} states or {slots:,} slots) at {states.shape[0]:,} states")
        del states, edges, fut, first, pairs
        limit = -1 if rules.knock_limit is None else rules.knock_limit
        units, hand_cards = _position_arrays(table, hand)
        low, high = rules.ace_low, rules.ace_high
        answer, cost = measured(lambda: milp.solve_by_programs(units, hand_cards, low, high, 8, limit, 60.0))
        print(f"  integer programs: {cost}, exact {answer.exact}")
        return
    best_points, best_cards, plain = max(0, fut[0, 0]), max(0, fut[0, 1]), max(0, fut[0, 2])
    if best_cards <= 0:
        print("  no play")
        return
    need_n, need_p = max(1, best_cards - 8), plain if plain > 0 else best_points
    (_best, _where, entries), cost = measured(
        lambda: vector(states, first, pairs, edges, bounds, fut, hj, need_n, need_p, UNCAPPED)
    )
    print(f"  vector pass: {cost}")
    sizes("unpruned sweep", states.shape[0], edges, pairs, first[-1], entries)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--stress", type=int, nargs="*", default=[])
    ap.add_argument("--stored", type=int, nargs="*", default=[])
    ap.add_argument("--agent", type=int, nargs="*", default=[])
    ap.add_argument("--full-sweep-states", type=int, default=FULL_SWEEP_STATES, help="the unpruned sweep's budget")
    args = ap.parse_args()
    if args.full_sweep_states < 0:
        ap.error(f"--full-sweep-states: a state count >= 0, got {args.full_sweep_states}")
    for path, indices in ((STRESS, args.stress), (STORED_POSITIONS, args.stored), (AGENT_POSITIONS, args.agent)):
        lines = [line for line in path.read_text().splitlines() if line.strip()] if indices else []
        for i in indices:
            if not 0 <= i < len(lines):
                ap.error(f"{path.name} has positions 0 to {len(lines) - 1}, not #{i}")
            item = json.loads(lines[i])
            print(f"{path.name} #{i}: hand {len(item['hand'].split())} {item.get('how', '')}", flush=True)
            parts(item, args.full_sweep_states)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
