"""What the summarizer is shown: a readable transcript and the prompt in the chosen language."""

from __future__ import annotations

import datetime as dt

from remecli.knowledge.summary.summarizer import NOTHING_MARKER, Summarizer, chunk_transcripts
from remecli.llm.tokens import get_token_counter
from tests.memory_summary.conftest import DAY, make_settings, user


def tool_turn(hhmm: str, output: str):
    from agentscope.message import AssistantMsg, TextBlock, ToolCallBlock, ToolResultBlock

    blocks = [
        TextBlock(text="Let me look."),
        ToolCallBlock(id="c1", name="bash", input='{"command": "ls -la /srv/app"}'),
        ToolResultBlock(id="c1", name="bash", output=output, state="success"),
    ]
    return AssistantMsg(name="ReMe", content=blocks, created_at=f"{DAY.isoformat()}T{hhmm}:00")


def test_transcript_has_roles_times_and_clipped_tools():
    long_output = "line\n" * 2_000
    next_day = DAY + dt.timedelta(days=1)
    messages = [
        user("what is in /srv/app?", "23:58"),
        tool_turn("23:59", long_output),
        user("thanks", "00:01", next_day),
    ]
    [text] = chunk_transcripts(messages, get_token_counter(), budget=100_000)  # what it is shown
    lines = text.splitlines()
    assert lines[0] == "### 2025-01-31"
    assert lines[1] == "[23:58] user: what is in /srv/app?"
    assert lines[2] == "[23:59] assistant: Let me look."
    assert lines[3] == '    → tool call bash({"command": "ls -la /srv/app"})'
    assert lines[4].startswith("    ← bash result [success]: line")
    assert "chars omitted" in lines[4]
    assert len(lines[4]) < len(long_output) / 5
    assert lines[5:] == ["### 2025-02-01", "[00:01] user: thanks"]


def test_prompts_in_both_languages(fake_llm, tmp_path, working_dir):
    for language, marker in (("", "today's log file"), ("zh", "每日记忆日志")):
        settings = make_settings(fake_llm, tmp_path, language=language)
        system, message = Summarizer(settings, working_dir)._prompts(
            "[10:00] user: {date}", "memory/2025-01-31.md", DAY
        )
        assert marker in system
        assert NOTHING_MARKER in system and "`# 2025-01-31`" in system
        assert "{" not in system
        assert message.endswith("[10:00] user: {date}")  # braces in the conversation stay as is
