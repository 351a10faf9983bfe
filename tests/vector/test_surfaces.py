"""Vector memory from other agents: the memory_vector_* operations through the real surfaces —
the MCP SDK's client on `remecli mcp`, HTTP on a live `remecli serve`, and `remecli job` — each a
real process whose LLM and embeddings are the fake OpenAI server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from remecli.ops import JOBS
from tests.surfaces.helpers import start_surface, wait_until_healthy
from tests.vector.test_ops import OPENAI_KEY, VECTOR_OPS

ON = "memory.vector.enabled=true"


def settings(working_dir: Path, base_url: str, *extra: str) -> list[str]:
    """key=value settings: the fake server as LLM and embedder, no watcher, no summaries."""
    return [
        f"working_dir={working_dir}",
        f"llm.base_url={base_url}",
        "llm.api_key=sk-test",
        "llm.model_name=fake-model",
        "llm.max_retries=0",
        "search.embedding.backend=api",
        f"search.embedding.base_url={base_url}",
        "search.embedding.api_key=sk-test",
        "search.embedding.dimensions=64",
        "search.watch=false",
        "memory.summarize=false",
        *extra,
    ]


def mcp_params(working_dir: Path, base_url: str, *extra: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "remecli", "mcp", *settings(working_dir, base_url, *extra)],
        env={**os.environ},
    )


def payload(result) -> dict:
    """The JSON a tool answered (structured content must match the text)."""
    assert not result.is_error, result.content[0].text
    data = json.loads(result.content[0].text)
    assert result.structured_content == data
    return data


async def test_mcp_client_lists_and_calls_the_vector_operations(fake_ai, tmp_path: Path) -> None:
    async with Client(mcp_params(tmp_path / ".reme", fake_ai.base_url, ON)) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert set(VECTOR_OPS) <= set(tools)
        for name in VECTOR_OPS:
            job = JOBS.get(name)
            assert tools[name].annotations.read_only_hint is job.read_only
            assert set(tools[name].input_schema["properties"]) == set(
                job.input_schema()["properties"]
            )
        added = payload(
            await client.call_tool(
                "memory_vector_add",
                {"memory_content": f"Carol's deploy key is {OPENAI_KEY}", "user_name": "carol"},
            )
        )
        assert added["memory"]["content"] == "Carol's deploy key is [REDACTED:openai_key]"
        found = payload(
            await client.call_tool(
                "memory_vector_retrieve", {"query": "Carol deploy key", "user_name": "carol"}
            )
        )
        assert [m["memory_id"] for m in found["memories"]] == [added["memory"]["memory_id"]]
        missing = await client.call_tool("memory_vector_get", {"memory_id": "nope"})
        assert missing.is_error and "memory_vector_list" in missing.content[0].text
        unconfirmed = await client.call_tool("memory_vector_delete_all", {"user_name": "carol"})
        assert unconfirmed.is_error and "confirm=true" in unconfirmed.content[0].text
        deleted = payload(
            await client.call_tool(
                "memory_vector_delete_all", {"user_name": "carol", "confirm": True}
            )
        )
        assert deleted == {"deleted": 1}


async def test_mcp_with_vector_memory_off_says_which_setting(fake_ai, tmp_path: Path) -> None:
    async with Client(mcp_params(tmp_path / ".reme", fake_ai.base_url)) as client:
        listed = {tool.name for tool in (await client.list_tools()).tools}
        assert not set(VECTOR_OPS) & listed  # not offered; a call anyway says what to turn on
        refused = await client.call_tool("memory_vector_list", {"user_name": "carol"})
        assert refused.is_error and "memory.vector.enabled=true" in refused.content[0].text


@pytest.mark.timeout(300)  # two servers, one after the other
def test_http_serves_the_vector_operations(fake_ai, tmp_path: Path) -> None:
    working_dir = tmp_path / ".reme"
    on = start_surface(["serve", "--port", "0", *settings(working_dir, fake_ai.base_url, ON)])
    try:
        wait_until_healthy(on.url)
        token = (working_dir / "serve.token").read_text().strip()
        headers = {"Authorization": f"Bearer {token}"}
        paths = set(httpx.get(f"{on.url}/api/openapi.json").json()["paths"])
        assert {f"/api/{name}" for name in VECTOR_OPS} <= paths
        added = httpx.post(
            f"{on.url}/api/memory_vector_add",
            json={"memory_content": "Dave reviews on Mondays", "task_name": "review"},
            headers=headers,
            timeout=60,
        )
        assert added.status_code == 200, added.text
        listed = httpx.post(
            f"{on.url}/api/memory_vector_list", json={"task_name": "review"}, headers=headers
        )
        assert [m["content"] for m in listed.json()["memories"]] == ["Dave reviews on Mondays"]
        bad = httpx.post(
            f"{on.url}/api/memory_vector_add",
            json={"memory_content": "x", "user_name": "a", "tool_name": "b"},
            headers=headers,
        )
        assert bad.status_code == 400 and "exactly one of" in bad.json()["error"]
    finally:
        on.stop()
    off = start_surface(["serve", "--port", "0", *settings(working_dir, fake_ai.base_url)])
    try:
        wait_until_healthy(off.url)
        token = (working_dir / "serve.token").read_text().strip()
        refused = httpx.post(
            f"{off.url}/api/memory_vector_list",
            json={},
            headers={"Authorization": f"Bearer {token}"},
        )
        assert refused.status_code == 403
        assert refused.json()["code"] == "vector_memory_off"
        assert "memory.vector.enabled=true" in refused.json()["error"]
    finally:
        off.stop()


def remecli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REME_")}
    return subprocess.run(
        [sys.executable, "-m", "remecli", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=120,
    )


@pytest.mark.timeout(300)  # three processes; each opens the runtime
def test_remecli_job_helps_and_calls_them(fake_ai, tmp_path: Path) -> None:
    helped = remecli("job", "memory_vector_add", "--help", cwd=tmp_path)
    assert helped.returncode == 0
    option = helped.stdout.split("--memory-content", 1)[1].split("--user-name", 1)[0]
    assert "(required)" in option  # the click help names the option, then says it is required
    on = settings(tmp_path / ".reme", fake_ai.base_url, ON)
    added = remecli(
        "job", "memory_vector_add", "--memory-content", "Erin uses zsh", "--tool-name", "shell",
        *on, cwd=tmp_path,
    )  # fmt: skip
    assert added.returncode == 0, added.stderr
    memory = json.loads(added.stdout)["memory"]
    assert (memory["memory_type"], memory["memory_target"]) == ("tool", "shell")
    memory_id = memory["memory_id"]
    off = settings(tmp_path / ".reme", fake_ai.base_url)
    refused = remecli("job", "memory_vector_get", "--memory-id", memory_id, *off, cwd=tmp_path)
    assert refused.returncode == 1 and "memory.vector.enabled=true" in refused.stderr
