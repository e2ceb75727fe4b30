"""The commands whose networks play games in this process decide on one torch thread unless
told (``--torch-threads``): beside another job on a 2-core machine, a heads-up evaluation of
plain Rummy's network took 167 s on torch's default threads and 30 s on one."""

from __future__ import annotations

import pytest
import torch

from carousel_cli.main import main


@pytest.fixture
def threads_kept():
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    yield
    torch.set_num_threads(before)


@pytest.mark.parametrize(
    "command",
    [
        ["eval", "--checkpoint", "greedy", "--opponents", "random", "--games", "2"],
        ["tournament", "--agents", "greedy,random", "--games", "2"],
    ],
)
def test_one_thread_by_default_or_the_count_given(command, threads_kept, capsys):
    assert main(command) == 0
    assert torch.get_num_threads() == 1
    assert main([*command, "--torch-threads", "2"]) == 0
    assert torch.get_num_threads() == 2


@pytest.mark.parametrize("command", ["eval", "tournament", "leaderboard"])
def test_a_bad_thread_count_is_named_before_any_game(command, threads_kept, capsys):
    agents = (
        ["--checkpoint", "greedy"] if command == "eval" else ["--agents", "greedy,random", "--out", "/nonexistent/x"]
    )
    assert main([command, *agents, "--torch-threads", "0"]) == 2
    assert "--torch-threads must be at least 1, got 0" in capsys.readouterr().err
    assert torch.get_num_threads() == 2
