"""The core never imports Textual or the UI package (checked on the source, with ast)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "remecli"
CORE = ["config", "llm", "agent", "tools", "memory", "search", "commands"]
FORBIDDEN = ("textual", "remecli.ui")


def imported_modules(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
    return found


def violations(root: Path) -> list[str]:
    bad = []
    for path in sorted(root.rglob("*.py")):
        for line, module in imported_modules(path):
            if any(module == f or module.startswith(f + ".") for f in FORBIDDEN):
                bad.append(f"{path.relative_to(PACKAGE.parent)}:{line} imports {module}")
    return bad


@pytest.mark.parametrize("package", CORE)
def test_core_package_does_not_import_ui(package: str) -> None:
    root = PACKAGE / package
    assert root.is_dir(), f"core package {package} is missing"
    assert violations(root) == []


def test_checker_catches_a_violation(tmp_path: Path) -> None:
    (tmp_path / "bad.py").write_text(
        "import os\nfrom textual.app import App\nimport remecli.ui.tui\n"
    )
    global PACKAGE
    saved, PACKAGE = PACKAGE, tmp_path.parent
    try:
        found = violations(tmp_path)
    finally:
        PACKAGE = saved
    assert len(found) == 2 and "textual.app" in found[0] and "remecli.ui.tui" in found[1]
