"""Which conversations are open in a live process: one lock file per open conversation.

A running remecli holds an exclusive `flock` on `sessions/locks/<id>.lock` for the conversation
it owns. Another process on the same working dir can then tell a live conversation from one
whose process died (the kernel drops the lock of a dead process), so it never recovers, resumes
or summarizes a conversation that is still going on elsewhere.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path

from remecli.config.locations import Locations


class SessionInUse(LookupError):
    """The conversation is open in another live process."""


def is_live(locations: Locations, session_id: str) -> bool:
    """True when some process (this one included, through another holder) holds the lock."""
    path = locations.session_lock(session_id)
    try:
        fd = os.open(path, os.O_RDWR)
    except FileNotFoundError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # closing drops a lock we may just have taken
    return False


class SessionLock:
    """Holds the lock of one conversation at a time (switching releases the previous one)."""

    def __init__(self, locations: Locations) -> None:
        self.locations = locations
        self.session_id: str | None = None
        self._fd: int | None = None

    def hold(self, session_id: str) -> None:
        """Lock `session_id` for this process; raises `SessionInUse` if another holds it."""
        if session_id == self.session_id:
            return
        path = self.locations.session_lock(session_id)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = self._locked_fd(path)
        if fd is None:
            raise SessionInUse(
                f"Conversation {session_id} is open in another remecli on this working dir; "
                "close it there, or resume another conversation (remecli sessions lists them)."
            )
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self.release()
        self._fd, self.session_id = fd, session_id

    @staticmethod
    def _locked_fd(path: Path) -> int | None:
        """An fd holding the lock on the file now at `path` (None: another process holds it).
        A holder that releases unlinks the file; a lock won on the unlinked inode is retried."""
        for _ in range(10):
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                return None
            try:
                same = os.fstat(fd).st_ino == os.stat(path).st_ino
            except FileNotFoundError:
                same = False
            if same:
                return fd
            os.close(fd)
        return None

    def release(self) -> None:
        """Drop the lock (and its file) of the conversation held, if any."""
        if self._fd is None:
            return
        if self.session_id is not None:
            with contextlib.suppress(OSError):
                self.locations.session_lock(self.session_id).unlink()
        with contextlib.suppress(OSError):
            os.close(self._fd)
        self._fd, self.session_id = None, None
