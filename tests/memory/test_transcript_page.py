"""The readable page `sessions/<id>.md` of a transcript: one Obsidian block per JSONL line, kept in
step by appends (appended to, not rendered again), rendered again when out of step, redacted like
the transcript, and removed with it by /clear."""

from __future__ import annotations

import re
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
from markdown_it import MarkdownIt

from remecli.conversation.transcript import Transcript
from remecli.conversation.transcript_page import page_path, render_page
from tests.memory.conftest import Script

# Obsidian: a block id is `^id` at the end of a block after a space; letters, digits, dashes.
BLOCK_ID = re.compile(r" \^([A-Za-z0-9-]+)$")
OUTPUT = "\n".join(f"output line {k}" for k in range(50))
SECRET = "sk-proj-" + "x7Qm2LkP9aZr4TgH1vNc8BdE5fWs3Yj6uKo0IpMn_Rt-Gh2LzXcVbNq"


def _user(text: str) -> Msg:
    return Msg(name="user", role="user", content=[TextBlock(text=text)])


def _records() -> list[dict]:
    reply = Msg(
        name="ReMe",
        role="assistant",
        content=[
            ThinkingBlock(thinking="the user wants the gazebo colour"),
            TextBlock(text="Run this:\n```bash\nls  # an unclosed fence, 100%% sure ^L1"),
            ToolCallBlock(id="c1", name="bash", input='{"command": "cat colours.txt"}'),
        ],
    )
    return [
        Transcript.message_record(_user("We painted the gazebo teal last spring.")),
        Transcript.message_record(reply),
        Transcript.blocks_record(
            reply.id, [ToolResultBlock(id="c1", name="bash", output=OUTPUT, state="success")]
        ),
        Transcript.message_record(
            Msg(
                name="user",
                role="user",
                content=[DataBlock(source=Base64Source(data="iVBORw0K", media_type="image/png"))],
            )
        ),
        Transcript.checkpoint_record("## Goal\n- paint the gazebo", {}),
        Transcript.removed_record([reply.id]),
    ]


def _blocks(page: str) -> list[tuple[str, list[str]]]:
    """(block id, the quoted lines under it) of every block of a page, in order."""
    found: list[tuple[str, list[str]]] = []
    for line in page.split("\n"):
        match = BLOCK_ID.search(line)
        if match and not line.startswith(">"):
            found.append((match.group(1), []))
        elif found and line.startswith(">"):
            found[-1][1].append(line)
    return found


def test_every_line_is_one_block_whose_id_is_its_line_number(tmp_path: Path) -> None:
    transcript = Transcript(tmp_path / "sessions" / "s1.jsonl")
    transcript.append(_records())
    page = page_path(transcript.path).read_text(encoding="utf-8")
    lines = transcript.path.read_bytes().count(b"\n")
    blocks = _blocks(page)
    assert [block for block, _ in blocks] == [f"L{n}" for n in range(1, lines + 1)]
    quoted = "\n".join(line for _, body in blocks for line in body)
    assert not any(BLOCK_ID.search(line) for line in quoted.split("\n"))  # `^L1` escaped
    assert "%%" not in page.removesuffix(page.split("\n")[-2] + "\n")  # only the end mark
    by_id = dict(blocks)
    heading = next(line for line in page.split("\n") if line.endswith(" ^L1"))
    assert re.fullmatch(r"\*\*user\*\* · \d{4}-\d\d-\d\d \d\d:\d\d:\d\d \^L1", heading)
    assert by_id["L1"] == ["> We painted the gazebo teal last spring."]
    reply = "\n".join(by_id["L2"])
    assert "(thinking)* the user wants" in reply and "→ tool call **bash**" in reply
    assert "cat colours.txt" in reply
    result = "\n".join(by_id["L3"])
    assert "← result of **bash** (50 line(s)" in result and "output line 5" in result
    assert "output line 6" not in result and "… 44 more line(s)" in result
    assert "attachment image/png" in "\n".join(by_id["L4"])
    assert "> ## Goal" in by_id["L5"]
    assert by_id["L6"] == ["> 1 message(s)"]


