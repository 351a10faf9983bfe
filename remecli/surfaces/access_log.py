"""The access log: who (token name) ran which operation on which paths, when, and how it ended.

One JSON line per call in `<working_dir>/logs/access.jsonl` (mode 0600, append-only; never
contents: no query text, no file text, no messages). `remecli access-log` shows it; jobs never
read it (`logs/` is private to the server).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import threading
from collections import deque
from dataclasses import asdict, dataclass, field
from pathlib import Path

from remecli.config.privacy import private_dirs

ACCESS_LOG = Path("logs") / "access.jsonl"


@dataclass(frozen=True)
class AccessEntry:
    """One call: when, who, through which surface, which operation, which paths, the outcome."""

    time: str
    who: str
    surface: str
    operation: str
    paths: list[str] = field(default_factory=list)
    outcome: str = "ok"  # "ok", "failed" (the answer says ok: false) or the error code


class AccessLog:
    """Appends entries to the log file of one working dir (safe across threads and processes:
    each entry is one `O_APPEND` write)."""

    def __init__(self, root: Path) -> None:
        self.path = Path(root) / ACCESS_LOG
        self._guard = threading.Lock()

    def record(
        self,
        who: str,
        surface: str,
        operation: str,
        paths: list[str] | None = None,
        outcome: str = "ok",
    ) -> AccessEntry:
        """Append one entry (the time is now, UTC)."""
        entry = AccessEntry(
            time=dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds"),
            who=who,
            surface=surface,
            operation=operation,
            paths=sorted(set(paths or [])),
            outcome=outcome,
        )
        line = (json.dumps(asdict(entry), ensure_ascii=False) + "\n").encode("utf-8", "replace")
        with self._guard:
            private_dirs(self.path.parent)
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                os.write(fd, line)
            finally:
                os.close(fd)
        return entry

    def tail(self, count: int | None = None) -> list[dict[str, object]]:
        """The last `count` entries (all when None), oldest first; a damaged line is skipped."""
        if not self.path.exists():
            return []
        kept: deque[dict[str, object]] = deque(maxlen=count)
        with open(self.path, encoding="utf-8", errors="replace") as handle:
            for line in handle:
                try:
                    entry = json.loads(line)
                except ValueError:
                    continue
                if isinstance(entry, dict):
                    kept.append(entry)
        return list(kept)


def format_entry(entry: dict[str, object]) -> str:
    """One human line: time, who, surface, operation, outcome, paths."""
    listed = entry.get("paths")
    paths = ", ".join(str(p) for p in listed) if isinstance(listed, list) and listed else "-"
    return (
        f"{entry.get('time', '?')}  {entry.get('who', '?')}  {entry.get('surface', '?')}  "
        f"{entry.get('operation', '?')}  {entry.get('outcome', '?')}  {paths}"
    )
