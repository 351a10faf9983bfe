"""One parser per concern: only `notes/` reads frontmatter or wikilinks with its own patterns."""

from __future__ import annotations

import ast
from pathlib import Path

import remecli

PACKAGE = Path(remecli.__file__).parent
_RE_CALLS = {"compile", "match", "fullmatch", "search", "findall", "finditer", "sub", "split"}


def _regex_patterns(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, pattern) of every string literal handed to a `re` function."""
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        if node.func.attr not in _RE_CALLS or not node.args:
            continue
        if isinstance(node.func.value, ast.Name) and node.func.value.id == "re":
            first = node.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                found.append((node.lineno, first.value))
    return found


def _fence_checks(tree: ast.AST) -> list[int]:
    """Lines comparing text with a `---` fence (`startswith("---")`, `== "---"`, `in ("---", …)`)."""
    lines = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("startswith", "split", "partition")
            and any(isinstance(a, ast.Constant) and a.value == "---" for a in node.args)
        ):
            lines.append(node.lineno)
        if isinstance(node, ast.Compare):
            for side in [node.left, *node.comparators]:
                values = side.elts if isinstance(side, ast.Tuple) else [side]
                if any(isinstance(v, ast.Constant) and v.value == "---" for v in values):
                    lines.append(node.lineno)
    return lines


def test_no_module_outside_notes_parses_frontmatter_or_wikilinks_itself() -> None:
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel.startswith("notes/"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        offenders += [
            f"{rel}:{line} regex {pattern!r}"
            for line, pattern in _regex_patterns(tree)
            if r"\[\[" in pattern or "---" in pattern
        ]
        offenders += [f"{rel}:{line} compares with '---'" for line in _fence_checks(tree)]
    assert offenders == []


def test_the_checks_catch_a_hand_written_parser() -> None:
    sample = ast.parse(
        "import re\n"
        "LINK = re.compile(r'\\[\\[([^\\]]+)\\]\\]')\n"
        "def split(text):\n"
        "    return text.startswith('---')\n"
    )
    assert [line for line, _ in _regex_patterns(sample)] == [2]
    assert _fence_checks(sample) == [4]
