"""Vector memory redacts what it stores: pasted keys become `[REDACTED:<kind>]` on every write
path (add, update, summarize: the kept conversation and the model's extracted memories), in
every backend, checked in the store's raw rows, not only through the API."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from agentscope.message import AssistantMsg, UserMsg

from remecli.vector import ReMe
from tests.vector.helpers import facts, make_reme, user_prompt

OPENAI_KEY = (
    "sk-proj-" + "Ab3dE5gH7jK9mN1pQ3sT5vX7zA9cE1gI3kM5oQ7s"
)  # 40 characters after the prefix
AWS_KEY = "AKIA" + "Z7QX2LPM4RT8VW3N"
_tables = itertools.count()


@pytest.fixture(params=["local", "pgvector"])
def backend_config(request: pytest.FixtureRequest) -> Iterator[dict[str, Any]]:
    """Each backend, as users run it (pgvector with its HNSW index)."""
    if request.param == "pgvector":
        dsn = request.getfixturevalue("pg_dsn")
        yield {"backend": "pgvector", "dsn": dsn, "table": f"redact_{next(_tables)}"}
    else:
        yield {"backend": "local"}


def raw_rows(reme: ReMe, backend: dict[str, Any]) -> str:
    """Everything the store holds, as the backend keeps it (SQLite bytes / the table's rows)."""
    if backend["backend"] == "pgvector":
        import psycopg

        with psycopg.connect(backend["dsn"]) as conn:
            rows = conn.execute(f"SELECT t::text FROM {backend['table']} AS t").fetchall()
        return "\n".join(row[0] for row in rows)
    folder = reme.working_dir / "vector_store"
    return "\n".join(
        path.read_bytes().decode("utf-8", "replace") for path in folder.iterdir() if path.is_file()
    )


async def test_add_and_update_store_redacted_text(fake_ai, tmp_path: Path, backend_config) -> None:
    reme = await make_reme(fake_ai, tmp_path, backend_config).start()
    node = await reme.add_memory(
        memory_content=f"Alice's OpenAI key is {OPENAI_KEY}",
        user_name="alice",
        when_to_use=f"when calling the API with {OPENAI_KEY}",
        metadata={"note": f"aws {AWS_KEY}", "tags": [f"key {OPENAI_KEY}"], "count": 2},
    )
    assert node.content == "Alice's OpenAI key is [REDACTED:openai_key]"
    assert node.when_to_use == "when calling the API with [REDACTED:openai_key]"
    assert node.metadata == {
        "note": "aws [REDACTED:aws_access_key]",
        "tags": ["key [REDACTED:openai_key]"],
        "count": 2,
    }
    updated = await reme.update_memory(
        memory_id=node.memory_id,
        memory_content=f"Alice rotated her AWS key to {AWS_KEY}",
        metadata={"extra": f"old {OPENAI_KEY}"},
    )
    assert updated.content == "Alice rotated her AWS key to [REDACTED:aws_access_key]"
    stored = await reme.get_memory(node.memory_id)
    assert stored is not None and stored.metadata["extra"] == "old [REDACTED:openai_key]"
    raw = raw_rows(reme, backend_config)
    assert "[REDACTED:aws_access_key]" in raw
    assert OPENAI_KEY not in raw and AWS_KEY not in raw
    # no vector was made from a secret either: every text sent for embedding is redacted
    embedded = json.dumps([r.body for r in fake_ai.requests if r.path.endswith("/embeddings")])
    assert OPENAI_KEY not in embedded and AWS_KEY not in embedded
    await reme.close()


async def test_summarize_redacts_the_conversation_and_extracted_memories(
    fake_ai, tmp_path: Path, backend_config
) -> None:
    reme = await make_reme(fake_ai, tmp_path, backend_config).start()
    fake_ai.add_text(facts(f"Alice's AWS access key is {AWS_KEY}", "Alice deploys on Fridays"))
    changed = await reme.summarize_memory(
        messages=[
            {"role": "user", "content": f"Here is my key {OPENAI_KEY}, keep it safe"},
            {"role": "assistant", "content": "I will not repeat it."},
        ],
        user_name="alice",
    )
    contents = sorted(n.content for n in changed)
    assert "Alice's AWS access key is [REDACTED:aws_access_key]" in contents
    [history] = [n for n in changed if n.memory_type == "history"]
    assert "Here is my key [REDACTED:openai_key], keep it safe" in history.content
    [extraction] = [user_prompt(r.body) for r in fake_ai.chat_requests()]
    assert OPENAI_KEY not in extraction and "[REDACTED:openai_key]" in extraction
    raw = raw_rows(reme, backend_config)
    assert OPENAI_KEY not in raw and AWS_KEY not in raw
    assert "[REDACTED:openai_key]" in raw and "[REDACTED:aws_access_key]" in raw
    await reme.close()


async def test_the_assistants_handed_over_conversation_is_redacted(fake_ai, tmp_path) -> None:
    """`VectorMemory.remember` (the assistant's path) stores nothing secret, tool results too."""
    from remecli.config import load_settings
    from remecli.conversation.file_memory import FileMemory

    settings = load_settings(
        [
            f"working_dir={tmp_path / '.reme'}",
            f"llm.base_url={fake_ai.base_url}",
            "llm.api_key=sk-test",
            "llm.max_retries=0",
            "search.embedding.backend=api",
            f"search.embedding.base_url={fake_ai.base_url}",
            "search.embedding.api_key=sk-test",
            "search.embedding.dimensions=64",
            "memory.vector.enabled=true",
            "memory.vector.user_name=dana",
            "memory.summarize=false",
        ],
        environ={},
        cwd=tmp_path,
    )
    memory = FileMemory(tmp_path / ".reme", settings=settings, search=False)
    fake_ai.add_text(facts(f"Dana's key is {OPENAI_KEY}"))
    memory.vector.remember(
        [
            UserMsg(name="user", content=f"My key is {OPENAI_KEY}"),
            AssistantMsg(name="ReMe", content="Noted."),
        ]
    )
    await memory.vector.close()  # waits for the background summary
    reme = memory.vector.reme()
    stored = await reme.list_memory(user_name="dana")
    stored += await reme.list_memory(user_name="dana", memory_type="history")
    assert sorted(n.memory_type for n in stored) == ["history", "personal"]
    assert all(OPENAI_KEY not in n.content and "[REDACTED:openai_key]" in n.content for n in stored)
    await memory.vector.close()


async def test_redaction_can_be_turned_off(fake_ai, tmp_path: Path) -> None:
    reme = await make_reme(fake_ai, tmp_path, {"backend": "local"}, redact_secrets=False).start()
    node = await reme.add_memory(memory_content=f"key {OPENAI_KEY}", user_name="alice")
    assert node.content == f"key {OPENAI_KEY}"
    await reme.close()
