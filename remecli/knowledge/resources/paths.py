"""Which files in `resource/` may be read at all: the rule Auto Resource, `remecli ingest` and
`memory_ingest` share.

A file is read only when it (through any symlink) stays inside the working dir and is none of the
memory's own private files (`serve.token`, `tokens.json`, `index/`, `logs/`, dot files: the rule
of `ops.paths.confine`, which a test keeps equal), nor a hard link to a token file.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from remecli.knowledge.resources.extract import is_resource_name, is_temp_name

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


SPECIAL_KINDS = (
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


def special_kind(path: Path) -> str | None:
    """What `path` (through links) is when it exists and is neither a regular file nor a folder:
    "a named pipe (FIFO)", "a socket", a device. Reading one blocks or never ends, so nothing
    that reads resources opens it. `stat` itself does not open the file."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return None
    return next((kind for test, kind in SPECIAL_KINDS if test(mode)), None)


def not_regular(label: str, kind: str) -> str:
    """The one-line refusal of a FIFO, socket or device named as a resource."""
    return f"{label} is {kind}, not a regular file; only regular files are ingested"


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


def resource_listing(folder: Path, root: Path, label: str) -> list[tuple[str, str]]:
    """(`<label>/<file>`, "ok" | "type" | "unread" | refusal) of every visible file or link
    under `folder` (the working dir `root`'s resource folder); "unread": `readable_resource`
    refuses it (a link out of the working dir or to nothing, remecli's own files); a FIFO,
    socket or device: the line that names it (it is never opened)."""
    if not folder.is_dir():
        return []
    found = []
    for path in sorted(folder.rglob("*")):
        inner = path.relative_to(folder).parts
        if any(part.startswith((".", "~")) for part in inner) or is_temp_name(path.name):
            continue
        rel = f"{label}/{'/'.join(inner)}"
        kind = special_kind(path)
        if kind is not None:
            found.append((rel, not_regular(rel, kind)))
        elif path.is_file() and readable_resource(path, root):
            found.append((rel, "ok" if is_resource_name(path.name) else "type"))
        elif (path.is_file() or path.is_symlink()) and not path.is_dir():
            found.append((rel, "unread"))
    return found
