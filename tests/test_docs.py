"""The README and the docs site (``docs/``, ``mkdocs.yml``) say only what is so: their Python
examples run as written, every ``carousel`` command and ``python3 tasks.py`` task they show
exists with the options given, every repository path they name exists, the game pages are
what ``docs/gen_game_pages.py`` writes from the code, and the site builds in strict mode."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
# Every page a reader sees: the README and the site's pages (not the game pages' sources,
# docs/games/_<game>.md, whose text reaches the generated pages).
PAGES = [README, *sorted(p for p in (ROOT / "docs").rglob("*.md") if not p.name.startswith("_"))]
TEXTS = {page: page.read_text() for page in PAGES}


def _name(page: Path) -> str:
    return page.relative_to(ROOT).as_posix()


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# Each distinct Python block once (the README's tour repeats a game page's).
_EXAMPLES: dict[str, str] = {}
for _page, _text in TEXTS.items():
    for _i, _code in enumerate(re.findall(r"```python\n(.*?)```", _text, flags=re.DOTALL)):
        _EXAMPLES.setdefault(_code, f"{_name(_page)}:{_i}")


def test_the_readme_and_the_docs_have_examples():
    assert len(re.findall(r"```python\n", TEXTS[README])) >= 2 and len(_EXAMPLES) >= 8


@pytest.mark.parametrize("code", list(_EXAMPLES), ids=list(_EXAMPLES.values()))
def test_every_python_example_runs(code):
    exec(compile(code, _EXAMPLES[code], "exec"), {"__name__": "docs_example"})


def test_the_rules_page_names_no_removed_info_key():
    # 0.3 moved the automatic actions from info["auto_actions"] to the raw env's auto_actions.
    text = (ROOT / "docs" / "RULES.md").read_text()
    assert 'info["auto_actions"]' not in text and "auto_actions" in text


# Every `carousel ...` command shown: in bash blocks (whole command lines, parsed as given)
# and in inline code and tables (option names checked).
_BLOCK_COMMANDS = [
    line.split("#", 1)[0].strip()
    for text in TEXTS.values()
    for block in re.findall(r"```bash\n(.*?)```", text, flags=re.DOTALL)
    for line in block.splitlines()
    if re.match(r"(\.venv/bin/)?carousel ", line)
]
_INLINE_COMMANDS = sorted(
    {m for text in TEXTS.values() for m in re.findall(r"`((?:\.venv/bin/)?carousel [^`]+)`", text)}
)
_TASKS = sorted({m for text in TEXTS.values() for m in re.findall(r"python3 tasks\.py ([a-z-]+(?: [a-z-]+)*)", text)})


def _subcommand(command: str) -> tuple[str, list[str]]:
    words = command.split()
    return words[1], words[2:]


def test_the_docs_show_commands():
    assert len(_BLOCK_COMMANDS) >= 10 and len(_INLINE_COMMANDS) >= 10 and "train" in _TASKS


@pytest.mark.parametrize("command", _BLOCK_COMMANDS + _INLINE_COMMANDS)
def test_every_command_names_a_subcommand_and_options_it_has(command):
    from carousel_cli.main import build_parser

    parser, unavailable = build_parser()
    assert not unavailable
    subparsers = next(a for a in parser._actions if a.choices and "train" in a.choices)
    sub, _ = _subcommand(command)
    assert sub in subparsers.choices, f"{command}: no subcommand {sub!r}"
    options = subparsers.choices[sub]._option_string_actions
    for option in re.findall(r"(?<![\w-])--[a-z][a-z-]*", command):
        assert option in options, f"{command}: carousel {sub} has no option {option}"
    with pytest.raises(SystemExit) as help_exit:  # its --help runs
        parser.parse_args([sub, "--help"])
    assert help_exit.value.code == 0


@pytest.mark.parametrize("command", _BLOCK_COMMANDS)
def test_every_command_line_parses_as_given(command):
    from carousel_cli.main import build_parser

    parser, _ = build_parser()
    sub, args = _subcommand(command)
    parser.parse_args([sub, *args])  # argparse exits (SystemExit 2) on a bad option or value


def test_every_task_named_exists():
    tasks = _load("tasks", ROOT / "tasks.py")
    for words in _TASKS:
        task, *rest = words.split()
        assert task in tasks.TASKS, f"python3 tasks.py {words}: no task {task!r}"
        if task == "bench":
            assert set(rest) <= set(tasks.BENCHMARKS), f"python3 tasks.py {words}: unknown benchmark"
        else:
            options = [w for w in rest if w.startswith("--")]
            assert set(options) <= set(tasks.TASK_OPTIONS.get(task, ())), f"python3 tasks.py {words}"


# Paths in the repository named in inline code (`benchmarks/RESULTS.md`), and the README's
# relative links: every one exists (a page never points at a moved file).
_TOP = "carousel_env|training|carousel_cli|benchmarks|tests|examples|configs|checkpoints|docs"


def _named_paths(text: str) -> set[str]:
    prose = re.sub(r"```.*?```", "", text, flags=re.DOTALL)
    return set(re.findall(rf"`((?:{_TOP})/[\w./-]*)`", prose))


@pytest.mark.parametrize("page", PAGES, ids=_name)
def test_every_path_named_exists(page):
    text = TEXTS[page]
    missing = sorted(p for p in _named_paths(text) if not (ROOT / p).exists())
    if page == README:
        links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text)
        missing += sorted(link for link in links if "://" not in link and not (ROOT / link).exists())
    assert not missing, f"{_name(page)} names paths that do not exist: {missing}"


def test_the_readme_is_an_index():
    text = TEXTS[README]
    assert len(text.encode()) <= 10 * 1024
    quick_start = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    assert "python3 tasks.py train" in quick_start and "python3 tasks.py test" in quick_start
    for page in ("training", "integrations", "cli", "solver", "development", "leaderboards"):
        assert f"(docs/{page}.md)" in text


def test_the_game_pages_are_what_the_generator_writes():
    gen = _load("gen_game_pages", ROOT / "docs" / "gen_game_pages.py")
    stale = [_name(p) for p in gen.stale_pages()]
    assert not stale, f"{stale} differ from their sources: run python3 tasks.py docs --write"


def test_the_game_page_generator_reads_restructuredtext():
    gen = _load("gen_game_pages", ROOT / "docs" / "gen_game_pages.py")
    doc = (
        "Title line.\n\n.. code-block:: python\n\n    x = 1\n\nActions\n-------\n"
        "=== ===========\n0   ``DRAW``\n1   :class:`~a.b.C` and\n    more | text\n=== ===========\n"
    )
    assert gen.rst_to_markdown(doc) == (
        "Title line.\n\n```python\nx = 1\n```\n\n### Actions\n\n|  |  |\n| --- | --- |\n"
        "| 0 | `DRAW` |\n| 1 | `a.b.C` and more \\| text |\n"
    )


def test_the_site_builds_in_strict_mode(tmp_path):
    # mkdocs.yml's nav must list every page, and every link and anchor must resolve.
    nav = (ROOT / "mkdocs.yml").read_text()
    assert all(_name(p).removeprefix("docs/") in nav for p in PAGES if p != README)
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert (tmp_path / "site" / "games" / "gin_rummy" / "index.html").is_file()


def test_the_headline_figures_link_to_their_entries():
    # benchmarks/RESULTS.md opens with a table of the current figures, each linked to its dated
    # entry by the anchor GitHub gives the entry's heading.
    text = (ROOT / "benchmarks" / "RESULTS.md").read_text()
    top = text.split("## The headline figures", 1)[1].split("\n## ", 1)[0]
    anchors = re.findall(r"\]\(#([^)]+)\)", top)
    slugs = [
        re.sub(r"[^\w\- ]", "", line.lstrip("#").strip().lower()).replace(" ", "-")
        for line in text.splitlines()
        if line.startswith("#")
    ]
    assert len(anchors) >= 5 and all(slugs.count(anchor) == 1 for anchor in anchors), anchors
