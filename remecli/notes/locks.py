"""The one lock primitive: an exclusive lock on a lock file, across processes and threads.

`FileLock(path)` holds a `threading.Lock` per lock file (threads of this process) and an `flock`
on the file (other processes: the app, `remecli serve`, `remecli mcp`, `remecli dream` on the
same working dir). The kernel drops the `flock` of a process that dies, so a lock never outlives
its holder. A lock won on a file that its last holder replaced or unlinked meanwhile is dropped
and tried again on the file now at the path. `FileLocks` hands out one such lock per target path
(`index/locks/<hash>.lock`) for read-modify-write in ops.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType

from remecli.config.privacy import private_dirs

try:
    import fcntl
except ImportError:  # Windows: in-process locking only
    fcntl = None  # type: ignore[assignment]

_ATTEMPTS = 10  # a lock file replaced under us again and again: give up (counts as busy)


class _ThreadLocks:
    """One `threading.Lock` per lock file, kept while anyone holds or waits for it."""

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._locks: dict[str, tuple[threading.Lock, int]] = {}

    def enter(self, key: str) -> threading.Lock:
        with self._guard:
            lock, users = self._locks.get(key) or (threading.Lock(), 0)
            self._locks[key] = (lock, users + 1)
            return lock

    def leave(self, key: str) -> None:
        with self._guard:
            lock, users = self._locks[key]
            if users <= 1:
                del self._locks[key]
            else:
                self._locks[key] = (lock, users - 1)


_THREAD_LOCKS = _ThreadLocks()


class FileLock:
    """An exclusive lock on the file at `path` (created with `mode` unless `create=False`).

    `with FileLock(path):` blocks until the lock is held; `acquire(blocking=False)` answers at
    once. Held: `fd` is the open lock file (a holder may write into it, e.g. its pid).
    """

    def __init__(self, path: Path, *, mode: int = 0o600, create: bool = True) -> None:
        self.path = Path(path)
        self.mode = mode
        self.create = create
        self._key = os.path.abspath(self.path)
        self._thread_lock: threading.Lock | None = None
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        """True while this object holds the lock."""
        return self._thread_lock is not None

    @property
    def fd(self) -> int | None:
        """The open lock file while held (None otherwise, and where flock does not exist)."""
        return self._fd

    def acquire(self, *, blocking: bool = True) -> bool:
        """Take the lock; False (only when not `blocking`, or when `create=False` and the file
        does not exist) if it cannot be held now."""
        if self.held:
            raise RuntimeError(f"{self.path} is already locked by this FileLock")
        thread_lock = _THREAD_LOCKS.enter(self._key)
        if not thread_lock.acquire(blocking=blocking):
            _THREAD_LOCKS.leave(self._key)
            return False
        try:
            fd = self._flock(blocking)
        except BaseException:
            thread_lock.release()
            _THREAD_LOCKS.leave(self._key)
            raise
        if fd is None and fcntl is not None:
            thread_lock.release()
            _THREAD_LOCKS.leave(self._key)
            return False
        self._thread_lock, self._fd = thread_lock, fd
        return True

    def _flock(self, blocking: bool) -> int | None:
        """An fd holding the flock on the file now at `path`; None when it cannot be held."""
        if fcntl is None:
            return None
        flags = os.O_RDWR | (os.O_CREAT if self.create else 0)
        for _ in range(_ATTEMPTS):
            try:
                fd = os.open(self.path, flags, self.mode)
            except FileNotFoundError:
                if self.create:
                    raise  # its folder is missing: the caller makes folders
                return None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | (0 if blocking else fcntl.LOCK_NB))
                same = os.path.samestat(os.fstat(fd), os.stat(self.path))
            except BlockingIOError:
                os.close(fd)
                return None
            except FileNotFoundError:
                same = False  # unlinked by its last holder: the next file at `path` counts
            except BaseException:
                os.close(fd)
                raise
            if same:
                return fd
            os.close(fd)
            if not self.create:
                return None
        return None

    def release(self) -> None:
        """Drop the lock (closing the file releases the flock); nothing when not held."""
        thread_lock, fd = self._thread_lock, self._fd
        if thread_lock is None:
            return
        self._thread_lock, self._fd = None, None
        try:
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
        finally:
            thread_lock.release()
            _THREAD_LOCKS.leave(self._key)

    def __enter__(self) -> FileLock:
        if not self.acquire():
            raise OSError(
                f"cannot lock {self.path}: it is missing or kept being replaced; try again"
            )
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.release()


def is_locked(path: Path) -> bool:
    """True when some holder (another process, or this one through another FileLock) holds the
    lock of an existing `path`; False when it is free or the file does not exist."""
    if not path.exists():
        return False
    probe = FileLock(path, create=False)
    if probe.acquire(blocking=False):
        probe.release()
        return False
    return path.exists()


class FileLocks:
    """Hands out one lock per target path (blocking: hold it in a worker thread)."""

    def __init__(self, lock_dir: Path) -> None:
        self.lock_dir = lock_dir

    @contextlib.contextmanager
    def hold(self, target: Path) -> Iterator[None]:
        """Hold the lock of `target` (in-process, then cross-process) for the block."""
        private_dirs(self.lock_dir)
        name = hashlib.sha1(str(target).encode("utf-8")).hexdigest()[:20] + ".lock"
        with FileLock(self.lock_dir / name):
            yield
