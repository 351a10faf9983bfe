"""The work of `remecli import`: read the files, record each conversation through the
`memory_record` job (one `JobRunner`), print what was recorded."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, NotRequired, TypedDict

from remecli.config.settings import Settings
from remecli.knowledge.imports import ImportedConversation, read_conversation
from remecli.knowledge.imports.detect import UnknownFormat
from remecli.ops import JobError, JobRunner
from remecli.ops.record_job import MAX_MESSAGES

SUFFIXES = (".jsonl", ".json")


def transcript_files(path: Path) -> list[Path]:
    """`path` itself, or every `.jsonl`/`.json` file under the folder `path`, sorted."""
    if path.is_file():
        return [path]
    return sorted(p for p in path.rglob("*") if p.is_file() and p.suffix in SUFFIXES)


def read_all(
    files: list[Path], format_name: str | None, session_id: str | None, *, folder: bool
) -> list[tuple[Path, ImportedConversation]] | None:
    """The conversations of `files`; in a folder an unreadable file is skipped with a note,
    a single file that cannot be read is an error (None, after the message)."""
    found = []
    for file in files:
        try:
            found.append((file, read_conversation(file, format_name, session_id)))
        except (UnknownFormat, OSError, UnicodeDecodeError, ValueError) as exc:
            if not folder:
                print(f"remecli import: {exc}", file=sys.stderr)
                return None
            print(f"remecli import: skipped {file} ({exc})", file=sys.stderr)
    return found


RunJob = Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]]  # by name: also the gate's


class Imported(TypedDict):
    """What `remecli import --json` prints per file (a file without messages: the first four)."""

    file: str
    format: str
    session_id: str
    messages: int
    first_day: NotRequired[str | None]
    recorded: NotRequired[int]
    skipped: NotRequired[int]
    days: NotRequired[list[str]]
    transcript: NotRequired[str | None]


async def record_conversation(
    run: RunJob, file: Path, conversation: ImportedConversation
) -> Imported:
    """Record one conversation with `memory_record` (in batches) through `run`; what was new."""
    records = conversation.records()
    recorded = skipped = 0
    days: list[str] = []
    transcript = None
    project = conversation.project  # None: the format names no folder (the current project)
    for start in range(0, len(records), MAX_MESSAGES):
        params: dict[str, Any] = {
            "session_id": conversation.session_id,
            "messages": records[start : start + MAX_MESSAGES],
        }
        if project is not None:
            params["project"] = project
        answer = await run("memory_record", params)
        recorded += answer["recorded"]
        skipped += answer["skipped"]
        transcript = answer["transcript"]
        days += [day for day in answer.get("days", []) if day not in days]
    return Imported(
        file=str(file),
        format=conversation.format,
        session_id=conversation.session_id,
        messages=len(records),
        first_day=next(iter(conversation.days()), None),
        recorded=recorded,
        skipped=skipped,
        days=days,
        transcript=transcript,
    )


async def record_all(
    settings: Settings, conversations: list[tuple[Path, ImportedConversation]]
) -> list[Imported]:
    """Record every conversation with `memory_record`; one result per conversation."""
    runner = JobRunner.from_settings(settings)
    await runner.start(wait_for_index=True)
    try:
        return [
            await record_conversation(runner.run, file, conversation)
            for file, conversation in conversations
        ]
    finally:  # the summaries are written before the command exits; how each ended is said
        for line in await runner.close(timeout=None):  # (no model configured: why none ran)
            print(f"remecli import: {line}", file=sys.stderr)


def describe(result: Imported) -> str:
    """One line per conversation: what was new, what was known, where it went."""
    if not result["messages"]:
        return f"{result['file']}: nothing to record ({result['format']})"
    day = result.get("first_day") or "undated"
    return (
        f"{result['session_id']} ({result['format']}, {day}): {result.get('recorded')} new, "
        f"{result.get('skipped')} already recorded → {result.get('transcript')}"
    )


def run_import(
    settings: Settings,
    path: Path,
    format_name: str | None,
    session_id: str | None,
    *,
    as_json: bool = False,
) -> int:
    """`remecli import`: 0 when every conversation was recorded, 1 after a one-line error."""
    from remecli.config.logs import setup_logging

    files = transcript_files(path)
    if not files:
        print(f"remecli import: no .jsonl or .json files under {path}", file=sys.stderr)
        return 1
    conversations = read_all(files, format_name, session_id, folder=path.is_dir())
    if conversations is None:
        return 1
    setup_logging(settings)
    with_messages = [(file, c) for file, c in conversations if c.messages]
    try:
        recorded = asyncio.run(record_all(settings, with_messages)) if with_messages else []
    except JobError as exc:
        print(f"remecli import: {exc}", file=sys.stderr)
        return 1
    empty = [
        Imported(file=str(file), format=c.format, session_id=c.session_id, messages=0)
        for file, c in conversations
        if not c.messages
    ]
    results = recorded + empty
    if as_json:
        print(json.dumps(results, ensure_ascii=False, indent=2))
    else:
        for result in results:
            print(describe(result))
    return 0
