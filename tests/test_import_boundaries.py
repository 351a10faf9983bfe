"""The layers, enforced on the source with ast (in the spirit of basic-memory's architecture test).

Every package of remecli has a place in one total order (`LAYERS`, lowest first); a module may
import only its own package and packages below it. Absolute imports, relative imports and
`importlib.import_module("remecli…")` strings (also f-strings with a constant prefix) all count.
On top of the order:

- the core (everything below `ui`) never imports Textual or the UI package;
- no package imports another package's `_private` module;
- the package graph has no cycle (implied by the order; checked on its own to name the cycle).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "remecli"

# Lowest first. The top-level modules (`__main__`, `cli`) are composition roots: they sit
# above every package. `remecli/__init__.py` only re-exports `ReMe` lazily (see ROOT_EXPORTS).
LAYERS: tuple[str, ...] = (
    "config",
    "llm",
    "notes",
    "search",
    "vector",
    "knowledge",
    "conversation",
    "sync",
    "runtime",
    "ops",
    "tools",
    "agent",
    "commands",
    "surfaces",
    "ui",
    "cli",
    "__main__",
)
ROOT_EXPORTS = {"vector"}  # what `remecli/__init__.py` may load
# The seed's import path of `FileMemory`, kept for library users (docs/library.md): a module
# that only re-exports the facade from the composition root above it (checked below).
SEED_PATHS = {"remecli.conversation.file_memory": "remecli.runtime.file_memory"}
UI = ("textual", "remecli.ui")


def _unit(module: str) -> str | None:
    """The layer unit of a dotted project module (`remecli.notes.writer` → `notes`)."""
    parts = module.split(".")
    if parts[0] != "remecli" or len(parts) < 2:
        return None
    return parts[1]


def _resolve_relative(module_of_file: str, is_package: bool, level: int, name: str | None) -> str:
    base = module_of_file.split(".")
    if not is_package:
        base = base[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join(base + ([name] if name else []))


def _importlib_target(node: ast.Call) -> str | None:
    """`importlib.import_module("remecli.x")` or `import_module(f"remecli.x.{y}")` → its prefix."""
    func = node.func
    called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    if called != "import_module" or not node.args:
        return None
    arg = node.args[0]
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        return arg.value
    if isinstance(arg, ast.JoinedStr) and arg.values:
        first = arg.values[0]
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            return first.value.rstrip(".")
    return None


def imported_modules(path: Path, module_of_file: str) -> list[tuple[int, list[str]]]:
    """Every import of `path`: its line and the dotted names it may bring in
    (`from a import b` may be module `a.b` or name `b` of `a`)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    is_package = path.name == "__init__.py"
    found: list[tuple[int, list[str]]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, [alias.name]) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                module = _resolve_relative(module_of_file, is_package, node.level, node.module)
            names = [f"{module}.{alias.name}" for alias in node.names]
            found.append((node.lineno, [module, *names]))
        elif isinstance(node, ast.Call):
            target = _importlib_target(node)
            if target:
                found.append((node.lineno, [target]))
    return found


