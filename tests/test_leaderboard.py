"""The leaderboard on tiny budgets: its documents, its resume, its roster checks."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest
import torch

from carousel_cli.main import main
from carousel_env.core.errors import CarouselError
from carousel_env.envkit.family import family_game
from carousel_env.envkit.replay import read_replay, replay_frames
from carousel_env.games.carousel.agents.registry import UnknownPolicyError
from training.checkpoint import saved_env_keys
from training.checkpoint_names import CheckpointError
from training.config import EnvKeys
from training.imitation import imitate
from training.leaderboard import (
    GameRecord,
    GameStore,
    MatchSpec,
    PlayedMatch,
    RosterAgent,
    agent_name,
    default_roster,
    guided_agents,
    make_leaderboard,
    plays_board,
    schedule,
)
from training.leaderboard_defaults import GUIDED_BUDGET
from training.leaderboard_games import LeaderboardError, leaderboard_game
from training.leaderboard_page import README_END, README_START, command_line
from training.tournament import RatingTable

BASELINES = family_game("carousel").leaderboard.baselines  # its default roster of scripted players

SHIPPED = str(Path(__file__).resolve().parent.parent / "checkpoints" / "ppo_2p")
README = f"# Project\n\nintro\n\n## Leaderboard\n\n{README_START}\nnot run yet\n{README_END}\n\n## After\n\nmore\n"


def _table_rows(text: str, heading: str) -> dict[str, list[str]]:
    """The rows of the first table after ``heading``, by agent: their cells."""
    table: list[str] = []
    for line in text.split(heading, 1)[1].splitlines():
        if line.startswith("|"):
            table.append(line)
        elif table:
            break
    rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in table[2:]]  # past header and rule
    return {cells[1]: cells for cells in rows}


def test_a_tiny_leaderboard_writes_both_tables_then_resumes_without_playing(tmp_path):
    readme, out = tmp_path / "README.md", tmp_path / "docs" / "LEADERBOARD.md"
    readme.write_text(README)
    readme.chmod(0o640)
    agents = ["random", "greedy", "search@1", SHIPPED]
    lines: list[str] = []
    run = make_leaderboard(agents, out, 2, 4, seed=5, readme=readme, date="2030-01-02", log=lines.append)
    # 6 pairs of 2 games and one table of 4: 1 deal each, every seat played.
    assert [(m.players, len(m.agents), m.games) for m in run.played] == [(2, 2, 2)] * 6 + [(4, 4, 4)]
    assert run.cached == () and any("7 to play (16 games)" in line for line in lines)
    page = out.read_text()
    assert "2030-01-02" in page and "## Heads-up" in page and "## 4 players" in page
    command = f"carousel leaderboard --agents random,greedy,search@1,{SHIPPED} --heads-up-games 2"
    assert command + " --four-player-games 4 --seed 5" in page
    heads_up, four = _table_rows(page, "## Heads-up"), _table_rows(page, "## 4 players")
    assert set(heads_up) == set(four) == {"random", "greedy", "search@1", "ppo_2p"}
    assert all(cells[6] == "6" for cells in heads_up.values())  # 3 opponents x 2 games
    assert all(cells[6] == "4" for cells in four.values())
    # Each agent's median milliseconds per decision, at each table size.
    assert all(float(cells[7]) > 0 for cells in [*heads_up.values(), *four.values()])
    assert set(run.costs) == {(n, a) for n in (2, 4) for a in heads_up}
    # The shipped agent's strongest best response (its folder's exploit_*.json), heads-up only.
    assert re.fullmatch(r"0\.\d{3} \(0\.\d{3}-[01]\.\d{3}\), \d+k (scratch|warm)", heads_up["ppo_2p"][8])
    assert heads_up["random"][8] == four["ppo_2p"][8] == ""
    for cells in [*heads_up.values(), *four.values()]:  # "mu ± 2 sigma" beside its "low to high"
        mu, half = (float(x) for x in cells[2].split(" ± "))
        lo, hi = (float(x) for x in cells[3].split(" to "))
        assert lo == pytest.approx(mu - half, abs=0.11) and hi == pytest.approx(mu + half, abs=0.11)
    assert "Win rate of each row against each column" in page
    # The README keeps its text around the markers; between them, both tables.
    text = readme.read_text()
    assert text.startswith("# Project\n\nintro\n") and text.endswith(f"{README_END}\n\n## After\n\nmore\n")
    block = text.split(README_START)[1].split(README_END)[0]
    assert "not run yet" not in block and "(docs/LEADERBOARD.md)" in block and "**4 players**" in block
    assert _table_rows(block, "**Heads-up**") == heads_up
    # Rewritten files keep their mode; new ones get a plain file's (not mkstemp's private 0600).
    assert readme.stat().st_mode & 0o777 == 0o640
    umask = os.umask(0)
    os.umask(umask)
    assert out.stat().st_mode & 0o777 == 0o666 & ~umask
    # The state file holds every game: who sat where, the totals, the winner.
    state = json.loads((out.parent / "leaderboard_games.json").read_text())["matches"]
    assert len(state) == 7 and sum(len(m["games"]) for m in state.values()) == 16
    # Rerun: nothing to play, the same page.
    lines.clear()
    again = make_leaderboard(agents, out, 2, 4, seed=5, readme=readme, date="2030-01-02", log=lines.append)
    assert again.played == () and len(again.cached) == 7 and any("0 to play" in line for line in lines)
    assert again.standings == run.standings and out.read_text() == page


def test_an_added_agent_plays_only_its_own_matches(tmp_path):
    out, state = tmp_path / "LEADERBOARD.md", tmp_path / "games.json"
    first = make_leaderboard(["random", "greedy"], out, 2, 0, state=state, readme=None, log=lambda _: None)
    assert [[a.name for a in m.agents] for m in first.played] == [["random", "greedy"]]
    kept = json.loads(state.read_text())["matches"]
    second = make_leaderboard(["random", "greedy", "smart"], out, 2, 0, state=state, readme=None, log=lambda _: None)
    assert [[a.name for a in m.agents] for m in second.played] == [["random", "smart"], ["greedy", "smart"]]
    assert [[a.name for a in m.agents] for m in second.cached] == [["random", "greedy"]]
    now = json.loads(state.read_text())["matches"]
    assert len(now) == 3 and all(now[key] == match for key, match in kept.items())
    assert [s.players for s in second.standings] == [2] and "## 4 players" not in out.read_text()


def test_a_guided_search_player_is_named_by_its_network_and_may_sit_out_the_four_player_tables(tmp_path):
    guided = f"search@1+{SHIPPED}"
    assert agent_name(guided) == "search@1+ppo_2p" and guided_agents(["smart", guided]) == ("search@1+ppo_2p",)
    roster = [RosterAgent(name, name) for name in ("random", "greedy", "smart", "search@1", "search@1+ppo_2p")]
    tables = [(m.players, [a.name for a in m.agents]) for m in schedule(roster, 2, 4, 0, ["search@1+ppo_2p"])]
    assert len([t for t in tables if t[0] == 2]) == 10
    assert [names for n, names in tables if n == 4] == [["random", "greedy", "smart", "search@1"]]
    out, state = tmp_path / "LEADERBOARD.md", tmp_path / "games.json"
    lines: list[str] = []
    run = make_leaderboard(["random", guided], out, 2, 0, state=state, readme=None, log=lines.append)
    assert [[a.name for a in m.agents] for m in run.played] == [["random", "search@1+ppo_2p"]]
    page = out.read_text()
    assert "search@1+ppo_2p" in _table_rows(page, "## Heads-up") and f"--agents random,{guided}" in page
    assert any("timed search@1+ppo_2p's decisions" in line for line in lines)
    # Known to the state file by its network's digest, as a network is; its cost is kept there.
    data = json.loads(state.read_text())
    assert any("search@1+ppo_2p#" in key for key in data["matches"])
    assert any(key.startswith("2p search@1+ppo_2p#") for key in data["costs"])
    with pytest.raises(LeaderboardError, match="--heads-up-only names ppo_9p"):
        make_leaderboard(
            ["random", guided], out, 2, 0, state=state, readme=None, log=lambda _: None, heads_up_only=["ppo_9p"]
        )


def test_bad_rosters_are_errors_before_any_game(tmp_path, capsys):
    readme = tmp_path / "README.md"
    readme.write_text(README)
    base = ["leaderboard", "--heads-up-games", "2", "--four-player-games", "0"]
    paths = ["--out", str(tmp_path / "LB.md"), "--readme", str(readme)]
    assert main([*base, "--agents", "random,gredy", *paths]) == 2
    assert "'gredy'" in capsys.readouterr().err
    assert main([*base, "--agents", f"greedy,{tmp_path / 'missing.pt'}", *paths]) == 2
    assert "missing.pt" in capsys.readouterr().err
    assert main([*base, "--agents", "greedy,random,greedy", *paths]) == 2
    assert "two agents are named 'greedy'" in capsys.readouterr().err
    assert main(["leaderboard", "--agents", "greedy,random,smart", "--four-player-games", "4", *paths]) == 2
    assert "4-player tables need 4 distinct agents" in capsys.readouterr().err
    readme.write_text(f"# Project\n\n{README_START}\n")  # an end marker missing
    assert main([*base, "--agents", "greedy,random", *paths]) == 2
    assert "leaderboard:end" in capsys.readouterr().err
    (tmp_path / "leaderboard_games.json").write_text("{not json")
    readme.write_text(README)
    assert main([*base, "--agents", "greedy,random", *paths]) == 2
    assert "leaderboard_games.json is not readable" in capsys.readouterr().err
    # Nothing was played or written: no page, the README as it was.
    assert not (tmp_path / "LB.md").exists() and readme.read_text() == README
    with pytest.raises(UnknownPolicyError):
        make_leaderboard(["random", "search@0"], tmp_path / "x.md", 2, 0, readme=None, log=lambda _: None)
    with pytest.raises(CheckpointError, match=r"no checkpoint at 'nowhere/x\.pt'"):
        make_leaderboard(["random", "search@2+nowhere/x.pt"], tmp_path / "x.md", 2, 0, readme=None, log=lambda _: None)
    with pytest.raises(LeaderboardError, match="no games"):
        make_leaderboard(["random", "greedy"], tmp_path / "x.md", 0, 0, readme=None, log=lambda _: None)
    with pytest.raises(LeaderboardError, match="0 or more, got -2"):
        make_leaderboard(["random", "greedy"], tmp_path / "x.md", -2, 0, readme=None, log=lambda _: None)


def test_a_readme_without_markers_gets_a_leaderboard_section(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("# Project\n\nintro\n")
    make_leaderboard(["random", "greedy"], tmp_path / "docs" / "LB.md", 2, 0, readme=readme, log=lambda _: None)
    text = readme.read_text()
    assert text.startswith("# Project\n\nintro\n\n## Leaderboard\n\n" + README_START)
    assert text.endswith(README_END + "\n") and "(docs/LB.md)" in text


def test_places_put_the_winner_first_then_the_others_by_total():
    # Seat 1 won; seats 0 and 2 tie on 120; seat 3 is last.
    game = GameRecord(0, ("a", "b", "c", "d"), (120, 180, 120, 90), winner=1)
    assert game.places() == (1, 0, 1, 3) and game.wins() == (0.0, 1.0, 0.0, 0.0)
    # The winner ranks first even where round bonuses lift another total above its own.
    assert GameRecord(0, ("a", "b"), (250, 260), winner=0).places() == (0, 1)
    table = RatingTable(["a", "b", "c", "d"])
    table.record(game.seats, game.places(), game.wins())
    rows = {row.agent: row for row in table.rows()}
    assert rows["b"].mu > rows["a"].mu > rows["d"].mu and rows["a"].mu == pytest.approx(rows["c"].mu)
    assert rows["b"].win_rate == 1.0 and all(row.games == 1 for row in rows.values())
    with pytest.raises(ValueError, match="distinct agents"):
        table.record(["a", "a"], [0, 1], [1.0, 0.0])


def test_the_default_roster_is_the_baselines_and_every_shipped_agent(tmp_path):
    shipped = Path(SHIPPED).parent
    for name, source in (("ppo_3p", "ppo_4p"), ("ppo_hu", "ppo_2p")):
        (tmp_path / name).mkdir()
        shutil.copy(shipped / source / "model.pt", tmp_path / name / "model.pt")
    (tmp_path / "notes").mkdir()  # no model.pt: not an agent
    roster = default_roster(tmp_path)
    # The search guided by each agent trained heads-up (its saved config says so), after them.
    hu = str(tmp_path / "ppo_hu")
    assert roster == (*BASELINES, str(tmp_path / "ppo_3p"), hu, f"search@{GUIDED_BUDGET}+{hu}")
    assert guided_agents(roster) == (f"search@{GUIDED_BUDGET}+ppo_hu",)
    roster = roster[:-2]
    assert BASELINES[:3] == ("random", "greedy", "smart") and all(b.startswith("search@") for b in BASELINES[3:])
    assert agent_name(roster[-1]) == "ppo_3p" and agent_name(str(tmp_path / "ppo_3p" / "model.pt")) == "ppo_3p"
    assert agent_name("search@8") == "search@8"
    # A Gin agent joins Gin's roster only, with the search it guides.
    (tmp_path / "gin_hu").mkdir()
    shutil.copy(shipped / "gin_2p" / "model.pt", tmp_path / "gin_hu" / "model.pt")
    assert str(tmp_path / "gin_hu") not in default_roster(tmp_path)
    gin = str(tmp_path / "gin_hu")
    assert default_roster(tmp_path, game="gin_rummy")[-2:] == (gin, f"search@{GUIDED_BUDGET}+{gin}")


@pytest.mark.integration
@pytest.mark.training
def test_gin_rummy_has_its_own_leaderboard_with_openspiels_bots(tmp_path):
    pytest.importorskip("pyspiel")
    # The shipped network (trained under preset eaai), saved as trained under preset openspiel,
    # as an agent of another name. The players all knock: a match to 100 between two that
    # never do (random, a network of a few hundred decisions) runs to the match's bound of
    # 200 dead hands.
    network = tmp_path / "gin_net"
    network.mkdir()
    saved = torch.load(Path(SHIPPED).parent / "gin_2p" / "model.pt", weights_only=False)
    saved["config"]["env"] = {"preset": "openspiel"}
    torch.save(saved, network / "model.pt")
    assert saved_env_keys(str(network)).env == {"preset": "openspiel"}
    readme, out = tmp_path / "README.md", tmp_path / "docs" / "LEADERBOARD_GIN.md"
    readme.write_text(README)
    agents = ["greedy", "simple", "openspiel:simple", "openspiel:ismcts@2", str(network)]
    lines: list[str] = []
    run = make_leaderboard(
        agents, out, 2, 0, seed=3, readme=readme, date="2030-01-02", log=lines.append, game="gin_rummy"
    )
    # Every pair but the two OpenSpiel bots, which its runner cannot seat together: 9 matches of one deal.
    assert [(m.players, m.games) for m in run.played] == [(2, 2)] * 9
    page = out.read_text()
    assert page.startswith("# Gin Rummy leaderboard") and "carousel leaderboard --game gin_rummy" in page
    assert "## 4 players" not in page and "inside OpenSpiel's own" in page and "preset `eaai`" in page
    assert "3 pairings; 2 matches a pairing: 1 deal, mirror-paired." in page  # each game a match to 100
    # Rated by matches to 100 under eaai, among our own players: a network saved as trained
    # under preset openspiel plays here too; OpenSpiel's bots play single hands, in a table of their own.
    rows = _table_rows(page, "## Heads-up")
    assert set(rows) == {"greedy", "simple", "gin_net"}
    assert rows["gin_net"][6] == "4"  # 2 opponents, 2 matches each
    assert all(len(cells) == 9 for cells in rows.values()) and float(rows["gin_net"][7]) > 0
    assert set(run.costs) == {(2, name) for name in ("greedy", "simple", "gin_net")}
    table = [line for line in page.split("each column:")[1].split("In hands")[0].splitlines() if line.startswith("|")]
    columns = [cell.strip() for cell in table[0].strip("|").split("|")][1:]
    pairs = {
        cells[0]: dict(zip(columns, cells[1:]))
        for cells in ([cell.strip() for cell in line.strip("|").split("|")] for line in table[2:])
    }
    assert set(pairs) == set(rows)
    assert float(pairs["gin_net"]["greedy"]) + float(pairs["greedy"]["gin_net"]) == pytest.approx(1.0)
    # Each agent in hands over its matches: a match to 100 holds several hands.
    in_hands = [line for line in page.split("In hands")[1].split("##")[0].splitlines() if line.startswith("|")]
    assert "gin rate" in in_hands[0] and "undercut rate (of knocks)" in in_hands[0]
    hands = {cells[0]: cells for cells in ([c.strip() for c in line.strip("|").split("|")] for line in in_hands[2:])}
    assert set(hands) == set(rows) and all(int(cells[1]) > 6 for cells in hands.values())
    bots = [line for line in page.split("## Against OpenSpiel's bots")[1].splitlines() if line.startswith("| ")]
    against = {tuple(c.strip() for c in line.strip("|").split("|")[:3]) for line in bots[2:]}
    assert against == {
        (name, bot, "2") for name in rows for bot in ("openspiel:simple", "openspiel:ismcts@2")
    }  # 2 hands: one deal, seats swapped
    assert [row.report.units for row in run.openspiel] == [2] * 6
    assert (out.parent / "leaderboard_gin_rummy_eaai_games.json").is_file()
    # The README keeps Carousel's table and gains a Gin Rummy section with markers of its own.
    text = readme.read_text()
    assert "not run yet" in text and text.rstrip().endswith("<!-- leaderboard gin_rummy:end -->")
    assert "## Gin Rummy leaderboard" in text and "(docs/LEADERBOARD_GIN.md)" in text
    lines.clear()
    again = make_leaderboard(
        agents, out, 2, 0, seed=3, readme=readme, date="2030-01-02", log=lines.append, game="gin_rummy"
    )
    assert again.played == () and out.read_text() == page


def test_a_leaderboard_refuses_agents_of_another_game(tmp_path):
    quiet = {"readme": None, "log": lambda _: None}
    with pytest.raises(LeaderboardError, match="Gin Rummy leaderboard only"):
        make_leaderboard(["random", "openspiel:simple"], tmp_path / "x.md", 2, 0, **quiet)
    with pytest.raises(CheckpointError):  # a Carousel network does not read Gin's observation
        make_leaderboard(["random", SHIPPED], tmp_path / "x.md", 2, 0, game="gin_rummy", **quiet)
    with pytest.raises(LeaderboardError, match="heads-up only"):
        make_leaderboard(["random", "greedy", "simple", "search"], tmp_path / "x.md", 2, 4, game="gin_rummy", **quiet)
    with pytest.raises(CarouselError, match="unknown Gin Rummy policy 'smart'"):
        make_leaderboard(["random", "smart"], tmp_path / "x.md", 2, 0, game="gin_rummy", **quiet)
    with pytest.raises(LeaderboardError, match="its network plays carousel, this leaderboard gin_rummy"):
        make_leaderboard(["random", f"search@2+{SHIPPED}"], tmp_path / "x.md", 2, 0, game="gin_rummy", **quiet)


@pytest.mark.training
def test_carioca_has_its_own_leaderboard_heads_up_and_at_four_players(tmp_path):
    network = tmp_path / "carioca_net"
    imitate("simple", network, {"game": "carioca"}, decisions=200, epochs=1, tables=(2, 4))
    readme, out = tmp_path / "README.md", tmp_path / "docs" / "LEADERBOARD_CARIOCA.md"
    readme.write_text(README)
    agents = ["random", "simple", "outs", str(network)]
    replays = tmp_path / "replays"
    run = make_leaderboard(
        agents,
        out,
        2,
        4,
        seed=5,
        readme=readme,
        date="2030-01-02",
        log=lambda _: None,
        game="carioca",
        replays=replays,
    )
    # Six pairs of one mirrored deal, then the one table of four: one deal from every seat.
    assert [(m.players, m.games) for m in run.played] == [(2, 2)] * 6 + [(4, 4)]
    # Every game played is a replay, a folder a match, that plays to its end again.
    folders = sorted(replays.iterdir())
    assert len(folders) == 7 and sum(len(list(f.glob("game_*.json"))) for f in folders) == 6 * 2 + 4
    four_player = read_replay(next(f for f in folders if f.name.startswith("4p")) / "game_0000.json")
    assert four_player.num_players == 4 and "carioca_net" in four_player.players
    assert replay_frames(four_player, family_game("carioca"))[-1].said[-1].startswith("Game over")
    page = out.read_text()
    assert page.startswith("# Carioca leaderboard") and "carousel leaderboard --game carioca" in page
    heads_up, four = _table_rows(page, "## Heads-up"), _table_rows(page, "## 4 players")
    assert set(heads_up) == set(four) == {"random", "simple", "outs", "carioca_net"}
    # The cost column, timed on Carioca's own positions at each table size.
    assert set(run.costs) == {(n, name) for n in (2, 4) for name in heads_up}
    assert all(float(cells[7]) > 0 for cells in [*heads_up.values(), *four.values()])
    assert (out.parent / "leaderboard_carioca_games.json").is_file()
    text = readme.read_text()
    assert "not run yet" in text and text.rstrip().endswith("<!-- leaderboard carioca:end -->")
    assert "(docs/LEADERBOARD_CARIOCA.md)" in text
    # A Carioca network joins Carioca's roster only.
    (tmp_path / "shipped" / "net").mkdir(parents=True)
    shutil.copy(network / "latest.pt", tmp_path / "shipped" / "net" / "model.pt")
    assert default_roster(tmp_path / "shipped", game="carioca") == (
        "random",
        "simple",
        "outs",
        str(tmp_path / "shipped" / "net"),
    )
    assert str(tmp_path / "shipped" / "net") not in default_roster(tmp_path / "shipped")


def test_a_smaller_run_does_not_replace_the_published_page_unless_told(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)  # the published page and README are relative to where it runs
    (tmp_path / "README.md").write_text(README)
    base = ["leaderboard", "--agents", "random,greedy", "--heads-up-games", "2", "--four-player-games", "0"]
    assert main(base) == 2  # the default --out and --readme: the published ones
    err = capsys.readouterr().err
    assert "--heads-up-games 2 (published: 60)" in err and "--publish" in err and "--out PATH --no-readme" in err
    assert not (tmp_path / "docs").exists() and (tmp_path / "README.md").read_text() == README
    assert main([*base, "--out", "small.md", "--readme", "README.md"]) == 2  # the published README still
    assert main([*base, "--out", "small.md", "--no-readme"]) == 0  # elsewhere: fine
    assert (tmp_path / "small.md").is_file() and (tmp_path / "README.md").read_text() == README
    assert main([*base, "--publish"]) == 0
    assert (tmp_path / "docs" / "LEADERBOARD.md").is_file() and (tmp_path / "README.md").read_text() != README


def test_a_variant_with_its_own_leaderboard_plays_its_rules_and_its_agents():
    rummy, book = leaderboard_game("kaluki", "rummy"), leaderboard_game("kaluki")
    assert (rummy.variant, book.variant) == ("rummy", "book") and leaderboard_game("kaluki", "book") == book
    assert dict(rummy.options)["preset"] == "rummy" and rummy.page != book.page and rummy.state_name != book.state_name
    assert rummy.readme_tag is None and book.readme_tag is None  # their pages alone: the README links them
    # A checkpoint joins the leaderboard of the variant it was trained on; a default preset is the first.
    trained_on_rummy = EnvKeys(game="kaluki", env={"preset": "rummy"})
    assert plays_board(trained_on_rummy, rummy) and not plays_board(trained_on_rummy, book)
    assert plays_board(EnvKeys(game="kaluki"), book) and not plays_board(EnvKeys(game="gin_rummy"), book)
    assert plays_board(EnvKeys(), leaderboard_game("carousel"))
    assert not plays_board(EnvKeys(env={"variant": "manipulation_rummy"}), leaderboard_game("carousel"))
    with pytest.raises(LeaderboardError, match=r"kaluki's variant 'uk40' \(its leaderboards: book, rummy\)"):
        leaderboard_game("kaluki", "uk40")
    with pytest.raises(LeaderboardError, match="--variant 'x': Carioca has no variants"):
        leaderboard_game("carioca", "x")
    # The command that reproduces the page names the variant.
    assert "--variant rummy" in command_line(["simple"], 2, 0, 0, "s.json", "out.md", game="kaluki", variant="rummy")


def test_plain_rummy_s_leaderboard_is_played_and_written_as_its_own(tmp_path):
    page, readme = tmp_path / "rummy.md", tmp_path / "README.md"
    readme.write_text("# An index\n")
    argv = ["leaderboard", "--game", "kaluki", "--variant", "rummy", "--agents", "random,simple"]
    argv += ["--heads-up-games", "2", "--four-player-games", "0", "--out", str(page), "--readme", str(readme)]
    assert main(argv) == 0
    text = page.read_text()
    assert text.startswith("# Rummy leaderboard") and "--game kaluki --variant rummy" in text
    assert (tmp_path / "leaderboard_rummy_games.json").is_file()
    assert readme.read_text() == "# An index\n"  # its page alone: the README only links it


def test_a_state_file_keeps_the_options_its_matches_played_under(tmp_path):
    path = tmp_path / "games.json"
    store = GameStore(path, (("preset", "eaai"),))
    match = MatchSpec(2, (RosterAgent("a", "random"), RosterAgent("b", "greedy")), 2, 0)
    record = GameRecord(0, ("a", "b"), (0, 100), 1, ((0, 25), (0, 75)), ((0, 0, 0), (2, 1, 0)))
    store.put(match, PlayedMatch((record,), 1.0))
    again = GameStore(path, (("preset", "eaai"),))
    assert again.get(match) == PlayedMatch((record,), 1.0)  # the units and events come back
    with pytest.raises(LeaderboardError, match=r"played under \[\['preset', 'eaai'\]\], this leaderboard's under"):
        GameStore(path, (("preset", "openspiel"),))
    # A file from before the options were kept is the board's; units and events were not kept then.
    path.write_text(
        '{"format": 1, "costs": {}, "matches": {"k": {"seconds": 1, "games": ['
        + ('{"seed": 0, "seats": ["a", "b"], "totals": [3, 1], "winner": 0}]}}}')
    )
    [played] = GameStore(path, (("preset", "openspiel"),)).matches.values()
    assert played.games[0].units == () and not played.has_units
    # Rated beside a match that kept them (a board rerun with one new agent), it adds nothing.
    tallies = {}
    played.tally(tallies)
    PlayedMatch((record,), 1.0).tally(tallies)
    assert set(tallies) == {"a", "b"}
