"""What the navigator filters on and the Interests page shows, read through memory_read:
a note's `name` (its title in the lists), `tags` and `project` (from its frontmatter, where present), and the dream's interests
(`memory/YYYY-MM-DD/interests.yaml`: topics with reason, evidence and keywords; read only).
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

import yaml

from remecli.notes.frontmatter import read_frontmatter
from remecli.ops import JobError, JobRunner
from remecli.surfaces.studio.library import link_resolver, read_whole

HEAD_LINES = 60  # a frontmatter longer than this is not read for filters
PARALLEL_READS = 8
INTEREST_DAYS = 30
INTERESTS_FILE = re.compile(r"memory/(\d{4}-\d{2}-\d{2})/interests\.yaml")


def _words(value: Any) -> list[str]:
    """A frontmatter value as a list of words: a list, or a comma-separated string."""
    if isinstance(value, list | tuple):
        return [str(v).strip() for v in value if str(v).strip()]
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    return [] if value is None else [str(value)]


async def _head(runner: JobRunner, path: str, gate: asyncio.Semaphore) -> str:
    async with gate:
        try:
            page = await runner.run(
                "memory_read", {"path": path, "start_line": 1, "end_line": HEAD_LINES}
            )
        except JobError:
            return ""
    return str(page["content"])


async def note_facets(runner: JobRunner, paths: list[str]) -> dict[str, dict[str, Any]]:
    """`{path: {"name": str, "tags": [...], "projects": [...]}}` of each Markdown note in
    `paths` (`name` '' when the frontmatter has none)."""
    gate = asyncio.Semaphore(PARALLEL_READS)
    notes = [p for p in paths if p.endswith(".md")]
    heads = await asyncio.gather(*(_head(runner, p, gate) for p in notes))
    found: dict[str, dict[str, Any]] = {}
    for path, head in zip(notes, heads, strict=True):
        meta = read_frontmatter(head).meta
        name = meta.get("name")
        found[path] = {
            "name": name.strip() if isinstance(name, str) else "",
            "tags": _words(meta.get("tags")),
            "projects": _words(meta.get("project")),
        }
    return found


def _topic(raw: dict[str, Any], resolved: dict[str, str | None]) -> dict[str, Any]:
    evidence = [str(e).strip() for e in raw.get("evidence") or [] if str(e).strip()]
    return {
        "title": str(raw.get("title") or ""),
        "reason": str(raw.get("reason") or ""),
        "keywords": _words(raw.get("keywords")),
        "evidence": [{"target": e, "path": resolved.get(e)} for e in evidence],
    }


async def interests(runner: JobRunner) -> dict[str, Any]:
    """`{"days": [{"date", "path", "topics": [{title, reason, keywords, evidence}]}]}`, newest
    first, of the last interests files (memory_list, memory_read)."""
    try:
        listing = await runner.run("memory_list", {"folder": "memory", "recursive": True})
    except JobError:
        return {"days": []}
    files = sorted(
        (e["path"] for e in listing["entries"] if INTERESTS_FILE.fullmatch(e["path"])),
        reverse=True,
    )[:INTEREST_DAYS]
    texts = await asyncio.gather(*(read_whole(runner, path) for path in files))
    days: list[tuple[str, str, list[dict[str, Any]]]] = []
    for path, (text, _) in zip(files, texts, strict=True):
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError:
            continue
        topics = data.get("topics") if isinstance(data, dict) else None
        if isinstance(topics, list):
            kept = [t for t in topics if isinstance(t, dict) and t.get("title")]
            days.append((path.split("/")[1], path, kept))
    targets = {str(e) for _, _, topics in days for t in topics for e in t.get("evidence") or []}
    resolved = await link_resolver(runner, "MEMORY.md", targets)
    return {
        "days": [
            {"date": day, "path": path, "topics": [_topic(t, resolved) for t in topics]}
            for day, path, topics in days
        ]
    }
