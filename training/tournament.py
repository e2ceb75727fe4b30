"""Rate checkpoints and baselines against each other with openskill.

Every pair plays a mirror-paired evaluation match (see ``evaluate``); each game updates a
Plackett-Luce rating (a draw is a shared rank). The table is sorted by the conservative
``ordinal`` (mu - 3 sigma), so an agent with few games does not top it by luck.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from itertools import combinations
from pathlib import Path

from training.evaluate import evaluate


@dataclass(frozen=True)
class Rating:
    """An agent's line of the table (and of ``tournament.json``)."""

    agent: str
    mu: float
    sigma: float
    ordinal: float
    games: int
    win_rate: float


def run_tournament(
    agents: list[str], games: int = 20, num_players: int = 2, seed: int = 0, num_workers: int = 0
) -> list[Rating]:
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = {a: model.rating(name=a) for a in agents}
    played = dict.fromkeys(agents, 0)
    wins = dict.fromkeys(agents, 0.0)
    for k, (a, b) in enumerate(combinations(agents, 2)):
        res = evaluate(a, [b], games=games, num_players=num_players, seed=seed + 10_000 * k, num_workers=num_workers)
        for score in res.per_game:
            ranks = [0, 1] if score == 1.0 else [1, 0] if score == 0.0 else [0, 0]
            [[ra], [rb]] = model.rate([[ratings[a]], [ratings[b]]], ranks=ranks)
            ratings[a], ratings[b] = ra, rb
            played[a] += 1
            played[b] += 1
            wins[a] += score
            wins[b] += 1.0 - score
    rows = [Rating(a, r.mu, r.sigma, r.ordinal(), played[a], wins[a] / max(played[a], 1)) for a, r in ratings.items()]
    return sorted(rows, key=lambda row: -row.ordinal)


def format_table(rows: list[Rating]) -> str:
    width = max([len("agent")] + [len(r.agent) for r in rows])
    lines = [f"{'#':>2}  {'agent':<{width}}  {'ordinal':>8}  {'mu':>7}  {'sigma':>6}  {'games':>5}  {'win rate':>8}"]
    for i, r in enumerate(rows, 1):
        lines.append(
            f"{i:>2}  {r.agent:<{width}}  {r.ordinal:>8.2f}  {r.mu:>7.2f}  {r.sigma:>6.2f}  "
            f"{r.games:>5}  {r.win_rate:>8.3f}"
        )
    return "\n".join(lines)


def save(rows: list[Rating], out: str | Path) -> None:
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "tournament.json").write_text(json.dumps([asdict(r) for r in rows], indent=2))
    (out / "tournament.txt").write_text(format_table(rows) + "\n")
