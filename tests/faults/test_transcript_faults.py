"""The transcript survives crashes and a full disk: whole records, torn tails isolated."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from pathlib import Path

from agentscope.message import AssistantMsg, UserMsg

from remecli.conversation.transcript import Transcript
from tests.agent.conftest import collect


def _lines(path: Path) -> list[bytes]:
    return path.read_bytes().split(b"\n")


def test_a_torn_tail_never_glues_onto_the_next_record(tmp_path: Path) -> None:
    transcript = Transcript(tmp_path / "s.jsonl")
    transcript.append([Transcript.message_record(UserMsg(name="user", content="one"))])
    with open(transcript.path, "ab") as out:
        out.write(b'{"t": "msg", "at": "x", "msg": {"na')  # a crash mid-record
    transcript.append([Transcript.message_record(UserMsg(name="user", content="two"))])
    data = transcript.read()
    assert [m.get_text_content() for m in data.messages] == ["one", "two"]
    assert data.skipped_lines == 1 and not data.torn_tail
    assert transcript.path.read_bytes().endswith(b"\n")


def test_last_line_cut_inside_a_multibyte_character_is_skipped_and_named(
    tmp_path: Path, caplog
) -> None:
    transcript = Transcript(tmp_path / "s.jsonl")
    transcript.append([Transcript.message_record(UserMsg(name="user", content="早上好"))])
    record = json.dumps(
        Transcript.message_record(AssistantMsg(name="R", content="你好世界")), ensure_ascii=False
    )
    data = record.encode("utf-8", errors="strict")
    cut = data.index("世".encode()) + 1  # inside the 3-byte character
    with open(transcript.path, "ab") as out:
        out.write(data[:cut])
    with caplog.at_level(logging.WARNING):
        read = transcript.read()
    assert [m.get_text_content() for m in read.messages] == ["早上好"]
    assert read.torn_tail and read.skipped_lines == 1
    assert str(transcript.path) in caplog.text


def test_a_record_agentscope_rejects_is_skipped(tmp_path: Path) -> None:
    transcript = Transcript(tmp_path / "s.jsonl")
    transcript.path.write_text('{"t": "msg", "msg": {"role": "nobody"}}\n')
    transcript.append([Transcript.message_record(UserMsg(name="user", content="ok"))])
    read = transcript.read()
    assert [m.get_text_content() for m in read.messages] == ["ok"] and read.skipped_lines == 1


_DISK_FULL = r"""
import resource, signal, sys
from agentscope.message import UserMsg
from remecli.conversation.transcript import Transcript

signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a full file system: write() fails, no signal
transcript = Transcript(sys.argv[1])
transcript.append([Transcript.message_record(UserMsg(name="user", content="fits"))])
size = transcript.path.stat().st_size
resource.setrlimit(resource.RLIMIT_FSIZE, (size + 100, size + 100))
try:
    transcript.append([Transcript.message_record(UserMsg(name="user", content="x" * 5000))])
except OSError as exc:
    print("failed", exc.errno)
"""


def test_disk_full_leaves_no_half_record(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    proc = subprocess.run(
        [sys.executable, "-c", _DISK_FULL, str(path)], capture_output=True, text=True, timeout=60
    )
    assert proc.stdout.startswith("failed"), proc.stderr
    assert path.read_bytes().endswith(b"\n") and len(_lines(path)) == 2  # one record + ''
    transcript = Transcript(path)
    transcript.append([Transcript.message_record(UserMsg(name="user", content="later"))])
    read = transcript.read()
    assert [m.get_text_content() for m in read.messages] == ["fits", "later"]
    assert read.skipped_lines == 0


async def test_a_torn_session_file_does_not_block_the_next_start(
    assistant_factory, fake_llm, tmp_path: Path
) -> None:
    sessions = tmp_path / ".reme" / "sessions"
    sessions.mkdir(parents=True)
    record = json.dumps(
        Transcript.message_record(UserMsg(name="user", content="über")), ensure_ascii=False
    )
    (sessions / "old.jsonl").write_bytes(record.encode()[: record.encode().index(b"\xc3") + 1])
    fake_llm.add_text("fine")
    events = await collect(assistant_factory(), "hello")
    assert not [e for e in events if type(e).__name__ == "ErrorReport"], events
    assert fake_llm.violations == []
