"""A scope that holds and a protocol that can be followed, against a live `remecli serve` (httpx)
and `remecli mcp --http` (the official MCP SDK client): a confined token's scope on every path a
job touches (hits' links, the day page a card rewrites) and the access log listing every file
written; the version hashes every read and write returns; pages a client can bound."""

from __future__ import annotations

import hashlib
import json
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from tests.jobs.conftest import seed
from tests.surfaces.helpers import Surface, start_surface, surface_settings, wait_until_healthy
from tests.surfaces.test_scoped_tokens import NO_LLM, add_token, bearer, remecli

CARD = """---
name: Deploy steps
description: how we ship
---
Ship with `make ship`, then check [[digest/wiki/deploy.md]] and [[MEMORY.md]].
"""
WIKI = "# Deploy\n\nThe deploy wiki: see [[memory/2025-01-15/deploy-steps.md]].\n"


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    root = tmp_path_factory.mktemp("scope") / ".reme"
    seed(root)
    (root / "resource").mkdir()
    (root / "resource" / "plan.md").write_text("# Plan\n\nShip on Fridays.\n", encoding="utf-8")
    (root / "memory" / "one-line.md").write_text("x" * 989_990 + "END\n", encoding="utf-8")
    (root / "memory" / "2025-01-15").mkdir(parents=True)
    (root / "memory" / "2025-01-15" / "deploy-steps.md").write_text(CARD, encoding="utf-8")
    (root / "digest" / "wiki").mkdir(parents=True)
    (root / "digest" / "wiki" / "deploy.md").write_text(WIKI, encoding="utf-8")
    tokens = {
        "cards": add_token(root, "cards", "write", "memory/2025-01-1*/**"),
        "notes": add_token(root, "notes", "write", "memory/**"),
    }
    return root, tokens


@pytest.fixture(scope="module")
def served(memory: tuple[Path, dict[str, str]]) -> Iterator[Surface]:
    root, _ = memory
    surface = start_surface(["serve", "--port", "0", *surface_settings(root, NO_LLM)])
    wait_until_healthy(surface.url)
    try:
        yield surface
    finally:
        surface.stop()


def call(served: Surface, token: str, job: str, body: dict) -> httpx.Response:
    return httpx.post(f"{served.url}/api/{job}", json=body, headers=bearer(token), timeout=60)


