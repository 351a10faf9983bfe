"""The ReMe facade on every backend, with the fake OpenAI server as LLM and embedder."""

from __future__ import annotations

import asyncio
import json

import pytest

from remecli.vector import MemoryModelError, MemoryNotFoundError, ReMeConfigError, VectorStoreError
from tests.vector.helpers import facts, label_of, make_reme, user_prompt

CONVERSATION = [
    {
        "role": "user",
        "content": "I switched from vim to helix last week.",
        "time_created": "2026-03-01 10:00:00",
    },
    {"role": "assistant", "content": "Noted!", "time_created": "2026-03-01 10:00:05"},
    {
        "role": "user",
        "content": "Also I moved out of Berlin. My cat Miso says hi.",
        "time_created": "2026-03-01 10:01:00",
    },
]


async def test_summarize_adds_updates_deletes_and_skips_known_facts(
    fake_ai, tmp_path, backend_config
) -> None:
    reme = await make_reme(fake_ai, tmp_path, backend_config).start()
    vim = await reme.add_memory(memory_content="Alice uses vim", user_name="alice")
    berlin = await reme.add_memory(memory_content="Alice lives in Berlin", user_name="alice")
    await reme.add_memory(memory_content="Alice drinks coffee", user_name="alice")
    bob = await reme.add_memory(memory_content="Bob lives in Berlin", user_name="bob")
    fake_ai.add_text(
        facts(
            "Alice switched from vim to helix",
            "Alice no longer lives in Berlin",
            "Alice drinks coffee every morning",
            "Alice has a cat named Miso",
        )
    )

    def decide(body: dict) -> str:
        return json.dumps(
            [
                {
                    "candidate": "C1",
                    "action": "UPDATE",
                    "memory": label_of(body, "Alice uses vim"),
                    "content": "Alice uses helix (switched from vim in March 2026)",
                },
                {
                    "candidate": "C2",
                    "action": "DELETE",
                    "memory": label_of(body, "Alice lives in Berlin"),
                },
                {
                    "candidate": "C3",
                    "action": "NONE",
                    "memory": label_of(body, "Alice drinks coffee"),
                },
                {"candidate": "C4", "action": "ADD", "memory": None},
            ]
        )

    fake_ai.add_handler(decide)
    changed = await reme.summarize_memory(messages=CONVERSATION, user_name="alice")

    actions = {(n.action, n.memory_type, n.content) for n in changed}
    assert ("update", "personal", "Alice uses helix (switched from vim in March 2026)") in actions
    assert ("delete", "personal", "Alice lives in Berlin") in actions
    assert ("add", "personal", "Alice has a cat named Miso") in actions
    assert len(changed) == 4 and [n.memory_type for n in changed].count("history") == 1
    updated = next(n for n in changed if n.action == "update")
    assert updated.memory_id == vim.memory_id  # the id is stable across updates
    assert updated.message_time == "2026-03-01 10:00:00"
    alice = await reme.list_memory(user_name="alice", sort_key="content", reverse=False)
    assert [n.content for n in alice] == [
        "Alice drinks coffee",
        "Alice has a cat named Miso",
        "Alice uses helix (switched from vim in March 2026)",
    ]
    assert await reme.get_memory(berlin.memory_id, missing_ok=True) is None
    assert await reme.get_memory(bob.memory_id) is not None  # another user's memory is untouched
    [history] = await reme.list_memory(user_name="alice", memory_type="history")
    assert "[2026-03-01 10:01:00] user: Also I moved out of Berlin" in history.content
    extraction, decision = (user_prompt(r.body) for r in fake_ai.chat_requests())
    assert 'user "alice"' in extraction and "I switched from vim to helix" in extraction
    assert all(f'"C{i}"' in decision for i in range(1, 5)) and "Bob lives" not in decision
    await reme.close()


async def test_small_talk_stores_only_the_history(fake_ai, tmp_path, backend_config) -> None:
    reme = await make_reme(fake_ai, tmp_path, backend_config).start()
    fake_ai.add_text("<nothing to store>")
    fake_ai.add_text("[]")
    talk = [{"role": "user", "content": "hi!"}, {"role": "assistant", "content": "Hello!"}]
    changed = await reme.summarize_memory(messages=talk, user_name="alice", task_name="chat")
    assert [n.memory_type for n in changed] == ["history"]
    assert await reme.list_memory(user_name="alice") == []
    assert len(fake_ai.chat_requests()) == 2  # one extraction per target, no decision call
    await reme.close()


