"""What the import-linter contracts cannot see: ``tests`` and ``benchmarks`` are not
packages it analyses, yet the benchmarks may use the tests' support code and never the
other way round (no import cycle)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_tests_never_import_benchmarks():
    offenders = {
        str(path.relative_to(ROOT)): sorted(n for n in _imports(path) if n.split(".")[0] == "benchmarks")
        for path in (ROOT / "tests").rglob("*.py")
    }
    assert {path: names for path, names in offenders.items() if names} == {}
