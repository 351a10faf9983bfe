"""What may be indexed: a chunk with the secrets in its text and frontmatter fields replaced, so
neither the chunk store nor the keyword index holds one even when a file on disk does."""

from __future__ import annotations

from dataclasses import replace

from remecli.notes.redact import redact_text
from remecli.search.types import Chunk


def redacted_chunk(chunk: Chunk) -> Chunk:
    """`chunk` as it may be indexed: secrets in its text, headings, name, description and tags
    replaced (the same chunk when it holds none)."""
    text, name, description = (redact_text(v) for v in (chunk.text, chunk.name, chunk.description))
    headings = tuple(redact_text(h) for h in chunk.headings)
    tags = tuple(redact_text(t) for t in chunk.tags)
    if (text, headings, name, description, tags) == (
        chunk.text,
        chunk.headings,
        chunk.name,
        chunk.description,
        chunk.tags,
    ):
        return chunk
    return replace(
        chunk, text=text, headings=headings, name=name, description=description, tags=tags
    )
