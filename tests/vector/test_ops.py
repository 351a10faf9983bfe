"""The memory_vector_* operations on a real runtime (`JobRunner` over `FileMemory`, LLM and
embeddings = the fake OpenAI server): the seed's ReMe API as one operation each."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from remecli.config import load_settings
from remecli.ops import JOBS, JobRunner
from remecli.ops.errors import InvalidParams, NotFound, ReadOnlyRefused
from remecli.ops.vector_ops import VectorMemoryOff
from tests.vector.helpers import facts

VECTOR_OPS = [
    "memory_vector_summarize",
    "memory_vector_retrieve",
    "memory_vector_add",
    "memory_vector_get",
    "memory_vector_update",
    "memory_vector_list",
    "memory_vector_delete",
    "memory_vector_delete_all",
    "memory_vector_import",
    "memory_vector_export",
    "memory_vector_reindex",
]
READING = {
    "memory_vector_retrieve",
    "memory_vector_get",
    "memory_vector_list",
    "memory_vector_export",
}
VALID_ARGUMENTS: dict[str, dict[str, Any]] = {
    "memory_vector_summarize": {"messages": [{"role": "user", "content": "hi"}], "user_name": "a"},
    "memory_vector_retrieve": {"query": "anything"},
    "memory_vector_add": {"memory_content": "x", "user_name": "a"},
    "memory_vector_get": {"memory_id": "x"},
    "memory_vector_update": {"memory_id": "x", "memory_content": "y"},
    "memory_vector_delete": {"memory_id": "x"},
    "memory_vector_delete_all": {"confirm": True},
    "memory_vector_import": {"memories": [{"content": "x"}], "user_name": "a"},
}
OPENAI_KEY = "sk-proj-" + "Zy8xWv6uTs4rQp2oNm0lKj8hGf6eDc4bA2zY0xWv"


def vector_settings(tmp_path: Path, base_url: str, *extra: str) -> Any:
    """Settings of a test working dir whose LLM and embeddings are the fake server."""
    return load_settings(
        [
            f"working_dir={tmp_path / '.reme'}",
            f"llm.base_url={base_url}",
            "llm.api_key=sk-test",
            "llm.max_retries=0",
            "search.embedding.backend=api",
            f"search.embedding.base_url={base_url}",
            "search.embedding.api_key=sk-test",
            "search.embedding.dimensions=64",
            "search.watch=false",
            "memory.summarize=false",
            *extra,
        ],
        environ={},
        cwd=tmp_path,
    )


@pytest.fixture
async def runner(fake_ai, tmp_path: Path) -> AsyncIterator[JobRunner]:
    settings = vector_settings(tmp_path, fake_ai.base_url, "memory.vector.enabled=true")
    job_runner = JobRunner.from_settings(settings)
    await job_runner.start()
    try:
        yield job_runner
    finally:
        await job_runner.close()


def test_the_seed_api_is_one_operation_each_with_the_right_read_only_flag() -> None:
    names = [name for name in JOBS.names() if name.startswith("memory_vector_")]
    assert names == VECTOR_OPS
    assert {name for name in names if JOBS.get(name).read_only} == READING


async def test_add_get_update_list_delete(runner: JobRunner) -> None:
    added = await runner.run(
        "memory_vector_add",
        {"memory_content": "Alice prefers tabs", "user_name": "alice", "metadata": {"n": 1}},
    )
    memory = added["memory"]
    assert (memory["memory_type"], memory["memory_target"]) == ("personal", "alice")
    assert memory["metadata"] == {"n": 1}
    again = await runner.run(
        "memory_vector_add", {"memory_content": "Alice prefers tabs", "user_name": "alice"}
    )
    assert again["memory"]["memory_id"] == memory["memory_id"]  # stored once
    await asyncio.sleep(1.1)  # times have one-second resolution: make the next one newer
    newer = await runner.run(
        "memory_vector_add",
        {"memory_content": f"Alice's key is {OPENAI_KEY}", "user_name": "alice"},
    )
    assert newer["memory"]["content"] == "Alice's key is [REDACTED:openai_key]"

    listed = await runner.run("memory_vector_list", {"user_name": "alice"})
    assert listed["count"] == 2  # newest first by default, like the seed's example
    assert [m["memory_id"] for m in listed["memories"]] == [
        newer["memory"]["memory_id"],
        memory["memory_id"],
    ]
    oldest_first = await runner.run("memory_vector_list", {"user_name": "alice", "reverse": False})
    assert oldest_first["memories"][0]["memory_id"] == memory["memory_id"]
    filtered = await runner.run("memory_vector_list", {"filters": {"n": 1}})
    assert [m["memory_id"] for m in filtered["memories"]] == [memory["memory_id"]]

    updated = await runner.run(
        "memory_vector_update",
        {"memory_id": memory["memory_id"], "memory_content": "Alice prefers spaces"},
    )
    assert updated["memory"]["content"] == "Alice prefers spaces"
    got = await runner.run("memory_vector_get", {"memory_id": memory["memory_id"]})
    assert got["memory"]["content"] == "Alice prefers spaces"
    assert got["memory"]["memory_id"] == memory["memory_id"]

    deleted = await runner.run("memory_vector_delete", {"memory_id": [memory["memory_id"]]})
    assert deleted == {"deleted": 1}
    with pytest.raises(NotFound, match="memory_vector_list"):
        await runner.run("memory_vector_get", {"memory_id": memory["memory_id"]})
    with pytest.raises(NotFound, match="memory_vector_list"):
        await runner.run("memory_vector_update", {"memory_id": "nope", "memory_content": "x"})


async def test_summarize_then_retrieve_with_the_conversation(fake_ai, runner: JobRunner) -> None:
    fake_ai.add_text(facts("Bob deploys with make ship on Fridays"))
    summarized = await runner.run(
        "memory_vector_summarize",
        {
            "messages": [
                {"role": "user", "content": "I deploy with make ship, only on Fridays."},
                {"role": "assistant", "content": "Noted.", "time_created": "2026-03-01 10:00"},
            ],
            "user_name": "bob",
        },
    )
    changed = {(n["action"], n["memory_type"]) for n in summarized["changed"]}
    assert changed == {("add", "history"), ("add", "personal")}

    found = await runner.run(
        "memory_vector_retrieve",
        {
            "query": "deploy",
            "messages": [{"role": "user", "content": "when does Bob ship?"}],
            "user_name": "bob",
            "top_k": 3,
        },
    )
    assert found["query"] == "deploy\nwhen does Bob ship?"
    assert found["memories"][0]["content"] == "Bob deploys with make ship on Fridays"
    assert found["memories"][0]["score"] > 0
    assert "Bob deploys with make ship on Fridays" in found["text"]
    assert found["summary"] is None


async def test_mistakes_are_job_errors_that_say_what_to_do(runner: JobRunner) -> None:
    with pytest.raises(InvalidParams, match="exactly one of user_name"):
        await runner.run(
            "memory_vector_add", {"memory_content": "x", "user_name": "a", "task_name": "b"}
        )
    with pytest.raises(InvalidParams, match="user_name, task_name or tool_name"):
        await runner.run(
            "memory_vector_summarize", {"messages": [{"role": "user", "content": "hi"}]}
        )
    with pytest.raises(InvalidParams, match="give a query"):
        await runner.run("memory_vector_retrieve", {})
    with pytest.raises(InvalidParams, match="cannot read the time"):
        await runner.run(
            "memory_vector_add",
            {"memory_content": "x", "user_name": "a", "message_time": "last tuesday"},
        )


async def test_off_means_every_vector_operation_names_the_setting(fake_ai, tmp_path) -> None:
    runner = JobRunner.from_settings(vector_settings(tmp_path, fake_ai.base_url))
    await runner.start()
    try:
        for name in VECTOR_OPS:
            with pytest.raises(VectorMemoryOff, match="memory.vector.enabled=true") as caught:
                await runner.run(name, VALID_ARGUMENTS.get(name, {}))
            assert caught.value.status == 403 and caught.value.code == "vector_memory_off"
    finally:
        await runner.close()
    assert not (tmp_path / ".reme" / "vector").exists()  # nothing was opened


async def test_read_only_offers_only_the_reading_ones(fake_ai, tmp_path) -> None:
    settings = vector_settings(tmp_path, fake_ai.base_url, "memory.vector.enabled=true")
    runner = JobRunner.from_settings(settings, read_only=True)
    offered = {job.name for job in runner.available() if job.name in VECTOR_OPS}
    assert offered == READING
    with pytest.raises(ReadOnlyRefused):
        await runner.run("memory_vector_add", {"memory_content": "x", "user_name": "a"})


async def test_delete_all_needs_confirmation_and_keeps_other_targets(runner: JobRunner) -> None:
    for content, who in (("a1", "alice"), ("a2", "alice"), ("b1", "bob")):
        await runner.run("memory_vector_add", {"memory_content": content, "user_name": who})
    with pytest.raises(InvalidParams, match="confirm=true"):
        await runner.run("memory_vector_delete_all", {"user_name": "alice"})
    assert (await runner.run("memory_vector_list", {}))["count"] == 3
    done = await runner.run("memory_vector_delete_all", {"user_name": "alice", "confirm": True})
    assert done == {"deleted": 2}
    left = await runner.run("memory_vector_list", {})
    assert [m["content"] for m in left["memories"]] == ["b1"]


async def test_retrieve_takes_messages_without_a_query(runner: JobRunner) -> None:
    await runner.run(
        "memory_vector_add", {"memory_content": "Erin ships on Fridays", "task_name": "ship"}
    )
    found = await runner.run(
        "memory_vector_retrieve",
        {"messages": [{"role": "user", "content": "when does Erin ship?"}], "task_name": "ship"},
    )
    assert [m["memory_type"] for m in found["memories"]] == ["procedural"]
    assert "when does Erin ship?" in found["query"]
