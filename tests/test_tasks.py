"""``tasks.py``'s own command line: the list, and what it says to a task it does not have."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _tasks(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "tasks.py"), *argv], capture_output=True, text=True, timeout=60)


def test_no_task_lists_them():
    done = _tasks()
    assert done.returncode == 0 and "python3 tasks.py train" in done.stdout and not done.stderr


def test_an_unknown_task_is_named():
    done = _tasks("trian")
    assert done.returncode == 2
    assert "tasks.py: unknown task 'trian'" in done.stderr and "train" in done.stderr


def test_a_task_that_takes_no_arguments_says_so():
    done = _tasks("test", "now")
    assert done.returncode == 2 and "tasks.py: test takes no arguments, got now" in done.stderr
