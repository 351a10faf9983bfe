"""The layers, enforced on the source with ast (in the spirit of basic-memory's architecture test).

- The core never imports Textual or the UI package.
- `config` and `llm` import no other project package.
- `search` never imports `memory`, `agent` or `tools`; `memory` never imports `agent` or `ui`.
- No package imports another package's `_private` module.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "remecli"
CORE = ["config", "llm", "agent", "tools", "memory", "search", "commands"]
UI = ("textual", "remecli.ui")
# package -> project modules it must never import (prefixes); "*" = every other project module
FORBIDDEN: dict[str, tuple[str, ...]] = {
    "config": ("*",),
    "llm": ("*",),
    "search": ("remecli.memory", "remecli.agent", "remecli.tools"),
    "memory": ("remecli.agent",),
}


def imported_modules(path: Path) -> list[tuple[int, list[str]]]:
    """Every absolute import of `path`: its line and the dotted names it may bring in
    (`from a import b` may be module `a.b` or name `b` of `a`)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[tuple[int, list[str]]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, [alias.name]) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [f"{node.module}.{alias.name}" for alias in node.names]
            found.append((node.lineno, [node.module, *names]))
    return found


def _within(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def _private_of_other(module: str, package: str) -> bool:
    parts = module.split(".")
    if parts[0] != "remecli" or len(parts) < 3 or parts[1] == package:
        return False
    return any(part.startswith("_") and not part.startswith("__") for part in parts[2:])


def violations(root: Path, package: str, base: Path) -> list[str]:
    """What the files of `package` (under `root`) import against the rules."""
    bad = []
    own = f"remecli.{package}"
    forbidden = FORBIDDEN.get(package, ())
    for path in sorted(root.rglob("*.py")):
        where = path.relative_to(base)
        for line, modules in imported_modules(path):
            reasons = [(m, _reason(m, own, package, forbidden)) for m in modules]
            hits = [(m, r) for m, r in reasons if r]
            if hits:
                module, reason = hits[0]
                bad.append(f"{where}:{line} imports {module} ({reason})")
    return bad


def _reason(module: str, own: str, package: str, forbidden: tuple[str, ...]) -> str:
    if any(_within(module, f) for f in UI):
        return "the UI"
    if "*" in forbidden and _within(module, "remecli") and not _within(module, own):
        return "another project module"
    if any(_within(module, f) for f in forbidden if f != "*"):
        return "a higher layer"
    if _private_of_other(module, package):
        return "another package's private module"
    return ""


@pytest.mark.parametrize("package", CORE)
def test_core_package_respects_the_layers(package: str) -> None:
    root = PACKAGE / package
    assert root.is_dir(), f"core package {package} is missing"
    assert violations(root, package, PACKAGE.parent) == []


def test_no_package_imports_another_packages_private_module() -> None:
    bad = []
    for root in sorted(p for p in PACKAGE.iterdir() if p.is_dir() and p.name != "__pycache__"):
        bad += [v for v in violations(root, root.name, PACKAGE.parent) if "private" in v]
    assert bad == []


@pytest.mark.parametrize(
    ("package", "source", "expected"),
    [
        ("tools", "import os\nfrom textual.app import App\nimport remecli.ui.tui\n", 2),
        ("config", "from remecli.llm.tokens import get_token_counter\n", 1),
        ("llm", "from remecli.config.settings import LLMSettings\n", 1),
        ("search", "from remecli.memory.layout import WorkingDir\n", 1),
        ("memory", "from remecli.agent import events\nimport remecli.memory.blocks\n", 1),
        ("memory", "from remecli.tools._match import find_matches\n", 1),
        ("agent", "from remecli.tools import _results\n", 1),
        ("tools", "from remecli.tools._match import find_matches\n", 0),
    ],
)
def test_checker_catches_a_violation(
    tmp_path: Path, package: str, source: str, expected: int
) -> None:
    root = tmp_path / package
    root.mkdir()
    (root / "bad.py").write_text(source)
    found = violations(root, package, tmp_path)
    assert len(found) == expected, found
