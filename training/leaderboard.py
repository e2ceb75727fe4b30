"""The leaderboard: the baselines, the search player at two budgets, every shipped agent and
the search guided by the heads-up ones, rated heads-up and at 4 players (``carousel leaderboard``).

Roster: the game's baselines (Carousel's ``random``, ``greedy``, ``smart``, ``search@4``,
``search@16``), every ``checkpoints/<name>/model.pt``,
named by its folder, and ``search@GUIDED_BUDGET+checkpoints/<name>`` for each of those
trained heads-up (the guided search, named ``search@8+<name>``); ``--agents`` replaces it
(names as ``carousel eval`` takes them).

Schedule: heads-up, every pair of agents plays a match; at 4 players, every table of 4
distinct agents does, but for the agents named by ``heads_up_only`` (by default the guided
search players, whose decisions cost a hundred times a network's). A match is the
evaluation's seat rotation (``evaluate.eval_specs``): each deal is played once per seat,
the whole table turning one seat a game (heads-up: the mirror pair), so every agent gets
every seat's cards. Every match plays the same deals
(seeds ``seed``, ``seed + 1``, ...), so the agents all meet the same hands.

Ratings: one openskill Plackett-Luce table per table size (``tournament.RatingTable``),
updated once per game, in schedule order, from the finishing places: the game's winner
first, then the others by final total (equal totals share a place). The interval shown is
mu +- 2 sigma (``tournament.INTERVAL_SIGMAS``, about 95%); rows are sorted by the ordinal
(mu - 3 sigma), as in ``carousel tournament``. The win rate is the share of games won
(fair share: 1/2 heads-up, 1/4 at 4 players).

Resuming: every finished match's games go into a JSON state file (by default
``leaderboard_games.json`` beside the output), keyed by the table size, the agents (a
checkpoint by its name and the digest of its file), the games and the seed. A rerun plays
only the matches the file lacks: the same command plays nothing, an added agent plays only
its own matches, a retrained checkpoint replays its. Delete the file after changing a
scripted player's code. Results do not depend on ``--workers`` (the networks sample from
generators seeded per match, over a fixed number of game copies).

Every game: what its leaderboard plays (table sizes, the env options of every match, its
baselines, whether its shipped agents guide a search, its page and state file) is the game's
own (``LeaderboardFacts`` in its family contract; ``training.leaderboard_games``). Where it
names OpenSpiel's bots (Gin Rummy's ``openspiel:simple``, where open_spiel is installed), a
match with one of them is played inside OpenSpiel's game through its runner
(:mod:`carousel_env.integrations.openspiel_gin`: each deal twice, seats swapped); two of its
bots never meet, a dead hand is a shared place and half a win, and the cost column leaves
them blank (they decide inside OpenSpiel).

The modules: this one plays and rates; ``training.leaderboard_games`` says what each game's
leaderboard plays (``LeaderboardGame``); ``training.leaderboard_page`` writes the page and
the README's tables; ``training.leaderboard_defaults`` holds the defaults.

Cost column: each agent's median milliseconds per decision at each table size
(``training.decision_cost``), timed once when it first appears and kept in the state file
beside its games, so that a rerun writes the same page.

Cost of a run: a search player's rollouts make it most of the bill; the shipped leaderboard's time,
its seconds per game by opponent and the widths of its intervals are in
``benchmarks/RESULTS.md`` (2026-11-24). The defaults are in
``training.leaderboard_defaults`` (``carousel leaderboard --help`` shows them). An 8th agent
adds 7 pairs and 35 tables, a 9th 8 pairs and 56 tables: lower ``--four-player-games`` as
the roster grows. openskill's sigma settles slowly, so the
intervals stay wider for the agents at the ends of the table.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict
from importlib.util import find_spec
from itertools import combinations
from pathlib import Path
from typing import Any

import torch

from carousel_env.core.registry import DEFAULT_GAME
from carousel_env.core.text import plural
from carousel_env.envkit.family import FamilyGame
from carousel_env.envkit.layout import ObservationLayout
from training.checkpoint import saved_env_keys
from training.checkpoint_names import (
    GUIDED_MARK,
    LATEST,
    SHIPPED_MODEL,
    find_checkpoint,
    is_checkpoint_name,
    split_guided,
)
from training.config import EnvKeys
from training.decision_cost import decision_ms, recorded_positions
from training.envs import layout_for
from training.episodes import play_episodes
from training.evaluate import deals_for, eval_specs
from training.files import write_text_atomic
from training.games import training_game
from training.leaderboard_defaults import (
    FOUR_PLAYER_GAMES,
    GUIDED_BUDGET,
    HEADS_UP_GAMES,
)
from training.leaderboard_games import (
    LeaderboardError,
    LeaderboardGame,
    is_openspiel_bot,
    leaderboard_game,
    variant_of,
)
from training.leaderboard_page import (
    check_readme,
    clock,
    command_line,
    readme_block,
    render_leaderboard,
    update_readme,
)
from training.leaderboard_records import (
    GameRecord,
    LeaderboardRun,
    MatchSpec,
    OpenSpielRow,
    PlayedMatch,
    RosterAgent,
    Standings,
)
from training.network import Agent
from training.policies import (
    Controller,
    NetworkPolicy,
    guided_search_player,
    load_network_policy,
    network_callable,
    scripted_controller,
)
from training.replays import write_replays
from training.runners import Driver
from training.tournament import RatingTable
from training.unit_stats import UnitTally

# Game copies stepped at once. Networks sample in the order their decisions are batched,
# which depends on this number, so it is fixed (not tied to --workers) to keep results.
GAME_COPIES = 8
STATE_FORMAT = 1


# ------------------------------------------------------------------ roster


def default_roster(
    checkpoints: str | Path = "checkpoints", game: str = DEFAULT_GAME, variant: str | None = None
) -> tuple[str, ...]:
    """The game's baselines (Gin Rummy's: with OpenSpiel's simple bot where open_spiel is
    installed), then every agent shipped for the game (and the leaderboard's variant) under
    ``checkpoints`` (its folder), then the search guided by each shipped agent trained
    heads-up (``search@GUIDED_BUDGET+folder``)."""
    board = leaderboard_game(game, variant)
    folders = [str(path.parent) for path in sorted(Path(checkpoints).glob(f"*/{SHIPPED_MODEL}"))]
    shipped = [folder for folder in folders if plays_board(saved_env_keys(folder), board)]
    bots = board.openspiel_bots if find_spec("pyspiel") is not None else ()
    heads_up = [folder for folder in shipped if saved_env_keys(folder).num_players == 2]
    guided = [f"search@{GUIDED_BUDGET}{GUIDED_MARK}{folder}" for folder in heads_up] if board.guided else []
    return (*board.baselines, *bots, *shipped, *guided)


def plays_board(keys: EnvKeys, board: LeaderboardGame) -> bool:
    """Whether a checkpoint trained with env ``keys`` plays the leaderboard's game and variant
    (or one of the variants whose networks it seats)."""
    return keys.game == board.game and variant_of(keys.game, keys.env) in (board.variant, *board.seats_variants)


def guided_agents(sources: Sequence[str]) -> tuple[str, ...]:
    """The names (as the tables write them) of the guided search players among ``sources``:
    what sits out the 4-player tables unless told otherwise (``carousel leaderboard``)."""
    return tuple(agent_name(source) for source in sources if split_guided(source) is not None)


def agent_name(source: str) -> str:
    """A checkpoint's name in the tables: its folder's (``checkpoints/ppo_2p``,
    ``runs/x/latest.pt``: ``ppo_2p``, ``x``), or the file's stem; a guided search player's
    is its search and its checkpoint's (``search@8+ppo_2p``); a scripted policy's is its own."""
    guided = split_guided(source)
    if guided is not None:
        return f"{guided[0]}+{agent_name(guided[1])}"
    if not is_checkpoint_name(source):
        return source
    path = Path(source)
    if path.is_dir() or path.name in (SHIPPED_MODEL, LATEST):
        return (path if path.is_dir() else path.parent).resolve().name
    return path.stem


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:12]


def load_roster(
    sources: Sequence[str], board: LeaderboardGame | None = None
) -> tuple[tuple[RosterAgent, ...], dict[str, Agent]]:
    """The roster of ``sources`` and the network of each checkpoint agent (by name), all
    checked before any game: unknown names, unreadable checkpoints, checkpoints of another
    game and two agents of one name are errors that name them (``board``: Carousel's by default)."""
    board = board or leaderboard_game(DEFAULT_GAME)
    layout = layout_for(board.env_spec(board.table_sizes[0]))  # the same at every table size
    roster: list[RosterAgent] = []
    networks: dict[str, Agent] = {}
    for source in sources:
        name = agent_name(source)
        if any(agent.name == name for agent in roster):
            raise LeaderboardError(f"two agents are named {name!r} ({source!r} and an earlier one); give each once")
        guided = split_guided(source)
        if is_openspiel_bot(source):
            if not board.openspiel_bots:
                raise LeaderboardError(f"{source!r}: OpenSpiel's bots play in the Gin Rummy leaderboard only")
            _openspiel().parse_opponent(source)  # raises naming a bad bot
            roster.append(RosterAgent(name, source))
        elif is_checkpoint_name(source):
            networks[name] = load_network_policy(source, layout).agent
            roster.append(RosterAgent(name, source, _digest(find_checkpoint(source)), is_network=True))
        elif guided is not None:
            if not board.guided:
                raise LeaderboardError(f"{source!r}: this leaderboard has no guided search")
            scripted_controller(source, board.game)  # raises naming a bad search budget or a missing checkpoint
            trained_on = saved_env_keys(guided[1]).game
            if trained_on != board.game:
                raise LeaderboardError(f"{source!r}: its network plays {trained_on}, this leaderboard {board.game}")
            roster.append(RosterAgent(name, source, _digest(find_checkpoint(guided[1]))))
        else:
            scripted_controller(source, board.game)  # raises UnknownPolicyError naming it
            roster.append(RosterAgent(name, source))
    return tuple(roster), networks


def _openspiel():
    """The OpenSpiel runner (:mod:`carousel_env.integrations.openspiel_gin`), or an error
    saying how to install it."""
    try:
        from carousel_env.integrations import openspiel_gin
    except ImportError as exc:
        raise LeaderboardError(
            f"OpenSpiel's bots play inside OpenSpiel, which is not installed ({exc}): "
            "pip install 'carousel-rl[openspiel]'"
        ) from None
    return openspiel_gin


# ------------------------------------------------------------------ schedule


def schedule(
    roster: Sequence[RosterAgent],
    heads_up_games: int,
    four_player_games: int,
    seed: int,
    heads_up_only: Sequence[str] = (),
    table_sizes: Sequence[int] | None = None,
) -> list[MatchSpec]:
    """Every pair heads-up, then every table of 4 of the agents not in ``heads_up_only``
    (names), games rounded up to whole deals (0 leaves that table size out), in roster order.
    Two of OpenSpiel's bots do not meet: its runner seats one of ours against one of its.
    ``table_sizes``: Carousel's leaderboard's by default."""
    table_sizes = leaderboard_game(DEFAULT_GAME).table_sizes if table_sizes is None else table_sizes
    matches = []
    for players, games in zip(table_sizes, (heads_up_games, four_player_games)):
        if games <= 0:
            continue
        whole_deals = deals_for(players, games) * players
        seated = roster if players == 2 else [a for a in roster if a.name not in heads_up_only]
        tables = [t for t in combinations(seated, players) if sum(a.is_openspiel for a in t) < 2]
        matches += [MatchSpec(players, table, whole_deals, seed) for table in tables]
    return matches


# ------------------------------------------------------------------ games and their store


class GameStore:
    """The JSON state file: the env options its matches play under, each finished match by
    :attr:`MatchSpec.key`, a game a line. Written whole after every match (to a temporary
    file, then moved into place). A file of other options is refused (one from before the
    options were kept is taken as the board's)."""

    def __init__(self, path: str | Path, options: Sequence[tuple[str, Any]] = ()) -> None:
        self.path = Path(path)
        self.options = [[key, value] for key, value in options]  # as JSON keeps them
        self.matches: dict[str, PlayedMatch] = {}
        self.costs: dict[str, float] = {}  # "<players>p <identity>" -> ms per decision, timed once
        if not self.path.exists():
            return
        try:
            data = json.loads(self.path.read_text())
            if data["format"] != STATE_FORMAT:
                raise ValueError(f"format {data['format']!r}, this code reads {STATE_FORMAT}")
            if data.get("options", self.options) != self.options:
                raise ValueError(
                    f"its matches were played under {data['options']}, this leaderboard's under {self.options}"
                )
            self.matches = {
                key: PlayedMatch(
                    tuple(
                        GameRecord(
                            g["seed"],
                            tuple(g["seats"]),
                            tuple(g["totals"]),
                            g["winner"],
                            tuple(tuple(unit) for unit in g.get("units", ())),
                            tuple(tuple(seat) for seat in g.get("events", ())),
                        )
                        for g in match["games"]
                    ),
                    float(match["seconds"]),
                )
                for key, match in data["matches"].items()
            }
            self.costs = {key: float(ms) for key, ms in data.get("costs", {}).items()}
        except (ValueError, KeyError, TypeError) as exc:
            raise LeaderboardError(
                f"leaderboard state {self.path} is not readable ({type(exc).__name__}: {exc}); "
                "move it away to start over"
            ) from None

    def get(self, match: MatchSpec) -> PlayedMatch | None:
        return self.matches.get(match.key)

    def put(self, match: MatchSpec, played: PlayedMatch) -> None:
        self.matches[match.key] = played
        self._write()

    def put_cost(self, key: str, ms: float) -> None:
        self.costs[key] = ms
        self._write()

    def _write(self) -> None:
        entries = []
        for key, done in self.matches.items():
            games = ",\n      ".join(json.dumps(asdict(g)) for g in done.games)
            entries.append(f'  {json.dumps(key)}: {{"seconds": {done.seconds:.1f}, "games": [\n      {games}\n  ]}}')
        costs, options = json.dumps(self.costs, indent=None), json.dumps(self.options)
        text = (
            f'{{\n "format": {STATE_FORMAT},\n "options": {options},\n "costs": {costs},\n "matches": {{\n'
            + ",\n".join(entries)
            + "\n }\n}\n"
        )
        write_text_atomic(self.path, text)


def play_openspiel_match(match: MatchSpec, board: LeaderboardGame) -> tuple[GameRecord, ...]:
    """Play ``match`` (one of ours against one of OpenSpiel's bots) inside OpenSpiel's game,
    through its runner: each deal twice, the seats swapped (seeds ``match.seed`` on; the deals
    are the runner's, not the env's). A hand's totals are its returns, zero for a dead hand."""
    runner = _openspiel()
    bot = next(a for a in match.agents if a.is_openspiel)
    ours = next(a for a in match.agents if not a.is_openspiel)
    agent: Any = ours.source
    if ours.is_network:  # samples from a generator seeded by the match, as play_match's networks do
        layout = ObservationLayout.of(runner.layout(runner.K_KNOCKS))
        agent = network_callable(ours.source, layout, match.seed)
    elif split_guided(ours.source) is not None:
        agent = guided_search_player(ours.source, match.seed, board.game)
    played = runner.play_openspiel(agent, bot.source, match.games // 2, seed=match.seed)
    records = []
    for hand in played.hands:
        seats = (ours.name, bot.name) if hand.seat == 0 else (bot.name, ours.name)
        points = round(hand.returns)
        totals = (points, -points) if hand.seat == 0 else (-points, points)
        winner = None if points == 0 else hand.seat if points > 0 else 1 - hand.seat
        gin = hand.end == "gin"
        events = tuple(
            (int(hand.knocker == s), int(hand.knocker == s and gin), int(hand.knocker == s and hand.undercut))
            for s in (0, 1)
        )
        unit = tuple(max(total, 0) for total in totals)  # the hand's points go to the side they favour
        records.append(GameRecord(match.seed + hand.deal, seats, totals, winner, (unit,), events))
    return tuple(records)


def play_match(
    match: MatchSpec,
    networks: dict[str, Agent],
    driver: Driver,
    game: str = DEFAULT_GAME,
    replays: Path | None = None,
) -> tuple[GameRecord, ...]:
    """Play ``match`` on ``driver`` (a driver of ``match.players`` seats); network agents
    sample from generators seeded by the match seed and their place in the match.
    ``replays``: a folder where each game is written as a replay (a folder of its own for
    the match: ``training.replays``)."""
    controllers: dict[str, Controller] = {}
    policies: dict[Controller, NetworkPolicy] = {}
    for position, agent in enumerate(match.agents):
        if agent.is_network:
            controller = Controller.network(agent.name)
            generator = torch.Generator().manual_seed(match.seed + position)
            policies[controller] = NetworkPolicy(networks[agent.name], agent.name, generator=generator)
        else:
            controller = Controller.scripted(agent.source, game=game)
        controllers[agent.name] = controller
    names = {controller: name for name, controller in controllers.items()}
    candidate, *opponents = (controllers[agent.name] for agent in match.agents)
    games = eval_specs(match.players, match.games, match.seed, candidate, opponents)
    record: dict[int, list[int]] | None = None if replays is None else {}
    results = play_episodes(driver, list(games), policies, record)
    if replays is not None:
        folder = replays / re.sub(r"[^A-Za-z0-9._-]+", "_", match.key)
        write_replays(folder, driver.env_spec, games, names, record, results)
    family = training_game(game)
    return tuple(
        GameRecord(
            r.episode.seed,
            tuple(names[c] for c in r.episode.controllers),
            tuple(int(t) for t in r.totals),
            r.winner,
            tuple(tuple(int(p) for p in family.unit_points(unit)) for unit in r.rounds),
            tuple(_seat_events(family, r.rounds, seat) for seat in range(match.players)),
        )
        for r in results
    )


def _seat_events(family: FamilyGame, units: Sequence, seat: int) -> tuple[int, int, int]:
    """A seat's knocks, goings out and undercut knocks over a game's units."""
    events = [family.unit_events(unit, seat) for unit in units]
    return (
        sum(e.knocked for e in events),
        sum(e.went_out for e in events),
        sum(e.undercut for e in events),
    )


# ------------------------------------------------------------------ the run


def _rate(players: int, roster: Sequence[RosterAgent], matches: Sequence[tuple[MatchSpec, PlayedMatch]]) -> Standings:
    """The standings at ``players`` from its matches' games (none with OpenSpiel's bots),
    rated in schedule order (the agents that played at that table size only), and each
    agent's figures in the game's unit where every match kept its units."""
    seated = {agent.name for match, _ in matches for agent in match.agents}
    table = RatingTable([agent.name for agent in roster if agent.name in seated])
    pairs: dict[tuple[str, str], float] = {}
    tallies: dict[str, UnitTally] = {}
    for match, played in matches:
        for game in played.games:
            table.record(game.seats, game.places(), game.wins())
        played.tally(tallies)
        if players == 2:
            a, b = (agent.name for agent in match.agents)
            rates = played.win_rates()
            pairs[(a, b)], pairs[(b, a)] = rates[a], rates[b]
    units = {name: t.report() for name, t in tallies.items()} if all(p.has_units for _, p in matches) else {}
    return Standings(players, tuple(table.rows()), matches[0][0].games, len(matches), pairs, units)


def _openspiel_rows(matches: Sequence[tuple[MatchSpec, PlayedMatch]]) -> tuple[OpenSpielRow, ...]:
    """Our agents' figures a hand against OpenSpiel's bots, in schedule order (matches kept
    before the hands' units were, left out)."""
    rows = []
    for match, played in matches:
        if not played.has_units:
            continue
        bot = next(agent.name for agent in match.agents if agent.is_openspiel)
        ours = next(agent.name for agent in match.agents if not agent.is_openspiel)
        tallies: dict[str, UnitTally] = {}
        played.tally(tallies)
        rows.append(OpenSpielRow(ours, bot, tallies[ours].report()))
    return tuple(rows)


def run_leaderboard(
    sources: Sequence[str],
    heads_up_games: int,
    four_player_games: int,
    seed: int,
    state: str | Path,
    num_workers: int = 0,
    log: Callable[[str], None] = print,
    heads_up_only: Sequence[str] = (),
    game: str = DEFAULT_GAME,
    variant: str | None = None,
    replays: str | Path | None = None,
) -> LeaderboardRun:
    """Play every match of the schedule that ``state`` lacks (saving each as it ends), rate
    them all and time each agent's decisions (Carousel's). Everything is checked before the
    first game (module docstring). ``variant``: the game's variant's leaderboard (None: its own).
    ``replays``: a folder the games played now are written to, a folder a match (OpenSpiel's
    bots play in OpenSpiel's game: not replays of ours)."""
    board = leaderboard_game(game, variant)
    if heads_up_games < 0 or four_player_games < 0:
        raise LeaderboardError(f"game counts must be 0 or more, got {heads_up_games} and {four_player_games}")
    if heads_up_games == 0 and four_player_games == 0:
        raise LeaderboardError("no games to play: give --heads-up-games or --four-player-games above 0")
    if four_player_games > 0 and 4 not in board.table_sizes:
        raise LeaderboardError(f"{game} is played heads-up only: give --four-player-games 0")
    roster, networks = load_roster(sources, board)
    names = [a.name for a in roster]
    strays = [name for name in heads_up_only if name not in names]
    if strays:
        raise LeaderboardError(f"--heads-up-only names {', '.join(strays)}, not in the roster ({', '.join(names)})")
    for players, games in zip(board.table_sizes, (heads_up_games, four_player_games)):
        seated = names if players == 2 else [n for n in names if n not in heads_up_only]
        if games > 0 and len(seated) < players:
            raise LeaderboardError(
                f"{players}-player tables need {players} distinct agents, the roster has {len(seated)} for them: "
                f"{', '.join(seated)} (or play no {players}-player games)"
            )
    store = GameStore(state, board.options)
    matches = schedule(roster, heads_up_games, four_player_games, seed, heads_up_only, board.table_sizes)
    todo = [m for m in matches if store.get(m) is None]
    log(
        f"leaderboard: {len(roster)} agents ({', '.join(a.name for a in roster)}), {len(matches)} matches, "
        f"{len(matches) - len(todo)} already in {store.path}, {len(todo)} to play "
        f"({plural(sum(m.games for m in todo), 'game')})"
    )
    start = time.perf_counter()
    drivers: dict[int, Driver] = {}
    try:
        for k, match in enumerate(todo, 1):
            if match.players not in drivers:
                drivers[match.players] = Driver(board.env_spec(match.players), GAME_COPIES, num_workers)
            log(f"[{k}/{len(todo)}] {match.label}: {plural(match.games, 'game')} ...")
            began = time.perf_counter()
            if any(agent.is_openspiel for agent in match.agents):
                games = play_openspiel_match(match, board)
            else:
                where = None if replays is None else Path(replays)
                games = play_match(match, networks, drivers[match.players], board.game, where)
            played = PlayedMatch(games, round(time.perf_counter() - began, 1))  # as the state file keeps it
            store.put(match, played)
            shares = ", ".join(f"{name} won {rate:.2f}" for name, rate in played.win_rates().items())
            log(f"[{k}/{len(todo)}] {played.seconds:.0f} s (total {clock(time.perf_counter() - start)}): {shares}")
    finally:
        for driver in drivers.values():
            driver.close()
    results = [(m, store.matches[m.key]) for m in matches]
    ours = [(m, p) for m, p in results if not any(agent.is_openspiel for agent in m.agents)]
    standings = tuple(
        _rate(players, roster, [(m, p) for m, p in ours if m.players == players])
        for players in board.table_sizes
        if any(m.players == players for m, _ in ours)
    )
    new = {m.key for m in todo}
    costs = {}
    for table in standings if board.timed else ():
        positions: list | None = None
        for row in table.rows:
            agent = next(a for a in roster if a.name == row.agent)
            if agent.is_openspiel:
                continue  # it decides inside OpenSpiel: no cost of ours to time
            key = f"{table.players}p {agent.identity}"
            if key not in store.costs:  # timed once per agent and table size, then kept
                positions = positions or recorded_positions(table.players, game=board.game)
                store.put_cost(key, decision_ms(agent.source, networks.get(agent.name), positions, game=board.game))
                log(f"timed {agent.name}'s decisions at {table.players} players: {store.costs[key]:.3g} ms")
            costs[(table.players, agent.name)] = store.costs[key]
    return LeaderboardRun(
        roster,
        standings,
        tuple(todo),
        tuple(m for m in matches if m.key not in new),
        sum(p.seconds for _, p in results),
        costs,
        board,
        _openspiel_rows([(m, p) for m, p in results if any(agent.is_openspiel for agent in m.agents)]),
    )


def make_leaderboard(
    sources: Sequence[str],
    out: str | Path = "docs/LEADERBOARD.md",
    heads_up_games: int = HEADS_UP_GAMES,
    four_player_games: int = FOUR_PLAYER_GAMES,
    seed: int = 0,
    state: str | Path | None = None,
    readme: str | Path | None = "README.md",
    num_workers: int = 0,
    date: str | None = None,
    log: Callable[[str], None] = print,
    heads_up_only: Sequence[str] = (),
    game: str = DEFAULT_GAME,
    variant: str | None = None,
    replays: str | Path | None = None,
) -> LeaderboardRun:
    """``carousel leaderboard``: run the game's leaderboard (state file ``state``, by default
    the game's ``state_name`` beside ``out``),
    write ``out`` and, unless ``readme`` is None or the board keeps out of the README (its
    ``readme_tag`` is None), the README's tables. ``date``: today's
    unless given."""
    board = leaderboard_game(game, variant)
    if board.readme_tag is None:
        readme = None
    out = Path(out)
    state = out.parent / board.state_name if state is None else Path(state)
    if readme is not None:
        check_readme(readme, board)
    run = run_leaderboard(
        sources, heads_up_games, four_player_games, seed, state, num_workers, log, heads_up_only, game, variant, replays
    )
    date = date or datetime.date.today().isoformat()
    command = command_line(sources, heads_up_games, four_player_games, seed, state, out, heads_up_only, game, variant)
    write_text_atomic(out, render_leaderboard(run, command, date))
    log(f"wrote {out} (games in {state})")
    if readme is not None:
        link = Path(os.path.relpath(out.resolve(), Path(readme).resolve().parent)).as_posix()
        update_readme(readme, readme_block(run, link, date), board)
        log(f"updated the leaderboard in {readme}")
    return run
