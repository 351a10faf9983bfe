"""Bringing an index's parts up to date with the files: notes, transcripts, then embeddings.

Notes (Markdown): per file, mtime+size then sha256; unchanged chunks keep their id and vector.
Transcripts (append-only JSONL): a file row remembers where its last chunk starts; when the file
only grew, just that chunk and the new lines are read again. The last chunk of a transcript
written to in the last `OPEN_CHUNK_SECONDS` is not embedded yet (it grows with every message;
keyword search finds it meanwhile). Embeddings come from the on-disk cache when a text was seen
before.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, BinaryIO

from remecli.config.search import SearchSettings
from remecli.notes.files import glob_regex
from remecli.notes.frontmatter import note_info, read_frontmatter
from remecli.search.chunker import ChunkingStopped, MarkdownChunker
from remecli.search.embedders import Embedder
from remecli.search.embedding_sync import embed_missing
from remecli.search.keyword import KeywordDoc
from remecli.search.parts import IndexParts
from remecli.search.redaction import redacted_chunk
from remecli.search.store import StoredChunk, day_number
from remecli.search.transcripts import SOURCE as TRANSCRIPT
from remecli.search.transcripts import ReadState, chunk_turns, read_turns
from remecli.search.types import Chunk, SyncReport

log = logging.getLogger(__name__)

Progress = Callable[[str, int, int], None]
KEYWORD_BATCH = 5_000
_SPEAKERS_KEPT = 64


@dataclass(slots=True)
class PendingWrites:
    """Keyword-index changes and file rows collected during a sync, applied in batches."""

    remove_paths: list[str] = field(default_factory=list)
    remove_ids: list[int] = field(default_factory=list)
    add: list[KeywordDoc] = field(default_factory=list)
    files: list[tuple[str, str, int, int, str]] = field(default_factory=list)

    def clear(self) -> None:
        """Forget what was applied."""
        self.remove_paths.clear()
        self.remove_ids.clear()
        self.add.clear()
        self.files.clear()


@dataclass(frozen=True, slots=True)
class ChangedFile:
    """A file to read again: its size or mtime differ from its row `known` (hash, mtime_ns,
    size), or it has none yet."""

    rel: str
    path: Path
    stat: os.stat_result
    known: tuple[str, int, int] | None


def changed_file(rel: str, path: Path, known: tuple[str, int, int] | None) -> ChangedFile | None:
    """The file when it may have changed since `known`; None when its mtime and size are the
    same, or when it cannot be read (logged)."""
    try:
        stat = path.stat()
    except OSError as exc:
        log.warning("cannot read %s: %s", path, exc)
        return None
    if known and (known[1], known[2]) == (stat.st_mtime_ns, stat.st_size):
        return None
    return ChangedFile(rel, path, stat, known)


def path_matches(rel: str, patterns: list[str]) -> bool:
    """True when the relative posix path matches one of the globs (as `Path.glob` reads them)."""
    return any(glob_regex(p).match(rel) for p in patterns)


def _hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def chunk_key(chunk: Chunk) -> str:
    """Identity of a chunk's indexed content (text and what the file says about itself)."""
    about = "\x00".join((chunk.date, chunk.name, chunk.description, " ".join(chunk.tags)))
    about += f"\x00{chunk.project}" if chunk.project else ""  # (keys without one unchanged)
    return _hash(f"{chunk.text}\x00{about}")


def keyword_doc(chunk_id: int, chunk: Chunk) -> KeywordDoc:
    """The keyword side's view of a chunk."""
    notes = chunk.source != TRANSCRIPT
    title = "\n".join(p for p in (chunk.name, chunk.description, " ".join(chunk.tags)) if p)
    return KeywordDoc(
        chunk_id=chunk_id,
        path=chunk.path,
        text=chunk.text,
        meta=f"{chunk.path} {chunk.heading_path}" if notes else "",
        title=title,
        source=chunk.source,
        day=day_number(chunk.date),
    )


