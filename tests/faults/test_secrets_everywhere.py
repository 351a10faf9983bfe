"""Issue 25.8: a secret typed, read or printed in a conversation never reaches disk.

Real processes against the fake model: a `-p` one-shot (transcript, state file, the search index
and its WAL, MEMORY.md and its history, a bash output too long to show whole, the checkpoint of
a `.env` the bash run saw, the log); the plain REPL (its input history, a pending summary left
by a Ctrl+C during the summary); `remecli import` of a Claude Code transcript; a memory file
edited by hand, then indexed. After each, every file under the working dir is searched for
every secret (`.gz` versions decompressed, SQLite rows read back), and `remecli search` for a
secret finds nothing.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from remecli.config.locations import MEMORY_MD_HEADER
from remecli.knowledge.summary.summarizer import NOTHING_MARKER
from tests.cli_process import fake_llm_settings, run_one_shot, run_remecli
from tests.e2e.test_plain_and_oneshot import Pty, base_args
from tests.fakes.faulty_openai import FaultyOpenAIServer
from tests.faults.secrets import (
    AWS_SECRET,
    DOT_ENV,
    ENV_TOKEN,
    GITHUB_TOKEN,
    LABELLED_PASSWORD,
    OPENAI_KEY,
    SENTENCE_PASSWORD,
    TYPED,
    TYPED_SECRETS,
    secrets_found,
)

pytestmark = pytest.mark.timeout(400)  # real processes on a shared machine


def _search(working_dir: Path, query: str, cwd: Path) -> list[dict]:
    proc = run_remecli(
        "search",
        query,
        "--json",
        f"working_dir={working_dir}",
        "search.embedding.backend=none",
        cwd=cwd,
        timeout=280,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_one_shot_stores_no_secret_anywhere(fake_llm: FaultyOpenAIServer, tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / ".env").write_text(DOT_ENV)
    working_dir = workspace / ".reme"
    memory_md = working_dir / "MEMORY.md"
    fake_llm.add_tool_calls([("bash", {"command": "cat .env"})])
    fake_llm.add_tool_calls([("bash", {"command": "cat .env; seq 1 40000"})])  # cut: kept whole
    fake_llm.add_tool_calls(
        [
            (
                "write",
                {
                    "path": str(memory_md),
                    "content": f"{MEMORY_MD_HEADER}- deploy key {OPENAI_KEY}\n",
                },
            )
        ]
    )
    fake_llm.add_tool_calls(
        [
            (
                "write",
                {
                    "path": str(memory_md),
                    "content": f"{MEMORY_MD_HEADER}- deploy key {OPENAI_KEY}\n"
                    f"- the db password is {SENTENCE_PASSWORD}\n",
                },
            )
        ]
    )
    # the reply repeats a value from the .env without its label, and a typed token
    fake_llm.add_text(f"Saved. Your .env holds {ENV_TOKEN}; CI uses {GITHUB_TOKEN}.")
    fake_llm.set_fallback("ok")
    proc = run_one_shot(
        fake_llm.base_url,
        working_dir,
        TYPED,
        f"tools.workspace={workspace}",
        "tools.approval=never",
        cwd=workspace,
        timeout=280,
    )
    assert proc.returncode == 0, proc.stderr
    assert ENV_TOKEN in proc.stdout  # the live answer is the user's own: shown as it came
    sent = "".join(str(r.body) for r in fake_llm.chat_requests())
    assert OPENAI_KEY in sent  # the live conversation with the user's model is left alone

    assert secrets_found(working_dir) == {}
    transcript = next((working_dir / "sessions").glob("*.jsonl")).read_text()
    assert "[REDACTED:openai_key]" in transcript and "[REDACTED:password]" in transcript
    assert "[REDACTED:secret]" in transcript  # the .env's API_TOKEN, in the bash result
    assert "MAX_TOKENS=4096" in transcript  # not a secret: kept
    assert "the db password is [REDACTED:password]" in memory_md.read_text()
    assert list((working_dir / ".history").rglob("*.gz"))  # the first write was versioned
    (full,) = (working_dir / "tool_result").glob("*.full.txt")  # the long output was kept
    assert "API_TOKEN=[REDACTED:secret]" in full.read_text()
    for secret in (OPENAI_KEY, SENTENCE_PASSWORD, ENV_TOKEN):
        assert _search(working_dir, secret, workspace) == []
    hits = _search(working_dir, "deploy key", workspace)
    assert hits and all(OPENAI_KEY not in json.dumps(hit) for hit in hits)


def test_plain_mode_history_and_a_pending_summary_store_no_secret(
    fake_llm: FaultyOpenAIServer, tmp_path: Path
) -> None:
    fake_llm.add_text("Noted.")
    fake_llm.add_hang(120)  # the summary at exit waits: Ctrl+C leaves it pending
    term = Pty(
        [*base_args(fake_llm, tmp_path), "ui=plain", "search.embedding.backend=none"], tmp_path
    )
    term.read_until("/help for commands", timeout=120)
    term.write(TYPED.replace("\n", " ") + "\r")
    term.read_until("Noted.", timeout=120)
    term.write("/exit\r")
    term.read_until("Saving this conversation", timeout=60)
    working_dir = tmp_path / ".reme"
    pending = working_dir / "sessions" / "pending"
    deadline = time.monotonic() + 30
    while not list(pending.glob("*.json")) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert list(pending.glob("*.json")), "no pending summary record was written"
    term.write("\x03")  # "Ctrl+C to quit now"
    assert term.wait(60) == 0  # a quit as asked, not an interrupt out of the middle of the save
    out = term.output.decode(errors="replace")
    assert "was interrupted; its 2 messages are kept" in out and "remecli: interrupted" not in out

    history = (working_dir / "plain_history").read_text()
    assert "password is [REDACTED:password]" in history  # the line itself was kept
    assert secrets_found(working_dir) == {}
    assert secrets_found(tmp_path, TYPED_SECRETS) == {}


def test_tui_input_history_file_holds_no_secret(tmp_path: Path) -> None:
    from remecli.ui.tui.widgets.chat_input import InputHistory

    path = tmp_path / "input_history.jsonl"
    history = InputHistory(path)
    history.add(TYPED)
    history.add("an ordinary line")
    assert history.entries[-2] == TYPED  # ↑ in this run recalls what was typed
    assert secrets_found(tmp_path) == {}
    again = InputHistory(path)
    assert "[REDACTED:openai_key]" in again.entries[0]
    assert history.forget_conversation() == 2  # /clear still finds the redacted lines
    assert path.read_text() == ""


def test_imported_claude_code_session_stores_no_secret(
    fake_llm: FaultyOpenAIServer, tmp_path: Path
) -> None:
    fake_llm.set_fallback(NOTHING_MARKER)
    entries = [
        {
            "type": "user",
            "uuid": "u1",
            "sessionId": "abc",
            "timestamp": "2026-11-30T10:00:00Z",
            "message": {"role": "user", "content": TYPED},
        },
        {
            "type": "assistant",
            "uuid": "a1",
            "sessionId": "abc",
            "timestamp": "2026-11-30T10:00:05Z",
            "message": {
                "id": "m1",
                "role": "assistant",
                "content": [
                    {"type": "text", "text": f"Set admin password: {LABELLED_PASSWORD}."},
                    {
                        "type": "tool_use",
                        "name": "Bash",
                        "input": {"command": f"aws configure set secret {AWS_SECRET}"},
                    },
                ],
            },
        },
    ]
    source = tmp_path / "claude.jsonl"
    source.write_text("".join(json.dumps(e) + "\n" for e in entries))
    working_dir = tmp_path / ".reme"
    proc = run_remecli(
        "import",
        str(source),
        "--format",
        "claude-code",
        *fake_llm_settings(working_dir, fake_llm.base_url),
        cwd=tmp_path,
        timeout=280,
    )
    assert proc.returncode == 0, proc.stderr
    assert (working_dir / "sessions" / "claude-abc.jsonl").is_file()
    assert secrets_found(working_dir) == {}


def test_a_hand_edited_memory_file_is_indexed_without_its_secret(tmp_path: Path) -> None:
    working_dir = tmp_path / ".reme"
    (working_dir / "memory").mkdir(parents=True)
    note = working_dir / "memory" / "infra.md"
    note.write_text(f"# Infra\n\nThe staging deploy key is {OPENAI_KEY} (rotate monthly).\n")
    proc = run_remecli(
        "reindex", f"working_dir={working_dir}", "search.embedding.backend=none", cwd=tmp_path
    )
    assert proc.returncode == 0, proc.stderr
    found = secrets_found(working_dir / "index")
    assert found == {}, found
    assert _search(working_dir, OPENAI_KEY, tmp_path) == []
    hits = _search(working_dir, "staging deploy", tmp_path)
    assert hits and "[REDACTED:openai_key]" in hits[0]["snippet"]


def test_a_checkpointed_env_file_is_not_copied(
    fake_llm: FaultyOpenAIServer, tmp_path: Path
) -> None:
    """`bash` keeps a baseline of the workspace for /undo: a file with secrets is not in it."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / ".env").write_text(DOT_ENV)
    (workspace / "notes.txt").write_text("ordinary\n")
    fake_llm.add_tool_calls([("bash", {"command": "echo more >> notes.txt; echo X >> .env"})])
    fake_llm.add_text("Done.")
    fake_llm.set_fallback("ok")
    proc = run_one_shot(
        fake_llm.base_url,
        workspace / ".reme",
        "append",
        f"tools.workspace={workspace}",
        "tools.approval=never",
        cwd=workspace,
        timeout=280,
    )
    assert proc.returncode == 0, proc.stderr
    objects = [
        p.read_bytes() for p in (workspace / ".reme" / "checkpoints").rglob("*") if p.is_file()
    ]
    assert b"ordinary\n" in objects  # ordinary files are still kept for /undo
    assert secrets_found(workspace / ".reme") == {}