def access_log(root: Path) -> list[dict]:
    lines = (root / "logs" / "access.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


def test_search_hits_name_no_linked_note_outside_the_tokens_paths(
    served: Surface, memory: tuple[Path, dict[str, str]]
) -> None:
    _, tokens = memory
    found = call(served, tokens["cards"], "memory_search", {"query": "deploy ship"})
    assert found.status_code == 200, found.text
    hits = found.json()["results"]
    assert hits and all(h["path"].startswith("memory/2025-01-1") for h in hits)
    linked = [n["path"] for h in hits for side in ("out", "in") for n in h["links"][side]]
    assert "digest/wiki/deploy.md" not in linked and "MEMORY.md" not in linked
    # the same search with a wider token still names them: the links were there
    wide = call(served, tokens["notes"], "memory_search", {"query": "deploy ship"}).json()
    assert any(h["links"]["out"] for h in wide["results"])


def test_a_card_whose_day_page_is_outside_the_paths_is_refused(
    served: Surface, memory: tuple[Path, dict[str, str]]
) -> None:
    root, tokens = memory
    card = {
        "name": "Rollback",
        "description": "undo a deploy",
        "content": "x",
        "date": "2025-01-15",
    }
    refused = call(served, tokens["cards"], "memory_write_card", card)
    assert refused.status_code == 403, refused.text
    message = refused.json()["error"]
    assert "day page 'memory/2025-01-15.md'" in message and "memory/2025-01-1*/**" in message
    assert not (root / "memory" / "2025-01-15" / "rollback.md").exists()
    day_page = root / "memory" / "2025-01-15.md"
    assert not day_page.exists() or "rollback" not in day_page.read_text()


def test_the_access_log_lists_every_file_a_card_wrote(
    served: Surface, memory: tuple[Path, dict[str, str]]
) -> None:
    root, tokens = memory
    card = {"name": "Hotfix", "description": "a quick fix", "content": "x", "date": "2025-01-16"}
    written = call(served, tokens["notes"], "memory_write_card", card)
    assert written.status_code == 200, written.text
    assert written.json()["day_page"] == "memory/2025-01-16.md"
    assert "hotfix" in (root / "memory" / "2025-01-16.md").read_text()
    entry = access_log(root)[-1]
    assert (entry["operation"], entry["outcome"]) == ("memory_write_card", "ok")
    assert entry["paths"] == ["memory/2025-01-16.md", "memory/2025-01-16/hotfix.md"]


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_every_read_and_write_returns_the_hash_a_conflict_names_the_current_one(
    served: Surface, memory: tuple[Path, dict[str, str]]
) -> None:
    root, tokens = memory
    note = root / "memory" / "2025-01-31.md"
    read = call(served, tokens["notes"], "memory_read", {"path": "memory/2025-01-31.md"}).json()
    assert read["sha256"] == sha256_of(note)
    first = call(
        served,
        tokens["notes"],
        "memory_edit",
        {"path": "memory/2025-01-31.md", "old": "Fridays", "new": "Thursdays"},
    )
    assert first.status_code == 200 and first.json()["sha256"] == sha256_of(note)
    again = call(  # the client's own previous edit is the version it passes on
        served,
        tokens["notes"],
        "memory_edit",
        {
            "path": "memory/2025-01-31.md",
            "old": "Thursdays",
            "new": "Wednesdays",
            "expected_sha256": first.json()["sha256"],
        },
    )
    assert again.status_code == 200, again.text
    stale = call(
        served,
        tokens["notes"],
        "memory_edit",
        {
            "path": "memory/2025-01-31.md",
            "old": "We",
            "new": "They",
            "expected_sha256": read["sha256"],
        },
    )
    assert stale.status_code == 409
    assert stale.json() == {
        "error": stale.json()["error"],
        "code": "changed_on_disk",
        "current_sha256": sha256_of(note),
    }
    card = {"name": "Canary", "description": "a first look", "content": "x", "date": "2025-01-17"}
    written = call(served, tokens["notes"], "memory_write_card", card).json()
    assert written["sha256"] == sha256_of(root / written["path"])
    restored = call(
        served, tokens["notes"], "memory_restore", {"path": "memory/2025-01-31.md", "version": 1}
    )
    assert restored.status_code == 200, restored.text
    assert restored.json()["sha256"] == sha256_of(note) and "Fridays" in note.read_text()


@pytest.fixture(scope="module")
def mcp_url(memory: tuple[Path, dict[str, str]]) -> Iterator[str]:
    root, _ = memory
    surface = start_surface(["mcp", "--http", "--port", "0", *surface_settings(root, NO_LLM)])
    try:
        yield f"{surface.url}/mcp"
    finally:
        surface.stop()


def mcp_client(url: str, token: str) -> tuple[httpx2.AsyncClient, Client]:
    http = httpx2.AsyncClient(headers=bearer(token), timeout=60)
    return http, Client(streamable_http_client(url, http_client=http))


async def test_mcp_conflict_is_a_structured_error_with_the_current_hash(
    mcp_url: str, memory: tuple[Path, dict[str, str]]
) -> None:
    root, tokens = memory
    note = root / "memory" / "2024-06-01.md"
    http, client = mcp_client(mcp_url, tokens["notes"])
    async with http, client:
        read = await client.call_tool("memory_read", {"path": "memory/2024-06-01.md"})
        seen = read.structured_content["sha256"]
        assert seen == sha256_of(note)
        edit = {"path": "memory/2024-06-01.md", "old": "Old note", "new": "Older note"}
        done = await client.call_tool("memory_edit", {**edit, "expected_sha256": seen})
        assert not done.is_error and done.structured_content["sha256"] == sha256_of(note)
        stale = await client.call_tool(
            "memory_edit",
            {"path": "memory/2024-06-01.md", "old": "we", "new": "they", "expected_sha256": seen},
        )
        assert stale.is_error and "read it again" in stale.content[0].text
        assert stale.structured_content == {
            "error": stale.content[0].text,
            "code": "changed_on_disk",
            "current_sha256": sha256_of(note),
        }


def test_a_one_line_note_comes_in_bounded_pages_that_say_where_the_next_starts(
    served: Surface, memory: tuple[Path, dict[str, str]]
) -> None:
    root, tokens = memory
    whole = (root / "memory" / "one-line.md").read_text()
    parts: list[str] = []
    arguments = {"path": "memory/one-line.md"}
    while True:
        answer = call(served, tokens["notes"], "memory_read", arguments)
        assert answer.status_code == 200, answer.text
        page = answer.json()
        assert len(page["content"]) <= 50_000 and len(answer.content) < 60_000
        parts.append(page["content"])
        if not page["truncated"]:
            break
        assert (page["next_start_line"], page["end_line"], page["total_lines"]) == (1, 1, 1)
        arguments = {
            "path": "memory/one-line.md",
            "start_line": page["next_start_line"],
            "start_char": page["next_start_char"],
        }
    assert "".join(parts) == whole and len(parts) == 20


async def test_only_markdown_notes_can_be_written(
    mcp_url: str, memory: tuple[Path, dict[str, str]]
) -> None:
    root, tokens = memory
    http, client = mcp_client(mcp_url, tokens["notes"])
    async with http, client:
        for path in ("memory/x.txt", "memory/notes.json", "memory/sub/"):
            refused = await client.call_tool("memory_write", {"path": path, "content": "hi\n"})
            assert refused.is_error, path
            assert refused.structured_content["code"] == "path_refused"
            assert "only Markdown notes" in refused.content[0].text
            assert not (root / path.rstrip("/")).exists()
        written = await client.call_tool(
            "memory_write", {"path": "memory/ideas.md", "content": "hi\n"}
        )
        assert not written.is_error
    http, client = mcp_client(mcp_url, (root / "serve.token").read_text().strip())
    async with http, client:  # what memory_write accepts, memory_delete accepts (admin token)
        deleted = await client.call_tool("memory_delete", {"path": "memory/ideas.md"})
        assert not deleted.is_error and not (root / "memory" / "ideas.md").exists()


async def test_failed_jobs_are_tool_errors_logged_as_failed_and_deleting_is_destructive(
    mcp_url: str, memory: tuple[Path, dict[str, str]]
) -> None:
    root, _ = memory
    http, client = mcp_client(mcp_url, (root / "serve.token").read_text().strip())
    async with http, client:  # the model (NO_LLM) cannot be reached: both jobs fail
        ingest = await client.call_tool("memory_ingest", {"path": "resource/plan.md"})
        assert ingest.is_error and ingest.structured_content["ok"] is False
        assert ingest.structured_content["outcomes"][0]["status"] == "failed"
        dream = await client.call_tool("memory_dream", {"date": "2025-01-31"})
        assert dream.is_error and dream.structured_content["ok"] is False
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    logged = {e["operation"]: e["outcome"] for e in access_log(root) if e["surface"] == "mcp"}
    assert logged["memory_ingest"] == "failed" and logged["memory_dream"] == "failed"
    for name in ("memory_delete", "memory_rename", "memory_edit"):
        assert tools[name].annotations.destructive_hint is True, name
    for name in ("memory_write_card", "memory_search"):
        assert tools[name].annotations.destructive_hint is False, name


async def test_subscriptions_outside_the_notes_are_refused(
    mcp_url: str, memory: tuple[Path, dict[str, str]]
) -> None:
    _, tokens = memory
    climbing = ["remecli://notes/../serve.token", "remecli://notes/memory/../../tokens.json"]
    http, client = mcp_client(mcp_url, tokens["notes"])
    async with http, client:
        for uri in climbing:
            with pytest.raises(MCPError, match="is not a note"):
                async with client.listen(resource_subscriptions=[uri]):
                    pass
        async with client.listen(resource_subscriptions=["remecli://notes/memory/a.md"]) as sub:
            assert sub.honored.resource_subscriptions == ["remecli://notes/memory/a.md"]
    http = httpx2.AsyncClient(headers=bearer(tokens["notes"]), timeout=60)
    legacy = Client(streamable_http_client(mcp_url, http_client=http), mode="legacy")
    async with http, legacy:
        for uri in climbing:
            with pytest.raises(MCPError, match="is not a note"):
                await legacy.subscribe_resource(uri)


def test_token_globs_that_leave_the_working_dir_are_refused(
    memory: tuple[Path, dict[str, str]],
) -> None:
    root, _ = memory
    for glob in ("../**", "memory/../../**", "/etc/**", "~/notes/**"):
        done = remecli(root, "token", "add", "outside", "--scope", "read", "--paths", glob)
        assert done.returncode == 1 and "leaves the working dir" in done.stderr, glob
    assert "outside" not in (root / "tokens.json").read_text()


async def test_tools_that_cannot_work_here_are_not_listed(
    mcp_url: str, memory: tuple[Path, dict[str, str]]
) -> None:
    root, _ = memory
    http, client = mcp_client(mcp_url, (root / "serve.token").read_text().strip())
    async with http, client:  # vector memory is off in this memory
        listed = {tool.name for tool in (await client.list_tools()).tools}
        assert "memory_search" in listed and "memory_write" in listed
        assert not any(name.startswith("memory_vector_") for name in listed), listed
        assert len(listed) == 28  # 25, memory_changed_facts, memory_sync, memory_sync_status
        called = await client.call_tool("memory_vector_list", {})
        assert called.is_error and "memory.vector.enabled=true" in called.content[0].text


def test_a_second_serve_leaves_the_announcement_and_studio_finds_the_live_one(
    served: Surface, memory: tuple[Path, dict[str, str]]
) -> None:
    """Two serves of one memory both work (a read-only one beside a writer is a use), but
    only the first is announced: the second neither takes .serve.json over nor removes it."""
    root, _ = memory
    announced = (root / ".serve.json").read_text()
    assert served.url in announced
    second = start_surface(["serve", "--port", "0", *surface_settings(root, NO_LLM)])
    try:
        wait_until_healthy(second.url)
        assert second.url != served.url
        deadline = time.monotonic() + 10
        while not any("also served at" in line for line in second.stderr):
            assert time.monotonic() < deadline, second.stderr
            time.sleep(0.05)
        assert f"also served at {served.url}" in "".join(second.stderr)
        assert (root / ".serve.json").read_text() == announced  # the first one's, untouched
    finally:
        assert second.stop() == 0
    assert (root / ".serve.json").read_text() == announced  # and still there after it stopped
    try:  # the default port: the announced server is used, whatever listens on 8765
        studio = remecli(root, "studio", "--no-browser", *surface_settings(root, NO_LLM)[1:])
    except subprocess.TimeoutExpired as exc:
        raise AssertionError(f"studio served by itself: {exc.stdout!r}") from None
    assert studio.returncode == 0, studio.stderr
    assert f"{served.url}/studio/login?ticket=" in studio.stdout