class Syncer:
    """Syncs files into an `IndexParts` (one sync at a time: the caller holds the write lock)."""

    def __init__(
        self,
        working_dir: Path,
        settings: SearchSettings,
        chunker: MarkdownChunker,
        embedder: Embedder | None,
        index_folder: str,
    ) -> None:
        self.working_dir = working_dir
        self.settings = settings
        self.chunker = chunker
        self.embedder = embedder
        self.stopping = threading.Event()  # set by `MemoryIndex.close`: stop reading/embedding
        chunker.should_stop = self.stopping.is_set  # a huge file stops between its pieces
        self.index_folder = index_folder
        self.last_error = ""
        self.unsettled: set[str] = set()  # in the store, perhaps not in the keyword index yet

    # -- which files -----------------------------------------------------------------------------

    def _glob(self, patterns: list[str]) -> dict[str, Path]:
        found: dict[str, Path] = {}
        for pattern in patterns:
            for path in self.working_dir.glob(pattern):
                rel = path.relative_to(self.working_dir)
                if path.is_file() and rel.parts[0] != self.index_folder:
                    found[rel.as_posix()] = path
        return found

    def note_files(self) -> dict[str, Path]:
        """Markdown files to index (relative posix path → absolute path)."""
        return dict(sorted(self._glob(self.settings.patterns).items()))

    def transcript_files(self) -> dict[str, Path]:
        """Transcripts to index (empty when `search.transcripts` is off)."""
        if not self.settings.transcripts:
            return {}
        return dict(sorted(self._glob(self.settings.transcript_patterns).items()))

    def _existing(self, rels: set[str]) -> tuple[dict[str, Path], dict[str, Path]]:
        """(notes, transcripts) among `rels` that exist and match the patterns."""
        notes: dict[str, Path] = {}
        transcripts: dict[str, Path] = {}
        for rel in sorted(rels):
            path = self.working_dir / rel
            if not rel or rel.split("/", 1)[0] == self.index_folder or not path.is_file():
                continue
            if self.settings.transcripts and self.is_transcript(rel):
                transcripts[rel] = path
            elif self.is_note(rel):
                notes[rel] = path
        return notes, transcripts

    def is_transcript(self, rel: str) -> bool:
        """True for a relative path the transcript patterns select."""
        return path_matches(rel, self.settings.transcript_patterns)

    def is_note(self, rel: str) -> bool:
        """True for a relative path the note patterns select."""
        return path_matches(rel, self.settings.patterns)

    def stale(self, parts: IndexParts, only: set[str]) -> set[str]:
        """The paths of `only` a sync would read or remove: files new or changed (size, mtime)
        since their row, and indexed files gone from disk or from the patterns."""
        notes, transcripts = self._existing(only)
        files = {**notes, **transcripts}
        known = parts.store.files_of(only)
        gone = set(known) - set(files)
        return gone | {r for r, p in files.items() if changed_file(r, p, known.get(r)) is not None}

    # -- one sync ------------------------------------------------------------------------------

    def sync(
        self,
        parts: IndexParts,
        progress: Progress | None = None,
        only: set[str] | None = None,
        embed: bool = True,
    ) -> SyncReport:
        """Sync every file (or only the relative paths in `only`), then embed what is missing."""
        report = SyncReport()
        if only is None:
            notes, transcripts = self.note_files(), self.transcript_files()
        else:  # the watcher names the changed files: no need to list the others
            only = only | self.unsettled
            notes, transcripts = self._existing(only)
        files = {**notes, **transcripts}
        batch = PendingWrites()
        self._forget_unsettled(parts, batch)  # a sync that failed part-way: read them whole
        known = parts.store.files()
        report.files_seen = len(files)
        gone = set(known) - set(files)
        for rel in sorted(gone if only is None else gone & only):
            self.unsettled.add(rel)
            ids = parts.store.remove_file(rel)
            batch.remove_paths.append(rel)
            if parts.vectors is not None:
                parts.vectors.remove(ids)
            report.files_removed += 1
            report.chunks_removed += len(ids)
        todo = [(r, p) for r, p in files.items() if only is None or r in only]
        for done, (rel, path) in enumerate(todo, start=1):
            if self.stopping.is_set():  # closing: the rest is read next time
                break
            changed = changed_file(rel, path, known.get(rel))
            if changed is not None:
                self.unsettled.add(rel)
                index_file = self._sync_transcript if rel in transcripts else self._sync_note
                try:
                    index_file(parts, changed, report, batch)
                except ChunkingStopped:
                    break
            if len(batch.add) >= KEYWORD_BATCH:
                self._flush(parts, batch)
            if progress:
                progress("reading", done, len(todo))
        self._flush(parts, batch)
        if embed:
            self.embed_missing(parts, report, progress)
        return report

    def _flush(self, parts: IndexParts, batch: PendingWrites) -> None:
        """Apply keyword changes, then record the files' rows (so a crash means a re-read)."""
        parts.keyword.replace(batch.remove_paths, batch.add, batch.remove_ids)
        for row in batch.files:
            parts.store.set_file(*row)
        if batch.remove_paths or batch.remove_ids:  # a deleted file or part of one (a cleared
            parts.store.forget_deleted()  # conversation, a resumed one cut back) leaves no copy
        batch.clear()
        self.unsettled.clear()

    def _forget_unsettled(self, parts: IndexParts, batch: PendingWrites) -> None:
        """Files a failed sync (a full disk) may have left in the store but not in the keyword
        index: forget them in both, so this sync reads them again whole."""
        for rel in sorted(self.unsettled):
            ids = parts.store.remove_file(rel)
            batch.remove_paths.append(rel)
            if parts.vectors is not None:
                parts.vectors.remove(ids)

    def _apply(
        self,
        parts: IndexParts,
        rel: str,
        chunks: list[Chunk],
        old: list[StoredChunk],
        report: SyncReport,
        batch: PendingWrites,
    ) -> None:
        """Store `chunks` in place of `old`: same content keeps its id (and vector)."""
        old_by_key: dict[tuple[str, tuple[str, ...]], list[StoredChunk]] = {}
        for stored in old:
            old_by_key.setdefault((stored.text_hash, stored.chunk.headings), []).append(stored)
        moved: list[tuple[int, int, int]] = []
        add: list[tuple[Chunk, str]] = []
        docs: list[KeywordDoc] = []  # analyzed before anything is stored: a stop stays clean
        for number, chunk in enumerate(map(redacted_chunk, chunks)):  # indexed: no secret
            if number % 1024 == 1023 and self.stopping.is_set():
                raise ChunkingStopped  # closing: the file is read again next time
            key = chunk_key(chunk)
            same = old_by_key.get((key, chunk.headings))
            if same:
                kept = same.pop(0)
                if (kept.chunk.start_line, kept.chunk.end_line) != (
                    chunk.start_line,
                    chunk.end_line,
                ):
                    moved.append((kept.id, chunk.start_line, chunk.end_line))
            else:
                add.append((chunk, key))
                docs.append(parts.keyword.analyzed(keyword_doc(0, chunk)))
        remove_ids = [s.id for rest in old_by_key.values() for s in rest]
        new_ids = parts.store.update_chunks(remove_ids, moved, add)
        batch.add += [replace(d, chunk_id=i) for i, d in zip(new_ids, docs, strict=True)]
        batch.remove_ids += remove_ids
        if parts.vectors is not None:
            parts.vectors.remove(remove_ids)
        report.chunks_added += len(add)
        report.chunks_removed += len(remove_ids)

    def _sync_note(
        self, parts: IndexParts, file: ChangedFile, report: SyncReport, batch: PendingWrites
    ) -> None:
        rel, path, stat, known = file.rel, file.path, file.stat, file.known
        try:
            data = path.read_bytes()
        except OSError as exc:
            log.warning("cannot read %s: %s", path, exc)
            return
        content_hash = hashlib.sha256(data).hexdigest()
        if known and known[0] == content_hash:
            parts.store.set_file(rel, content_hash, stat.st_mtime_ns, stat.st_size)
            return
        report.files_changed += 1
        note = read_frontmatter(data.decode("utf-8", errors="replace"))
        if note.problem:
            log.info("%s: %s; indexed as text", rel, note.problem)
        info, body = note_info(note, rel), note.blanked()
        chunks = [
            replace(
                c,
                date=info.date,
                name=info.name,
                description=info.description,
                tags=info.tags,
                project=info.project,
            )
            for c in self.chunker.chunk(rel, body)
        ]
        self._apply(parts, rel, chunks, parts.store.chunks_of(rel), report, batch)
        batch.files.append((rel, content_hash, stat.st_mtime_ns, stat.st_size, ""))

    def _sync_transcript(
        self, parts: IndexParts, file: ChangedFile, report: SyncReport, batch: PendingWrites
    ) -> None:
        rel, path, stat = file.rel, file.path, file.stat
        try:
            resume = json.loads(parts.store.resume_of(rel) or "{}") if file.known else {}
            with open(path, "rb") as handle:
                start, line, data = _read_from(handle, resume, stat.st_size)
        except (OSError, ValueError) as exc:
            log.warning("cannot read %s: %s", path, exc)
            return
        report.files_changed += 1
        complete = data[: data.rfind(b"\n") + 1]  # a last line still being written waits
        offsets, raw_lines = [], []
        position = 0
        for raw in complete.split(b"\n")[:-1]:
            offsets.append(position)
            raw_lines.append(raw.decode("utf-8", errors="replace"))
            position += len(raw) + 1
        state = ReadState(dict(resume.get("speakers", {})) if start else {})
        turns = read_turns(raw_lines, line, state)
        session_id = path.name.removesuffix(".jsonl")
        count, encode, decode = self.chunker.token_functions()
        chunks = chunk_turns(rel, session_id, turns, self.chunker.max_tokens, count, encode, decode)
        old = parts.store.chunks_of(rel, from_line=line) if start else parts.store.chunks_of(rel)
        self._apply(parts, rel, chunks, old, report, batch)
        if chunks:  # read on from the last chunk next time
            tail_line = chunks[-1].start_line
            tail_offset = offsets[tail_line - line]
        else:
            tail_line, tail_offset = line + len(raw_lines), len(complete)
        speakers = list(state.speakers.items())[-_SPEAKERS_KEPT:]
        new_resume: dict[str, object] = {
            "offset": start + tail_offset,
            "line": tail_line,
            "size": start + len(complete),
            "speakers": dict(speakers),
        }
        tail_hash = hashlib.sha256(complete[tail_offset:]).hexdigest()
        new_resume["tail_hash"] = tail_hash
        batch.files.append((rel, tail_hash, stat.st_mtime_ns, stat.st_size, json.dumps(new_resume)))

    # -- embeddings ----------------------------------------------------------------------------

    def embed_missing(
        self, parts: IndexParts, report: SyncReport, progress: Progress | None = None
    ) -> None:
        """Embed chunks without a vector (cache first); transcripts only if enabled."""
        if self.embedder is not None:
            self.last_error = (
                embed_missing(parts, self.embedder, self.settings, report, self.stopping, progress)
                or self.last_error
            )


def _read_from(handle: BinaryIO, resume: dict[str, Any], size: int) -> tuple[int, int, bytes]:
    """(byte offset, line number, bytes from there): the last chunk on if the file only grew."""
    offset = int(resume.get("offset", 0))
    if resume and size >= int(resume.get("size", 0)) and offset > 0:
        handle.seek(offset)
        tail = handle.read(int(resume["size"]) - offset)
        if hashlib.sha256(tail).hexdigest() == resume.get("tail_hash"):
            return offset, int(resume["line"]), tail + handle.read()
    handle.seek(0)
    return 0, 1, handle.read()