def _within(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def _private_of_other(module: str, unit: str) -> bool:
    parts = module.split(".")
    if parts[0] != "remecli" or len(parts) < 3 or parts[1] == unit:
        return False
    return any(part.startswith("_") and not part.startswith("__") for part in parts[2:])


def _reason(module: str, unit: str) -> str:
    target = _unit(module)
    below_ui = LAYERS.index(unit) < LAYERS.index("ui")
    if below_ui and any(_within(module, f) for f in UI):
        return "the UI"
    if target is None or target == unit or target not in LAYERS:
        return ""
    if LAYERS.index(target) > LAYERS.index(unit):
        return f"a higher layer ({target} is above {unit})"
    if _private_of_other(module, unit):
        return "another package's private module"
    return ""


def module_name(path: Path, base: Path) -> str:
    rel = path.relative_to(base).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def violations(path: Path, unit: str, base: Path) -> list[str]:
    """What `path` (a file or a package folder of layer `unit`, under `base`) imports against
    the rules."""
    files = sorted(path.rglob("*.py")) if path.is_dir() else [path]
    bad = []
    for file in files:
        where = file.relative_to(base)
        name = module_name(file, base)
        for line, modules in imported_modules(file, name):
            if modules[0] == SEED_PATHS.get(name):
                continue
            hits = [(m, r) for m in modules if (r := _reason(m, unit))]
            if hits:
                module, reason = hits[0]
                bad.append(f"{where}:{line} imports {module} ({reason})")
    return bad


def _units_on_disk() -> list[str]:
    found = [p.name for p in PACKAGE.iterdir() if p.is_dir() and any(p.glob("*.py"))]
    found += [p.stem for p in PACKAGE.glob("*.py") if p.name != "__init__.py"]
    return sorted(found)


def test_every_package_and_module_has_a_layer() -> None:
    assert sorted(_units_on_disk()) == sorted(LAYERS)


@pytest.mark.parametrize("unit", LAYERS)
def test_layer_imports_only_downwards(unit: str) -> None:
    path = PACKAGE / unit
    path = path if path.is_dir() else path.with_suffix(".py")
    assert violations(path, unit, PACKAGE.parent) == []


def test_the_package_root_only_re_exports() -> None:
    root = PACKAGE / "__init__.py"
    units = {_unit(m) for _, ms in imported_modules(root, "remecli") for m in ms[:1]}
    assert units - {None} <= ROOT_EXPORTS


def test_no_cycle_between_packages() -> None:
    graph: dict[str, set[str]] = {unit: set() for unit in LAYERS}
    for unit in LAYERS:
        path = PACKAGE / unit
        files = sorted(path.rglob("*.py")) if path.is_dir() else [path.with_suffix(".py")]
        for file in files:
            name = module_name(file, PACKAGE.parent)
            for _, modules in imported_modules(file, name):
                if modules[0] == SEED_PATHS.get(name):
                    continue
                target = _unit(modules[0])
                if target in graph and target != unit:
                    graph[unit].add(target)
    seen: dict[str, int] = {}  # 1 = on the stack, 2 = done

    def visit(node: str, stack: list[str]) -> None:
        seen[node] = 1
        for nxt in sorted(graph[node]):
            if seen.get(nxt) == 1:
                cycle = stack[stack.index(nxt) :] + [nxt] if nxt in stack else [node, nxt]
                pytest.fail("package cycle: " + " → ".join(cycle))
            if nxt not in seen:
                visit(nxt, [*stack, nxt])
        seen[node] = 2

    for unit in LAYERS:
        if unit not in seen:
            visit(unit, [unit])


def test_a_seed_path_only_re_exports() -> None:
    """A kept seed path holds nothing but the re-export: no code may hide behind its exemption."""
    for name, target in SEED_PATHS.items():
        path = PACKAGE.parent / (name.replace(".", "/") + ".py")
        body = ast.parse(path.read_text(encoding="utf-8")).body
        imports = [node for node in body if isinstance(node, ast.ImportFrom)]
        assert [node.module for node in imports] == [target]
        rest = [node for node in body if not isinstance(node, ast.ImportFrom)]
        assert all(isinstance(node, (ast.Expr, ast.Assign)) for node in rest), name
        assigned = [t.id for n in rest if isinstance(n, ast.Assign) for t in n.targets]  # type: ignore[attr-defined]
        assert assigned in ([], ["__all__"]), name


@pytest.mark.parametrize(
    ("unit", "source", "expected"),
    [
        # the core never imports the UI or Textual
        ("tools", "import os\nfrom textual.app import App\nimport remecli.ui.tui\n", 2),
        # the four violations the old test let through (issue 20)
        ("knowledge", "from remecli.tools.edit import edit\n", 1),  # memory → tools
        ("notes", "from remecli.conversation.file_memory import FileMemory\n", 1),  # links → memory
        ("vector", "from remecli.conversation.session import Session\n", 1),  # vector → memory
        ("knowledge", "from remecli.agent.events import Event\n", 1),
        # relative imports are resolved
        ("search", "from ..ops import JOBS\n", 1),
        ("search", "from . import keyword\nfrom ..notes import frontmatter\n", 0),
        # importlib strings, plain and f-string prefixes
        ("config", "import importlib\nimportlib.import_module('remecli.llm.tokens')\n", 1),
        ("notes", "from importlib import import_module\nimport_module(f'remecli.ops.{x}')\n", 1),
        # downwards is fine; private modules of another package are not
        ("ops", "from remecli.notes.writer import MemoryWriter\n", 0),
        ("agent", "from remecli.tools import _process\n", 1),
        ("tools", "from remecli.tools._process import run\n", 0),
    ],
)
def test_checker_catches_a_violation(tmp_path: Path, unit: str, source: str, expected: int) -> None:
    root = tmp_path / "remecli" / unit
    root.mkdir(parents=True)
    (root / "bad.py").write_text(source)
    found = violations(root, unit, tmp_path)
    assert len(found) == expected, found
