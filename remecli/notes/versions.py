"""Versions of memory files: gzip snapshots under `<working_dir>/.history/<relative path>/`.

Each memory file has a folder holding `NNNNNN.gz` (one snapshot per version) and `versions.jsonl`
(one JSON record per version: number, time, size, sha256, what made the change). A deletion is a
record without a snapshot. Folders are 0700 and files 0600: history may hold anything a memory
file ever held. Chosen over a git repository inside the working dir after measuring both
(`benchmarks/history_overhead.py`): a snapshot costs a gzip and two small writes, a git commit
several processes.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import gzip
import hashlib
import json
import logging
import os
import zlib
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from remecli.config.locations import Locations
from remecli.config.privacy import private_dirs
from remecli.notes.atomic_write import atomic_write_bytes
from remecli.notes.locks import FileLock

LOG_NAME = "versions.jsonl"
LOCK_NAME = ".lock"
FILE_MODE = 0o600

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Version:
    """One recorded state of a memory file (`deleted`: the file was removed at this version)."""

    version: int
    time: str
    bytes: int
    sha256: str
    source: str
    deleted: bool = False

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready mapping (the shape `remecli memory history --json` prints)."""
        return asdict(self)


class VersionNotFound(LookupError):
    """No such version of that file."""


class VersionDamaged(VersionNotFound):
    """The version is recorded but its snapshot is missing or corrupt."""


def sha256_of(data: bytes) -> str:
    """Hex digest used to tell whether a file changed since its last version."""
    return hashlib.sha256(data).hexdigest()


def make_private_dirs(folder: Path, root: Path) -> None:
    """Create `folder` and its missing parents (up to and including `root`) with mode 0700."""
    private_dirs(folder, stop=root.parent)


class VersionStore:
    """The history of every memory file of one working dir, `keep` versions per file."""

    def __init__(self, root: Path, keep: int = 50) -> None:
        locations = Locations(root)
        self.root = locations.root
        self.keep = max(1, keep)
        self.folder = locations.history_dir

    def file_folder(self, relative: str) -> Path:
        """Where the versions of `relative` (a path under the working dir) live."""
        return self.folder / relative

    @contextlib.contextmanager
    def lock(self, relative: str) -> Iterator[None]:
        """Hold an exclusive lock on `relative` across threads and processes."""
        folder = self.file_folder(relative)
        make_private_dirs(folder, self.root)
        with FileLock(folder / LOCK_NAME, mode=FILE_MODE):
            yield

    def versions(self, relative: str) -> list[Version]:
        """Every kept version of `relative`, oldest first ([] when it has none).

        A damaged log never blocks history, restore or writing the file: lines that are not a
        version record (a torn write, garbage, bytes that are not UTF-8) are skipped and named
        once in the log."""
        log_file = self.file_folder(relative) / LOG_NAME
        try:
            data = log_file.read_bytes()
        except FileNotFoundError:
            return []
        found = []
        bad = 0
        lines = data.split(b"\n")
        for raw in lines:
            if not raw.strip():
                continue
            version = _parse_record(raw)
            if version is None:
                bad += 1
            else:
                found.append(version)
        torn = bool(lines[-1].strip()) and _parse_record(lines[-1]) is None  # a crash's leftover
        if bad - int(torn) > 0:
            _report_damage(log_file, f"{bad} unreadable line(s) skipped")
        return found

    def latest(self, relative: str) -> Version | None:
        """The newest version of `relative`, None when it has none."""
        versions = self.versions(relative)
        return versions[-1] if versions else None

    def content(self, relative: str, version: int) -> bytes:
        """The bytes `relative` held at `version` (VersionNotFound when absent or deleted,
        VersionDamaged when its snapshot is missing or corrupt)."""
        match = next((v for v in self.versions(relative) if v.version == version), None)
        if match is None or match.deleted:
            kept = ", ".join(str(v.version) for v in self.versions(relative)) or "none"
            raise VersionNotFound(f"{relative} has no version {version} (kept: {kept})")
        snapshot = self.file_folder(relative) / f"{version:06d}.gz"
        try:
            data = gzip.decompress(snapshot.read_bytes())
        except FileNotFoundError:
            problem = "its snapshot is missing"
        except (OSError, EOFError, zlib.error) as exc:
            problem = f"its snapshot is damaged ({exc})"
        else:
            if match.sha256 and sha256_of(data) != match.sha256:
                problem = "its snapshot does not hold what was recorded (checksum differs)"
            else:
                return data
        others = [v.version for v in self.versions(relative) if v.version != version]
        hint = f" Try another version ({', '.join(map(str, others[-5:]))})." if others else ""
        raise VersionDamaged(
            f"Version {version} of {relative} cannot be restored: {problem} ({snapshot}).{hint}"
        )

    def has_snapshot(self, relative: str, version: int) -> bool:
        """True when the snapshot of `version` is on disk and not empty (a crash may lose one)."""
        try:
            return (self.file_folder(relative) / f"{version:06d}.gz").stat().st_size > 0
        except OSError:
            return False

    def record(
        self, relative: str, data: bytes | None, source: str, *, durable: bool = True
    ) -> Version:
        """Store `data` (None: a deletion) as the next version; the caller holds `lock`.

        `durable` fsyncs the snapshot and the log before returning."""
        folder = self.file_folder(relative)
        make_private_dirs(folder, self.root)
        previous = self.versions(relative)
        number = max([v.version for v in previous] + _snapshot_numbers(folder), default=0) + 1
        if data is not None:
            snapshot = folder / f"{number:06d}.gz"
            _write_private(snapshot, gzip.compress(data, compresslevel=6, mtime=0), durable)
        version = Version(
            version=number,
            time=dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
            bytes=0 if data is None else len(data),
            sha256="" if data is None else sha256_of(data),
            source=source,
            deleted=data is None,
        )
        record = json.dumps(version.to_dict(), ensure_ascii=False)
        _append_private(folder / LOG_NAME, record, durable)
        if len(previous) + 1 > self.keep:
            self._prune(relative, [*previous, version])
        return version

    def _prune(self, relative: str, versions: list[Version]) -> None:
        """Drop the oldest versions beyond `keep` (snapshots first, then the log)."""
        folder = self.file_folder(relative)
        dropped, kept = versions[: -self.keep], versions[-self.keep :]
        payload = "".join(json.dumps(v.to_dict(), ensure_ascii=False) + "\n" for v in kept)
        atomic_write_bytes(folder / LOG_NAME, payload.encode("utf-8"))
        for old in dropped:
            with contextlib.suppress(FileNotFoundError):
                (folder / f"{old.version:06d}.gz").unlink()


