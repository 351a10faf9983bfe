"""What a file is, from its first bytes and its path: text or binary, a memory note or not, and
whether a path named inside a workspace leads out of it through a symlink (the file tools' one
confinement rule)."""

from __future__ import annotations

import os
from pathlib import Path

from remecli.notes.writer import MEMORY_FOLDERS, MEMORY_MD

UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


def looks_binary(head: bytes) -> bool:
    """True for data that is not text: NUL bytes (outside UTF-16) or mostly control bytes."""
    if not head:
        return False
    if head.startswith(UTF16_BOMS):
        return False
    if b"\x00" in head:
        return True
    controls = sum(1 for byte in head if byte < 32 and byte not in (9, 10, 12, 13, 27))
    return controls / len(head) > 0.3


def leaves_workspace(target: Path, workspace: Path) -> bool:
    """True when `target` (absolute, normalised) lies under `workspace` by name but its real
    path does not: a symlink on the way leads out. Such a path counts as outside the workspace
    for every file tool, even when it leads to a scratch folder (the name hides where it goes).
    """
    root = Path(os.path.normpath(workspace))
    if target != root and root not in target.parents:
        return False
    real = Path(os.path.realpath(target))
    real_root = Path(os.path.realpath(root))
    return real != real_root and real_root not in real.parents


def is_note_path(relative: str) -> bool:
    """True for MEMORY.md and `*.md` under memory/ or digest/ (no hidden parts)."""
    parts = relative.split("/")
    if parts == [MEMORY_MD]:
        return True
    return (
        len(parts) >= 2
        and parts[0] in MEMORY_FOLDERS
        and relative.endswith(".md")
        and not any(part.startswith(".") or not part for part in parts)
    )
