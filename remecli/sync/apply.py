"""Bringing a merge into the working dir, file by file, under the memory writer's locks.

git never checks out into the working dir: the merge is a commit first (`merge-tree`,
`commit-tree`), then each file it changes is written here — memory files through the memory
writer (locked, versioned: `remecli memory history` shows "sync from <machine>", and restore
undoes it), the others under the ops file lock, atomically — and only then does HEAD move. A
note edited here since it was committed gets the edit merged into what comes in; another file
changed here raises `Moved` (the sync commits it and merges again); a kill leaves whole files
and an old HEAD, so the next sync commits what was written and the merge comes out the same.
"""

from __future__ import annotations

import contextlib
import os
import queue
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from remecli.config.locations import Locations
from remecli.config.privacy import private_dirs
from remecli.notes.atomic_write import atomic_write_bytes
from remecli.notes.locks import FileLocks
from remecli.notes.writer import ChangedMeanwhile, MemoryWriter
from remecli.sync.git import EMPTY_TREE, Git
from remecli.sync.textmerge import merge_note

ZERO = "0" * 40
WORKERS = 8  # files written at once (each memory write waits ~50 ms for late appends)


class Moved(Exception):
    """A file changed here while the merge was being written; commit it and merge again."""


def changes(git: Git, old: str | None, new: str) -> list[tuple[str, str, str]]:
    """(path, old blob, new blob) of every file that differs from `old` to `new` (ZERO: none)."""
    raw = git.run("diff-tree", "-r", "-z", "--no-renames", old or EMPTY_TREE, new).stdout
    fields = raw.decode("utf-8", "surrogateescape").split("\0")
    found = []
    for header, path in zip(fields[0::2], fields[1::2], strict=False):
        if header.startswith(":"):
            _modes, _mode, before, after, _status = header[1:].split(" ")
            found.append((path, before, after))
    return found


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def _create(target: Path, data: bytes) -> None:
    """A new file `target` holding `data`, never replacing one made meanwhile (Moved)."""
    private_dirs(target.parent)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(tmp, 0o600)
        os.link(tmp, target)
    except FileExistsError:
        raise Moved(str(target)) from None
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)


def _put(target: Path, before: bytes | None, after: bytes | None) -> None:
    """Replace `before` with `after` at `target` (None: absent); Moved when it is not `before`."""
    current = _read(target)
    if current == after:
        return
    if current != before:
        raise Moved(str(target))
    if after is None:
        target.unlink()
    elif current is None:
        _create(target, after)
    elif after.startswith(current) and target.suffix == ".jsonl":  # a live appender keeps on
        with open(target, "ab") as out:
            out.write(after[len(current) :])
    else:
        atomic_write_bytes(target, after)


def _twin(writer: MemoryWriter) -> MemoryWriter:
    """A writer like `writer` for one worker thread: a writer writes one file at a time, and
    each write waits ~50 ms for late appends to the replaced file (`carry_over`), so ten files
    written in turn took half a second of sleep. Each file's lock is process-wide (`FileLock`),
    and the twin calls the same `on_written` hooks (the index and links follow its writes)."""
    twin = MemoryWriter(
        writer.root, history=writer.history_enabled, keep=writer.store.keep, redact=writer.redact
    )
    twin.on_written = writer.on_written
    return twin


def _write_merged(
    writer: MemoryWriter,
    path: str,
    before: bytes,
    after: bytes,
    source: str,
    labels: tuple[str, str],
) -> None:
    """Write the merge's `after` over `before`; a note edited here meanwhile (not only appended
    to) gets the edit merged into `after` in place. Raising Moved instead left the other files
    of the merge written and HEAD behind: the next sync committed them as this machine's
    changes, and a further change of those lines on the other machine became a conflict."""
    expected: bytes = before
    content: bytes = after
    for _attempt in range(3):
        try:
            writer.write(path, content, source=source, allow_shrink=True, expected=expected)
            return
        except ChangedMeanwhile:
            current = _read(writer.root / path)
            text = [_text(data) for data in (before, current, after)]
            if current is None or None in text:
                break
            merged = merge_note(path, text[0], text[1] or "", text[2] or "", labels)
            expected, content = current, merged.text.encode("utf-8")
    raise Moved(path)


def _text(data: bytes | None) -> str | None:
    try:
        return None if data is None else data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _write_one(
    writer: MemoryWriter,
    locks: FileLocks,
    root: Path,
    path: str,
    before: bytes | None,
    after: bytes | None,
    source: str,
    labels: tuple[str, str],
) -> None:
    """The file `path` of the merge written here (raises Moved when it changed meanwhile)."""
    target = root / path
    if before is not None and after is not None and writer.is_memory_file(target):
        _write_merged(writer, path, before, after, source, labels)
    elif before is not None and after is None and writer.is_memory_file(target):
        if _read(target) not in (before, None):
            raise Moved(path)
        writer.remove(target, source=source)
    else:
        with locks.hold(target):
            _put(target, before, after)


def apply_commit(
    git: Git,
    writer: MemoryWriter,
    old: str | None,
    new: str,
    source: str,
    skip: set[str],
    other: str = "other",
) -> list[str]:
    """Write the files commit `new` changes from `old` into the working dir (not the ones in
    `skip`; several at once), then move HEAD to `new`; the paths written (raises Moved,
    GitError)."""
    found = [change for change in changes(git, old, new) if change[0] not in skip]
    blobs = git.blobs([oid for _p, *pair in found for oid in pair if oid != ZERO])
    locks = FileLocks(Locations(git.work_tree).locks_dir)
    twins = queue.SimpleQueue[MemoryWriter]()

    def write(change: tuple[str, str, str]) -> None:
        path, before_oid, after_oid = change
        before = blobs.get(before_oid) if before_oid != ZERO else None
        after = blobs.get(after_oid) if after_oid != ZERO else None
        try:
            twin = twins.get_nowait()
        except queue.Empty:
            twin = _twin(writer)
        try:
            _write_one(
                twin, locks, git.work_tree, path, before, after, source, (git.machine, other)
            )
        finally:
            twins.put(twin)

    with ThreadPoolExecutor(max_workers=min(WORKERS, max(1, len(found)))) as pool:
        outcomes = [pool.submit(write, change) for change in found]
        for outcome in outcomes:  # every write finished or failed before HEAD may move
            if (error := outcome.exception()) is not None:
                for pending in outcomes:
                    pending.cancel()
                raise error
    written = [path for path, _before, _after in found]
    git.run("update-ref", "HEAD", new, *([old] if old else []))
    if written:
        listed = "\0".join(written).encode("utf-8", "surrogateescape")
        git.run("add", "-A", "--pathspec-from-file=-", "--pathspec-file-nul", input=listed)
    return written
