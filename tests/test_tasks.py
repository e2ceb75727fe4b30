"""``tasks.py``'s own command line: the list, and what it says to a task it does not have."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _tasks(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "tasks.py"), *argv], capture_output=True, text=True, timeout=60)


@pytest.mark.xdist_group("cores")
def test_no_task_lists_them():
    done = _tasks()
    assert done.returncode == 0 and "python3 tasks.py train" in done.stdout and not done.stderr
    assert "The benchmarks: env, vector, solver" in done.stdout


@pytest.mark.xdist_group("cores")
def test_an_unknown_task_is_named():
    done = _tasks("trian")
    assert done.returncode == 2
    assert "tasks.py: unknown task 'trian'" in done.stderr and "train" in done.stderr


@pytest.mark.xdist_group("cores")
def test_a_task_that_takes_no_arguments_says_so():
    done = _tasks("demo", "now")
    assert done.returncode == 2 and "tasks.py: demo takes no arguments, got now" in done.stderr
    done = _tasks("test", "--fast", "now")
    assert done.returncode == 2 and "tasks.py: test takes only --fast, got --fast now" in done.stderr


def _load_tasks(monkeypatch, tmp_path):
    """tasks.py imported with its virtual environment in ``tmp_path`` and every command it
    would run recorded instead of run."""
    import importlib.util

    monkeypatch.setenv("CAROUSEL_VENV", str(tmp_path / "venv"))
    spec = importlib.util.spec_from_file_location("tasks_under_test", ROOT / "tasks.py")
    tasks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tasks)
    commands: list[tuple[str, ...]] = []
    monkeypatch.setattr(tasks, "run", lambda *cmd: commands.append(tuple(str(c) for c in cmd)))

    def create(path, with_pip):
        tasks.PYTHON.parent.mkdir(parents=True)
        tasks.PYTHON.touch()

    monkeypatch.setattr(tasks.venv, "create", create)
    return tasks, commands


def _installs(commands):
    return [c[c.index("install") + 1 :] for c in commands if "install" in c]


def test_the_main_job_installs_the_training_extra_only(monkeypatch, tmp_path):
    tasks, commands = _load_tasks(monkeypatch, tmp_path)
    tasks.setup(tasks.TASK_EXTRAS["train"])
    assert _installs(commands) == [("torch==2.13.0",), ("-e", ".[train]")]  # torch's CPU wheel first
    assert not any("--quiet" in c for c in commands)  # pip's progress shows
    commands.clear()
    tasks.setup(tasks.TASK_EXTRAS["train"])  # installed: nothing to do
    assert commands == []


def test_the_tests_install_every_extra_keeping_what_is_there(monkeypatch, tmp_path):
    tasks, commands = _load_tasks(monkeypatch, tmp_path)
    tasks.setup(tasks.TASK_EXTRAS["demo"])
    assert _installs(commands) == [("-e", ".")]  # the demo needs neither torch nor an extra
    commands.clear()
    tasks.setup(tasks.TASK_EXTRAS.get("test", tasks.ALL_EXTRAS))
    assert _installs(commands)[-1] == ("-e", ".[train,dev,serve,rllib,torchrl,tianshou,openspiel]")
    commands.clear()
    tasks.setup(tasks.TASK_EXTRAS["train"])  # a subset of what is installed
    assert commands == []


def test_the_tests_run_on_two_workers_and_fast_leaves_out_the_long_marks(monkeypatch, tmp_path):
    tasks, commands = _load_tasks(monkeypatch, tmp_path)
    tasks.STAMP.parent.mkdir(parents=True)
    tasks.STAMP.write_text(" ".join(tasks.ALL_EXTRAS))  # installed: main runs the task alone
    assert tasks.main(["test"]) == 0
    *lint, suite = commands
    assert [c[0].rsplit("/", 1)[-1] for c in lint] == ["ruff", "ruff", "lint-imports"]
    assert suite[1:3] == ("-m", "pytest") and "-n 2 --dist loadgroup" in " ".join(suite)
    assert "no:cacheprovider" in suite and "-m" not in suite[3:]  # everything, with nothing cached
    commands.clear()
    assert tasks.main(["test", "--fast"]) == 0
    suite = commands[-1]
    assert "-n 2 --dist loadgroup" in " ".join(suite) and "no:cacheprovider" not in suite
    marks = suite[suite.index("-m", 3) + 1].split(" and ")
    assert marks == ["not slow", "not integration", "not training", "not soak", "not reference"]


@pytest.mark.xdist_group("cores")
def test_under_the_workers_a_tests_group_reaches_the_scheduler(request):
    """``--dist loadgroup`` hands the scheduler a test's xdist_group as a suffix of its node id;
    on pytest 9.2 that suffix is lost and the groups silently stop (pytest-dev/pytest-xdist#1386:
    pyproject.toml keeps pytest below 9.2)."""
    if not hasattr(request.config, "workerinput"):
        pytest.skip("only under pytest-xdist's workers (python3 tasks.py test)")
    assert request.node.nodeid.endswith("@cores"), f"{request.node.nodeid}: the cores group is lost"
