"""Plain data types shared by the search package: chunks, ranking variants, sync reports
(the request and its hits: `request.py`, `hits.py`)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from remecli.config.search import SearchSettings

DateLike = str | dt.date | None


@dataclass(frozen=True, slots=True)
class Chunk:
    """A piece of one file: 1-based inclusive line range, heading path and what the file says.

    `source` is "notes" (Markdown) or "transcript" (`sessions/<id>.jsonl`, lines of the JSONL);
    `date` is YYYY-MM-DD or ""; `name`, `description`, `tags` come from YAML frontmatter;
    `project` from a note's `project:` or a transcript record's `project` ("" when none).
    """

    path: str
    start_line: int
    end_line: int
    text: str
    headings: tuple[str, ...] = ()
    source: str = "notes"
    session_id: str = ""
    date: str = ""
    name: str = ""
    description: str = ""
    tags: tuple[str, ...] = ()
    project: str = ""

    @property
    def heading_path(self) -> str:
        """Headings enclosing the chunk, joined with ' > ' ('' at top level)."""
        return " > ".join(self.headings)


@dataclass(frozen=True, slots=True)
class SearchVariant:
    """A variant of the ranking, for measuring (benchmarks): other settings, parts switched off.

    Production search never takes one; `MemoryIndex.search_variant_blocking` does.
    """

    settings: SearchSettings
    use_vector: bool = True
    use_keyword: bool = True
    rescore: bool = True


@dataclass(slots=True)
class SyncReport:
    """What one sync did: files seen/changed/removed, chunks added/removed, texts embedded."""

    files_seen: int = 0
    files_changed: int = 0
    files_removed: int = 0
    chunks_added: int = 0
    chunks_removed: int = 0
    chunks_embedded: int = 0
    embedding_error: str = ""
