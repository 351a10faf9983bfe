"""Which files in `resource/` may be read at all: the rule Auto Resource, `remecli ingest` and
`memory_ingest` share.

A file is read only when it (through any symlink) stays inside the working dir and is none of the
memory's own private files (`serve.token`, `tokens.json`, `index/`, `logs/`, dot files: the rule
of `ops.paths.confine`, which a test keeps equal), nor a hard link to a token file.
"""

from __future__ import annotations

from pathlib import Path

TOKEN_FILES = ("serve.token", "tokens.json")  # the server's tokens (a hard link is caught too)
PRIVATE_TOP = frozenset({*TOKEN_FILES, "index", "logs"})  # = ops.paths.PRIVATE_TOP


def readable_resource(path: Path, root: Path) -> bool:
    """True when `path` may be read as a resource of the working dir `root`."""
    try:
        real = path.resolve(strict=True)
    except (OSError, RuntimeError):  # a dangling or looping link
        return False
    base = root.resolve()
    if not real.is_relative_to(base):
        return False
    parts = real.relative_to(base).parts
    if not parts or parts[0] in PRIVATE_TOP or any(p.startswith(".") for p in parts):
        return False
    return not any(_same_file(real, base / name) for name in TOKEN_FILES)


def not_read(label: str) -> str:
    """The one-line skip of a file in `resource/` that `readable_resource` refuses."""
    return (
        f"{label}: not read: it leads out of the working dir, to nothing, or to remecli's own "
        "files (tokens, logs, index); put a copy of the file itself into resource/"
    )


def _same_file(path: Path, other: Path) -> bool:
    try:
        return other.exists() and path.samefile(other)
    except OSError:
        return False
