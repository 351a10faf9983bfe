"""`notes/atomic_write` is the one temp-and-rename writer (issue 40): every other rename in
`remecli/` is a different operation, listed here with why. A ratchet: a new hand-written
temp-and-rename fails, and so does an entry no longer there."""

from __future__ import annotations

import ast

from tests.test_import_boundaries import PACKAGE

# file (relative to remecli/) -> why it renames by itself
OTHER_RENAMES: dict[str, str] = {
    "notes/atomic_write.py": "the helper itself",
    "notes/versions.py": "a kept version, fsynced only when `durable` (the helper always fsyncs)",
    "llm/tokens.py": "seeds tiktoken's cache; llm sits below notes, so it cannot use the helper",
    "tools/checkpoints/store.py": "thousands of objects per scan: no fsync on purpose",
    "knowledge/resources/place.py": "copies a user's file (copy2 keeps its times), streamed",
    "conversation/vector_memory.py": "moves the old vector store folder to its new place",
}


def _renames() -> set[str]:
    """Files of remecli calling os.replace / os.rename or a path's .rename / .replace(path)."""
    found = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            name = ast.unparse(node.func)
            if name in ("os.replace", "os.rename") or (
                node.func.attr == "rename" and len(node.args) == 1 and not node.keywords
            ):
                found.add(path.relative_to(PACKAGE).as_posix())
    return found


def test_temp_and_rename_goes_through_the_one_helper() -> None:
    renames = _renames()
    assert not renames - set(OTHER_RENAMES), "write with notes.atomic_write instead"
    assert not set(OTHER_RENAMES) - renames, "no longer renames: remove it from OTHER_RENAMES"
