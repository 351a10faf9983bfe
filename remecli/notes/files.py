"""Derived and private files of the memory package (states, pending records, tool outputs):
the atomic writer, and the mode they are created with; and the one tolerant reader of memory
files (bytes that are not UTF-8 never stop a summary).

Memory files themselves (`MEMORY.md`, `memory/**`, `digest/**`) are written by
`remecli.notes.writer.MemoryWriter` only (versioned, secrets redacted).
"""

from __future__ import annotations

import functools
import logging
import re
import threading
from pathlib import Path

from remecli.notes.atomic_write import PRIVATE_FILE_MODE, atomic_write_text

__all__ = ["PRIVATE_FILE_MODE", "atomic_write_text", "read_memory_text"]

log = logging.getLogger(__name__)
_named: set[str] = set()  # files already named in the log (once per process)
_named_lock = threading.Lock()


def read_memory_text(path: Path, *, keep_bytes: bool = False) -> str:
    """The text of a memory file (FileNotFoundError when absent).

    Bytes that are not UTF-8 become U+FFFD, or with `keep_bytes` surrogate escapes that the
    memory writer turns back into the same bytes (for a file that is rewritten around the
    user's text). Such a file is named once in the log.
    """
    data = Path(path).read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        with _named_lock:
            first = str(path) not in _named
            _named.add(str(path))
        if first:
            log.warning(
                "%s is not valid UTF-8 (byte %d); read with replacement characters. Re-save it "
                "as UTF-8 to fix it.",
                path,
                exc.start,
            )
        return data.decode("utf-8", errors="surrogateescape" if keep_bytes else "replace")


@functools.lru_cache(maxsize=64)
def glob_regex(pattern: str) -> re.Pattern[str]:
    """A glob (`**` = any folders, `*` and `?` within one name) as a regular expression."""
    out, k = [], 0
    while k < len(pattern):
        if pattern.startswith("**/", k):
            out.append("(?:.*/)?")
            k += 3
        elif pattern.startswith("**", k):
            out.append(".*")
            k += 2
        elif pattern[k] == "*":
            out.append("[^/]*")
            k += 1
        elif pattern[k] == "?":
            out.append("[^/]")
            k += 1
        else:
            out.append(re.escape(pattern[k]))
            k += 1
    return re.compile("".join(out) + r"\Z")