async def test_task_and_tool_memories_are_extracted_into_their_own_targets(
    fake_ai, tmp_path, backend_config
) -> None:
    reme = await make_reme(fake_ai, tmp_path, backend_config).start()
    fake_ai.add_text(facts("Run `make test` before `make ship`"))
    fake_ai.add_text(facts("bash: add timeout=600 for the full test suite"))
    changed = await reme.summarize_memory(
        messages=CONVERSATION, task_name="deploy", tool_name="bash"
    )
    stored = {(n.memory_type, n.memory_target, n.content) for n in changed if n.action == "add"}
    assert ("procedural", "deploy", "Run `make test` before `make ship`") in stored
    assert ("tool", "bash", "bash: add timeout=600 for the full test suite") in stored
    first, second = (user_prompt(r.body) for r in fake_ai.chat_requests())
    assert 'task "deploy"' in first and 'tool "bash"' in second
    await reme.close()


async def test_retrieve_scopes_filters_fuses_keywords_and_summarizes(
    fake_ai, tmp_path, backend_config
) -> None:
    reme = await make_reme(fake_ai, tmp_path, backend_config).start()
    await reme.add_memory(
        memory_content="Alice deploys with make ship on Fridays",
        user_name="alice",
        message_time="2026-01-10 09:00:00",
    )
    await reme.add_memory(
        memory_content="Alice deploys on Mondays now",
        user_name="alice",
        message_time="2026-02-20 09:00:00",
    )
    await reme.add_memory(memory_content="Alice likes green tea", user_name="alice")
    await reme.add_memory(memory_content="Bob deploys by hand", user_name="bob")
    found = await reme.retrieve(query="deploys", user_name="alice", top_k=2)
    assert {n.content for n in found} == {
        "Alice deploys with make ship on Fridays",
        "Alice deploys on Mondays now",
    }
    assert all(0 < n.score <= 1 for n in found) and found[0].score >= found[1].score
    february = await reme.retrieve(
        query="deploy", user_name="alice", message_time=["2026-02-01", "2026-02-28"]
    )
    assert [n.content for n in february] == ["Alice deploys on Mondays now"]
    vector_only = await reme.retrieve(query="deploy", user_name="alice", keyword=False)
    assert len(vector_only) == 3 and all(-1 <= n.score <= 1 for n in vector_only)

    fake_ai.add_text(
        "Alice deployed on Fridays [M1] (2026-01-10) but now on Mondays [M2] (2026-02-20)."
    )
    answer = await reme.retrieve(query="deploy day", user_name="alice", top_k=2, summarize=True)
    assert answer.summary.startswith("Alice deployed on Fridays [M1]")
    shown = user_prompt(fake_ai.chat_requests()[-1].body)
    assert '"time": "2026-01-10 09:00:00"' in shown and '"time": "2026-02-20 09:00:00"' in shown
    assert "disagree" in shown  # the prompt asks for conflicts to be shown
    assert json.loads(json.dumps(answer.to_dict()))["memories"][0]["score"] > 0
    await reme.close()


async def test_crud_dedup_stable_ids_and_listing(fake_ai, tmp_path, backend_config) -> None:
    reme = await make_reme(fake_ai, tmp_path, backend_config).start()
    node = await reme.add_memory(
        memory_content="User prefers concise code style",
        user_name="alice",
        metadata={"source": "manual"},
    )
    again = await reme.add_memory(
        memory_content="User prefers  concise code style ", user_name="alice"
    )
    assert again.memory_id == node.memory_id
    updated = await reme.update_memory(
        memory_id=node.memory_id,
        user_name="alice",
        memory_content="User prefers concise, well-commented code style",
        metadata={"checked": True},
    )
    assert updated.memory_id == node.memory_id and updated.metadata == {
        "source": "manual",
        "checked": True,
    }
    hits = await reme.retrieve(query="well-commented", user_name="alice", top_k=1)
    assert hits[0].memory_id == node.memory_id
    for i in range(5):
        await reme.add_memory(
            memory_content=f"fact {i}", user_name="alice", metadata={"rank": 5 - i}
        )
    newest = await reme.list_memory(
        user_name="alice", limit=3, sort_key="time_created", reverse=True
    )
    assert [n.content for n in newest] == ["fact 4", "fact 3", "fact 2"]
    ranked = await reme.list_memory(
        user_name="alice", sort_key="rank", filters={"rank": [2, 4]}, reverse=False
    )
    assert [n.content for n in ranked] == ["fact 3", "fact 2", "fact 1"]
    assert await reme.delete_memory(memory_id=node.memory_id) == 1
    assert await reme.delete_memory(memory_id=node.memory_id) == 0
    with pytest.raises(MemoryNotFoundError, match="no memory with id"):
        await reme.update_memory(memory_id=node.memory_id, memory_content="x")
    await reme.add_memory(memory_content="tool fact", tool_name="bash")
    assert await reme.delete_all(user_name="alice") == 5
    assert [n.content for n in await reme.list_memory()] == ["tool fact"]
    assert await reme.delete_all() == 1
    await reme.close()


