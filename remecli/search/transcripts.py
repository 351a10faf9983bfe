"""Transcripts as a search source: `sessions/<id>.jsonl` read into turns, turns into chunks.

The reader knows the transcript's record format (one JSON object per line): `msg` records carry a
message (`name`, `role`, `content` blocks), `blocks` records add blocks to an earlier message
(both name the `project` they were said in, when there was one); other records (checkpoints,
removals) hold no new words. Only text blocks are kept: tool calls,
tool results, thinking, hints and attachments are left out, and base64 payloads inside text are
replaced by a marker. Every message counts, compacted or not (the transcript keeps them all).

Chunks are runs of consecutive turns, up to `max_tokens`, cut greedily from a starting line, so
re-chunking from a chunk's first line gives the same chunks: an append re-reads only the last
chunk and what follows it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from remecli.notes.frontmatter import valid_date
from remecli.search.types import Chunk

SOURCE = "transcript"
_BASE64 = re.compile(
    r"data:[\w.+-]+/[\w.+-]+;base64,[A-Za-z0-9+/=]{16,}|(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{200,}={0,2}"
)
_SKIPPED_ROLES = {"system"}


@dataclass(slots=True)
class Turn:
    """Readable text of one JSONL line: who spoke, what they said, when (ISO), which line, and
    the project it was recorded in ("" when the record names none)."""

    line: int
    speaker: str
    text: str
    at: str = ""
    project: str = ""


@dataclass(slots=True)
class ReadState:
    """What a reader remembers across lines: the speaker of each message id seen."""

    speakers: dict[str, str] = field(default_factory=dict)


def _text_of(content: object) -> str:
    if isinstance(content, str):
        return content
    parts: list[str] = []
    for block in content if isinstance(content, list) else []:
        if isinstance(block, dict) and block.get("type") == "text":
            parts.append(str(block.get("text") or ""))
    return "\n".join(p for p in parts if p.strip())


def clean_text(text: str) -> str:
    """Text with base64 payloads replaced by a marker and outer whitespace removed."""
    return _BASE64.sub("[base64 omitted]", text).strip()


def parse_line(raw: str, number: int, state: ReadState) -> Turn | None:
    """The turn one JSONL line holds, or None (no text, other record kinds, unreadable)."""
    try:
        record = json.loads(raw)
    except ValueError:
        return None
    if not isinstance(record, dict):
        return None
    kind = record.get("t")
    at = str(record.get("at") or "")
    if kind == "msg" and isinstance(record.get("msg"), dict):
        msg = record["msg"]
        role = str(msg.get("role") or "")
        speaker = str(msg.get("name") or role or "unknown")
        if msg.get("id"):
            state.speakers[str(msg["id"])] = speaker
        if role in _SKIPPED_ROLES:
            return None
        text = clean_text(_text_of(msg.get("content")))
    elif kind == "blocks":
        speaker = state.speakers.get(str(record.get("msg_id")), "assistant")
        text = clean_text(_text_of(record.get("blocks")))
    else:
        return None
    project = str(record.get("project") or "")
    return Turn(number, speaker, text, at, project) if text else None


def read_turns(lines: Iterable[str], first_line: int, state: ReadState) -> list[Turn]:
    """Turns of consecutive JSONL lines, numbered from `first_line` (1-based)."""
    turns: list[Turn] = []
    for number, raw in enumerate(lines, start=first_line):
        if raw.strip():
            turn = parse_line(raw, number, state)
            if turn is not None:
                turns.append(turn)
    return turns


def _render(turns: list[Turn]) -> str:
    """`speaker: text` lines; consecutive turns of one speaker are joined."""
    out: list[str] = []
    previous = None
    for turn in turns:
        if turn.speaker == previous and out:
            out[-1] += "\n" + turn.text
        else:
            out.append(f"{turn.speaker}: {turn.text}")
        previous = turn.speaker
    return "\n".join(out)


def _split_turn(
    turn: Turn,
    max_tokens: int,
    encode: Callable[[str], list[int]],
    decode: Callable[[list[int]], str],
) -> list[Turn]:
    """A turn longer than `max_tokens` cut into token windows (same line, same speaker)."""
    ids = encode(turn.text)
    return [
        Turn(
            turn.line, turn.speaker, decode(ids[k : k + max_tokens]).strip(), turn.at, turn.project
        )
        for k in range(0, len(ids), max_tokens)
    ]


def chunk_turns(
    path: str,
    session_id: str,
    turns: list[Turn],
    max_tokens: int,
    count: Callable[[str], int],
    encode: Callable[[str], list[int]],
    decode: Callable[[list[int]], str],
) -> list[Chunk]:
    """Greedy chunks of consecutive turns, each at most about `max_tokens` tokens.

    A chunk always starts at a turn's first piece, so chunking again from any chunk's first
    line reproduces the chunks from there on.
    """
    chunks: list[Chunk] = []
    current: list[Turn] = []
    used = 0

    def emit() -> None:
        if current:
            chunks.append(
                Chunk(
                    path,
                    current[0].line,
                    current[-1].line,
                    _render(current),
                    source=SOURCE,
                    session_id=session_id,
                    date=valid_date(current[0].at),
                    project=next((t.project for t in current if t.project), ""),
                )
            )

    for turn in turns:
        tokens = count(turn.text) + 2
        if tokens > max_tokens:  # a long turn: its pieces are chunks of their own
            emit()
            for piece in _split_turn(turn, max_tokens, encode, decode):
                current = [piece]
                emit()
            current, used = [], 0
            continue
        if current and used + tokens > max_tokens:
            emit()
            current, used = [], 0
        current.append(turn)
        used += tokens
    emit()
    return chunks
