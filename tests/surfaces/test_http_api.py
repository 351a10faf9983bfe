"""`remecli serve` as a real uvicorn process on 127.0.0.1, called with a real HTTP client."""

from __future__ import annotations

import datetime as dt
import os
import stat
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from remecli.knowledge.background.tasks import pending_dir_of
from remecli.notes.layout import WorkingDir
from tests.jobs.conftest import seed
from tests.surfaces.helpers import (
    Surface,
    poll,
    start_surface,
    surface_settings,
    wait_until_healthy,
)


@pytest.fixture
def working_dir(tmp_path: Path) -> Path:
    root = tmp_path / ".reme"
    seed(root)
    return root


@pytest.fixture
def served(working_dir: Path, fake_llm, memory_model) -> Iterator[Surface]:
    surface = start_surface(
        ["serve", "--port", "0", *surface_settings(working_dir, fake_llm.base_url)]
    )
    wait_until_healthy(surface.url)
    try:
        yield surface
    finally:
        surface.stop()


def auth(working_dir: Path) -> dict[str, str]:
    return {"Authorization": f"Bearer {(working_dir / 'serve.token').read_text().strip()}"}


def test_token_file_is_private_and_required(served: Surface, working_dir: Path) -> None:
    token_file = working_dir / "serve.token"
    assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
    health = httpx.get(f"{served.url}/api/health")
    assert health.status_code == 200 and health.json()["status"] == "ok"
    body = {"query": "deploy"}
    missing = httpx.post(f"{served.url}/api/memory_search", json=body)
    assert missing.status_code == 401 and "serve.token" in missing.json()["error"]
    assert missing.headers["www-authenticate"] == "Bearer"
    wrong = httpx.post(
        f"{served.url}/api/memory_search", json=body, headers={"Authorization": "Bearer nope"}
    )
    assert wrong.status_code == 401
    ok = httpx.post(f"{served.url}/api/memory_search", json=body, headers=auth(working_dir))
    assert ok.status_code == 200
    assert ok.json()["results"][0]["path"].startswith("memory/")
    docs = httpx.get(f"{served.url}/api/openapi.json").json()
    assert {"/api/memory_search", "/api/memory_record", "/api/health"} <= set(docs["paths"])
    assert httpx.get(f"{served.url}/api/docs").status_code == 200


def test_paths_are_confined(served: Surface, working_dir: Path, tmp_path: Path) -> None:
    (tmp_path / "secret.md").write_text("top secret\n")
    (working_dir / "memory" / "out.md").symlink_to(tmp_path / "secret.md")
    headers = auth(working_dir)

    def read(path: str) -> httpx.Response:
        return httpx.post(f"{served.url}/api/memory_read", json={"path": path}, headers=headers)

    assert read("../secret.md").status_code == 400
    assert read(str(tmp_path / "secret.md")).status_code == 400
    refused = read("memory/out.md")
    assert refused.status_code == 403 and "outside the working dir" in refused.json()["error"]
    assert read("serve.token").status_code == 403
    edit = httpx.post(
        f"{served.url}/api/memory_edit",
        json={"path": "memory/out.md", "old": "top", "new": "no"},
        headers=headers,
    )
    assert edit.status_code == 403 and (tmp_path / "secret.md").read_text() == "top secret\n"
    bad = httpx.post(f"{served.url}/api/memory_read", json={"paht": "MEMORY.md"}, headers=headers)
    assert bad.status_code == 400 and "paht" in bad.json()["error"]
    huge = httpx.post(
        f"{served.url}/api/memory_search", json={"query": "x" * 2_000_000}, headers=headers
    )
    assert huge.status_code == 413


