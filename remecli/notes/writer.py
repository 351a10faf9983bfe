"""The one writer of memory files (`MEMORY.md`, `memory/**`, `digest/**`).

Every write is: locked (threads and processes), checked (`expected` content, no dropped lines
unless `allow_shrink`), redacted (`memory.redact_secrets`), versioned (content found on disk that
history does not hold yet is kept first, then the new content), atomic (`atomic_write`), and
private (new files 0600, new folders 0700). Nothing here imports the agent or the UI.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from remecli.config.locations import Locations
from remecli.config.privacy import private_dirs
from remecli.config.settings import MemorySettings
from remecli.notes.atomic_write import (
    appended_since,
    atomic_write_bytes,
    opened_for_replace,
    with_appended,
)
from remecli.notes.locks import FileLock
from remecli.notes.redact import redact_secrets
from remecli.notes.versions import (
    FILE_MODE,
    Version,
    VersionStore,
    make_private_dirs,
    sha256_of,
)

log = logging.getLogger(__name__)

MEMORY_FOLDERS: Final = ("memory", "digest")
MEMORY_MD: Final = "MEMORY.md"


class _Unchecked:
    def __repr__(self) -> str:
        return "UNCHECKED"


UNCHECKED: Final = _Unchecked()


class MemoryWriteError(Exception):
    """A memory write that was not done; the message says what to do instead."""


class NotAMemoryFile(MemoryWriteError):
    """The path is not MEMORY.md, memory/** or digest/** under the working dir."""


class ShrinkRefused(MemoryWriteError):
    """The new content would drop lines the file has (pass allow_shrink=True if meant)."""


class ChangedMeanwhile(MemoryWriteError):
    """The file no longer holds what the caller expected (someone else wrote it)."""


@dataclass
class WriteResult:
    """What one write did."""

    path: Path
    relative: str
    created: bool
    changed: bool
    bytes: int
    version: int | None = None
    redacted: list[str] = field(default_factory=list)


def _decode(data: bytes) -> str:
    return data.decode("utf-8", errors="surrogateescape")


def _encode(text: str) -> bytes:
    try:
        return text.encode("utf-8", errors="surrogateescape")
    except UnicodeEncodeError:  # lone surrogates from JSON
        return text.encode("utf-8", errors="replace")


def dropped_lines(before: str, after: str) -> list[str]:
    """Non-blank lines of `before` missing from `after` (counted, trailing spaces ignored)."""
    if after.startswith(before):  # the common case, an append: nothing to count
        return []
    remaining = Counter(line.rstrip() for line in after.splitlines() if line.strip())
    dropped = []
    for line in before.splitlines():
        key = line.rstrip()
        if not key.strip():
            continue
        if remaining[key] > 0:
            remaining[key] -= 1
        else:
            dropped.append(key)
    return dropped


class MemoryWriter:
    """Writes, removes, lists and restores the memory files of one working dir."""

    def __init__(
        self,
        working_dir: Path | str,
        *,
        history: bool = True,
        keep: int = 50,
        redact: bool = True,
    ) -> None:
        self.root = Path(os.path.realpath(Path(working_dir).expanduser()))
        self.history_enabled = history
        self.redact = redact
        self.store = VersionStore(self.root, keep)
        self.on_written: list[Callable[[str], None]] = []  # called with the relative path
        self._thread_lock = threading.Lock()

    @classmethod
    def from_settings(cls, working_dir: Path | str, memory: MemorySettings) -> MemoryWriter:
        """A writer configured by `memory.history.*` and `memory.redact_secrets`."""
        return cls(
            working_dir,
            history=memory.history.enabled,
            keep=memory.history.keep,
            redact=memory.redact_secrets,
        )

    # ---------------------------------------------------------------- paths
    def relative(self, path: Path | str) -> str | None:
        """`path` relative to the working dir if it is a memory file, else None."""
        candidate = Path(path).expanduser()
        if not candidate.is_absolute():
            candidate = self.root / candidate
        real = Path(os.path.realpath(candidate))
        if not real.is_relative_to(self.root):
            return None
        parts = real.relative_to(self.root).parts
        if parts == (MEMORY_MD,):
            return MEMORY_MD
        if len(parts) >= 2 and parts[0] in MEMORY_FOLDERS and not parts[-1].startswith("."):
            return "/".join(parts)
        return None

    def is_memory_file(self, path: Path | str) -> bool:
        """True for MEMORY.md, memory/** and digest/** under the working dir."""
        return self.relative(path) is not None

    def _require(self, path: Path | str) -> str:
        relative = self.relative(path)
        if relative is None:
            raise NotAMemoryFile(
                f"{path} is not a memory file: only MEMORY.md, memory/** and digest/** under "
                f"{self.root} are written here."
            )
        return relative

    # ---------------------------------------------------------------- write
    def write(
        self,
        path: Path | str,
        content: str | bytes,
        *,
        source: str,
        allow_shrink: bool = False,
        expected: str | bytes | None | _Unchecked = UNCHECKED,
        base: str | bytes | None = None,
    ) -> WriteResult:
        """Replace the memory file `path` with `content` (see the module docstring).

        `source` says what made the change (shown by `remecli memory history`). `expected`,
        when given, is what the caller last saw (None: the file did not exist); a file that
        differs other than by lines appended since raises ChangedMeanwhile. `base` (default:
        `expected`) is the content `content` was computed from: what another writer appended to
        the file since is kept at the end, and so is what it appends while the file is
        replaced. Raises ShrinkRefused, NotAMemoryFile, OSError.
        """
        relative = self._require(path)
        text = _decode(content) if isinstance(content, bytes) else content
        redacted: list[str] = []
        if self.redact:
            redaction = redact_secrets(text)
            text, redacted = redaction.text, redaction.kinds
        data = _encode(text)
        with self._locked(relative), opened_for_replace(self.root / relative) as old:
            target = self.root / relative
            current = old.data
            data = self._with_appends(relative, data, current, expected, base, redacted)
            text = _decode(data)
            if current is not None and not allow_shrink:
                self._check_shrink(relative, current, text, redact_old=bool(redacted))
            if current == data:
                return WriteResult(target, relative, False, False, len(data), None, redacted)
            self._keep_disk_version(relative, current)
            created = current is None
            if created:
                _create_private(target, self.root)
            try:
                atomic_write_bytes(target, data)
            except BaseException:
                if created:
                    with contextlib.suppress(OSError):
                        target.unlink()
                raise
            old.carry_over()
            version = self._record(relative, data, source)
        self._notify(relative)
        return WriteResult(target, relative, created, True, len(data), version, redacted)

    def _with_appends(
        self,
        relative: str,
        data: bytes,
        current: bytes | None,
        expected: str | bytes | None | _Unchecked,
        base: str | bytes | None,
        redacted: list[str],
    ) -> bytes:
        """`data` plus what was appended to the file since `base`/`expected` was read; raises
        ChangedMeanwhile when the file is no longer `expected` plus appended lines."""
        start = base if isinstance(expected, _Unchecked) else expected
        if start is None or current is None:
            if not isinstance(expected, _Unchecked) and current != (
                None if expected is None else _as_bytes(expected)
            ):
                raise _changed(relative)
            return data
        tail = appended_since(_as_bytes(start), current)
        if tail is None:
            if not isinstance(expected, _Unchecked):
                raise _changed(relative)
            return data  # rewritten meanwhile, not appended to: the caller's content wins
        if tail and self.redact:
            redaction = redact_secrets(_decode(tail))
            tail = _encode(redaction.text)
            redacted.extend(redaction.kinds)
        return with_appended(data, tail)

    def remove(self, path: Path | str, *, source: str) -> Version | None:
        """Delete a memory file, keeping its last content as a version (restore brings it back)."""
        relative = self._require(path)
        with self._locked(relative):
            target = self.root / relative
            current = _read_or_none(target)
            if current is None:
                return None
            self._keep_disk_version(relative, current)
            target.unlink()
            version = self.store.record(relative, None, source) if self.history_enabled else None
        self._notify(relative)
        return version

    def history(self, path: Path | str) -> list[Version]:
        """Every kept version of `path`, oldest first."""
        return self.store.versions(self._require(path))

    def restore(self, path: Path | str, version: int, *, source: str = "") -> WriteResult:
        """Bring back `version` of `path` (itself a new version). Raises VersionNotFound."""
        relative = self._require(path)
        data = self.store.content(relative, version)
        return self.write(
            relative, data, source=source or f"restore of version {version}", allow_shrink=True
        )

    # ------------------------------------------------------------- helpers
    @contextlib.contextmanager
    def _locked(self, relative: str) -> Iterator[None]:
        with self._thread_lock:  # and across processes, history or not
            lock = (
                self.store.lock(relative)
                if self.history_enabled
                else _plain_lock(self.root, relative)
            )
            with lock:
                yield

    def _check_shrink(self, relative: str, current: bytes, text: str, redact_old: bool) -> None:
        before = _decode(current)
        if redact_old:  # a secret the old text holds verbatim is a redacted line in the new
            before = redact_secrets(before).text
        dropped = dropped_lines(before, text)
        if dropped:
            first = dropped[0].strip()
            first = first if len(first) <= 80 else first[:77] + "…"
            raise ShrinkRefused(
                f"Refused: this would drop {len(dropped)} existing line(s) of {relative} "
                f"(first: {first!r}). Use `edit` to change part of the file, or read the whole "
                "file and keep every line."
            )

    def _keep_disk_version(self, relative: str, current: bytes | None) -> None:
        """Record what is on disk when history does not hold it yet (first write, hand edit)."""
        if current is None or not self.history_enabled:
            return
        latest = self.store.latest(relative)
        if (
            latest is not None
            and not latest.deleted
            and latest.sha256 == sha256_of(current)
            and self.store.has_snapshot(relative, latest.version)
        ):
            return
        source = "content before the first recorded write" if latest is None else "edit outside"
        if self.redact:  # history must not keep a secret the new version redacts
            redaction = redact_secrets(_decode(current))
            if redaction.kinds:
                current = _encode(redaction.text)
                source += f" (secrets redacted: {', '.join(sorted(set(redaction.kinds)))})"
        self.store.record(relative, current, source, durable=True)  # before it is replaced

    def _record(self, relative: str, data: bytes, source: str) -> int | None:
        # Not fsynced: the file itself is durable; if a crash loses this version, the next write
        # finds the content missing from history and keeps it first ("edit outside").
        if not self.history_enabled:
            return None
        return self.store.record(relative, data, source, durable=False).version

    def _notify(self, relative: str) -> None:
        for callback in list(self.on_written):
            try:
                callback(relative)
            except Exception:  # a derived index must never fail a write
                log.exception("memory write hook failed for %s", relative)


def _as_bytes(content: str | bytes) -> bytes:
    return _encode(content) if isinstance(content, str) else content


def _changed(relative: str) -> ChangedMeanwhile:
    return ChangedMeanwhile(
        f"{relative} changed since it was read: read it again and redo the change on the fresh "
        "content."
    )


def _read_or_none(target: Path) -> bytes | None:
    try:
        return target.read_bytes()
    except FileNotFoundError:
        return None


def _create_private(target: Path, root: Path) -> None:
    """Create an empty 0600 file (parents 0700) so the atomic replace keeps that mode."""
    make_private_dirs(target.parent, root)
    with contextlib.suppress(FileExistsError):
        os.close(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE))


@contextlib.contextmanager
def _plain_lock(root: Path, relative: str) -> Iterator[None]:
    """A cross-process lock on one memory file when no history folder is kept
    (`<working_dir>/index/locks/`, derived state)."""
    import hashlib

    folder = Locations(root).locks_dir
    private_dirs(folder)
    name = hashlib.sha1(relative.encode("utf-8")).hexdigest()
    with FileLock(folder / f"writer-{name}.lock"):
        yield
