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
