"""Every path a job touches is confined to the working dir.

Refused: empty paths, absolute paths (and `~`), `..` parts, text that cannot be a file name
(a NUL byte, a lone surrogate) (400); anything that resolves outside the working dir through a
symlink, and the server's own files (`serve.token`, `tokens.json`, `index/`, `logs/`, dot
files) (403).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from remecli.ops.errors import InvalidParams, PathRefused

TOKEN_FILE = "serve.token"
TOKENS_FILE = "tokens.json"  # the scoped tokens' hashes (remecli token add)
# never read, listed or written by a job: secrets, derived state, logs (the access log too)
PRIVATE_TOP = frozenset({TOKEN_FILE, TOKENS_FILE, "index", "logs"})
HINT = "give a path relative to the working dir, e.g. MEMORY.md or memory/2025-01-31.md"


@dataclass(frozen=True)
class Confined:
    """A resolved path inside the working dir and its relative POSIX form."""

    path: Path
    relative: str


def is_private(relative: str) -> bool:
    """True for the server's own files, which jobs never expose."""
    parts = PurePosixPath(relative).parts
    return bool(parts) and (parts[0] in PRIVATE_TOP or any(p.startswith(".") for p in parts))


def confine(root: Path, raw: str, *, allow_root: bool = False) -> Confined:
    """Resolve `raw` (relative to `root`) or raise InvalidParams / PathRefused saying why."""
    text = (raw or "").strip()
    if "\x00" in text:
        raise InvalidParams(f"path {raw!r} holds a NUL byte; {HINT}")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidParams(
            f"path {raw!r} is not valid Unicode (a lone surrogate); {HINT}"
        ) from None
    if not text or text in (".", "./"):
        if allow_root:
            return Confined(root.resolve(), "")
        raise InvalidParams(f"path is empty; {HINT}")
    posix = PurePosixPath(text)
    if posix.is_absolute() or text.startswith("~") or Path(text).is_absolute():
        raise InvalidParams(f"absolute path {text!r} refused; {HINT}")
    if ".." in posix.parts:
        raise InvalidParams(f"path {text!r} uses '..'; {HINT}")
    base = root.resolve()
    target = (base / posix).resolve()  # follows symlinks: a link out of the folder is caught
    if target != base and not target.is_relative_to(base):
        raise PathRefused(f"path {text!r} leads outside the working dir (a symlink?); {HINT}")
    relative = target.relative_to(base).as_posix() if target != base else ""
    if relative and is_private(relative):
        raise PathRefused(f"{text!r} is not a memory file; {HINT}")
    if not relative and not allow_root:
        raise InvalidParams(f"path {text!r} is the working dir itself; {HINT}")
    return Confined(target, relative)
