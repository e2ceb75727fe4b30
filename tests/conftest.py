"""Shared test setup. The tests import their support code as ``tests.support.<module>``
(``tests`` is a package, so pytest puts the repository root on the path).

The suite runs on two workers (``python3 tasks.py test``: ``pytest -n 2 --dist loadgroup``,
pytest-xdist); plain ``pytest`` runs it in one process, as before. With workers:

* numba's compiled code of every game is compiled into its cache (or loaded from it) once, in
  the controller, before the workers start (``tests/support/warm_compiled.py``);
* the tests that must not run beside one another share an ``xdist_group``, which one worker
  runs in turn: :data:`GROUPS` (and so do the tests of a costly module fixture, which each
  worker would otherwise make);
* each worker takes the test files longest first, by the seconds kept in
  ``tests/.test_durations`` (``{test id: seconds}``, setup and teardown included), so that no
  long test starts last; ``--save-durations`` writes the seconds of a run into it.

The marks (pyproject.toml): ``slow`` (not in the default run), ``integration`` (against a real
RL library or game framework: Ray/RLlib, OpenSpiel, TorchRL, Tianshou, Stable-Baselines3) and
``training`` (runs a training loop), ``soak`` (a soak benchmark's slice of complete games) and
``reference`` (a solver against its independent reference on a sample of positions);
``python3 tasks.py test --fast`` leaves out all five.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path

import pytest

from tests.support.stored import StoredPosition, stored_positions

DURATIONS = Path(__file__).resolve().parent / ".test_durations"
# The xdist groups, each run by one worker, one test at a time.
GROUPS = {
    "ray": "every test that starts Ray (a local instance, a two-node cluster, an RLlib run): "
    "two Ray instances at once thrash two cores",
    "cores": "tests that start their own second process or workers (spawned training or soak "
    "workers, subprocesses, numba's compile helper): each already uses both cores",
    "every_command": "tests/games/test_every_command.py, whose module fixture trains each game once: "
    "on one worker it is not trained twice",
}
UNMEASURED_S = 1.0  # the seconds of a test not in DURATIONS yet


@pytest.fixture(scope="session")
def _session_ray():
    """The worker's one local Ray instance, started by the first test that asks for it and
    stopped when the session ends (tests of the ``ray`` group: one worker runs them all)."""
    import ray

    yield ray
    if ray.is_initialized():
        ray.shutdown()


@pytest.fixture
def shared_ray(_session_ray):
    """A local Ray instance shared by the tests that only need one running (training starts
    none then, and leaves it running): each start and stop of Ray costs seconds. A test of
    Ray's own start and stop asks for :func:`no_ray` instead."""
    if not _session_ray.is_initialized():
        _session_ray.init(num_cpus=2, include_dashboard=False, logging_level="ERROR", log_to_driver=False)
    return _session_ray


@pytest.fixture
def no_ray():
    """No Ray instance running in this process when the test starts (a shared one is stopped)."""
    import ray

    if ray.is_initialized():
        ray.shutdown()


@pytest.fixture
def stored() -> tuple[StoredPosition, ...]:
    """Every stored solver position with its MILP optima; skips when none are generated."""
    positions = stored_positions()
    if not positions:
        pytest.skip("tests/data/solver_positions.jsonl not generated yet")
    return positions


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--save-durations",
        action="store_true",
        help=f"write each test's seconds (setup, call and teardown) into {DURATIONS.name}, keeping the others'",
    )


def _is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def _plain_id(nodeid: str) -> str:
    """``nodeid`` without the ``@group`` that ``--dist loadgroup`` appends under xdist."""
    return nodeid[: nodeid.rindex("@")] if nodeid.rfind("@") > nodeid.rfind("]") else nodeid


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("save_durations") and not _is_worker(config):
        config.pluginmanager.register(_DurationRecorder(), "carousel-durations")


def pytest_sessionstart(session: pytest.Session) -> None:
    # Only xdist's controller of a distributed run has its "dsession" plugin (registered
    # unless collecting only); this hook runs before that plugin's starts the workers.
    config = session.config
    if not config.pluginmanager.has_plugin("dsession"):
        return
    from tests.support.warm_compiled import warm_every_game

    try:
        seconds = warm_every_game()
    except Exception as exc:  # the tests of the game that failed will say more
        _say(config, f"tests: numba's compiled code could not be prepared ahead ({type(exc).__name__}: {exc})")
    else:
        _say(config, f"tests: numba's compiled code of every game ready in {seconds:.1f} s, before the workers start")


def _say(config: pytest.Config, line: str) -> None:
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_line(line)
    else:
        print(line, file=sys.stderr)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        for mark in item.iter_markers("xdist_group"):
            name = mark.args[0] if mark.args else mark.kwargs.get("name")
            if name not in GROUPS:
                raise pytest.UsageError(
                    f"{item.nodeid}: unknown xdist_group {name!r} (tests/conftest.py: {list(GROUPS)})"
                )
    if _is_worker(config):
        _longest_files_first(items)


def _longest_files_first(items: list[pytest.Item]) -> None:
    """Sort ``items`` by their file's measured seconds, longest first; a file's tests keep their order."""
    try:
        measured: dict[str, float] = json.loads(DURATIONS.read_text())
    except (OSError, ValueError):
        return
    per_file: dict[str, float] = defaultdict(float)
    for item in items:
        per_file[item.nodeid.split("::")[0]] += measured.get(_plain_id(item.nodeid), UNMEASURED_S)
    items.sort(key=lambda item: -per_file[item.nodeid.split("::")[0]])


class _DurationRecorder:
    """``--save-durations``: each test's seconds, written into DURATIONS at the end of the run
    (the controller's, under xdist: the workers' reports reach it)."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.seconds[_plain_id(report.nodeid)] += report.duration

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        try:
            kept = json.loads(DURATIONS.read_text())
        except (OSError, ValueError):
            kept = {}
        kept.update({nodeid: round(s, 3) for nodeid, s in self.seconds.items()})
        DURATIONS.write_text(json.dumps(dict(sorted(kept.items())), indent=1) + "\n")
