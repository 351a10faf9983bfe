"""The embedding step of a sync: vectors for the chunks that have none (cache first).

Three steps, so the slow one holds no lock: read what is pending (`embedding_work`), embed it
(`compute`), store the vectors of the chunks still pending (`store_vectors`). Batch by batch, so a closing index (`stopping` set) stops after the current batch; chunks left
without a vector stay searchable by keyword and are embedded at the next sync. A live
transcript's growing last chunk waits until it is finished.
"""

from __future__ import annotations

import datetime as dt
import logging
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from remecli.config.search import SearchSettings
from remecli.search.cache import cache_key
from remecli.search.embedders import Embedder, EmbeddingError
from remecli.search.parts import IndexParts
from remecli.search.store import StoredChunk
from remecli.search.transcripts import SOURCE as TRANSCRIPT
from remecli.search.types import Chunk, SyncReport
from remecli.search.vectors import VectorIndex

log = logging.getLogger(__name__)

Progress = Callable[[str, int, int], None]
OPEN_CHUNK_SECONDS = 600  # a transcript quiet this long has a finished last chunk
_SPEAKER = re.compile(r"^([^\s:][^:\n]{0,39}): ", re.MULTILINE)  # "name: " opening a turn


def transcript_header(chunk: Chunk, parts: str = "day+speakers") -> str:
    """A transcript chunk's context line: its day in words and/or who speaks in it
    ("Monday 8 May 2023 · Caroline, Melanie"; `parts` "day", "speakers" or both); "" when
    it has none of them."""
    speakers = dict.fromkeys(m.group(1) for m in _SPEAKER.finditer(chunk.text))
    day = ""
    if chunk.date and "day" in parts:
        when = dt.date.fromisoformat(chunk.date)
        day = f"{when:%A} {when.day} {when:%B %Y}"
    names = ", ".join(speakers) if "speakers" in parts else ""
    return " · ".join(part for part in (day, names) if part)


def embedding_text(chunk: Chunk, header: str = "none") -> str:
    """What is embedded: the note's name/description, the heading path when the heading is not
    in the chunk, then the chunk; with a `header` other than "none", a transcript chunk starts
    with its day and/or speakers (`transcript_header`)."""
    text = chunk.text
    if (
        header != "none"
        and chunk.source == TRANSCRIPT
        and (line := transcript_header(chunk, header))
    ):
        text = f"{line}\n{text}"
    if chunk.headings and not text.lstrip().startswith("#"):
        text = f"{chunk.heading_path}\n{text}"
    about = ": ".join(part for part in (chunk.name, chunk.description) if part)
    return f"{about}\n{text}" if about else text


def without_open_chunks(parts: IndexParts, pending: list[StoredChunk]) -> list[StoredChunk]:
    """`pending` minus the growing last chunk of live transcripts (embedded once it is
    finished: a later chunk follows it, or the file has been quiet for a while)."""
    last = parts.store.last_chunk_starts(TRANSCRIPT)
    now_ns = time.time_ns()
    return [s for s in pending if not _is_open(s, last, now_ns)]


def embeddable(
    parts: IndexParts, settings: SearchSettings, pending: list[StoredChunk]
) -> list[StoredChunk]:
    """The chunks of `pending` (without a vector) an embedding pass embeds now: not transcripts
    when `embed_transcripts` is off, not the growing last chunk of a live transcript."""
    if not settings.embed_transcripts:
        return [s for s in pending if s.chunk.source != TRANSCRIPT]
    if any(s.chunk.source == TRANSCRIPT for s in pending):
        return without_open_chunks(parts, pending)
    return pending


@dataclass(slots=True)
class EmbeddingWork:
    """One embedding pass: the texts of the chunks without a vector, what the cache already
    holds, and the vectors computed (text → vector), stored once computed."""

    texts: list[str]
    keys: list[bytes]
    missing: list[int]  # indexes into texts/keys that the cache does not hold
    ready: dict[str, np.ndarray] = field(default_factory=dict)  # text → vector
    fresh: list[tuple[bytes, np.ndarray]] = field(default_factory=list)  # for the cache


