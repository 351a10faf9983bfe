"""Checkpoints of one conversation: the content of every workspace file before the agent's
`write`, `edit` or `bash` changes it, recorded per reply.

`write`/`edit` know their file: its content is kept just before the change. `bash` does not:
the workspace is scanned by (size, mtime_ns) before and after the run, and the before-content
of what changed comes from a baseline — the files' contents as of the last scan, kept in the
object store the first time they are seen (and again only when their stamp changes), so a
later scan costs a `stat` per file. Files over `MAX_KEPT_FILE_BYTES` (or past the baseline's
byte budget) are noted as changed without their earlier content; `/undo` then says it cannot
restore them.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from remecli.notes.atomic_write import atomic_write_bytes
from remecli.tools.checkpoints.scan import MAX_FILES, Scan, compare, scan_workspace
from remecli.tools.checkpoints.store import (
    UNKNOWN,
    CheckpointStore,
    FileChange,
    ReplyRecord,
    file_digest,
    relative_name,
)

log = logging.getLogger(__name__)

MAX_KEPT_FILE_BYTES = 4_000_000
MAX_BASELINE_BYTES = 200_000_000
BASELINE = "baseline.json"
KEEP_DAYS = 14  # a conversation's checkpoints are forgotten this long after its last change


class Checkpoints:
    """Records what each reply changes in the workspace (one object per conversation)."""

    def __init__(
        self,
        workspace: Path,
        root: Path,
        session_id: Callable[[], str | None],
        skip: Sequence[Path] = (),
        max_files: int = MAX_FILES,
    ) -> None:
        self.workspace = Path(os.path.realpath(workspace))
        self.store = CheckpointStore(root)
        self.skip = (root, *skip)
        self.max_files = max_files
        self._session_id = session_id
        self._message = ""
        self._record: ReplyRecord | None = None
        self._baseline: dict[str, tuple[int, int, str | None]] | None = None
        self._lock = threading.Lock()
        self._pruned = False

    # ------------------------------------------------------------------ replies
    def begin_reply(self, message: str) -> None:
        """A new reply starts: its changes (if any) become the next record."""
        with self._lock:
            self._message = " ".join(message.split())[:120]
            self._record = None

    def _current(self) -> ReplyRecord | None:
        if self._record is None:
            session = self._session_id()
            if not session:
                return None
            number = self.store.next_number(session)
            self._record = ReplyRecord(session, number, self._message)
        return self._record

    def tracks(self, path: Path) -> bool:
        """True for a path inside the workspace and outside the skipped folders."""
        real = Path(os.path.realpath(path))
        if real != self.workspace and self.workspace not in real.parents:
            return False
        return not any(
            real == Path(os.path.realpath(s)) or Path(os.path.realpath(s)) in real.parents
            for s in self.skip
        )

    # ------------------------------------------------------------------ write / edit
    @contextmanager
    def changing(self, path: Path, tool: str) -> Iterator[None]:
        """Wrap one change of `path`: its content is kept before, its new hash noted after."""
        if not self.tracks(path):
            yield
            return
        self._prune_once()
        real = Path(os.path.realpath(path))
        name = relative_name(real, self.workspace)
        before = self._keep(real)
        try:
            yield
        finally:
            self._note(name, before, self._keep(real)[0], tool)  # kept too: /diff shows it

    def _keep(self, path: Path) -> tuple[str | None, bool]:
        """(hash, kept) of the file now; its content goes to the store when small enough."""
        try:
            if not path.is_file():
                return None, True
            if path.stat().st_size > MAX_KEPT_FILE_BYTES:
                return file_digest(path), False
            return self.store.put_file(path), True
        except OSError as exc:
            log.warning("checkpoint of %s failed: %s", path, exc)
            return file_digest(path), False

    def _note(
        self, name: str, before: tuple[str | None, bool], after: str | None, tool: str
    ) -> None:
        """Record that `name` went from `before` to `after` in the current reply."""
        with self._lock:
            record = self._current()
            if record is None:
                return
            known = record.changes.get(name)
            if known is None:
                if before[0] == after:
                    return  # nothing changed (a failed write, the same content)
                record.changes[name] = FileChange(name, before[0], after, tool, before[1])
            else:
                known.after = after
                if tool not in known.tool.split(","):
                    known.tool += f",{tool}"
                if known.before == after:
                    del record.changes[name]  # changed back to what it was
            self._save(record)

    def _save(self, record: ReplyRecord) -> None:
        try:
            if record.changes or record.untracked:
                self.store.save(record)
            else:
                self.store.forget(record)
        except OSError as exc:
            log.warning("could not save checkpoint %s: %s", record.number, exc)

    # ------------------------------------------------------------------ bash
    def before_run(self) -> Scan:
        """Scan the workspace before a shell run and keep what changed since the last scan."""
        self._prune_once()
        scan = scan_workspace(self.workspace, self.skip, self.max_files)
        if scan.complete:
            self._refresh_baseline(scan)
        return scan

    def _prune_once(self) -> None:
        """Old checkpoints go, once per conversation, on its first change (in a tool's thread)."""
        if self._pruned:
            return
        self._pruned = True
        if self._baseline is None:
            self._baseline = self._load_baseline()
        in_use = {digest for _, _, digest in self._baseline.values() if digest}
        session = self._session_id()
        try:
            self.store.prune(KEEP_DAYS, {session} if session else set(), in_use)
        except OSError as exc:
            log.warning("could not prune old checkpoints: %s", exc)

    def after_run(self, before: Scan, tool: str = "bash") -> None:
        """Scan again and record every file the run created, changed or deleted."""
        after = scan_workspace(self.workspace, self.skip, self.max_files)
        if not (before.complete and after.complete):
            with self._lock:
                record = self._current()
                if record is not None and not record.untracked:
                    record.untracked = (
                        f"The workspace holds more than {self.max_files:,} files, so changes made "
                        f"by {tool} were not tracked and cannot be undone."
                    )
                    self._save(record)
            return
        found = compare(before, after)
        baseline = self._baseline or {}
        for name in [*found.created, *found.changed, *found.deleted]:
            _, _, old = baseline.get(name, (0, 0, None))
            kept = name not in baseline or old is not None
            if not kept:
                old = UNKNOWN  # it existed, but its earlier content was too large to keep
            real = self.workspace / name
            now, _ = self._keep(real) if name not in found.deleted else (None, True)
            self._note(name, (old, kept), now, tool)
        self._refresh_baseline(after)

    def _refresh_baseline(self, scan: Scan) -> None:
        """Bring the baseline to `scan`: keep the content of every new or changed file."""
        if self._baseline is None:
            self._baseline = self._load_baseline()
        baseline = self._baseline
        budget = MAX_BASELINE_BYTES
        fresh: dict[str, tuple[int, int, str | None]] = {}
        for name, (size, mtime) in scan.files.items():
            known = baseline.get(name)
            if known is not None and known[:2] == (size, mtime):
                fresh[name] = known
                continue
            digest: str | None = None
            if size <= MAX_KEPT_FILE_BYTES and size <= budget:
                try:
                    digest = self.store.put_file(self.workspace / name)
                    budget -= size
                except OSError:
                    digest = None
            fresh[name] = (size, mtime, digest)
        self._baseline = fresh
        try:
            data = json.dumps(fresh, separators=(",", ":")).encode("utf-8")
            atomic_write_bytes(self.store.root / BASELINE, data, new_mode=0o600)
        except OSError as exc:
            log.warning("could not save the checkpoint baseline: %s", exc)

    def _load_baseline(self) -> dict[str, tuple[int, int, str | None]]:
        """The last scan's baseline (a new conversation in the same workspace starts warm)."""
        try:
            data = json.loads((self.store.root / BASELINE).read_text("utf-8"))
            return {
                name: (int(v[0]), int(v[1]), v[2] if v[2] and self.store.has(v[2]) else None)
                for name, v in data.items()
            }
        except (OSError, ValueError, TypeError, IndexError, AttributeError):
            return {}
