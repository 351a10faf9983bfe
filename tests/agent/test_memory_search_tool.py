"""The agent is offered `memory_search` and finds what the files say."""

from __future__ import annotations

import asyncio
import json

from remecli.agent import events as ev
from tests.agent.conftest import collect


async def test_memory_search_through_the_agent(assistant_factory, fake_llm, tmp_path) -> None:
    memory = tmp_path / ".reme" / "memory"
    memory.mkdir(parents=True)
    (memory / "2026-01-05.md").write_text(
        "# 2026-01-05\n\n- 10:00 The staging database is db-7.internal\n"
    )
    assistant = assistant_factory()
    await assistant.start()
    await asyncio.wait_for(assistant.memory.index_ready.wait(), timeout=30)
    fake_llm.add_tool_calls(
        [("memory_search", {"query": "staging database", "max_results": 3, "min_score": 0})]
    )
    fake_llm.add_text("It is db-7.internal.")
    events = await collect(assistant, "which host is the staging database?")
    [done] = [e for e in events if isinstance(e, ev.ToolFinished)]
    assert done.name == "memory_search" and done.state == "success"
    hits = json.loads(done.output)
    assert hits[0]["path"] == "memory/2026-01-05.md" and hits[0]["start_line"] >= 1
    tools = [t["function"]["name"] for t in fake_llm.chat_requests()[0].body["tools"]]
    assert "memory_search" in tools
    await assistant.close()


async def test_search_cli_json(tmp_path) -> None:
    import subprocess
    import sys

    wd = tmp_path / ".reme"
    (wd / "memory").mkdir(parents=True)
    (wd / "MEMORY.md").write_text("# Memory\n\n- Deploy with `make ship` (issue #184)\n")
    proc = await asyncio.to_thread(
        subprocess.run,
        [
            sys.executable,
            "-m",
            "remecli",
            "search",
            "issue #184",
            "--json",
            f"working_dir={wd}",
            "search.embedding.backend=none",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    results = json.loads(proc.stdout)
    assert results[0]["path"] == "MEMORY.md" and "make ship" in results[0]["snippet"]
