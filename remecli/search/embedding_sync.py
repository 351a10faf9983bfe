"""The embedding step of a sync: vectors for the chunks that have none (cache first).

Batch by batch, so a closing index (`stopping` set) stops after the current batch; chunks left
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


def embed_missing(
    parts: IndexParts,
    embedder: Embedder,
    settings: SearchSettings,
    report: SyncReport,
    stopping: threading.Event,
    progress: Progress | None = None,
) -> str | None:
    """Embed chunks without a vector; returns the embedding error, if one stopped it."""
    error = None
    pending = embeddable(parts, settings, parts.store.without_vectors())
    if not pending:
        return None
    texts = [embedding_text(s.chunk, settings.transcript_header) for s in pending]
    dims = settings.embedding.dimensions or embedder.dimensions
    keys = [cache_key(embedder.model_id, dims, t) for t in texts]
    cached = parts.cache.get_many(keys)
    missing = [k for k, key in enumerate(keys) if key not in cached]
    size = max(settings.embedding.batch_size, 1)
    try:
        for first in range(0, len(missing), size):
            if stopping.is_set():  # closing: the rest is embedded next time
                break
            part = missing[first : first + size]
            matrix = embedder.embed_documents([texts[k] for k in part])
            rows = list(zip(part, matrix, strict=True))
            parts.cache.put_many([(keys[k], row) for k, row in rows])
            cached.update({keys[k]: row for k, row in rows})
            report.chunks_embedded += len(part)
            if progress:
                progress("embedding", first + len(part), len(missing))
    except EmbeddingError as exc:
        report.embedding_error = error = str(exc)
        log.warning("embedding failed, keyword search still works: %s", exc)
    ready = [(s.id, cached[key]) for s, key in zip(pending, keys, strict=True) if key in cached]
    if not ready:
        return error
    parts.store.set_vectors(ready)
    if parts.vectors is None:
        parts.vectors = VectorIndex(len(ready[0][1]))
    parts.vectors.add([i for i, _ in ready], np.vstack([v for _, v in ready]))
    return error


def _is_open(stored: StoredChunk, last: dict[str, tuple[int, int]], now_ns: int) -> bool:
    """A transcript's last chunk while the file is still being written to (it will grow)."""
    start, mtime_ns = last.get(stored.chunk.path, (0, 0))
    recent = now_ns - mtime_ns < OPEN_CHUNK_SECONDS * 1_000_000_000
    return stored.chunk.source == TRANSCRIPT and stored.chunk.start_line == start and recent