def test_each_id_ends_a_top_level_paragraph_whatever_the_text_holds(tmp_path: Path) -> None:
    """Parsed as CommonMark (Obsidian's base): every `^L<n>` ends a paragraph of the page's top
    level, so an unclosed fence or HTML block in a message never swallows the blocks after it."""
    hostile = _user("```python\nprint('fence never closed')\n<div>\n<!-- open comment\n%% open")
    transcript = Transcript(tmp_path / "sessions" / "s4.jsonl")
    transcript.append([Transcript.message_record(hostile), *_records()])
    tokens = MarkdownIt("commonmark").parse(page_path(transcript.path).read_text())
    top = [
        token.content
        for k, token in enumerate(tokens)
        if token.type == "inline" and tokens[k - 1].type == "paragraph_open" and token.level == 1
    ]
    ids = [found.group(1) for found in map(BLOCK_ID.search, top) if found]
    assert ids == [f"L{n}" for n in range(1, 8)]
    assert top[0].startswith("Readable copy") and top[-1].startswith("%% remecli transcript page")
    assert len(top) == 9  # the page's note, the seven lines, the end mark: nothing swallowed


def test_appends_add_only_the_new_blocks_and_match_a_full_rendering(tmp_path: Path) -> None:
    transcript = Transcript(tmp_path / "sessions" / "s2.jsonl")
    page = page_path(transcript.path)
    transcript.append([Transcript.message_record(_user("first question"))])
    assert page.read_text() == render_page("s2", transcript.path.read_bytes())
    marked = page.read_text().replace("Readable copy", "Readable copy MARKED")
    page.write_text(marked)  # an append keeps what is there: it adds, it does not re-render
    transcript.append(_records())
    text = page.read_text()
    assert "MARKED" in text
    assert text.replace(" MARKED", "") == render_page("s2", transcript.path.read_bytes())

    with transcript.path.open("ab") as handle:  # a crash cut the last record
        handle.write(b'{"t": "blocks", "msg_id": "cut')
    transcript.append([Transcript.message_record(_user("after the crash"))])
    whole = transcript.path.read_bytes()
    assert page.read_text() == render_page("s2", whole)  # rendered again, numbered as the file
    assert "**unreadable line** (cut or not JSON) ^L8" in page.read_text()
    assert "after the crash" in dict(_blocks(page.read_text()))["L9"][0]

    page.unlink()  # gone (or never made by an older version): the next append renders it
    transcript.append([Transcript.message_record(_user("and again"))])
    assert page.read_text() == render_page("s2", transcript.path.read_bytes())


def test_the_page_holds_no_secret_the_transcript_does_not(tmp_path: Path) -> None:
    transcript = Transcript(tmp_path / "sessions" / "s3.jsonl")
    transcript.append([Transcript.message_record(_user(f"my key is {SECRET} keep it"))])
    page = page_path(transcript.path).read_text()
    assert SECRET not in page and SECRET not in transcript.path.read_text()
    assert "[REDACTED:openai_key]" in page
    assert page_path(transcript.path).stat().st_mode & 0o077 == 0  # private, like the transcript


async def test_clear_removes_the_page_and_new_keeps_it(rig_factory, fake_llm) -> None:
    Script(fake_llm, steps=["one", "two"])
    rig = rig_factory()
    await rig.ask("hello")
    first = rig.agent.state.session_id
    first_page = page_path(rig.mw.working_dir.transcript_file(first))
    assert "> hello" in first_page.read_text()
    second = await rig.mw.new_conversation()  # /new keeps the old conversation and its page
    assert first_page.is_file()
    await rig.ask("again")
    second_page = page_path(rig.mw.working_dir.transcript_file(second))
    assert "> again" in second_page.read_text()
    await rig.mw.new_conversation(forget=True)  # /clear deletes the transcript and its page
    assert not rig.mw.working_dir.transcript_file(second).exists()
    assert not second_page.exists() and first_page.is_file()


def test_a_page_that_cannot_be_written_never_fails_the_transcript(tmp_path: Path, caplog) -> None:
    transcript = Transcript(tmp_path / "sessions" / "s5.jsonl")
    page = page_path(transcript.path)
    page.mkdir(parents=True)  # in the way: nothing can be written there
    transcript.append([Transcript.message_record(_user("still recorded"))])
    assert b"still recorded" in transcript.path.read_bytes()
    assert "its readable page was not updated" in caplog.text
    page.rmdir()
    transcript.append([Transcript.message_record(_user("and healed"))])
    assert page.read_text() == render_page("s5", transcript.path.read_bytes())
