"""Transcripts as a source: what is indexed, exact JSONL line ranges, appends, the watcher."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from agentscope.message import (
    Base64Source,
    DataBlock,
    Msg,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
)

from remecli.conversation.transcript import Transcript
from remecli.search import MemoryIndex, SearchRequest
from remecli.search.transcripts import ReadState, chunk_turns, read_turns
from tests.search.helpers import settings

PNG_BASE64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk" * 8


def _user(text: str) -> Msg:
    return Msg(name="user", role="user", content=[TextBlock(text=text)])


def _assistant(*blocks) -> Msg:
    return Msg(name="ReMe", role="assistant", content=list(blocks))


def write_session(working_dir: Path, session_id: str, records: list[dict]) -> Path:
    """A transcript written by the app's own Transcript class."""
    transcript = Transcript(working_dir / "sessions" / f"{session_id}.jsonl")
    transcript.append(records)
    return transcript.path


def _records() -> list[dict]:
    reply = _assistant(
        ThinkingBlock(thinking="the user wants the gazebo colour"),
        TextBlock(text="Let me check the notes."),
        ToolCallBlock(id="c1", name="bash", input='{"command": "cat colours.txt"}'),
        ToolResultBlock(id="c1", name="bash", output="zanzibar-output-token", state="success"),
    )
    return [
        Transcript.message_record(_user("We painted the gazebo teal last spring.")),
        Transcript.message_record(reply),
        Transcript.blocks_record(reply.id, [TextBlock(text="The gazebo is teal.")]),
        Transcript.message_record(
            Msg(
                name="user",
                role="user",
                content=[
                    TextBlock(text=f"Here is a photo data:image/png;base64,{PNG_BASE64} of it"),
                    DataBlock(source=Base64Source(data=PNG_BASE64, media_type="image/png")),
                ],
            )
        ),
        Transcript.checkpoint_record("## Goal\n- summary words", {}),
        Transcript.removed_record([reply.id]),
    ]


def test_reader_keeps_spoken_text_and_leaves_tool_output_and_base64_out(tmp_path: Path) -> None:
    path = write_session(tmp_path, "s1", _records())
    lines = path.read_text(encoding="utf-8").splitlines()
    turns = read_turns(lines, 1, ReadState())
    assert [(t.line, t.speaker) for t in turns] == [
        (1, "user"),
        (2, "ReMe"),
        (3, "ReMe"),
        (4, "user"),
    ]
    assert turns[1].text == "Let me check the notes."
    assert turns[2].text == "The gazebo is teal."
    assert turns[3].text == "Here is a photo [base64 omitted] of it"
    everything = " ".join(t.text for t in turns)
    for left_out in ("zanzibar", "cat colours", "the user wants", PNG_BASE64[:20], "summary words"):
        assert left_out not in everything


def test_chunks_are_consecutive_turns_with_exact_line_ranges(tmp_path: Path) -> None:
    records = [
        Transcript.message_record(_user(f"turn number {k} " + "word " * 30)) for k in range(9)
    ]
    path = write_session(tmp_path, "s2", records)
    turns = read_turns(path.read_text(encoding="utf-8").splitlines(), 1, ReadState())
    count = lambda text: len(text.split())  # noqa: E731 - a simple token counter
    chunks = chunk_turns("sessions/s2.jsonl", "s2", turns, 110, count, str.split, " ".join)
    assert [(c.start_line, c.end_line) for c in chunks] == [(1, 3), (4, 6), (7, 9)]
    assert chunks[1].text.splitlines()[0].startswith("user: turn number 3 ")
    assert {c.source for c in chunks} == {"transcript"}


async def test_transcript_hits_carry_source_session_lines_and_speaker_snippets(
    working_dir: Path,
) -> None:
    write_session(working_dir, "abc123", _records())
    index = MemoryIndex.open(working_dir, settings())
    try:
        report = await index.sync()
        assert report.files_seen == 3
        [hit] = await index.search(SearchRequest(query="gazebo teal", max_results=5))
        assert hit.to_dict()["source"] == "transcript"
        assert (hit.path, hit.session_id, hit.start_line, hit.end_line) == (
            "sessions/abc123.jsonl",
            "abc123",
            1,
            4,
        )
        assert hit.snippet.splitlines()[:3] == [
            "user: We painted the gazebo teal last spring.",
            "ReMe: Let me check the notes.",
            "The gazebo is teal.",
        ]
        assert await index.search(SearchRequest(query="zanzibar")) == []
        notes_hit = (await index.search(SearchRequest(query="kubernetes", max_results=1)))[0]
        assert notes_hit.source == "notes" and "session_id" not in notes_hit.to_dict()
    finally:
        index.close()


