"""The Markdown notes as MCP resources: `remecli://notes/<path>` for MEMORY.md, memory/**,
digest/**. Listing and reading run the `memory_list` / `memory_read` jobs through the gate, so a
token's scope and paths apply and the access log records them."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote, unquote

from remecli.notes.links.graph import is_note_path
from remecli.ops.errors import InvalidParams, TooLarge
from remecli.ops.read_job import next_page
from remecli.surfaces.access import Gate
from remecli.surfaces.tokens import Principal

NOTE_URI = "remecli://notes/"


def note_uri(path: str) -> str:
    """The resource URI of a note (its path, percent-encoded where needed)."""
    return NOTE_URI + quote(path, safe="/")


def note_path(uri: str) -> str:
    """The note path a resource URI names (InvalidParams for another URI, or a path that is not
    a note: '..', a folder, a file that is not Markdown under memory/ or digest/)."""
    path = unquote(uri[len(NOTE_URI) :]) if uri.startswith(NOTE_URI) else ""
    if not is_note_path(path):
        raise InvalidParams(
            f"{uri!r} is not a note; note URIs look like {NOTE_URI}MEMORY.md or "
            f"{NOTE_URI}memory/2025-01-31.md (MEMORY.md, *.md under memory/ or digest/)"
        )
    return path


async def list_notes(gate: Gate, caller: Principal) -> list[str]:
    """The notes `caller` may read, by path."""
    listed = await gate.run(caller, "memory_list", {"folder": "", "recursive": True}, "mcp")
    writer = gate.runner.context.writer
    return [
        entry["path"]
        for entry in listed["entries"]
        if entry["type"] == "file"
        and entry["path"].endswith(".md")
        and writer.is_memory_file(gate.root / Path(entry["path"]))
    ]


async def read_note(gate: Gate, caller: Principal, path: str) -> str:
    """The whole text of a note (page by page, up to the runner's result limit)."""
    limit = gate.runner.max_result_bytes
    parts: list[str] = []
    size = 0
    following: dict[str, int] | None = {"start_line": 1}
    while following is not None:
        page = await gate.run(caller, "memory_read", {"path": path, **following}, "mcp")
        parts.append(page["content"])
        size += len(page["content"].encode("utf-8"))
        if size > limit:
            raise TooLarge(
                f"{path!r} is over the {limit}-byte limit; read it in pages with memory_read"
            )
        following = next_page(page)
    return "".join(parts)
