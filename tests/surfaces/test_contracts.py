"""Clean contracts (issue 22 item 6, issue 25 item 16), against real processes: the stdio MCP
server through the official SDK client, `remecli serve` through httpx."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from remecli.ops import JOBS
from tests.jobs.conftest import seed
from tests.surfaces.helpers import Surface, start_surface, surface_settings, wait_until_healthy

NO_LLM = "http://127.0.0.1:9/v1"


@pytest.fixture(scope="module")
def working_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("contracts") / ".reme"
    seed(root)
    (root / "logs").mkdir(parents=True, exist_ok=True)
    (root / "logs" / "remecli.log").write_text("a log line\n")
    return root


@pytest.fixture(scope="module")
def served(working_dir: Path) -> Iterator[Surface]:
    surface = start_surface(["serve", "--port", "0", *surface_settings(working_dir, NO_LLM)])
    wait_until_healthy(surface.url)
    try:
        yield surface
    finally:
        surface.stop()


def auth(working_dir: Path) -> dict[str, str]:
    return {"Authorization": f"Bearer {(working_dir / 'serve.token').read_text().strip()}"}


async def test_mcp_tools_resources_and_errors(working_dir: Path) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "remecli", "mcp", *surface_settings(working_dir, NO_LLM)],
        env={**os.environ},
    )
    async with Client(params, read_timeout_seconds=60) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        card = tools["memory_write_card"].input_schema
        assert "tags" not in card.get("required", []) and card["additionalProperties"] is False
        assert all(tool.output_schema for tool in tools.values())
        hints = {name: tool.annotations for name, tool in tools.items()}
        assert hints["memory_read"].read_only_hint is True
        assert hints["memory_edit"].destructive_hint is True
        assert hints["memory_record"].destructive_hint is False
        assert hints["memory_write_card"].read_only_hint is False
        assert {n for n, h in hints.items() if h.read_only_hint} == {
            job.name for job in JOBS.served() if job.read_only and job.needs is None
        }  # (vector memory is off here: its tools are not listed)

        written = await client.call_tool(
            "memory_write_card", {"name": "Deploy day", "description": "when", "content": "Fri"}
        )
        assert not written.is_error, written.content[0].text  # tags omitted: optional
        unknown = await client.call_tool("memory_read", {"path": "MEMORY.md", "bogus": 1})
        assert unknown.is_error and "bogus" in unknown.content[0].text
        wrong = await client.call_tool("memory_read", {"path": 5})
        message = wrong.content[0].text
        assert wrong.is_error and "path" in message
        assert len(message) < 300 and "pydantic" not in message and "\n" not in message
        dots = await client.call_tool(
            "memory_write_card", {"name": "..", "description": "d", "content": "x"}
        )
        assert dots.is_error and "name the topic" in dots.content[0].text

        notes = {str(r.uri) for r in (await client.list_resources()).resources}
        assert {"remecli://notes/MEMORY.md", "remecli://notes/memory/2025-01-31.md"} <= notes
        assert not any("logs/" in uri or "sessions/" in uri for uri in notes)
        page = await client.read_resource("remecli://notes/memory/2025-01-31.md")
        assert "make ship" in page.contents[0].text


def test_http_errors_are_error_and_code(served: Surface, working_dir: Path) -> None:
    headers = auth(working_dir)
    missing = httpx.get(f"{served.url}/api/nothing", headers=headers)
    assert missing.status_code == 404 and missing.json()["code"] == "not_found"
    wrong_method = httpx.get(f"{served.url}/api/memory_read", headers=headers)
    assert wrong_method.status_code == 405 and set(wrong_method.json()) == {"error", "code"}
    form = httpx.post(
        f"{served.url}/api/memory_read",
        content=b"path=MEMORY.md",
        headers={**headers, "Content-Type": "application/x-www-form-urlencoded"},
    )
    assert form.status_code == 415 and "application/json" in form.json()["error"]
    bare = httpx.post(
        f"{served.url}/api/memory_read", content=b'{"path": "MEMORY.md"}', headers=headers
    )
    assert bare.status_code == 200 and bare.json()["path"] == "MEMORY.md"
    no_token = httpx.post(f"{served.url}/api/memory_read", json={"path": "MEMORY.md"})
    assert no_token.status_code == 401 and "Bearer" in no_token.json()["error"]
    assert str(working_dir) not in no_token.text and "remecli token add" in no_token.text
    rebound = httpx.get(f"{served.url}/api/health", headers={"Host": "attacker.example"})
    assert rebound.status_code == 421 and rebound.json()["code"] == "misdirected"


def test_http_bad_paths_and_private_files(served: Surface, working_dir: Path) -> None:
    headers = {**auth(working_dir), "Content-Type": "application/json"}
    surrogate = httpx.post(
        f"{served.url}/api/memory_read", content=b'{"path": "a\\ud800.md"}', headers=headers
    )
    assert surrogate.status_code == 400 and surrogate.json()["code"] == "invalid_params"
    for name in (".", ".."):
        card = httpx.post(
            f"{served.url}/api/memory_write_card",
            json={"name": name, "description": "d", "content": "x"},
            headers=headers,
        )
        assert card.status_code == 400, card.text
    for private in ("logs/remecli.log", "serve.token", "tokens.json", "index/chunks.sqlite"):
        read = httpx.post(f"{served.url}/api/memory_read", json={"path": private}, headers=headers)
        assert read.status_code in (403, 404) and read.json()["code"] != "ok", private
        assert read.status_code == 403 or not (working_dir / private).exists(), private
    listed = httpx.post(
        f"{served.url}/api/memory_list", json={"recursive": True}, headers=headers
    ).json()
    shown = {entry["path"] for entry in listed["entries"]}
    assert not any(p.startswith(("logs", "index", "serve.token", "tokens.json")) for p in shown)


def test_openapi_documents_the_real_answers_and_docs_work_offline(served: Surface) -> None:
    spec = httpx.get(f"{served.url}/api/openapi.json").json()
    assert "422" not in str(spec["paths"]) and "HTTPValidationError" not in str(spec)
    edit = spec["paths"]["/api/memory_edit"]["post"]["responses"]
    assert {"400", "401", "403", "409", "413", "503"} <= set(edit)
    assert "409" not in spec["paths"]["/api/memory_read"]["post"]["responses"]
    assert spec["components"]["securitySchemes"]["HTTPBearer"]["scheme"] == "bearer"
    docs = httpx.get(f"{served.url}/api/docs")
    assert docs.status_code == 200 and "cdn." not in docs.text
    assert "/api/docs/assets/swagger-ui-bundle.js" in docs.text
    script = httpx.get(f"{served.url}/api/docs/assets/swagger-ui-bundle.js")
    assert script.status_code == 200 and len(script.content) > 100_000
