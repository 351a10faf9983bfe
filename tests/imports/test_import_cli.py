"""`remecli import` as a real process against the scripted fake OpenAI server."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from remecli.conversation.transcript import Transcript
from tests.cli_process import fake_llm_settings, run_remecli
from tests.imports.dated_model import DatedSummarizer

FIXTURES = Path(__file__).parent / "fixtures"
SECRETS = (
    "AKIAZ7QX4M2LBN6PK3TD",
    "sk-proj-4fQ9xT2mLp8Rz1KcW7vN3bYd6HsJ0eGuA5iO",
    "x9Yz8WvU7tS6rQ5pO4nM3lK2",
)
CODEX_ID = "codex-0199a3f2-5c1e-7d40-b8a2-3e9f1c6d2a47"


@pytest.mark.timeout(600)  # two real imports with summaries, on a shared machine
def test_import_a_folder_of_codex_claude_and_openai_files(tmp_path: Path, fake_llm) -> None:
    model = DatedSummarizer()
    fake_llm.set_fallback(model)
    working_dir = tmp_path / ".reme"
    settings = fake_llm_settings(working_dir, fake_llm.base_url)
    inbox = tmp_path / "inbox"
    shutil.copytree(FIXTURES / "codex_home" / "sessions", inbox / "codex")
    shutil.copy(FIXTURES / "claude_code_midnight.jsonl", inbox / "claude.jsonl")
    shutil.copy(FIXTURES / "openai_chat.json", inbox / "chat.json")
    (inbox / "notes.json").write_text('{"not": "messages"}', encoding="utf-8")

    first = run_remecli("import", str(inbox), "--json", *settings, cwd=tmp_path, timeout=300)
    assert first.returncode == 0, first.stderr
    assert "skipped" in first.stderr and "notes.json" in first.stderr
    results = {r["session_id"]: r for r in json.loads(first.stdout)}
    assert results[CODEX_ID]["recorded"] == 6 and results[CODEX_ID]["format"] == "codex"
    assert results[CODEX_ID]["transcript"] == f"sessions/{CODEX_ID}.jsonl"
    assert results["codex-5973b6c0-94b8-487b-a530-2aeb6098ae0e"]["first_day"] == "2025-04-02"
    claude = results["claude-7c9e6679-7425-40de-944b-e07fc1f90ae7"]
    assert claude["recorded"] == 4 and claude["format"] == "claude-code"
    assert sorted(r["format"] for r in results.values()) == [
        "claude-code",
        "codex",
        "codex",
        "openai",
    ]
    stored = Transcript(working_dir / "sessions" / f"{CODEX_ID}.jsonl").read().messages
    assert [m.role for m in stored] == [
        "user",
        "assistant",
        "assistant",
        "assistant",
        "user",
        "assistant",
    ]
    codex_text = (working_dir / "sessions" / f"{CODEX_ID}.jsonl").read_text(encoding="utf-8")
    assert "[REDACTED:aws_access_key]" in codex_text

    again = run_remecli("import", str(inbox), *settings, cwd=tmp_path, timeout=300)
    assert again.returncode == 0 and again.stdout.count(" 0 new, ") == 4, again.stdout
    # summaries are dated by the conversations, and no secret is anywhere on disk
    assert {"2025-04-02", claude["first_day"]} <= set(model.days)
    for path in working_dir.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            assert not any(secret.encode() in data for secret in SECRETS), path


def test_import_says_what_to_do(tmp_path: Path) -> None:
    unknown = tmp_path / "log.jsonl"
    unknown.write_text('{"level": "info"}\n', encoding="utf-8")
    settings = [f"working_dir={tmp_path / '.reme'}"]
    refused = run_remecli("import", str(unknown), *settings, cwd=tmp_path)
    assert refused.returncode == 1 and "--format claude-code|codex|openai" in refused.stderr
    missing = run_remecli("import", str(tmp_path / "gone"), *settings, cwd=tmp_path)
    assert missing.returncode == 2 and "no such file or folder" in missing.stderr
    folder = run_remecli("import", str(tmp_path), "--session-id", "x", *settings, cwd=tmp_path)
    assert folder.returncode == 2 and "give a file, not a folder" in folder.stderr