_FIELDS = {"version": int, "time": str, "bytes": int, "sha256": str, "source": str}
_reported: set[str] = set()


def _parse_record(raw: bytes) -> Version | None:
    """One line of versions.jsonl as a Version, None when it is not one."""
    try:
        record = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    if not isinstance(record, dict) or any(
        not isinstance(record.get(name), kind) or isinstance(record.get(name), bool)
        for name, kind in _FIELDS.items()
    ):
        return None
    try:
        return Version(**record)
    except TypeError:
        return None


def _report_damage(log_file: Path, what: str) -> None:
    if str(log_file) not in _reported:
        _reported.add(str(log_file))
        logger.warning("history log %s is damaged: %s; the rest is used", log_file, what)


def _snapshot_numbers(folder: Path) -> list[int]:
    """Version numbers that have a snapshot file (a damaged log may have lost their records)."""
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    return [int(name[:-3]) for name in names if name.endswith(".gz") and name[:-3].isdigit()]


def _write_private(path: Path, data: bytes, durable: bool) -> None:
    """Write a new 0600 file (temp name, fsync when `durable`, rename)."""
    tmp = path.with_name(f".{path.name}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
    try:
        os.write(fd, data)
        if durable:
            os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)


def _append_private(path: Path, line: str, durable: bool) -> None:
    """Append one whole record (a single write) to a 0600 log (fsync when `durable`)."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, FILE_MODE)
    try:
        size = os.fstat(fd).st_size
        torn = size > 0 and os.pread(fd, 1, size - 1) != b"\n"  # a crash cut the last record
        os.write(fd, (("\n" if torn else "") + line + "\n").encode("utf-8"))
        if durable:
            os.fsync(fd)
    finally:
        os.close(fd)