def test_concurrent_writers_lose_no_update(served: Surface, working_dir: Path) -> None:
    (working_dir / "memory" / "list.md").write_text("# list\n<!-- end -->\n", encoding="utf-8")
    headers = auth(working_dir)
    failures: list[str] = []

    def writer(first: int) -> None:
        with httpx.Client(base_url=served.url, headers=headers, timeout=60) as client:
            for i in range(first, first + 5):
                answer = client.post(
                    "/api/memory_edit",
                    json={
                        "path": "memory/list.md",
                        "old": "<!-- end -->",
                        "new": f"- item {i}\n<!-- end -->",
                    },
                )
                if answer.status_code != 200:
                    failures.append(answer.text)

    threads = [threading.Thread(target=writer, args=(n * 5,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    text = (working_dir / "memory" / "list.md").read_text(encoding="utf-8")
    items = sorted(int(line.split()[-1]) for line in text.splitlines() if line.startswith("- item"))
    assert items == list(range(40))


def test_record_then_sigterm_flushes_the_summary(
    served: Surface, working_dir: Path, fake_llm
) -> None:
    messages = [
        {"role": "user", "content": "Invoices are sent on the 3rd of each month.", "id": "m1"}
    ]
    answer = httpx.post(
        f"{served.url}/api/memory_record",
        json={"session_id": "gen-1", "messages": messages},
        headers=auth(working_dir),
    )
    assert answer.status_code == 200 and answer.json()["recorded"] == 1
    # the summary is under way (its first model call loads the agent runtime: slow under load)
    fake_llm.wait_for_requests(1, timeout=60, path="/v1/chat/completions")
    assert served.stop() == 0
    daily = working_dir / "memory" / f"{dt.date.today():%Y-%m-%d}.md"
    assert "said: Invoices are sent on the 3rd of each month." in daily.read_text(encoding="utf-8")
    assert list(pending_dir_of(WorkingDir(working_dir)).glob("*.json")) == []
    assert (working_dir / "sessions" / "gen-1.jsonl").is_file()


def test_read_only_token_env_and_cors(working_dir: Path, fake_llm) -> None:
    surface = start_surface(
        [
            "serve",
            "--port",
            "0",
            "--read-only",
            "--cors",
            "http://localhost:3000",
            *surface_settings(working_dir, fake_llm.base_url),
        ],
        env={"REME_SERVE_TOKEN": "from-env-123"},
    )
    try:
        wait_until_healthy(surface.url)
        headers = {"Authorization": "Bearer from-env-123"}
        assert not (working_dir / "serve.token").exists()
        edit = httpx.post(
            f"{surface.url}/api/memory_edit",
            json={"path": "MEMORY.md", "old": "stg-7", "new": "x"},
            headers=headers,
        )
        assert edit.status_code == 403 and "--read-only" in edit.json()["error"]
        assert "stg-7" in (working_dir / "MEMORY.md").read_text()
        read = httpx.post(
            f"{surface.url}/api/memory_read", json={"path": "MEMORY.md"}, headers=headers
        )
        assert read.status_code == 200
        preflight = {"Origin": "http://localhost:3000", "Access-Control-Request-Method": "POST"}
        allowed = httpx.options(f"{surface.url}/api/memory_read", headers=preflight)
        assert allowed.headers.get("access-control-allow-origin") == "http://localhost:3000"
        other = {**preflight, "Origin": "http://evil.example"}
        assert (
            "access-control-allow-origin"
            not in httpx.options(f"{surface.url}/api/memory_read", headers=other).headers
        )
    finally:
        surface.stop()


def test_no_cors_by_default(served: Surface, working_dir: Path) -> None:
    answer = httpx.post(
        f"{served.url}/api/memory_status",
        headers={**auth(working_dir), "Origin": "http://evil.example"},
    )
    assert answer.status_code == 200 and "access-control-allow-origin" not in answer.headers
    assert os.access(working_dir / "serve.token", os.R_OK)


def test_token_survives_restart(working_dir: Path, fake_llm) -> None:
    args = ["serve", "--port", "0", *surface_settings(working_dir, fake_llm.base_url)]
    first = start_surface(args)
    first.stop()
    token = (working_dir / "serve.token").read_text()
    second = start_surface(args)
    try:
        wait_until_healthy(second.url)
        assert (working_dir / "serve.token").read_text() == token
        ok = httpx.post(f"{second.url}/api/memory_status", headers=auth(working_dir))
        assert ok.status_code == 200
        poll(lambda: ok.json()["working_dir"] == str(working_dir), "status")
    finally:
        second.stop()
