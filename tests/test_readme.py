"""The README's Python examples run as written (so they name no module that moved)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
EXAMPLES = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.DOTALL)


def test_the_readme_has_examples():
    assert len(EXAMPLES) >= 2


@pytest.mark.parametrize("code", EXAMPLES, ids=[f"example{i}" for i in range(len(EXAMPLES))])
def test_readme_example_runs(code):
    exec(compile(code, str(README), "exec"), {"__name__": "readme_example"})


def test_the_rules_page_names_no_removed_info_key():
    # 0.3 moved the automatic actions from info["auto_actions"] to the raw env's auto_actions.
    text = (Path(__file__).resolve().parents[1] / "docs" / "RULES.md").read_text()
    assert 'info["auto_actions"]' not in text and "auto_actions" in text


# Every `carousel ...` command the README shows: in its bash blocks (whole command lines,
# parsed as given) and in its inline code and tables (option names checked).
_TEXT = README.read_text()
_BLOCK_COMMANDS = [
    line.split("#", 1)[0].strip()
    for block in re.findall(r"```bash\n(.*?)```", _TEXT, flags=re.DOTALL)
    for line in block.splitlines()
    if re.match(r"(\.venv/bin/)?carousel ", line)
]
_INLINE_COMMANDS = [m for m in re.findall(r"`((?:\.venv/bin/)?carousel [^`]+)`", _TEXT)]
_TASKS = re.findall(r"python3 tasks\.py ([a-z-]+(?: [a-z-]+)*)", _TEXT)


def _subcommand(command: str) -> tuple[str, list[str]]:
    words = command.split()
    return words[1], words[2:]


def test_the_readme_shows_commands():
    assert len(_BLOCK_COMMANDS) >= 10 and len(_INLINE_COMMANDS) >= 10 and "train" in _TASKS


@pytest.mark.parametrize("command", _BLOCK_COMMANDS + _INLINE_COMMANDS)
def test_every_readme_command_names_a_subcommand_and_options_it_has(command):
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
def test_every_command_line_in_the_readme_parses_as_given(command):
    from carousel_cli.main import build_parser

    parser, _ = build_parser()
    sub, args = _subcommand(command)
    parser.parse_args([sub, *args])  # argparse exits (SystemExit 2) on a bad option or value


def test_every_task_the_readme_names_exists():
    import importlib.util

    spec = importlib.util.spec_from_file_location("tasks", README.parent / "tasks.py")
    tasks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tasks)
    for words in _TASKS:
        task, *rest = words.split()
        assert task in tasks.TASKS, f"python3 tasks.py {words}: no task {task!r}"
        if task == "bench":
            assert set(rest) <= set(tasks.BENCHMARKS), f"python3 tasks.py {words}: unknown benchmark"
