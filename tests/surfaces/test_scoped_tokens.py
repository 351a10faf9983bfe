"""Scoped tokens and the access log, against real servers: `remecli serve` called with httpx and
`remecli mcp --http` called with the official MCP SDK client; tokens made with the real CLI."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from remecli.ops import JOBS
from tests.jobs.conftest import seed
from tests.surfaces.helpers import Surface, start_surface, surface_settings, wait_until_healthy

NO_LLM = "http://127.0.0.1:9/v1"  # nothing here calls the model


def remecli(working_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "remecli", *args, f"working_dir={working_dir}"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ},
    )


def add_token(working_dir: Path, name: str, scope: str, paths: str | None = None) -> str:
    done = remecli(
        working_dir, "token", "add", name, "--scope", scope, *(["--paths", paths] if paths else [])
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    root = tmp_path_factory.mktemp("tokens") / ".reme"
    seed(root)
    tokens = {
        "reader": add_token(root, "reader", "read"),
        "writer": add_token(root, "writer", "write"),
        "notes-reader": add_token(root, "notes-reader", "read", "memory/**"),
        "notes-writer": add_token(root, "notes-writer", "write", "memory/**"),
        "temp": add_token(root, "temp", "admin"),
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


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def call(served: Surface, token: str, job: str, body: dict) -> httpx.Response:
    return httpx.post(f"{served.url}/api/{job}", json=body, headers=bearer(token), timeout=60)


def test_tokens_file_keeps_hashes_only(memory: tuple[Path, dict[str, str]]) -> None:
    root, tokens = memory
    stored = (root / "tokens.json").read_text()
    assert stat.S_IMODE((root / "tokens.json").stat().st_mode) == 0o600
    assert not any(secret in stored for secret in tokens.values())
    listed = remecli(root, "token", "list", "--json")
    names = {t["name"]: t for t in json.loads(listed.stdout)["tokens"]}
    assert names["notes-reader"]["scope"] == "read"
    assert names["notes-reader"]["paths"] == "memory/**"
    assert "sha256" not in names["reader"]
    again = remecli(root, "token", "add", "reader", "--scope", "read")
    assert again.returncode == 1 and "exists" in again.stderr


def test_http_scopes(served: Surface, memory: tuple[Path, dict[str, str]]) -> None:
    root, tokens = memory
    read = call(served, tokens["reader"], "memory_read", {"path": "MEMORY.md"})
    assert read.status_code == 200 and "stg-7" in read.json()["content"]
    refused = call(
        served, tokens["reader"], "memory_edit", {"path": "MEMORY.md", "old": "stg-7", "new": "x"}
    )
    assert refused.status_code == 403
    assert refused.json()["code"] == "forbidden" and "write" in refused.json()["error"]
    assert "stg-7" in (root / "MEMORY.md").read_text()
    edited = call(
        served,
        tokens["writer"],
        "memory_edit",
        {"path": "MEMORY.md", "old": "stg-7", "new": "stg-8"},
    )
    assert edited.status_code == 200 and "stg-8" in (root / "MEMORY.md").read_text()

    listing = httpx.get(f"{served.url}/api/tokens", headers=bearer(tokens["writer"]))
    assert listing.status_code == 403 and listing.json()["code"] == "forbidden"
    bootstrap = (root / "serve.token").read_text().strip()
    listing = httpx.get(f"{served.url}/api/tokens", headers=bearer(bootstrap))
    assert listing.status_code == 200
    assert {t["name"] for t in listing.json()["tokens"]} >= {"reader", "writer"}
    assert not any(secret in listing.text for secret in tokens.values())
    unknown = call(served, "reme_not-a-token", "memory_read", {"path": "MEMORY.md"})
    assert unknown.status_code == 401


def test_http_paths_confine_reads_and_writes(
    served: Surface, memory: tuple[Path, dict[str, str]]
) -> None:
    _, tokens = memory
    outside = call(served, tokens["notes-reader"], "memory_read", {"path": "MEMORY.md"})
    assert outside.status_code == 403 and "memory/**" in outside.json()["error"]
    inside = call(served, tokens["notes-reader"], "memory_read", {"path": "memory/2025-01-31.md"})
    assert inside.status_code == 200
    hits = call(
        served, tokens["notes-reader"], "memory_search", {"query": "staging host stg deploy"}
    )
    assert hits.status_code == 200
    assert hits.json()["results"] and all(
        h["path"].startswith("memory/") for h in hits.json()["results"]
    )
    listed = call(served, tokens["notes-reader"], "memory_list", {"recursive": True}).json()
    assert listed["entries"] and all(e["path"].startswith("memory/") for e in listed["entries"])
    card = call(
        served,
        tokens["notes-writer"],
        "memory_write_card",
        {"name": "Release train", "description": "when we ship", "content": "Fridays."},
    )
    assert card.status_code == 200 and card.json()["path"].startswith("memory/")
    edit = call(
        served,
        tokens["notes-writer"],
        "memory_edit",
        {"path": "MEMORY.md", "old": "MEMORY", "new": "M"},
    )
    assert edit.status_code == 403
    record = call(
        served,
        tokens["notes-writer"],
        "memory_record",
        {"session_id": "s", "messages": [{"role": "user", "content": "hi"}]},
    )
    assert record.status_code == 403 and "confined" in record.json()["error"]


def write_notes(root: Path, notes: dict[str, str]) -> None:
    for relative, text in notes.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text, encoding="utf-8")


def test_http_a_confined_token_renames_and_deletes_inside_its_paths(
    served: Surface, memory: tuple[Path, dict[str, str]]
) -> None:
    """memory_rename / memory_delete were refused for a --paths token whatever the paths
    (issue 38): now allowed when every note they write is inside the glob."""
    root, tokens = memory
    write_notes(
        root,
        {
            "memory/moves/a.md": "# A\n",
            "memory/moves/b.md": "See [[memory/moves/a.md]].\n",
            "memory/moves/c.md": "# C\n",
            "digest/wiki/uses-c.md": "Also [[memory/moves/c.md]].\n",
        },
    )
    writer = tokens["notes-writer"]
    moved = call(
        served,
        writer,
        "memory_rename",
        {"path": "memory/moves/a.md", "new_path": "memory/moves/z.md"},
    )
    assert moved.status_code == 200, moved.text
    assert moved.json()["rewritten"] == ["memory/moves/b.md"]
    assert "[[memory/moves/z.md]]" in (root / "memory/moves/b.md").read_text()
    linked_from_outside = call(
        served,
        writer,
        "memory_rename",
        {"path": "memory/moves/c.md", "new_path": "memory/moves/y.md"},
    )
    assert linked_from_outside.status_code == 403
    error = linked_from_outside.json()["error"]
    assert "\n" not in error and "'digest/wiki/uses-c.md'" in error and "memory/**" in error
    assert (root / "memory/moves/c.md").is_file()
    assert "[[memory/moves/c.md]]" in (root / "digest/wiki/uses-c.md").read_text()
    out_of_paths = call(
        served, writer, "memory_rename", {"path": "memory/moves/z.md", "new_path": "digest/z.md"}
    )
    assert out_of_paths.status_code == 403 and "'digest/z.md' is outside" in out_of_paths.text
    deleted = call(served, writer, "memory_delete", {"path": "memory/moves/z.md"})
    assert deleted.status_code == 200, deleted.text
    assert not (root / "memory/moves/z.md").exists()
    refused = call(served, writer, "memory_delete", {"path": "digest/wiki/uses-c.md"})
    assert refused.status_code == 403 and (root / "digest/wiki/uses-c.md").is_file()


def test_access_log_says_who_did_what_without_contents(
    served: Surface, memory: tuple[Path, dict[str, str]]
) -> None:
    root, tokens = memory
    secret_text = "the-new-text-never-logged"
    call(
        served,
        tokens["reader"],
        "memory_edit",
        {"path": "MEMORY.md", "old": "x", "new": secret_text},
    )
    call(served, tokens["reader"], "memory_read", {"path": "memory/2025-01-31.md"})
    log_file = root / "logs" / "access.jsonl"
    assert stat.S_IMODE(log_file.stat().st_mode) == 0o600
    assert secret_text not in log_file.read_text()
    shown = remecli(root, "access-log", "--json", "--tail", "2")
    entries = [json.loads(line) for line in shown.stdout.splitlines()]
    assert len(entries) == 2
    refused, read = entries
    assert (refused["who"], refused["operation"], refused["outcome"]) == (
        "reader",
        "memory_edit",
        "forbidden",
    )
    assert refused["paths"] == ["MEMORY.md"] and refused["surface"] == "http"
    assert read["outcome"] == "ok" and read["paths"] == ["memory/2025-01-31.md"]
    human = remecli(root, "access-log", "--tail", "1")
    assert "reader" in human.stdout and "memory_read" in human.stdout


def test_revoked_token_stops_working(served: Surface, memory: tuple[Path, dict[str, str]]) -> None:
    root, tokens = memory
    assert call(served, tokens["temp"], "memory_status", {}).status_code == 200
    assert remecli(root, "token", "revoke", "temp").returncode == 0
    assert call(served, tokens["temp"], "memory_status", {}).status_code == 401
    missing = remecli(root, "token", "revoke", "temp")
    assert missing.returncode == 1 and "no token named 'temp'" in missing.stderr


async def test_mcp_http_scopes_with_the_sdk_client(memory: tuple[Path, dict[str, str]]) -> None:
    root, tokens = memory
    surface = start_surface(["mcp", "--http", "--port", "0", *surface_settings(root, NO_LLM)])
    url = f"{surface.url}/mcp"
    try:

        async def session(token: str):
            http = httpx2.AsyncClient(headers=bearer(token), timeout=60)
            return http, Client(streamable_http_client(url, http_client=http))

        http, client = await session(tokens["reader"])
        async with http, client:
            listed = {tool.name for tool in (await client.list_tools()).tools}
            assert listed == {
                job.name for job in JOBS.served() if job.read_only and job.needs is None
            }
            ok = await client.call_tool("memory_read", {"path": "memory/2025-01-31.md"})
            assert not ok.is_error
            refused = await client.call_tool(
                "memory_edit", {"path": "MEMORY.md", "old": "M", "new": "N"}
            )
            assert refused.is_error and "needs a write token" in refused.content[0].text
        http, client = await session(tokens["notes-reader"])
        async with http, client:
            listed = {tool.name for tool in (await client.list_tools()).tools}
            assert "memory_read" in listed and "memory_vector_list" not in listed
            notes = [str(r.uri) for r in (await client.list_resources()).resources]
            assert notes and all(uri.startswith("remecli://notes/memory/") for uri in notes)
            page = await client.read_resource(notes[0])
            assert page.contents[0].text
            outside = await client.call_tool("memory_read", {"path": "MEMORY.md"})
            assert outside.is_error and "memory/**" in outside.content[0].text
        write_notes(
            root,
            {"memory/mcp/a.md": "# A\n", "memory/mcp/b.md": "[[memory/mcp/a.md]]\n", "d.md": ""},
        )
        write_notes(root, {"digest/wiki/uses-b.md": "[[memory/mcp/b.md]]\n"})
        http, client = await session(tokens["notes-writer"])
        async with http, client:
            listed = {tool.name for tool in (await client.list_tools()).tools}
            assert {"memory_rename", "memory_delete"} <= listed
            moved = await client.call_tool(
                "memory_rename", {"path": "memory/mcp/a.md", "new_path": "memory/mcp/z.md"}
            )
            assert not moved.is_error, moved.content[0].text
            assert "[[memory/mcp/z.md]]" in (root / "memory/mcp/b.md").read_text()
            refused = await client.call_tool("memory_delete", {"path": "d.md"})
            assert refused.is_error and "memory/**" in refused.content[0].text
            outside = await client.call_tool(
                "memory_rename", {"path": "memory/mcp/b.md", "new_path": "memory/mcp/y.md"}
            )
            assert outside.is_error and "'digest/wiki/uses-b.md'" in outside.content[0].text
            deleted = await client.call_tool("memory_delete", {"path": "memory/mcp/z.md"})
            assert not deleted.is_error and not (root / "memory/mcp/z.md").exists()
        http, client = await session(tokens["writer"])
        async with http, client:
            written = await client.call_tool(
                "memory_edit", {"path": "MEMORY.md", "old": "# MEMORY", "new": "# MEMORY (shared)"}
            )
            assert not written.is_error
        logged = [
            json.loads(line) for line in (root / "logs" / "access.jsonl").read_text().splitlines()
        ]
        mcp_calls = {
            (e["who"], e["operation"], e["outcome"]) for e in logged if e["surface"] == "mcp"
        }
        assert ("reader", "memory_edit", "forbidden") in mcp_calls
        assert ("writer", "memory_edit", "ok") in mcp_calls
    finally:
        surface.stop()


def test_path_globs_match_as_documented() -> None:
    from remecli.surfaces.job_policy import folder_may_hold, glob_matches

    assert glob_matches("memory/**", "memory/2025-01-31/deploy.md")
    assert glob_matches("memory/*.md", "memory/2025-01-31.md")
    assert not glob_matches("memory/*.md", "memory/2025-01-31/deploy.md")
    assert not glob_matches("memory/**", "MEMORY.md")
    assert glob_matches("**/*.md", "MEMORY.md") and glob_matches("MEMORY.md", "MEMORY.md")
    assert folder_may_hold("memory/2025-*/**", "memory")
    assert not folder_may_hold("memory/**", "sessions")
