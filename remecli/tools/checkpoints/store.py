"""Where checkpoints live on disk: a content-addressed object store and one manifest per reply.

Layout under the working dir (outside the user's git history, never in the workspace's git):

    checkpoints/objects/ab/abcdef…            file contents, named by their SHA-256 (shared by
                                              every session, so an unchanged file is kept once)
    checkpoints/<session>/<NNNN>/manifest.json  what reply NNNN of the session changed

A manifest lists, per workspace-relative path, the content hash before the reply's first change
and after its last one (`None`: the file did not exist), so a reply can be shown as a diff and
undone, and an undo can tell that a file changed again since. A file holding a secret (a `.env`,
a key) is never copied here (`HoldsSecret`): it is noted as changed without its content.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import threading
import time
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from remecli.config.privacy import private_dirs
from remecli.notes.atomic_write import atomic_write_bytes
from remecli.notes.redact import holds_secret, redact_text

MANIFEST = "manifest.json"
OBJECTS = "objects"
UNKNOWN = "unknown"  # a `before` hash for a file that existed but was too large to keep


@dataclass
class FileChange:
    """One file a reply changed: its content hash before and after (None: absent)."""

    path: str  # relative to the workspace, with "/"
    before: str | None
    after: str | None
    tool: str
    before_kept: bool = True  # False: the earlier content was too large to keep


@dataclass
class ReplyRecord:
    """The file changes of one reply of one conversation."""

    session_id: str
    number: int
    message: str
    started: str = field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))
    changes: dict[str, FileChange] = field(default_factory=dict)
    undone: bool = False
    untracked: str = ""  # why some changes could not be tracked (a bash run over a huge tree)

    def to_json(self) -> str:
        data = asdict(self)
        data["message"] = redact_text(self.message)  # the typed message: no secret kept
        data["changes"] = [asdict(change) for change in self.changes.values()]
        return json.dumps(data, ensure_ascii=False, indent=1)

    @classmethod
    def from_json(cls, text: str) -> ReplyRecord:
        data = json.loads(text)
        changes = {c["path"]: FileChange(**c) for c in data.pop("changes", [])}
        return cls(**data, changes=changes)


def content_hash(data: bytes) -> str:
    """The name of `data` in the object store."""
    return hashlib.sha256(data).hexdigest()


class CheckpointStore:
    """Objects and manifests under `root` (`<working_dir>/checkpoints`)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    # ------------------------------------------------------------------ objects
    def _object_path(self, digest: str) -> Path:
        return self.root / OBJECTS / digest[:2] / digest

    def has(self, digest: str) -> bool:
        return self._object_path(digest).is_file()

    def put_bytes(self, data: bytes) -> str:
        """Keep `data`; returns its hash (stored once however often it is put). `HoldsSecret`
        when it holds a secret: no copy of it is kept."""
        digest = content_hash(data)
        if not self.has(digest):
            if b"\0" not in data[:8192] and holds_secret(data):
                raise HoldsSecret("it holds a secret (API key, token or password); not copied")
            _write_object(self._object_path(digest), data)
        return digest

    def put_file(self, path: Path) -> str:
        """Keep the content of the file at `path` (read once); returns its hash."""
        return self.put_bytes(path.read_bytes())

    def get(self, digest: str) -> bytes:
        """The content named `digest` (FileNotFoundError when it was never kept)."""
        return self._object_path(digest).read_bytes()

    # ------------------------------------------------------------------ manifests
    def _reply_dir(self, session_id: str, number: int) -> Path:
        return self.root / _safe(session_id) / f"{number:04d}"

    def next_number(self, session_id: str) -> int:
        """The number the next recorded reply of `session_id` gets (1 for the first)."""
        numbers = [r.number for r in self.replies(session_id)]
        return max(numbers, default=0) + 1

    def save(self, record: ReplyRecord) -> None:
        folder = self._reply_dir(record.session_id, record.number)
        atomic_write_bytes(folder / MANIFEST, record.to_json().encode("utf-8"), new_mode=0o600)

    def forget(self, record: ReplyRecord) -> None:
        """Drop a reply's manifest (it ended up changing nothing)."""
        folder = self._reply_dir(record.session_id, record.number)
        with contextlib.suppress(OSError):
            (folder / MANIFEST).unlink()
            folder.rmdir()

    def replies(self, session_id: str) -> list[ReplyRecord]:
        """Every recorded reply of `session_id`, oldest first (unreadable manifests skipped)."""
        folder = self.root / _safe(session_id)
        records: list[ReplyRecord] = []
        if not folder.is_dir():
            return records
        for child in sorted(folder.iterdir()):
            try:
                records.append(ReplyRecord.from_json((child / MANIFEST).read_text("utf-8")))
            except (OSError, ValueError, TypeError, KeyError):
                continue
        return sorted(records, key=lambda r: r.number)

    def prune(self, keep_days: float, keep: set[str], baseline: set[str]) -> int:
        """Forget conversations with no recorded change for `keep_days` (except those in
        `keep`), then objects no manifest or `baseline` names and not written in the last day.
        Returns how many objects were deleted."""
        now = time.time()
        referenced = set(baseline)
        kept = {_safe(session) for session in keep}
        for folder in self.root.iterdir() if self.root.is_dir() else []:
            if folder.name == OBJECTS or not folder.is_dir():
                continue
            manifests = list(folder.glob(f"*/{MANIFEST}"))
            newest = max((m.stat().st_mtime for m in manifests), default=0.0)
            if folder.name not in kept and now - newest > keep_days * 86400:
                shutil.rmtree(folder, ignore_errors=True)
                continue
            for manifest in manifests:
                with contextlib.suppress(OSError, ValueError, TypeError, KeyError):
                    record = ReplyRecord.from_json(manifest.read_text("utf-8"))
                    for change in record.changes.values():
                        referenced.update(d for d in (change.before, change.after) if d)
        deleted = 0
        for path in (self.root / OBJECTS).glob("*/*"):
            with contextlib.suppress(OSError):
                if path.name not in referenced and now - path.stat().st_mtime > 86400:
                    path.unlink()
                    deleted += 1
        return deleted

    def remove_all(self) -> None:
        """Delete every checkpoint (tests, a user's clean-up)."""
        shutil.rmtree(self.root, ignore_errors=True)


class HoldsSecret(OSError):
    """A file's content was not kept because it holds a secret."""


def _write_object(path: Path, data: bytes) -> None:
    """Write an object whole (temp name, rename) without fsync: the first scan of a workspace
    keeps thousands of them, and a crash at worst loses a checkpoint, never tears one."""
    private_dirs(path.parent)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _safe(session_id: str) -> str:
    """A session id as one folder name."""
    cleaned = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in session_id)
    return cleaned.strip(".") or "session"


def file_digest(path: Path) -> str | None:
    """The content hash of the file at `path`, or None when there is no regular file."""
    try:
        if not path.is_file():
            return None
        digest = hashlib.sha256()  # read by pieces: a file of gigabytes never sits in memory
        with path.open("rb") as handle:
            while piece := handle.read(1 << 20):
                digest.update(piece)
        return digest.hexdigest()
    except OSError:
        return None


def relative_name(path: Path, workspace: Path) -> str:
    """`path` relative to `workspace`, with "/" (the manifests' key)."""
    return Path(os.path.relpath(path, workspace)).as_posix()
