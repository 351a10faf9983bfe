"""The Claude Code Stop hook: parses a recorded transcript and feeds memory_record, detached."""

from __future__ import annotations

import datetime as dt
import importlib.util
import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

from remecli.conversation.transcript import Transcript
from remecli.knowledge.imports.claude_code import read_claude_code
from tests.jobs.conftest import seed
from tests.surfaces.helpers import poll, surface_settings

ROOT = Path(__file__).resolve().parents[2]
HOOK = ROOT / "integrations" / "claude-code" / "remecli_stop_hook.py"
FIXTURE = Path(__file__).parent / "fixtures" / "claude_code_session.jsonl"
SESSION = "5f1c2d3e-aaaa-4bbb-8ccc-123456789abc"


def load_hook():
    spec = importlib.util.spec_from_file_location("remecli_stop_hook", HOOK)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_transcript_parsing_drops_tool_noise() -> None:
    conversation = read_claude_code(FIXTURE)
    messages = conversation.records()
    assert conversation.session_id == f"claude-{SESSION}"
    assert [m["role"] for m in messages] == ["user", "assistant", "assistant", "user", "assistant"]
    text = "\n".join(m["content"] for m in messages)
    assert "400 more lines" not in text  # tool results dropped
    assert "Let me look at the script" not in text  # thinking dropped
    assert "Warmup" not in text and "/clear" not in text  # sidechain and meta lines dropped
    assert "[tool Read:" in text  # a tool call leaves a one-line note
    assert messages[0]["id"] == "a0000000-0000-4000-8000-000000000002"
    assert messages[1]["id"] == "msg_01AAA"  # one reply split over lines keeps one id
    assert messages[-1]["content"].startswith("Noted: uploads/ on stg-7 is never deleted")


def test_hook_child_runs_remecli_import(monkeypatch) -> None:
    monkeypatch.setenv("REMECLI_COMMAND", "uvx remecli")
    monkeypatch.setenv("REMECLI_ARGS", "config=cli")
    command = load_hook().import_command(SESSION, FIXTURE, ["working_dir=/tmp/m"])
    assert command == [
        "uvx",
        "remecli",
        "import",
        str(FIXTURE),
        "--format",
        "claude-code",
        "--session-id",
        f"claude-{SESSION}",
        "--json",
        "config=cli",
        "working_dir=/tmp/m",
    ]


def run_hook(transcript: Path, settings: list[str], log: Path) -> subprocess.CompletedProcess:
    event = {
        "session_id": SESSION,
        "transcript_path": str(transcript),
        "cwd": "/home/dev/shop",
        "hook_event_name": "Stop",
        "stop_hook_active": False,
    }
    env = {
        **os.environ,
        "REMECLI_COMMAND": f"{shlex.quote(sys.executable)} -m remecli",
        "REMECLI_HOOK_LOG": str(log),
    }
    return subprocess.run(
        [sys.executable, str(HOOK), *settings],
        input=json.dumps(event),
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )


def test_hook_records_and_summarizes_in_the_background(
    tmp_path: Path, fake_llm, memory_model
) -> None:
    working_dir = tmp_path / ".reme"
    seed(working_dir)
    settings = surface_settings(working_dir, fake_llm.base_url)
    log = tmp_path / "hook.log"
    finished = run_hook(FIXTURE, settings, log)
    assert finished.returncode == 0 and finished.stdout == ""
    transcript = working_dir / "sessions" / f"claude-{SESSION}.jsonl"
    daily = working_dir / "memory" / f"{dt.date.today():%Y-%m-%d}.md"
    wanted = "said: Good. Remember that uploads/ must never be deleted on stg-7."
    poll(lambda: daily.is_file() and wanted in daily.read_text(encoding="utf-8"), "the summary", 90)
    assert len(Transcript(transcript).read().messages) == 5
    # the next stop sends the same transcript again: nothing is stored twice
    summaries = memory_model.summaries
    poll(lambda: '"recorded": 5' in log.read_text(encoding="utf-8"), "the first child's answer")
    assert run_hook(FIXTURE, settings, log).returncode == 0
    poll(lambda: '"skipped": 5' in log.read_text(encoding="utf-8"), "the second child's answer", 90)
    assert len(Transcript(transcript).read().messages) == 5 and memory_model.summaries == summaries


def test_hook_never_fails_the_session_on_bad_input(tmp_path: Path) -> None:
    broken = subprocess.run(
        [sys.executable, str(HOOK)], input="not json", capture_output=True, text=True, timeout=30
    )
    assert broken.returncode == 0 and "hook JSON" in broken.stderr
    missing = run_hook(tmp_path / "gone.jsonl", [], tmp_path / "hook.log")
    assert missing.returncode == 0 and not (tmp_path / "hook.log").exists()
