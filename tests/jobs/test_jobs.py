"""The built-in jobs on a real `FileMemory` through `JobRunner` (the path every surface takes)."""

from __future__ import annotations

import asyncio
import datetime as dt
import hashlib
import json
import os
from pathlib import Path

import pytest

from remecli.conversation.transcript import Transcript
from remecli.ops import JOBS, JobRunner
from remecli.ops.errors import (
    EditConflict,
    InvalidParams,
    NotFound,
    PathRefused,
    ReadOnlyRefused,
    TooLarge,
)
from tests.jobs.conftest import DAILY_TEXT


def test_registry_lists_the_jobs_with_schemas() -> None:
    names = JOBS.names()
    for name in (
        "memory_search",
        "memory_read",
        "memory_list",
        "memory_edit",
        "memory_record",
        "memory_reindex",
        "memory_status",
    ):
        assert name in names
    assert set(JOBS.get("memory_search").input_schema()["properties"]) == {
        "query",
        "max_results",
        "min_score",
        "source",
        "since",
        "until",
        "project",
        "as_of",
    }
    assert JOBS.get("memory_read").read_only and not JOBS.get("memory_edit").read_only
    with pytest.raises(NotFound, match="known jobs: memory_search"):
        JOBS.get("memory_nope")


async def test_search_finds_and_filters(runner: JobRunner) -> None:
    found = await runner.run("memory_search", {"query": "deploy make ship", "max_results": 5})
    paths = [hit["path"] for hit in found["results"]]
    assert "memory/2025-01-31.md" in paths and "memory/2024-06-01.md" in paths
    recent = await runner.run("memory_search", {"query": "deploy make ship", "since": "2025-01-01"})
    assert [h["path"] for h in recent["results"]] == ["memory/2025-01-31.md"]
    old = await runner.run("memory_search", {"query": "deploy", "until": "2024-12-31"})
    assert [h["path"] for h in old["results"]] == ["memory/2024-06-01.md"]
    top = await runner.run("memory_search", {"query": "stg-7 staging", "source": "MEMORY.md"})
    assert {h["path"] for h in top["results"]} == {"MEMORY.md"}
    with pytest.raises(InvalidParams, match="swap"):
        await runner.run(
            "memory_search", {"query": "x", "since": "2025-02-01", "until": "2025-01-01"}
        )
    with pytest.raises(InvalidParams, match="max_results"):
        await runner.run("memory_search", {"query": "x", "max_results": 0})


async def test_read_pages_and_refuses(runner: JobRunner) -> None:
    page = await runner.run(
        "memory_read", {"path": "memory/2025-01-31.md", "start_line": 3, "end_line": 3}
    )
    assert page["content"] == "## Deploys\n" and page["total_lines"] == 5 and not page["truncated"]
    whole = await runner.run("memory_read", {"path": "memory/2025-01-31.md"})
    assert whole["content"] == DAILY_TEXT
    big = runner.context.root / "memory" / "big.md"
    big.write_text("".join(f"line {i} {'x' * 60}\n" for i in range(3_000)), encoding="utf-8")
    first = await runner.run("memory_read", {"path": "memory/big.md"})
    assert first["truncated"] and first["next_start_line"] == first["end_line"] + 1
    assert len(first["content"]) <= 50_000
    second = await runner.run(
        "memory_read", {"path": "memory/big.md", "start_line": first["next_start_line"]}
    )
    assert second["content"].startswith(f"line {first['end_line']} ")
    with pytest.raises(NotFound, match="memory_list"):
        await runner.run("memory_read", {"path": "memory/none.md"})
    with pytest.raises(InvalidParams, match="folder"):
        await runner.run("memory_read", {"path": "memory"})
    with pytest.raises(PathRefused):
        await runner.run("memory_read", {"path": "serve.token"})


async def test_list_hides_private_files_and_links_out(runner: JobRunner, tmp_path: Path) -> None:
    root = runner.context.root
    (root / "serve.token").write_text("secret\n")
    (tmp_path / "outside.md").write_text("no\n")
    (root / "memory" / "link-out.md").symlink_to(tmp_path / "outside.md")
    listing = await runner.run("memory_list", {})
    paths = {entry["path"] for entry in listing["entries"]}
    assert {"MEMORY.md", "memory/"} <= paths
    assert not any(p.startswith(("serve.token", "index")) for p in paths)
    deep = await runner.run("memory_list", {"folder": "memory", "recursive": True})
    deep_paths = {entry["path"] for entry in deep["entries"]}
    assert "memory/2025-01-31.md" in deep_paths and "memory/link-out.md" not in deep_paths
    with pytest.raises(InvalidParams):
        await runner.run("memory_list", {"folder": "../"})


