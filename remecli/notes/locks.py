"""Per-file locks around read-modify-write, so concurrent writers never lose an update.

Within one process a `threading.Lock` per file; across processes (the app, `remecli serve`,
`remecli mcp` on the same working dir) an `flock` on `index/locks/<hash>.lock` as well.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import threading
from collections.abc import Iterator
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows: in-process locking only
    fcntl = None  # type: ignore[assignment]


class FileLocks:
    """Hands out one lock per target path (blocking: hold it in a worker thread)."""

    def __init__(self, lock_dir: Path) -> None:
        self.lock_dir = lock_dir
        self._guard = threading.Lock()
        self._locks: dict[str, threading.Lock] = {}

    def _thread_lock(self, key: str) -> threading.Lock:
        with self._guard:
            return self._locks.setdefault(key, threading.Lock())

    @contextlib.contextmanager
    def hold(self, target: Path) -> Iterator[None]:
        """Hold the lock of `target` (in-process, then cross-process) for the block."""
        key = str(target)
        with self._thread_lock(key):
            if fcntl is None:
                yield
                return
            self.lock_dir.mkdir(parents=True, exist_ok=True)
            name = hashlib.sha1(key.encode("utf-8")).hexdigest()[:20] + ".lock"
            fd = os.open(self.lock_dir / name, os.O_RDWR | os.O_CREAT, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
                yield
            finally:
                os.close(fd)  # closing releases the flock
