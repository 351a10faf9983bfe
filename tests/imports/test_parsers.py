"""The importers on realistic transcripts built from the public formats."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from remecli.knowledge.imports import detect_format, read_conversation
from remecli.knowledge.imports.detect import UnknownFormat

FIXTURES = Path(__file__).parent / "fixtures"
CLAUDE = FIXTURES / "claude_code_midnight.jsonl"
CODEX_HOME = FIXTURES / "codex_home" / "sessions"
CODEX = next(CODEX_HOME.glob("2025/06/30/*.jsonl"))
CODEX_OLD = next(CODEX_HOME.glob("2025/04/02/*.jsonl"))


def local_day(stamp: str) -> str:
    return f"{dt.datetime.fromisoformat(stamp).astimezone():%Y-%m-%d}"


def test_claude_code_split_reply_is_merged_in_order() -> None:
    conversation = read_conversation(CLAUDE)
    reply = next(m for m in conversation.messages if m.id == "msg_01SPLIT")
    assert reply.content.splitlines() == [
        "Part one: the nightly rotation job replaces the key at 23:00 UTC.",
        '[tool Bash: {"command": "crontab -l"}]',
        "Part two: the service caches the old key until it restarts.",
    ]
    assert reply.timestamp == "2025-03-14T23:58:13+00:00"  # the first part's time


def test_claude_code_noise_is_dropped() -> None:
    conversation = read_conversation(CLAUDE)
    assert conversation.format == "claude-code"
    assert conversation.session_id == "claude-7c9e6679-7425-40de-944b-e07fc1f90ae7"
    assert [m.role for m in conversation.messages] == ["user", "assistant", "user", "assistant"]
    text = "\n".join(m.content for m in conversation.messages)
    for noise in (
        "Request interrupted",
        "<bash-",
        "systemctl status",
        "API Error",
        "Overloaded",
        "continued from a previous conversation",
        "200 lines of cron output",  # a tool result
        "Check the cron schedule",  # thinking
    ):
        assert noise not in text, noise


def test_claude_code_keeps_each_message_time_across_midnight() -> None:
    conversation = read_conversation(CLAUDE)
    stamps = [m.timestamp for m in conversation.messages]
    assert stamps == [
        "2025-03-14T23:58:10+00:00",
        "2025-03-14T23:58:13+00:00",
        "2025-03-15T00:02:00+00:00",
        "2025-03-15T00:02:10+00:00",
    ]
    assert conversation.days() == sorted({local_day(s) for s in stamps if s})


def test_codex_rollout_keeps_the_conversation() -> None:
    conversation = read_conversation(CODEX)
    assert conversation.format == "codex"
    assert conversation.session_id == "codex-0199a3f2-5c1e-7d40-b8a2-3e9f1c6d2a47"
    roles = [m.role for m in conversation.messages]
    assert roles == ["user", "assistant", "assistant", "assistant", "user", "assistant"]
    text = "\n".join(m.content for m in conversation.messages)
    assert text.count("Why does plan time out?") == 1  # event_msg repeats are not messages
    for noise in ("AGENTS.md", "environment_context", "Inspecting backend", "80 more lines"):
        assert noise not in text, noise
    assert conversation.messages[1].content.startswith('[tool shell: {"command": ["bash"')
    assert conversation.messages[2].content.startswith("[tool apply_patch: *** Begin Patch")
    assert conversation.messages[0].timestamp == "2025-06-30T23:55:09.400000+00:00"
    assert conversation.messages[-1].timestamp == "2025-07-01T00:04:45+00:00"


def test_codex_older_rollout_layout() -> None:
    conversation = read_conversation(CODEX_OLD)
    assert conversation.session_id == "codex-5973b6c0-94b8-487b-a530-2aeb6098ae0e"
    assert [m.content for m in conversation.messages] == [
        "Add a lint script to package.json.",
        '[tool shell: {"command": ["bash", "-lc", "cat package.json"]}]',
        'Added "lint": "eslint ." to package.json.',
    ]
    assert {m.timestamp for m in conversation.messages} == {"2025-04-02T09:15:00+00:00"}


def test_openai_messages_both_shapes() -> None:
    chat = read_conversation(FIXTURES / "openai_chat.json")
    assert chat.format == "openai" and chat.session_id.startswith("openai-openai_chat-")
    assert [m.role for m in chat.messages] == ["user", "assistant", "assistant"]
    assert chat.messages[1].content == '[tool search_docs: {"query": "failed payouts"}]'
    assert chat.messages[0].timestamp == "2025-04-01T22:00:00+00:00"  # epoch `created`
    text = "\n".join(m.content for m in chat.messages)
    assert "helpful support assistant" not in text and "moved to the review queue" not in text
    plain = read_conversation(FIXTURES / "openai_list.json", session_id="support-42")
    assert plain.session_id == "support-42" and len(plain.messages) == 2
    again = read_conversation(FIXTURES / "openai_chat.json")
    assert again.session_id == chat.session_id  # the same file, the same transcript


def test_format_detection(tmp_path: Path) -> None:
    assert detect_format(CLAUDE) == "claude-code"
    assert detect_format(CODEX) == detect_format(CODEX_OLD) == "codex"
    assert detect_format(FIXTURES / "openai_list.json") == "openai"
    other = tmp_path / "notes.jsonl"
    other.write_text('{"level": "info", "msg": "started"}\n', encoding="utf-8")
    with pytest.raises(UnknownFormat, match="--format claude-code"):
        detect_format(other)
    bad = tmp_path / "x.json"
    bad.write_text('{"data": 1}', encoding="utf-8")
    with pytest.raises(UnknownFormat, match="role"):
        detect_format(bad)
