"""Vector memory inside the assistant (`memory.vector.enabled`): conversations handed to the
summarizer also become personal and tool memory, and the agent gets `retrieve_memory`."""

from __future__ import annotations

import json

from agentscope.message import AssistantMsg, UserMsg

from remecli.config import load_settings
from remecli.conversation.file_memory import FileMemory
from remecli.tools.context import ToolContext
from remecli.tools.registry import build_tools
from tests.vector.helpers import facts


def _settings(fake_ai, tmp_path, *extra: str):
    return load_settings(
        [
            f"working_dir={tmp_path / '.reme'}",
            f"llm.base_url={fake_ai.base_url}",
            "llm.api_key=sk-test",
            "llm.max_retries=0",
            "search.embedding.backend=api",
            f"search.embedding.base_url={fake_ai.base_url}",
            "search.embedding.api_key=sk-test",
            "search.embedding.dimensions=64",
            *extra,
        ],
        environ={},
        cwd=tmp_path,
    )


def _tool_names(memory: FileMemory, tmp_path) -> list[str]:
    ctx = ToolContext(
        workspace=tmp_path,
        working_dir=memory.layout.root,
        settings=memory.settings.tools,
        writer=memory.writer,
    )
    return [tool.name for tool in build_tools(ctx, memory=memory)]


async def test_off_by_default_and_no_tool(fake_ai, tmp_path) -> None:
    memory = FileMemory(tmp_path / ".reme", settings=_settings(fake_ai, tmp_path), search=False)
    assert not memory.vector.enabled
    assert "retrieve_memory" not in _tool_names(memory, tmp_path)


async def test_a_handed_over_conversation_becomes_personal_memory(fake_ai, tmp_path) -> None:
    settings = _settings(
        fake_ai,
        tmp_path,
        "memory.vector.enabled=true",
        "memory.vector.user_name=dana",
        "memory.summarize=false",
    )
    memory = FileMemory(tmp_path / ".reme", settings=settings, search=False)
    assert "retrieve_memory" in _tool_names(memory, tmp_path)
    fake_ai.add_text(facts("Dana deploys on Fridays only"))
    memory.vector.remember(
        [
            UserMsg(name="user", content="I'm Dana; we only deploy on Fridays."),
            AssistantMsg(name="ReMe", content="Noted: Friday deploys."),
        ]
    )
    await memory.vector.close()  # waits for the background summary
    found = await memory.retrieve_vector_memory("when does Dana deploy?")
    assert [(n["memory_type"], n["memory_target"]) for n in found][:1] == [("personal", "dana")]
    assert "Fridays" in json.dumps(found)
    await memory.vector.close()


async def test_the_agent_tool_retrieves_through_the_operation(fake_ai, tmp_path) -> None:
    from remecli.ops.context import JobContext
    from remecli.tools.retrieve_memory import retrieve_memory

    on = FileMemory(
        tmp_path / ".reme",
        settings=_settings(fake_ai, tmp_path, "memory.vector.enabled=true"),
        search=False,
    )
    await on.vector.reme().add_memory(memory_content="Deploy with make ship", task_name="deploy")
    found = json.loads((await retrieve_memory(JobContext(on), "how to deploy", top_k=3)).text)
    assert [(n["memory_type"], n["content"]) for n in found] == [
        ("procedural", "Deploy with make ship")
    ]
    await on.vector.close()
    off = FileMemory(tmp_path / ".reme", settings=_settings(fake_ai, tmp_path), search=False)
    refused = (await retrieve_memory(JobContext(off), "how to deploy")).text
    assert "memory.vector.enabled=true" in refused  # the operation's own answer
