"""A cheap look at the workspace: every file's (size, mtime_ns), to see what a `bash` run
changed. Nothing is read; folders that are not the user's work (.git, node_modules, virtual
envs, remecli's own working dir) are skipped, and a tree over `max_files` is not scanned whole.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

SKIPPED_NAMES = frozenset(
    {".git", ".hg", ".svn", "node_modules", ".venv", "venv", "__pycache__", ".mypy_cache",
     ".pytest_cache", ".ruff_cache", ".tox"}
)  # fmt: skip
MAX_FILES = 20_000

Stamp = tuple[int, int]  # (size, mtime_ns)


@dataclass(frozen=True)
class Scan:
    """The files of a workspace by relative path; `complete` is False when the cap was hit."""

    files: dict[str, Stamp]
    complete: bool


def scan_workspace(
    workspace: Path, skip: tuple[Path, ...] = (), max_files: int = MAX_FILES
) -> Scan:
    """Stat every regular file under `workspace` (symlinks are not followed), up to `max_files`."""
    skipped = {os.path.realpath(p) for p in skip}
    files: dict[str, Stamp] = {}
    stack = [str(workspace)]
    while stack:
        folder = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    if entry.name not in SKIPPED_NAMES and entry.path not in skipped:
                        stack.append(entry.path)
                    continue
                if not entry.is_file(follow_symlinks=False):
                    continue
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if len(files) >= max_files:
                return Scan(files, complete=False)
            rel = os.path.relpath(entry.path, workspace).replace(os.sep, "/")
            files[rel] = (info.st_size, info.st_mtime_ns)
    return Scan(files, complete=True)


@dataclass(frozen=True)
class ScanDiff:
    """What changed between two scans."""

    created: list[str]
    changed: list[str]
    deleted: list[str]


def compare(before: Scan, after: Scan) -> ScanDiff:
    """Files created, changed (size or mtime differ) and deleted between `before` and `after`."""
    created = sorted(set(after.files) - set(before.files))
    deleted = sorted(set(before.files) - set(after.files))
    changed = sorted(
        name for name, stamp in after.files.items() if before.files.get(name, stamp) != stamp
    )
    return ScanDiff(created, changed, deleted)