async def test_edit_replaces_exactly_once(runner: JobRunner) -> None:
    done = await runner.run("memory_edit", {"path": "MEMORY.md", "old": "stg-7", "new": "stg-8"})
    now = (runner.context.root / "MEMORY.md").read_bytes()
    assert done == {
        "path": "MEMORY.md",
        "replaced": 1,
        "line": 3,
        "sha256": hashlib.sha256(now).hexdigest(),
    }
    assert "stg-8" in now.decode()
    with pytest.raises(EditConflict, match="memory_read"):
        await runner.run("memory_edit", {"path": "MEMORY.md", "old": "stg-7", "new": "x"})
    with pytest.raises(EditConflict, match="2 times"):
        await runner.run(
            "memory_edit", {"path": "memory/2025-01-31.md", "old": "eploy", "new": "x"}
        )
    with pytest.raises(PathRefused, match="not a memory file"):  # logs/ is never a note
        await runner.run("memory_edit", {"path": "logs/remecli.log", "old": "a", "new": "b"})
    (runner.context.root / "notes.md").write_text("a\n")
    with pytest.raises(PathRefused, match="Markdown"):  # outside MEMORY.md, memory/, digest/
        await runner.run("memory_edit", {"path": "notes.md", "old": "a", "new": "b"})


async def test_concurrent_edits_of_one_file_lose_nothing(runner: JobRunner) -> None:
    target = runner.context.root / "memory" / "list.md"
    target.write_text("# list\n<!-- end -->\n", encoding="utf-8")

    async def add(i: int) -> None:
        await runner.run(
            "memory_edit",
            {"path": "memory/list.md", "old": "<!-- end -->", "new": f"- item {i}\n<!-- end -->"},
        )

    await asyncio.gather(*(add(i) for i in range(40)))
    text = target.read_text(encoding="utf-8")
    assert sorted(
        int(line.split()[-1]) for line in text.splitlines() if line.startswith("- item")
    ) == list(range(40))


async def test_read_only_runner_refuses_writing_jobs(runner: JobRunner) -> None:
    frozen = JobRunner(runner.memory, read_only=True)
    assert "memory_edit" not in {job.name for job in frozen.available()}
    with pytest.raises(ReadOnlyRefused, match="--read-only"):
        await frozen.run("memory_edit", {"path": "MEMORY.md", "old": "stg-7", "new": "x"})
    assert (await frozen.run("memory_read", {"path": "MEMORY.md"}))["total_lines"] == 3


async def test_result_size_limit(runner: JobRunner) -> None:
    small = JobRunner(runner.memory, max_result_bytes=100)
    with pytest.raises(TooLarge, match="ask for less"):
        await small.run("memory_read", {"path": "memory/2025-01-31.md"})


async def test_record_stores_a_transcript_once_and_summarizes(
    runner: JobRunner, memory_model
) -> None:
    stamp = dt.datetime.now().astimezone().replace(microsecond=0)
    messages = [
        {
            "role": "user",
            "content": "The release train leaves every Tuesday.",
            "id": "u1",
            "timestamp": stamp.isoformat(),
        },
        {"role": "assistant", "content": "Noted.", "id": "a1", "timestamp": stamp.isoformat()},
    ]
    first = await runner.run("memory_record", {"session_id": "codex-42", "messages": messages})
    assert first["recorded"] == 2 and first["skipped"] == 0 and first["summary_task"]
    assert first["transcript"] == "sessions/codex-42.jsonl"
    again = await runner.run("memory_record", {"session_id": "codex-42", "messages": messages})
    assert again["recorded"] == 0 and again["skipped"] == 2 and again["summary_task"] is None
    stored = Transcript(runner.context.root / "sessions" / "codex-42.jsonl").read()
    assert [m.id for m in stored.messages] == ["u1", "a1"]
    assert [m.role for m in stored.messages] == ["user", "assistant"]
    await runner.memory.await_summary_tasks()
    daily = runner.context.root / "memory" / f"{dt.date.today():%Y-%m-%d}.md"
    assert "said: The release train leaves every Tuesday." in daily.read_text(encoding="utf-8")
    with pytest.raises(InvalidParams, match="session_id"):
        await runner.run("memory_record", {"session_id": "../x", "messages": messages})


async def test_status_reports_the_runtime(runner: JobRunner) -> None:
    status = await runner.run("memory_status", {})
    assert status["working_dir"] == str(runner.context.root)
    assert status["index"]["files"] == 3 and status["index_state"] == "ready"
    assert status["daily_files"] == 2 and status["pending_summaries"] == 0
    report = await runner.run("memory_reindex", {})
    assert report["files_seen"] == 3 and report["chunks_added"] >= 3
    json.dumps(status)  # JSON-ready
    assert os.path.isdir(status["working_dir"])


async def test_edit_tolerates_whitespace_and_quotes_like_the_agent_edit(runner: JobRunner) -> None:
    target = runner.context.root / "memory" / "quotes.md"
    target.write_text("# q\r\n\r\nShe said \u201cship it\u201d   today.\r\n", encoding="utf-8")
    done = await runner.run(
        "memory_edit",
        {"path": "memory/quotes.md", "old": 'She said "ship it" today.', "new": "Shipped."},
    )
    assert done["line"] == 3
    assert target.read_bytes() == b"# q\r\n\r\nShipped.\r\n"