async def test_parallel_api_calls_lose_nothing(fake_ai, tmp_path, backend_config) -> None:
    reme = await make_reme(fake_ai, tmp_path, backend_config).start()
    node = await reme.add_memory(memory_content="shared", user_name="alice")
    await asyncio.gather(
        *(reme.add_memory(memory_content=f"fact {i}", user_name="alice") for i in range(30)),
        *(reme.update_memory(node.memory_id, metadata={f"k{i}": i}) for i in range(10)),
    )
    assert len(await reme.list_memory(user_name="alice")) == 31
    assert (await reme.get_memory(node.memory_id)).metadata == {f"k{i}": i for i in range(10)}
    await reme.close()


async def test_memories_persist_and_dimension_changes_are_refused(
    fake_ai, tmp_path, backend_config
) -> None:
    reme = await make_reme(fake_ai, tmp_path, backend_config).start()
    node = await reme.add_memory(memory_content="kept across restarts", user_name="alice")
    await reme.close()
    reopened = await make_reme(fake_ai, tmp_path, backend_config).start()
    assert (await reopened.get_memory(node.memory_id)).content == "kept across restarts"
    await reopened.close()
    bigger = make_reme(fake_ai, tmp_path, backend_config)
    bigger.embedding_settings = bigger.embedding_settings.with_changes({"dimensions": 32})
    with pytest.raises(VectorStoreError, match="64-d vectors but the embedding model gives 32-d"):
        await bigger.start()


async def test_an_unreachable_model_is_one_actionable_error(fake_ai, tmp_path) -> None:
    reme = await make_reme(fake_ai, tmp_path, {"backend": "local"}).start()
    reme.chat.settings = reme.chat.settings.with_changes({"base_url": "http://127.0.0.1:1/v1"})
    with pytest.raises(MemoryModelError, match="Cannot reach http://127.0.0.1:1/v1"):
        await reme.summarize_memory(messages=CONVERSATION, user_name="alice")
    await reme.close()


def test_configuration_comes_from_arguments_then_environment(monkeypatch, tmp_path) -> None:
    from remecli.vector import ReMe

    monkeypatch.setenv("REME_LLM_API_KEY", "sk-env")
    monkeypatch.setenv("REME_LLM_BASE_URL", "http://env.example/v1")
    monkeypatch.setenv("REME_LLM_MODEL", "env-model")
    monkeypatch.setenv("REME_EMBEDDING_API_KEY", "sk-emb")
    monkeypatch.setenv("REME_EMBEDDING_BASE_URL", "http://emb.example/v1")
    reme = ReMe(working_dir=tmp_path, default_llm_config={"model_name": "qwen3.5-plus"})
    assert (reme.chat.settings.api_key, reme.chat.settings.base_url) == (
        "sk-env",
        "http://env.example/v1",
    )
    assert reme.chat.settings.model_name == "qwen3.5-plus"
    assert reme.embedding_settings.backend == "api"  # auto: a key is set
    assert reme.embedding_settings.base_url == "http://emb.example/v1"
    monkeypatch.delenv("REME_EMBEDDING_API_KEY")
    assert ReMe(working_dir=tmp_path).embedding_settings.backend == "local"
    with pytest.raises(ReMeConfigError, match="unknown key.*modle"):
        ReMe(default_llm_config={"modle": "x"})
    with pytest.raises(ReMeConfigError, match="local embedding model gives 384-d"):
        ReMe(default_embedding_model_config={"backend": "local", "dimensions": 1024})
    with pytest.raises(ValueError, match="exactly one of user_name"):
        asyncio.run(ReMe(working_dir=tmp_path).add_memory(memory_content="x"))


def test_from_remecli_import_reme_is_lazy() -> None:
    import subprocess
    import sys

    code = (
        "import sys, remecli; assert 'remecli.vector' not in sys.modules; "
        "from remecli import ReMe; from remecli.vector import ReMe as R; assert ReMe is R"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


async def test_chinese_prompts_with_language_zh(fake_ai, tmp_path) -> None:
    reme = await make_reme(fake_ai, tmp_path, {"backend": "local"}, language="zh").start()
    await reme.add_memory(memory_content="爱丽丝住在柏林", user_name="alice")
    fake_ai.add_text(facts("爱丽丝搬到了上海"))
    fake_ai.add_handler(
        lambda body: json.dumps(
            [
                {
                    "candidate": "C1",
                    "action": "UPDATE",
                    "memory": label_of(body, "爱丽丝住在柏林"),
                    "content": "爱丽丝住在上海（2026 年 3 月从柏林搬来）",
                }
            ]
        )
    )
    talk = [{"role": "user", "content": "我搬到上海了", "time_created": "2026-03-01 10:00:00"}]
    changed = await reme.summarize_memory(messages=talk, user_name="alice")
    assert [n.content for n in changed if n.action == "update"] == [
        "爱丽丝住在上海（2026 年 3 月从柏林搬来）"
    ]
    extraction, decision = fake_ai.chat_requests()
    assert "从下面的对话中提取" in user_prompt(extraction.body)
    assert "请用中文书写记忆内容" in extraction.body["messages"][0]["content"]
    assert "每条候选选择一个操作" in user_prompt(decision.body)
    await reme.close()
