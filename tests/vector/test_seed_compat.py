"""The reference ReMe's documented calls, verbatim but for the import (`from remecli.vector import
ReMe` for `from reme import ReMe`), against the fake OpenAI server and the local store: its
constructor arguments, return types and defaults (reme/reme.py of agentscope-ai/ReMe v0.3.x)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from remecli.vector import MemoryHandler, MemoryNode, MemoryNotFoundError, ProfileHandler, ReMe
from remecli.vector.config import ReMeConfigError
from tests.vector.helpers import facts

MESSAGES = [
    {
        "role": "user",
        "content": "I'm Alice, a data engineer",
        "time_created": "2026-02-28 10:00:00",
    },
    {"role": "assistant", "content": "Nice to meet you", "time_created": "2026-02-28 10:00:05"},
]


def reference_reme(fake: Any, working_dir: Path, **extra: Any) -> ReMe:
    """ReMe built with the reference's own constructor keywords (keys and URLs given apart)."""
    arguments: dict[str, Any] = dict(
        llm_api_key="sk-test",
        llm_base_url=fake.base_url,
        embedding_api_key="sk-test",
        embedding_base_url=fake.base_url,
        working_dir=str(working_dir),
        config_path="vector",
        enable_logo=False,
        log_to_console=False,
        log_to_file=True,
        default_llm_config={"backend": "openai", "model_name": "fake-model"},
        default_embedding_model_config={
            "backend": "openai",
            "model_name": "fake-embedding",
            "dimensions": 64,
        },
        default_vector_store_config={"backend": "local", "collection_name": "reme"},
        default_token_counter_config={"backend": "base"},
        target_user_names=["alice"],
        target_task_names=["code_writing"],
        target_tool_names=["bash"],
        enable_profile=True,
        profile_max_capacity=50,
    )
    return ReMe(**{**arguments, **extra})


async def test_the_reference_constructor_and_crud_calls(fake_ai, tmp_path: Path) -> None:
    reme = reference_reme(fake_ai, tmp_path / ".reme")
    await reme.start()
    node = await reme.add_memory(
        memory_content="User prefers concise code style",
        user_name="alice",
        when_to_use="when writing code",
        message_time="2026-02-28 10:00:00",
        ref_memory_id="history-1",
        author="tester",
        score=0.5,
        project="shop",
    )
    dumped = node.model_dump()
    assert dumped["memory_type"] == "personal" and dumped["ref_memory_id"] == "history-1"
    assert dumped["score"] == 0.5 and dumped["metadata"] == {"project": "shop"}
    assert {"vector", "message_time", "time_created", "author"} <= set(dumped)
    fetched = await reme.get_memory(memory_id=node.memory_id)
    assert fetched.ref_memory_id == "history-1" and fetched.metadata == {"project": "shop"}
    assert len(fetched.vector) == 64 and abs(sum(x * x for x in fetched.vector) - 1) < 1e-3
    updated = await reme.update_memory(
        memory_id=node.memory_id,
        user_name="alice",
        memory_content="User prefers concise, well-commented code style",
        score=0.9,
        project="web",
    )
    assert (updated.memory_id, updated.score, updated.metadata) == (
        node.memory_id,
        0.9,
        {"project": "web"},
    )
    await reme.add_memory(memory_content="Run tests before shipping", task_name="code_writing")
    plain = await reme.add_memory(memory_content="Use timeout=600", tool_name="bash")
    assert plain.message_time == "" and plain.memory_type == "tool"
    second = await reme.add_memory(memory_content="User likes tea", user_name="alice")
    listed = await reme.list_memory(user_name="alice", limit=10, sort_key="time_created")
    assert [n.memory_id for n in listed][0] == second.memory_id  # reverse=True: newest first
    procedural = await reme.list_memory(task_name="code_writing")
    assert [n.memory_type for n in procedural] == ["procedural"]
    handler = reme.get_memory_handler("alice")
    assert isinstance(handler, MemoryHandler)
    assert len(await handler.list()) == 2
    await reme.delete_memory(memory_id=second.memory_id)
    with pytest.raises(MemoryNotFoundError):
        await reme.get_memory(memory_id=second.memory_id)
    await reme.delete_all()
    assert await reme.list_memory(user_name="alice") == []
    await reme.close()
    log_file = tmp_path / ".reme" / "logs" / "reme.log"
    assert log_file.is_file() and (log_file.stat().st_mode & 0o777) == 0o600


