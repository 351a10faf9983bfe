"""A small linked working dir: MEMORY.md, a day page, a card, digest nodes, a transcript."""

from __future__ import annotations

from pathlib import Path

import pytest

CARD = """---
name: Deploy steps
description: How we ship on Fridays with make ship
session_id: abc
source_conversation: "[[sessions/abc.jsonl#L1-L40]]"
---
# Deploy steps

We run `make ship`; the checklist is in [[digest/procedure/release-checklist]].
Related: [[Rollback]] and [[digest/wiki/blue-green.md|blue/green]].
"""

FILES = {
    "MEMORY.md": "# MEMORY\n\n- Deploys: see [[Deploy steps]].\n- Editor: [[personal/editor]]\n",
    "memory/2025-01-31.md": (
        "# 2025-01-31\n\n<!-- cards:auto -->\n"
        "- [[memory/2025-01-31/deploy.md]] name: Deploy steps\n<!-- /cards:auto -->\n"
    ),
    "memory/2025-01-31/deploy.md": CARD,
    "digest/procedure/release-checklist.md": (
        "---\nname: Release checklist\ndescription: Steps before a release\n---\n"
        "1. Tag. 2. [[Rollback]] plan ready.\n\n## Sources\n- [[memory/2025-01-31/deploy.md#L8]]\n"
    ),
    "digest/procedure/rollback.md": "# Rollback\n\nUndo with `make unship`. Never `[[not a link]]`.\n",
    "digest/wiki/blue-green.md": "---\nname: Blue/green deploys\ndescription: Two fleets\n---\n",
    "sessions/abc.jsonl": '{"role": "user"}\n',
}


def write_files(root: Path, files: dict[str, str]) -> None:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


@pytest.fixture
def linked_dir(tmp_path: Path) -> Path:
    root = tmp_path / "wd"
    write_files(root, FILES)
    return root
