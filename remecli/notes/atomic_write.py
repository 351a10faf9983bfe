"""Atomic file replacement: the one implementation every writer of user files goes through.

A crash (even kill -9) at any moment leaves either the old file or the new one, never a
half-written file: the data goes to a temp file in the same folder, is fsynced, then renamed
over the target with `os.replace`.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from remecli.config.privacy import private_dirs

TEMP_SUFFIX = ".tmp"
PRIVATE_FILE_MODE = 0o600  # conversations, states, records: readable by the user only


def atomic_write_bytes(path: Path | str, data: bytes, *, new_mode: int | None = None) -> None:
    """Replace `path` with `data` atomically.

    A symlink is followed (its target is replaced, the link stays); an existing file keeps its
    permission bits, a new one gets `new_mode` (default: the usual umask-based mode). Missing
    parents are created: 0700 for a private file (`new_mode` without group/other bits), else
    with the usual umask-based mode (a file the user's tools write in their workspace).
    """
    target = Path(os.path.realpath(path))
    if new_mode is not None and not new_mode & 0o077:
        private_dirs(target.parent)
    else:
        target.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        mode = new_mode if new_mode is not None else 0o666 & ~_current_umask()
    fd, tmp_name = tempfile.mkstemp(
        prefix=f".{target.name}.", suffix=TEMP_SUFFIX, dir=target.parent
    )
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp_name, mode)
        os.replace(tmp_name, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp_name)
        raise
    _fsync_dir(target.parent)


def atomic_write_text(
    path: Path | str, text: str, *, encoding: str = "utf-8", new_mode: int | None = None
) -> None:
    """Replace `path` with `text` atomically (newlines written as given)."""
    atomic_write_bytes(path, text.encode(encoding), new_mode=new_mode)


def remove_stale_temp_files(folder: Path, older_than_s: float = 3600.0) -> int:
    """Delete temp files a killed writer left behind (`.<name>.<random>.tmp`); returns the count."""
    if not folder.is_dir():
        return 0
    cutoff = time.time() - older_than_s
    removed = 0
    for tmp in folder.rglob(f".*{TEMP_SUFFIX}"):
        with contextlib.suppress(OSError):
            if tmp.is_file() and tmp.stat().st_mtime < cutoff:
                tmp.unlink()
                removed += 1
    return removed


def _current_umask() -> int:
    """The process umask, read without changing it (setting it, even for a moment, would let
    files other threads create meanwhile be world-writable)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    return _UMASK_AT_IMPORT


def _read_umask_once() -> int:
    mask = os.umask(0o022)  # at import, before any writer thread exists
    os.umask(mask)
    return mask


_UMASK_AT_IMPORT = _read_umask_once()


def _fsync_dir(folder: Path) -> None:
    """Make the rename durable (POSIX); a no-op where folders cannot be opened."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


# ------------------------------------------------------- replacing a file others append to
CARRY_QUIET_S = 0.05  # the old file must stay unchanged this long before it is let go


def appended_since(base: bytes, current: bytes) -> bytes | None:
    """What was appended to `base` to give `current` (b"" when equal); None when `current`
    is not `base` plus more (it was rewritten, not appended to)."""
    if not current.startswith(base):
        return None
    return current[len(base) :]


def with_appended(data: bytes, tail: bytes) -> bytes:
    """`data` followed by `tail`, on a line of its own when `data` does not end one."""
    if not tail:
        return data
    if data and not data.endswith(b"\n"):
        data += b"\n"
    return data + tail


class OpenedFile:
    """A file read through a handle kept open until it has been replaced.

    `data` is its content (None: it did not exist). After the replace, `carry_over` appends to
    the new file whatever reached the old one after it was read: a writer that opened it before
    the replace (`echo >>`, an editor, a logger) may write to it just after.
    """

    def __init__(self, path: Path, handle: BinaryIO | None, max_bytes: int | None) -> None:
        self.path = path
        self.handle = handle
        self.size = 0 if handle is None else os.fstat(handle.fileno()).st_size
        self.data: bytes | None = None
        if handle is not None:  # over `max_bytes`: max_bytes + 1 bytes are read, no more
            self.data = handle.read() if max_bytes is None else handle.read(max_bytes + 1)

    def unchanged_so_far(self) -> bool:
        """True while `path` is still the file read and holds at least what was read (appends
        are fine: `carry_over` keeps them); False once it was replaced or shortened."""
        if self.handle is None or self.data is None:
            return not self.path.exists()
        try:
            now = os.stat(self.path)
        except OSError:
            return False
        opened = os.fstat(self.handle.fileno())
        same = (now.st_dev, now.st_ino) == (opened.st_dev, opened.st_ino)
        return same and now.st_size >= len(self.data)

    def carry_over(self, quiet_s: float = CARRY_QUIET_S) -> int:
        """Append to the file now at `path` what the old file gained since it was read, watching
        the old file until it has been quiet for `quiet_s`; returns the bytes carried."""
        if self.handle is None or self.data is None:
            return 0
        position = len(self.data)
        carried = 0
        out: BinaryIO | None = None
        quiet_since = time.monotonic()
        try:
            while time.monotonic() - quiet_since < quiet_s:
                self.handle.seek(position)
                extra = self.handle.read(1 << 20)
                if not extra:
                    time.sleep(0.003)
                    continue
                if out is None:
                    out = open(self.path, "ab")  # noqa: SIM115 (closed below)
                out.write(extra)
                out.flush()
                position += len(extra)
                carried += len(extra)
                quiet_since = time.monotonic()
        finally:
            if out is not None:
                out.close()
        return carried


@contextlib.contextmanager
def opened_for_replace(path: Path | str, max_bytes: int | None = None) -> Iterator[OpenedFile]:
    """Read `path` (a symlink followed) through a handle kept open for `OpenedFile.carry_over`
    (at most `max_bytes` + 1 bytes when given)."""
    target = Path(os.path.realpath(path))
    try:
        handle: BinaryIO | None = target.open("rb")
    except FileNotFoundError:
        handle = None
    try:
        yield OpenedFile(target, handle, max_bytes)
    finally:
        if handle is not None:
            handle.close()
