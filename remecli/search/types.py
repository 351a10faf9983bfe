"""Plain data types shared by the search package: chunks, search requests and results."""

from __future__ import annotations

import datetime as dt
from dataclasses import asdict, dataclass, field
from typing import Any

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
class SearchRequest:
    """One memory search, resolved: what the runtime and the index take, unchanged on the way down.

    Build it with `build_search_request` (the one place defaults come from the settings).
    `source`: notes|transcripts|all (None: all); `since` / `until`: YYYY-MM-DD, inclusive;
    `project`: only memory recorded in that project (None: any). Without a `project` filter,
    hits of `prefer_project` (the current project) rank a little higher (`project_boost`).
    """

    query: str
    max_results: int
    min_score: float
    source: str | None = None
    since: DateLike = None
    until: DateLike = None
    project: str | None = None
    prefer_project: str = ""


def build_search_request(
    settings: SearchSettings,
    query: str,
    max_results: int | None = None,
    min_score: float | None = None,
    *,
    source: str | None = None,
    since: DateLike = None,
    until: DateLike = None,
    project: str | None = None,
    prefer_project: str = "",
) -> SearchRequest:
    """The request for one search: a None limit or floor takes the search settings' default.

    Every way into search (agent tool, job, CLI, MCP, HTTP, the library's `memory_search`)
    builds its request here, once, at the edge.
    """
    return SearchRequest(
        query,
        settings.max_results if max_results is None else int(max_results),
        settings.min_score if min_score is None else float(min_score),
        source,
        since,
        until,
        project.strip() if project and project.strip() else None,
        prefer_project.strip(),
    )


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
class SearchResult:
    """One hit: where it is (path relative to the working dir, 1-based lines) and why.

    `weak`: the hit barely matches the query: it scored under `ranking.WEAK_SCORE` before the
    transcript weight and the boosts (scores are absolute: the same from one query to the next).
    """

    path: str
    start_line: int
    end_line: int
    score: float
    snippet: str
    signals: list[str] = field(default_factory=list)
    heading_path: str = ""
    source: str = "notes"
    session_id: str = ""
    date: str = ""
    name: str = ""
    description: str = ""
    tags: list[str] = field(default_factory=list)
    project: str = ""
    weak: bool = False

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready mapping (the shape `--json` and the agent tool print).

        Always: path, start_line, end_line, score, snippet, signals, heading_path, source;
        `session_id`, `date`, `name`, `description`, `tags`, `project` only when known;
        `weak` (true) only for a weak hit.
        """
        data = asdict(self)
        data["score"] = round(self.score, 4)
        for key in ("session_id", "date", "name", "description", "tags", "project", "weak"):
            if not data[key]:
                del data[key]
        return data


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
