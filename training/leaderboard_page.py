"""The leaderboard's documents: its page (each game's own, ``docs/LEADERBOARD*.md``), the
README's tables between their markers, and the command
that reproduces them. What they show is computed in ``training.leaderboard``."""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from pathlib import Path

from carousel_env.core.registry import DEFAULT_GAME
from carousel_env.core.text import plural
from carousel_env.envkit.family import EventNames, family_game
from training.exploit import Exploitability
from training.files import write_text_atomic
from training.leaderboard_games import LeaderboardError, LeaderboardGame, leaderboard_game
from training.leaderboard_records import LeaderboardRun, OpenSpielRow, Standings, table_title
from training.tournament import INTERVAL_SIGMAS
from training.unit_stats import UnitReport

README_START, README_END = leaderboard_game(DEFAULT_GAME).readme_markers


def clock(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    return f"{minutes // 60}:{minutes % 60:02d}:{secs:02d}"


def command_line(
    sources: Sequence[str],
    heads_up_games: int,
    four_player_games: int,
    seed: int,
    state: str | Path,
    out: str | Path,
    heads_up_only: Sequence[str] = (),
    game: str = DEFAULT_GAME,
    variant: str | None = None,
) -> str:
    """The command that reproduces a leaderboard (every option that changes its tables)."""
    args = [
        "carousel",
        "leaderboard",
        *(["--game", game] if game != DEFAULT_GAME else []),
        *(["--variant", variant] if variant is not None else []),
        "--agents",
        ",".join(sources),
    ]
    if heads_up_only:
        args += ["--heads-up-only", ",".join(heads_up_only)]
    args += ["--heads-up-games", str(heads_up_games), "--four-player-games", str(four_player_games)]
    args += ["--seed", str(seed), "--state", str(state), "--out", str(out)]
    return shlex.join(args)


def _meeting(board: LeaderboardGame) -> str:
    """What the page calls one schedule entry: a match of games, or, where each game is a
    match (Gin's, to 100), a pairing of matches."""
    return "pairing" if board.played_unit == "match" else "match"


def _deals(standings: Standings, board: LeaderboardGame) -> str:
    games, players = standings.games_per_match, standings.players
    deals = games // players
    form = "mirror-paired" if players == 2 else f"each played from the {players} seats"
    played = "match" if board.played_unit == "match" else "game"
    return f"{plural(games, played)} a {_meeting(board)}: {plural(deals, 'deal')}, {form}"


def ratings_table(
    standings: Standings,
    exploitability: Mapping[str, Exploitability] | None = None,
    costs: Mapping[tuple[int, str], float] | None = None,
) -> str:
    """The Markdown table of one table size's ratings; each agent's cost (median ms per
    decision, ``training.decision_cost``) where timed (blank for an agent not timed: OpenSpiel's bots),
    and a network's exploitability (its strongest best response's win rate against it,
    ``carousel exploit``) where shipped."""
    exploitability, costs = exploitability or {}, costs or {}
    timed = any(players == standings.players for players, _ in costs)
    lines = [
        f"| # | agent | rating (mu ± {INTERVAL_SIGMAS:g} sigma) | interval | ordinal | win rate | games "
        + ("| ms per decision " if timed else "")
        + "| best response's win rate against it |",
        "| ---: | --- | ---: | --- | ---: | ---: | ---: | " + ("---: | " if timed else "") + "--- |",
    ]
    for i, row in enumerate(standings.rows, 1):
        lo, hi = row.interval
        exploited = exploitability[row.agent].cell() if row.agent in exploitability else ""
        cost = costs.get((standings.players, row.agent))
        ms = "" if cost is None else f"{cost:.2g}" if cost < 1 else f"{cost:.1f}" if cost < 10 else f"{cost:.0f}"
        lines.append(
            f"| {i} | {row.agent} | {row.mu:.1f} ± {INTERVAL_SIGMAS * row.sigma:.1f} | {lo:.1f} to {hi:.1f} "
            f"| {row.ordinal:.1f} | {row.win_rate:.3f} | {row.games} | "
            + (f"{ms} | " if timed else "")
            + f"{exploited} |"
        )
    return "\n".join(lines)


def pairs_table(standings: Standings) -> str:
    """Heads-up win rates, the row agent's against the column agent (blank: they did not meet)."""
    names = [row.agent for row in standings.rows]
    lines = ["| against → | " + " | ".join(names) + " |", "| --- |" + " ---: |" * len(names)]
    for a in names:
        cells = ["" if (a, b) not in standings.pairs else f"{standings.pairs[(a, b)]:.2f}" for b in names]
        lines.append(f"| {a} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _cell(value: float, interval: tuple[float, float], digits: int) -> str:
    return f"{value:.{digits}f} ({interval[0]:.{digits}f} to {interval[1]:.{digits}f})"


def _report_cells(report: UnitReport, names: EventNames) -> list[str]:
    cells = [
        str(report.units),
        _cell(report.points, report.points_ci, 2),
        _cell(report.opponents_points, report.opponents_points_ci, 2),
        _cell(report.difference, report.difference_ci, 2),
        _cell(report.decided_won_rate, report.decided_won_ci, 3),
    ]
    if names.knocked:
        cells.append(_cell(report.knock_rate, report.knock_rate_ci, 3))
    if names.went_out:
        cells.append(_cell(report.go_out_rate, report.go_out_rate_ci, 3))
    if names.knocked and names.undercut:
        cells.append(_cell(report.undercut_rate, report.undercut_rate_ci, 3))
    return cells


def _report_header(unit: str, names: EventNames, first: Sequence[str]) -> list[str]:
    header = [
        *first,
        f"{unit}s",
        f"points a {unit}",
        f"opponents' points a {unit}",
        "difference",
        f"decided {unit}s won",
    ]
    header += [f"{names.knocked} rate"] if names.knocked else []
    header += [f"{names.went_out} rate"] if names.went_out else []
    header += [f"{names.undercut} rate (of {names.knocked}s)"] if names.knocked and names.undercut else []
    return ["| " + " | ".join(header) + " |", "| --- " * len(first) + "| ---: " * (len(header) - len(first)) + "|"]


def units_table(standings: Standings, game: str) -> str:
    """Each rated agent's figures in the game's scoring unit over all its games at the table
    size, with 95% intervals (``training.unit_stats``), in the ratings' order."""
    family = family_game(game)
    lines = _report_header(family.unit, family.event_names, ["agent"])
    for row in standings.rows:
        cells = _report_cells(standings.units[row.agent], family.event_names)
        lines.append(f"| {row.agent} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def openspiel_table(rows: Sequence[OpenSpielRow], game: str) -> str:
    """Our agents' figures a hand against OpenSpiel's bots inside OpenSpiel's game."""
    family = family_game(game)
    lines = _report_header("hand", family.event_names, ["agent", "against"])
    for row in rows:
        lines.append(f"| {row.agent} | {row.bot} | " + " | ".join(_report_cells(row.report, family.event_names)) + " |")
    return "\n".join(lines)


def _how(board: LeaderboardGame) -> str:
    """How a leaderboard's games are played and rated, for its page."""
    unit = board.played_unit
    played = board.how or (
        "Every pair plays heads-up and every 4 distinct agents share a 4-player table, on the same deals; each "
        "deal is played once per seat with the whole table turned one seat a game, so each agent gets every "
        "seat's cards."
    )
    return (
        f"{played} Ratings are openskill Plackett-Luce, updated once per {unit} from the finishing places (the "
        f"winner first, then the others by final total; a {unit} nobody won is a shared place); the interval is "
        f"mu ± {INTERVAL_SIGMAS:g} sigma (about 95%), rows are sorted by the ordinal mu - 3 sigma. The win rate "
        f"is the share of {unit}s won, one nobody won counting as a share; the fair share is "
        + ", ".join(f"1/{n} " + ("heads-up" if n == 2 else f"at {n} players") for n in board.table_sizes)
        + ". How it is run: `training/leaderboard.py`."
    )


def render_leaderboard(run: LeaderboardRun, command: str, date: str) -> str:
    """``docs/LEADERBOARD.md`` (Gin Rummy's: ``docs/LEADERBOARD_GIN.md``)."""
    parts = [
        f"# {run.board.title}",
        "",
        f"Made on {date} by `carousel leaderboard`, whose matches took {clock(run.play_seconds)} to play. "
        "To reproduce it (a rerun plays only what its state file lacks):",
        "",
        "```bash",
        command,
        "```",
        "",
        _how(run.board),
    ]
    for standings in run.standings:
        widest = max((INTERVAL_SIGMAS * row.sigma for row in standings.rows), default=0.0)
        parts += [
            "",
            f"## {table_title(standings.players)}",
            "",
            f"{plural(standings.matches, _meeting(run.board))}; {_deals(standings, run.board)}. "
            f"The intervals are ± {widest:.1f} at the widest.",
            "",
            ratings_table(standings, run.exploitability(standings.players), run.costs),
        ]
        if standings.players == 2:
            parts += ["", "Win rate of each row against each column:", "", pairs_table(standings)]
        if standings.units:
            unit = family_game(run.board.game).unit
            parts += [
                "",
                f"In {unit}s, over all of each agent's games at this table (95% intervals; the opponents' points are "
                f"their mean; decided: the seats' points differ):",
                "",
                units_table(standings, run.board.game),
            ]
    if run.openspiel:
        parts += [
            "",
            "## Against OpenSpiel's bots",
            "",
            "Inside OpenSpiel's own game, single hands under its rules, each deal twice with the seats swapped "
            "(95% intervals over hands). Not rated with the table above: a single hand is not its unit.",
            "",
            openspiel_table(run.openspiel, run.board.game),
        ]
    return "\n".join(parts) + "\n"


def readme_block(run: LeaderboardRun, leaderboard_link: str, date: str) -> str:
    """What goes between the README's markers: both tables and where they come from."""
    parts = [f"From [{leaderboard_link}]({leaderboard_link}) ({date}; the command, the games and the pairs are there)."]
    for standings in run.standings:
        table = ratings_table(standings, run.exploitability(standings.players), run.costs)
        parts += ["", f"**{table_title(standings.players)}**: {_deals(standings, run.board)}.", "", table]
    return "\n".join(parts)


def update_readme(readme: str | Path, block: str, board: LeaderboardGame | None = None) -> None:
    """Put ``block`` between the README's markers of the game's leaderboard (a section titled
    as its page, with them, is added at the end if it has none; ``board``: Carousel's by default)."""
    board = board or leaderboard_game(DEFAULT_GAME)
    path = Path(readme)
    text = path.read_text() if path.exists() else ""
    check_readme(path, board)
    start, end = board.readme_markers
    if start not in text:
        text = text.rstrip("\n") + f"\n\n## {board.title}\n\n{start}\n{end}\n"
    head, rest = text.split(start, 1)
    _, tail = rest.split(end, 1)
    write_text_atomic(path, f"{head}{start}\n{block}\n{end}{tail}")


def check_readme(readme: str | Path, board: LeaderboardGame | None = None) -> None:
    """A README has both of the game's leaderboard markers in order, or neither (checked
    before any game; ``board``: Carousel's by default)."""
    board = board or leaderboard_game(DEFAULT_GAME)
    path = Path(readme)
    text = path.read_text() if path.exists() else ""
    start_mark, end_mark = board.readme_markers
    start, end = text.find(start_mark), text.find(end_mark)
    if (start < 0) != (end < 0) or start > end or text.count(start_mark) > 1 or text.count(end_mark) > 1:
        raise LeaderboardError(
            f"{path} must hold {start_mark} then {end_mark} once each, or neither (a section is then added)"
        )