async def test_summarize_and_retrieve_return_what_the_reference_returns(
    fake_ai, tmp_path: Path
) -> None:
    reme = reference_reme(fake_ai, tmp_path / ".reme")
    await reme.start()
    answer = facts("Alice is a data engineer", when="2026-02-28 10:00:00")
    answer = answer.replace(
        '"message_time"', '"profile_key": "job", "profile_value": "data engineer", "message_time"'
    )
    fake_ai.add_text(answer)
    result = await reme.summarize_memory(
        messages=MESSAGES,
        description="a first conversation",
        user_name="alice",
        enable_thinking_params=True,
        version="default",
        retrieve_top_k=20,
        return_dict=True,
        llm_config_name="default",
        raise_exception=False,
    )
    assert isinstance(result, dict) and result["success"] is True
    assert {"answer", "messages", "tools"} <= set(result)
    assert all(isinstance(n, MemoryNode) for n in result["answer"])
    assert "Alice is a data engineer" in [n.content for n in result["answer"]]
    extraction = fake_ai.chat_requests()[0].body["messages"][-1]["content"]
    assert "a first conversation" in extraction

    text = await reme.retrieve_memory(
        messages=[{"role": "user", "content": "what does Alice do for work?"}],
        user_name="alice",
        retrieve_top_k=1,
        enable_time_filter=True,
    )
    assert isinstance(text, str) and "Alice is a data engineer" in text
    assert "job: data engineer" in text  # the profile, as the reference's personal retriever
    as_dict = await reme.retrieve_memory(
        query="data engineer", user_name="alice", retrieve_top_k=1, return_dict=True
    )
    assert isinstance(as_dict, dict) and as_dict["success"] is True
    assert len(as_dict["retrieved_nodes"]) == 1 and as_dict["answer"]

    profiles = reme.get_profile_handler("alice")
    assert isinstance(profiles, ProfileHandler)
    assert profiles.get_by_key("job").content == "data engineer"
    found = await reme.retrieve_profile(query="job", user_name="alice", top_k=5)
    assert "job: data engineer" in found
    assert (profiles.path.stat().st_mode & 0o777) == 0o600
    with pytest.raises(NotImplementedError):
        await reme.retrieve_memory(query="x", version="v2")
    await reme.close()


async def test_profiles_off_and_unknown_keywords(fake_ai, tmp_path: Path) -> None:
    reme = reference_reme(fake_ai, tmp_path / ".reme", enable_profile=False)
    assert reme.get_profile_handler("alice") is None and reme.profile_path is None
    with pytest.raises(RuntimeError, match="disabled"):
        await reme.retrieve_profile(query="job", user_name="alice")
    with pytest.raises(TypeError, match="no_such_option"):
        ReMe(no_such_option=1)
    with pytest.raises(ValueError, match="already used"):
        ReMe(target_user_names=["x"], target_tool_names=["x"])
    await reme.close()


async def test_a_bare_reme_reads_the_env_file_and_a_config_file(
    fake_ai, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("REME_LLM_API_KEY", "REME_LLM_BASE_URL", "REME_EMBEDDING_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("REME_EMBEDDING_BASE_URL", raising=False)
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".env").write_text(
        f"REME_LLM_API_KEY=sk-test\nREME_LLM_BASE_URL={fake_ai.base_url}\n"
        f"REME_EMBEDDING_API_KEY=sk-test\nREME_EMBEDDING_BASE_URL={fake_ai.base_url}\n",
        encoding="utf-8",
    )
    (tmp_path / "my.yaml").write_text(
        "embedding_models:\n  default:\n    backend: openai\n    model_name: fake-embedding\n"
        "    dimensions: 64\nvector_stores:\n  default:\n    backend: local\n"
        "    collection_name: shop\n",
        encoding="utf-8",
    )
    reme = ReMe(config_path="my.yaml", default_vector_store_config={"backend": "local"})
    assert reme.embedding_settings.base_url == fake_ai.base_url
    assert reme.chat.settings.base_url == fake_ai.base_url
    await reme.start()
    await reme.add_memory(memory_content="kept", user_name="bob")
    await reme.close()
    assert (tmp_path / ".reme" / "vector_store" / "shop" / "memories.sqlite3").is_file()
    assert json.loads(json.dumps(reme.store_config))["collection_name"] == "shop"


async def test_pgvector_takes_the_reference_config_names(fake_ai, tmp_path: Path, pg_dsn) -> None:
    from psycopg.conninfo import conninfo_to_dict

    info = conninfo_to_dict(pg_dsn)
    parts = {"host": info.get("host"), "port": info.get("port"), "user": info.get("user")}
    store = {
        "backend": "pgvector",
        "collection_name": "compat_reference",
        **{key: value for key, value in parts.items() if value},
        "database": info.get("dbname") or "postgres",
        "password": info.get("password") or "",
        "min_size": 1,
        "max_size": 4,
        "use_hnsw": True,
        "embedding_model": "default",
    }
    reme = reference_reme(fake_ai, tmp_path / ".reme", default_vector_store_config=store)
    await reme.start()
    node = await reme.add_memory(
        memory_content="Run tests before shipping", task_name="code_writing", project="shop"
    )
    fetched = await reme.get_memory(memory_id=node.memory_id)
    assert (fetched.memory_type, fetched.metadata) == ("procedural", {"project": "shop"})
    assert len(fetched.vector) == 64
    assert [n.memory_id for n in await reme.list_memory(task_name="code_writing")] == [
        node.memory_id
    ]
    await reme.close()


def test_a_config_section_that_is_no_mapping_is_one_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.yaml").write_text("vector_stores:\n  - local\n", encoding="utf-8")
    with pytest.raises(ReMeConfigError, match="vector_stores must be a mapping"):
        ReMe(config_path="bad.yaml")
    with pytest.raises(ReMeConfigError, match="backend is a value, not a section"):
        ReMe("vector_stores.default.backend=local", "vector_stores.default.backend.x=1")
