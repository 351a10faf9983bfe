"""Which conversations are open in a live process: one lock file per open conversation.

A running remecli holds the lock (`notes.locks.FileLock`) of `sessions/locks/<id>.lock` for the
conversation it owns. Another process on the same working dir can then tell a live conversation
from one whose process died (the kernel drops the lock of a dead process), so it never recovers,
resumes or summarizes a conversation that is still going on elsewhere.
"""

from __future__ import annotations

import contextlib
import logging
import os

from remecli.config.disk_full import disk_full_text, is_disk_full
from remecli.config.locations import Locations
from remecli.config.privacy import private_dirs
from remecli.notes.locks import FileLock, is_locked

log = logging.getLogger(__name__)


class SessionInUse(LookupError):
    """The conversation is open in another live process."""


def is_live(locations: Locations, session_id: str) -> bool:
    """True when some process (this one included, through another holder) holds the lock."""
    return is_locked(locations.session_lock(session_id))


class SessionLock:
    """Holds the lock of one conversation at a time (switching releases the previous one)."""

    def __init__(self, locations: Locations) -> None:
        self.locations = locations
        self.session_id: str | None = None
        self._lock: FileLock | None = None

    def hold(self, session_id: str) -> None:
        """Lock `session_id` for this process; raises `SessionInUse` if another holds it."""
        if session_id == self.session_id:
            return
        path = self.locations.session_lock(session_id)
        lock = FileLock(path)
        try:
            private_dirs(path.parent)
            acquired = lock.acquire(blocking=False)
        except OSError as exc:  # a full disk: the conversation goes on, unmarked
            if not is_disk_full(exc):
                raise
            log.warning("%s: conversation %s is not marked live", disk_full_text(path), session_id)
            self.release()
            self.session_id = session_id
            return
        if not acquired:
            raise SessionInUse(
                f"Conversation {session_id} is open in another remecli on this working dir; "
                "close it there, or resume another conversation (remecli sessions lists them)."
            )
        if lock.fd is not None:  # the pid, for people looking at the folder
            with contextlib.suppress(OSError):  # a full disk: the lock holds all the same
                os.ftruncate(lock.fd, 0)
                os.write(lock.fd, f"{os.getpid()}\n".encode())
        self.release()
        self._lock, self.session_id = lock, session_id

    def release(self) -> None:
        """Drop the lock (and its file) of the conversation held, if any."""
        if self._lock is None:
            return
        if self.session_id is not None:
            with contextlib.suppress(OSError):
                self.locations.session_lock(self.session_id).unlink()
        self._lock.release()
        self._lock, self.session_id = None, None
