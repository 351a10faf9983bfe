"""A confined token's scope holds on every path a job touches, against a live `remecli serve`
(httpx) and `remecli mcp --http` (the official MCP SDK client): hits' links, the day page a card
rewrites, and the access log listing every file written."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.jobs.conftest import seed
from tests.surfaces.helpers import Surface, start_surface, surface_settings, wait_until_healthy
from tests.surfaces.test_scoped_tokens import NO_LLM, add_token, bearer

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
