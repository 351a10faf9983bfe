"""`remecli memories import FILE.jsonl | export FILE.jsonl | reindex`: vector memory in bulk, each
through its operation (memory_vector_import / _export / _reindex).

    remecli memories import memories.jsonl --user alice     # one JSON object per line
    remecli memories export all.jsonl                        # what import reads back
    remecli memories reindex                                 # after changing the embedding model
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from pydantic import JsonValue

T = TypeVar("T")
IMPORT_PART = 100_000  # memories per memory_vector_import call (its limit)


def read_jsonl(stream: IO[str]) -> Iterator[dict[str, JsonValue]]:
    """The JSON objects of a JSONL stream (blank lines skipped); ValueError names the line."""
    for number, line in enumerate(stream, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError as exc:
            raise ValueError(f"line {number} is not JSON ({exc})") from None
        if not isinstance(record, dict):
            raise ValueError(f'line {number} is not a JSON object like {{"content": "…"}}')
        yield record


def parts(records: Iterator[T], size: int) -> Iterator[list[T]]:
    """`records` in lists of at most `size`."""
    part: list[T] = []
    for record in records:
        part.append(record)
        if len(part) == size:
            yield part
            part = []
    if part:
        yield part


def import_arguments(
    records: list[dict[str, JsonValue]], who: dict[str, str | None], batch_size: int | None
) -> dict[str, object]:
    """The memory_vector_import arguments of one part of a file."""
    arguments: dict[str, object] = {"memories": records, **{k: v for k, v in who.items() if v}}
    if batch_size:
        arguments["batch_size"] = batch_size
    return arguments


def write_jsonl(path: Path, memories: list[dict[str, object]]) -> None:
    """Write memories one per line to `path`, readable by the user only (0600)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.fchmod(fd, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        for memory in memories:
            memory = {k: v for k, v in memory.items() if v is not None}
            out.write(json.dumps(memory, ensure_ascii=False) + "\n")


def summary(action: str, result: dict[str, Any], where: str = "") -> str:
    """The line printed after a bulk action."""
    if action == "import":
        return (
            f"imported {result['count']} memories: {result['added']} added, "
            f"{result['already_stored']} already stored"
        )
    if action == "export":
        return f"exported {result['count']} memories to {where}"
    return (
        f"re-embedded {result['reembedded']} memories with {result['embedding_model']} "
        f"({result['dimensions']}-d)"
    )