async def test_an_append_rereads_only_the_last_chunk(working_dir: Path) -> None:
    first = [
        Transcript.message_record(_user(f"early line {k} " + "filler " * 60)) for k in range(12)
    ]
    path = write_session(working_dir, "long", first)
    index = MemoryIndex.open(working_dir, settings(chunk_tokens=200))
    try:
        await index.sync()
        before = {s.id: s.chunk for s in index.store.chunks_of("sessions/long.jsonl")}
        assert len(before) >= 4
        Transcript(path).append([Transcript.message_record(_user("the capybara arrived"))])
        report = await index.sync()
        after = {s.id: s.chunk for s in index.store.chunks_of("sessions/long.jsonl")}
        # every chunk but the last is kept as it was (same id, same lines); the last grew
        kept = sorted(before)[:-1]
        assert all(after[i] == before[i] for i in kept)
        assert report.chunks_added == 1 and report.chunks_removed <= 1
        resume = json.loads(index.store.resume_of("sessions/long.jsonl"))
        assert resume["line"] == max(c.start_line for c in after.values())
        [hit] = await index.search(SearchRequest(query="capybara", max_results=1))
        assert hit.end_line == 13
        # an incremental result equals a fresh index of the same file
        fresh = MemoryIndex.open(working_dir / "copy", settings(chunk_tokens=200))
        (working_dir / "copy" / "sessions").mkdir(parents=True)
        (working_dir / "copy" / "sessions" / "long.jsonl").write_bytes(path.read_bytes())
        await fresh.sync()
        lines = lambda i: sorted(  # noqa: E731
            (s.chunk.start_line, s.chunk.end_line, s.chunk.text)
            for s in i.store.chunks_of("sessions/long.jsonl")
        )
        assert lines(fresh) == lines(index)
        fresh.close()
    finally:
        index.close()


async def test_a_rewritten_transcript_is_read_again_from_the_start(working_dir: Path) -> None:
    path = write_session(working_dir, "rw", [Transcript.message_record(_user("the walrus sang"))])
    index = MemoryIndex.open(working_dir, settings())
    try:
        await index.sync()
        path.write_text(
            json.dumps(Transcript.message_record(_user("the narwhal hummed along"))) + "\n",
            encoding="utf-8",
        )
        await index.sync()
        assert await index.search(SearchRequest(query="walrus")) == []
        assert [h.start_line for h in await index.search(SearchRequest(query="narwhal"))] == [1]
    finally:
        index.close()


async def test_a_line_still_being_written_waits_for_its_end(working_dir: Path) -> None:
    path = write_session(working_dir, "torn", [Transcript.message_record(_user("alpha okapi"))])
    whole = json.dumps(Transcript.message_record(_user("beta ocelot")))
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(whole[:30])
    index = MemoryIndex.open(working_dir, settings())
    try:
        await index.sync()
        assert await index.search(SearchRequest(query="ocelot")) == []
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(whole[30:] + "\n")
        await index.sync()
        [hit] = await index.search(SearchRequest(query="ocelot"))
        assert (hit.start_line, hit.end_line) == (1, 2)
    finally:
        index.close()


async def test_the_watcher_indexes_transcript_appends(working_dir: Path) -> None:
    path = write_session(working_dir, "live", [Transcript.message_record(_user("hello there"))])
    index = MemoryIndex.open(working_dir, settings(watch_debounce_ms=50))
    await index.sync()
    index.start_watching()
    try:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 30
        found = []
        while not found and loop.time() < deadline:
            # append until the watcher (whose start gives no signal) has picked one up
            Transcript(path).append([Transcript.message_record(_user("the axolotl waved"))])
            for _ in range(10):
                found = await index.search(SearchRequest(query="axolotl", max_results=1))
                if found:
                    break
                await asyncio.sleep(0.05)
        assert found and found[0].source == "transcript"
    finally:
        await index.stop()
        index.close()


async def test_transcripts_can_be_switched_off(working_dir: Path) -> None:
    write_session(working_dir, "off", _records())
    index = MemoryIndex.open(working_dir, settings(transcripts=False))
    try:
        await index.sync()
        assert await index.search(SearchRequest(query="gazebo")) == []
    finally:
        index.close()


async def test_the_growing_last_chunk_is_embedded_once_the_session_is_quiet(
    working_dir: Path,
) -> None:
    import os
    import time

    from tests.search.fake_embedder import CharNgramEmbedder

    records = [Transcript.message_record(_user(f"turn {k} " + "word " * 60)) for k in range(6)]
    path = write_session(working_dir, "q", records)
    embedder = CharNgramEmbedder()
    index = MemoryIndex.open(working_dir, settings(chunk_tokens=200), embedder=embedder)
    try:
        await index.sync()
        stored = index.store.chunks_of("sessions/q.jsonl")
        assert len(stored) >= 2
        vectors = {s.id for s in stored} - {s.id for s in index.store.without_vectors()}
        assert vectors == {s.id for s in stored[:-1]}  # the open last chunk waits
        quiet = time.time() - 3600
        os.utime(path, (quiet, quiet))
        await index.sync()
        assert index.store.without_vectors() == []
    finally:
        index.close()