def embedding_work(
    parts: IndexParts, embedder: Embedder, settings: SearchSettings
) -> EmbeddingWork | None:
    """What an embedding pass has to do now (None: nothing); quick (reads the store and the
    cache), so the caller may hold the index's write lock."""
    pending = embeddable(parts, settings, parts.store.without_vectors())
    if not pending:
        return None
    texts = [embedding_text(s.chunk, settings.transcript_header) for s in pending]
    dims = settings.embedding.dimensions or embedder.dimensions
    keys = [cache_key(embedder.model_id, dims, t) for t in texts]
    cached = parts.cache.get_many(keys)
    work = EmbeddingWork(texts, keys, [k for k, key in enumerate(keys) if key not in cached])
    work.ready = {t: cached[key] for t, key in zip(texts, keys, strict=True) if key in cached}
    return work


def compute(
    work: EmbeddingWork,
    embedder: Embedder,
    settings: SearchSettings,
    report: SyncReport,
    stopping: threading.Event,
    progress: Progress | None = None,
) -> str | None:
    """Embed what the cache did not hold, batch by batch (the slow step: it touches no part of
    the index, so syncs and searches go on meanwhile); returns the embedding error, if one
    stopped it."""
    size = max(settings.embedding.batch_size, 1)
    try:
        for first in range(0, len(work.missing), size):
            if stopping.is_set():  # closing: the rest is embedded next time
                break
            part = work.missing[first : first + size]
            matrix = embedder.embed_documents([work.texts[k] for k in part])
            for k, row in zip(part, matrix, strict=True):
                work.ready[work.texts[k]] = row
                work.fresh.append((work.keys[k], row))
            report.chunks_embedded += len(part)
            if progress:
                progress("embedding", first + len(part), len(work.missing))
    except EmbeddingError as exc:
        report.embedding_error = str(exc)
        log.warning("embedding failed, keyword search still works: %s", exc)
        return str(exc)
    return None


def store_vectors(parts: IndexParts, settings: SearchSettings, work: EmbeddingWork) -> int:
    """Give the chunks without a vector now (a sync may have removed or replaced some since
    `work` was read) the vectors `work` holds for their text; returns how many. Quick: the
    caller holds the write lock."""
    parts.cache.put_many(work.fresh)
    work.fresh = []
    pending = embeddable(parts, settings, parts.store.without_vectors())
    texts = [(s.id, embedding_text(s.chunk, settings.transcript_header)) for s in pending]
    ready = [(i, work.ready[t]) for i, t in texts if t in work.ready]
    if not ready:
        return 0
    parts.store.set_vectors(ready)
    if parts.vectors is None:
        parts.vectors = VectorIndex(len(ready[0][1]))
    parts.vectors.add([i for i, _ in ready], np.vstack([v for _, v in ready]))
    return len(ready)


def embed_missing(
    parts: IndexParts,
    embedder: Embedder,
    settings: SearchSettings,
    report: SyncReport,
    stopping: threading.Event,
    progress: Progress | None = None,
) -> str | None:
    """Embed chunks without a vector, in one go; returns the embedding error, if one stopped
    it."""
    work = embedding_work(parts, embedder, settings)
    if work is None:
        return None
    error = compute(work, embedder, settings, report, stopping, progress)
    store_vectors(parts, settings, work)
    return error


def _is_open(stored: StoredChunk, last: dict[str, tuple[int, int]], now_ns: int) -> bool:
    """A transcript's last chunk while the file is still being written to (it will grow)."""
    start, mtime_ns = last.get(stored.chunk.path, (0, 0))
    recent = now_ns - mtime_ns < OPEN_CHUNK_SECONDS * 1_000_000_000
    return stored.chunk.source == TRANSCRIPT and stored.chunk.start_line == start and recent
