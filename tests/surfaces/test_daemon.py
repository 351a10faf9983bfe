"""`remecli serve` as the memory's daemon: it announces itself in `.serve.json`; `remecli job`
and the Claude Code Stop hook send their work to it (real processes) and fall back to doing it
themselves when no live server is announced."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from remecli.surfaces.daemon import DAEMON_FILE
from tests.jobs.conftest import seed
from tests.surfaces.helpers import Surface, poll, start_surface, surface_settings
from tests.surfaces.test_claude_hook import FIXTURE, HOOK

NO_LLM = "http://127.0.0.1:9/v1"  # nothing here needs the model


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Surface, Path]]:
    root = tmp_path_factory.mktemp("daemon") / ".reme"
    seed(root)
    surface = start_surface(["serve", "--port", "0", *surface_settings(root, NO_LLM)])
    try:
        yield surface, root
    finally:
        surface.stop()


def access_log(root: Path) -> list[dict]:
    path = root / "logs" / "access.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def remecli_job(root: Path, *args: str, env: dict[str, str] | None = None):
    return subprocess.run(
        [sys.executable, "-m", "remecli", "job", *args, *surface_settings(root, NO_LLM)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
    )


def test_serve_announces_itself_privately(served: tuple[Surface, Path]) -> None:
    surface, root = served
    announced = root / DAEMON_FILE
    assert stat.S_IMODE(announced.stat().st_mode) == 0o600
    data = json.loads(announced.read_text(encoding="utf-8"))
    assert data == {"pid": surface.process.pid, "url": surface.url, "read_only": False}
    token = (root / "serve.token").read_text(encoding="utf-8").strip()
    refused = httpx.post(
        f"{surface.url}/api/memory_read",
        json={"path": DAEMON_FILE},
        headers={"Authorization": f"Bearer {token}"},
        timeout=60,
    )
    assert refused.status_code == 403  # a dot file: never read through a job


def test_job_runs_on_the_running_serve(served: tuple[Surface, Path]) -> None:
    _surface, root = served
    written = remecli_job(
        root,
        "memory_write_card",
        "--name",
        "daemon probe",
        "--description",
        "written through serve",
        "--content",
        "The quokka deploy runs on Fridays.",
    )
    assert written.returncode == 0, written.stderr
    assert json.loads(written.stdout)["path"].startswith("memory/")
    found = remecli_job(root, "memory_search", "--query", "quokka")
    assert found.returncode == 0, found.stderr
    assert "quokka" in json.loads(found.stdout)["results"][0]["snippet"]
    calls = [(e["surface"], e["operation"]) for e in access_log(root)]
    assert ("http", "memory_write_card") in calls and ("http", "memory_search") in calls
    refused = remecli_job(root, "memory_read", "--path", "../outside.md")
    assert refused.returncode == 1 and refused.stderr.startswith("remecli: ")


def test_hook_hands_the_transcript_to_serve(served: tuple[Surface, Path], tmp_path: Path) -> None:
    _surface, root = served
    log = tmp_path / "hook.log"
    event = {"session_id": "fast-1", "transcript_path": str(FIXTURE), "cwd": str(tmp_path)}
    finished = subprocess.run(
        [sys.executable, "-S", str(HOOK), f"working_dir={root}"],
        input=json.dumps(event),
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "REMECLI_COMMAND": "false", "REMECLI_HOOK_LOG": str(log)},
    )
    assert finished.returncode == 0 and finished.stdout == "" and finished.stderr == ""
    transcript = root / "sessions" / "claude-fast-1.jsonl"
    poll(lambda: transcript.is_file() and transcript.read_text().count('"role"') == 5, "record")
    assert not log.exists()  # no child was started: the server did the work
    calls = [(e["who"], e["operation"]) for e in access_log(root)]
    assert ("bootstrap", "import") in calls


def test_import_route_needs_an_admin_and_a_transcript(served: tuple[Surface, Path]) -> None:
    surface, root = served
    made = subprocess.run(
        [sys.executable, "-m", "remecli", "token", "add", "w", "--scope", "write"]
        + [f"working_dir={root}"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    admin = (root / "serve.token").read_text(encoding="utf-8").strip()

    def post(token: str, body: dict) -> httpx.Response:
        headers = {"Authorization": f"Bearer {token}"}
        return httpx.post(f"{surface.url}/api/import", json=body, headers=headers, timeout=60)

    assert post(made.stdout.strip(), {"path": str(FIXTURE)}).status_code == 403
    relative = post(admin, {"path": "fixtures/x.jsonl"})
    assert relative.status_code == 400 and relative.json()["code"] == "invalid_params"
    assert post(admin, {"path": "/etc/passwd"}).status_code == 400  # not a transcript file
    assert post(admin, {"path": str(FIXTURE), "extra": 1}).status_code == 400


def test_stale_announcement_falls_back_to_a_local_run(tmp_path: Path) -> None:
    root = tmp_path / ".reme"
    seed(root)
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    (root / DAEMON_FILE).write_text(
        json.dumps({"pid": dead.pid, "url": "http://127.0.0.1:9", "read_only": False})
    )
    found = remecli_job(root, "memory_search", "--query", "stg-7")
    assert found.returncode == 0, found.stderr
    assert "stg-7" in found.stdout


def test_serve_withdraws_its_announcement_when_stopped(tmp_path: Path) -> None:
    root = tmp_path / ".reme"
    seed(root)
    surface = start_surface(["serve", "--port", "0", *surface_settings(root, NO_LLM)])
    poll(lambda: (root / DAEMON_FILE).is_file(), "the announcement")
    assert surface.stop(signal.SIGTERM) == 0
    assert not (root / DAEMON_FILE).exists()
