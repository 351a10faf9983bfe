"""The agent is offered `memory_links` and taught search → links → read (issue 12.4)."""

from __future__ import annotations

import asyncio
import json

from remecli.agent import events as ev
from tests.agent.conftest import collect


async def test_memory_links_through_the_agent(assistant_factory, fake_llm, tmp_path) -> None:
    memory = tmp_path / ".reme" / "memory"
    memory.mkdir(parents=True)
    (memory / "2026-01-05.md").write_text("# 2026-01-05\n\n- Deploy notes: see [[Release train]]\n")
    (memory / "release.md").write_text(
        "---\nname: Release train\ndescription: Releases leave on Fridays.\n---\nFriday 15:00.\n"
    )
    assistant = assistant_factory()
    await assistant.start()
    await asyncio.wait_for(assistant.runtime.index_ready.wait(), timeout=30)
    fake_llm.add_tool_calls([("memory_links", {"path": "memory/2026-01-05.md"})])
    fake_llm.add_text("It links to the release train.")
    events = await collect(assistant, "what does the day page link to?")
    [done] = [e for e in events if isinstance(e, ev.ToolFinished)]
    assert done.name == "memory_links" and done.state == "success", done
    answer = json.loads(done.output)
    assert [item["path"] for item in answer["out"]] == ["memory/release.md"]
    assert answer["out"][0]["description"] == "Releases leave on Fridays."
    request = fake_llm.chat_requests()[0].body
    system = request["messages"][0]["content"]
    system = system if isinstance(system, str) else "".join(p["text"] for p in system)
    assert "Look at the links" in system and "memory_links" in system
    assert "memory_links" in {t["function"]["name"] for t in request["tools"]}
    await assistant.close()
