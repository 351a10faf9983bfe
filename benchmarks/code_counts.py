"""Structure counts of a checkout (issue 40's before/after figures): `Any` in function
signatures per package, files per package, functions over 50 lines per package (docstring
included), and files outside `remecli/llm/` that import
agentscope directly.

Reproduce:  python benchmarks/code_counts.py [CHECKOUT]   (default: this one)
"""

from __future__ import annotations

import ast
import collections
import sys
from pathlib import Path


def annotations(node: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.expr]:
    """Every annotation of a function's parameters and return."""
    args = node.args
    found = [a.annotation for a in args.posonlyargs + args.args + args.kwonlyargs if a.annotation]
    found += [a.annotation for a in (args.vararg, args.kwarg) if a is not None and a.annotation]
    return found + ([node.returns] if node.returns else [])


def main() -> int:
    root = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[1])
    package = root / "remecli"
    anys: collections.Counter[str] = collections.Counter()
    files: collections.Counter[str] = collections.Counter()
    long_functions: collections.Counter[str] = collections.Counter()
    agentscope = 0
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(package).parts
        unit = parts[0] if len(parts) > 1 else "(top)"
        files[unit] += 1
        text = path.read_text(encoding="utf-8")
        if unit != "llm" and ("import agentscope" in text or "from agentscope" in text):
            agentscope += 1
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                anys[unit] += sum(ast.unparse(a).count("Any") for a in annotations(node))
                if (node.end_lineno or node.lineno) - node.lineno + 1 > 50:
                    long_functions[unit] += 1
    print(f"Any in signatures: {sum(anys.values())}  {dict(sorted(anys.items()))}")
    print(f"files: {sum(files.values())}  {dict(sorted(files.items()))}")
    print(
        f"functions over 50 lines: {sum(long_functions.values())}"
        f"  {dict(sorted(long_functions.items()))}"
    )
    print(f"files outside llm/ importing agentscope directly: {agentscope}")
    print(f"reproduce: python benchmarks/code_counts.py {root}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
