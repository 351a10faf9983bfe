"""`remecli job NAME --param value …` as a real process (the same registry as MCP and HTTP)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.jobs.conftest import seed
from tests.surfaces.helpers import surface_settings


def remecli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "remecli", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
    )


def test_job_list_help_and_calls(tmp_path: Path, fake_llm) -> None:
    root = tmp_path / ".reme"
    seed(root)
    settings = surface_settings(root, fake_llm.base_url)
    listing = remecli("job", cwd=tmp_path)
    assert listing.returncode == 0 and "memory_search --query" in listing.stderr
    helped = remecli("job", "memory_read", "--help", cwd=tmp_path)
    assert helped.returncode == 0 and "--start-line" in helped.stdout
    read = remecli(
        "job", "memory_read", "--path", "MEMORY.md", "--start-line", "3", *settings, cwd=tmp_path
    )
    assert read.returncode == 0, read.stderr
    assert json.loads(read.stdout)["content"] == "- The staging host is stg-7.\n"
    found = remecli(
        "job",
        "memory_search",
        "--query=make ship",
        "--since",
        "2025-01-01",
        *settings,
        cwd=tmp_path,
    )
    assert [h["path"] for h in json.loads(found.stdout)["results"]] == ["memory/2025-01-31.md"]
    (tmp_path / "messages.json").write_text(
        json.dumps([{"role": "user", "content": "hi", "id": "x1"}])
    )
    recorded = remecli(
        "job",
        "memory_record",
        "--session-id",
        "cli-1",
        "--messages",
        "@messages.json",
        *settings,
        "memory.summarize=false",
        cwd=tmp_path,
    )
    assert recorded.returncode == 0, recorded.stderr
    assert json.loads(recorded.stdout)["recorded"] == 1


def test_job_errors_are_one_line(tmp_path: Path) -> None:
    root = tmp_path / ".reme"
    seed(root)
    settings = [f"working_dir={root}", "search.embedding.backend=none"]
    outside = remecli("job", "memory_read", "--path", "/etc/passwd", *settings, cwd=tmp_path)
    assert outside.returncode == 1 and outside.stdout == ""
    assert outside.stderr.count("\n") == 1 and "relative to the working dir" in outside.stderr
    unknown = remecli("job", "memory_nope", cwd=tmp_path)
    assert unknown.returncode == 2 and "known jobs" in unknown.stderr
    typo = remecli("job", "memory_read", "--pth", "x", *settings, cwd=tmp_path)
    assert typo.returncode == 2 and "--path" in typo.stderr
