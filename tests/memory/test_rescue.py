"""`conversation.rescue` without a full disk: what waits at exit is put aside outside the working
dir and put back exactly once at the next start (a start that dies half-way through putting it
back appends nothing twice); where no folder takes it, the user reads that it is lost."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import pytest
from agentscope.message import Msg

from remecli.conversation.file_memory import FileMemory
from remecli.conversation.rescue import fold_in, put_aside
from remecli.conversation.transcript import Transcript
from tests.memory.conftest import make_settings


def _memory(fake_llm, tmp_path: Path) -> FileMemory:
    return FileMemory(tmp_path / ".reme", settings=make_settings(fake_llm, tmp_path), search=False)


def _waiting(memory: FileMemory) -> list[Msg]:
    """Two messages whose transcript lines and summary record could not be written."""
    from agentscope.message import AssistantMsg, UserMsg

    said = [
        UserMsg(name="user", content="the locker code is tern-4471"),
        AssistantMsg(name="ReMe", content="noted"),
    ]
    transcript = Transcript(memory.layout.transcript_file("s1"), "birds")
    memory.conversation.waiting.records[transcript.path] = [
        Transcript.message_record(m) for m in said
    ]
    memory.conversation.waiting.transcripts[transcript.path] = transcript
    record = {"version": 1, "id": "abc123", "date": "2026-12-07", "session_id": "s1"}
    record["messages"] = [m.model_dump(mode="json") for m in said]
    memory.tasks.waits.unrecorded["abc123"] = (said, None, record)  # type: ignore[assignment]
    return said


async def test_put_aside_at_exit_and_put_back_once_at_the_next_start(fake_llm, tmp_path):
    memory = _memory(fake_llm, tmp_path)
    said = _waiting(memory)
    [line] = put_aside(memory.conversation, memory.tasks.waits)
    assert memory.conversation.waiting.not_saved
    aside = Path(line.split(" saved in ")[1].split(" instead")[0])
    assert aside.is_file() and aside.stat().st_mode & 0o777 == 0o600
    copy = tmp_path / "copy.json"
    shutil.copy(aside, copy)
    notices: list[str] = []
    later = _memory(fake_llm, tmp_path)
    later.conversation.on_notice = lambda notice: notices.append(notice.text)
    await fold_in(later.conversation)
    shutil.copy(copy, aside)  # as if that start died before it removed the file
    await fold_in(later.conversation)
    transcript = later.layout.transcript_file("s1")
    lines = [json.loads(raw) for raw in transcript.read_text(encoding="utf-8").splitlines()]
    assert [r["msg"]["id"] for r in lines] == [m.id for m in said]  # each once
    assert all(r["project"] == "birds" for r in lines)
    pending = json.loads((later.layout.pending_dir / "abc123.json").read_text(encoding="utf-8"))
    assert [m["id"] for m in pending["messages"]] == [m.id for m in said]
    assert not aside.exists()
    assert (
        notices
        == [
            "The 2 message(s) kept in memory while the disk was full are now saved in "
            f"{transcript} and will be summarized into memory."
        ]
        * 2
    )


async def test_nowhere_to_put_it_says_it_is_lost(fake_llm, tmp_path, monkeypatch):
    blocked = tmp_path / "a-file"
    blocked.write_text("", encoding="utf-8")
    monkeypatch.setenv("XDG_STATE_HOME", str(blocked / "state"))
    monkeypatch.setattr(tempfile, "tempdir", str(blocked / "tmp"))
    memory = _memory(fake_llm, tmp_path)
    _waiting(memory)
    lines = put_aside(memory.conversation, memory.tasks.waits)
    assert memory.conversation.waiting.not_saved
    assert "messages could not be recorded for a later summary" in lines[0]
    assert "the 2 message(s) of this conversation kept in memory could not be kept" in lines[1]
    assert str(blocked / "state") in lines[1] and str(blocked / "tmp") in lines[1]


@pytest.mark.parametrize("space_back", [True, False])
async def test_nothing_waiting_puts_nothing_aside(fake_llm, tmp_path, space_back):
    memory = _memory(fake_llm, tmp_path)
    memory.conversation.waiting.saved_text = "Space is back: …" if space_back else ""
    assert put_aside(memory.conversation, memory.tasks.waits) == (
        ["Space is back: …"] if space_back else []
    )
    assert not memory.conversation.waiting.not_saved
