"""A transcript (`sessions/<id>.jsonl`) as the Sessions page shows it: the conversation, turn by
turn with its line numbers, and the cards written from it with the lines each one cites
(`[[sessions/<id>.jsonl#L3-L9]]`, in `source_conversation` or anywhere in the card).

The transcript is read with memory_read, the citing cards found with memory_links (backlinks)
and read with memory_read: the operations layer, as everywhere in Studio.
"""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

from remecli.notes.links.parse import LINK_TEXT, split_link
from remecli.ops import JobError, JobRunner
from remecli.search.transcripts import ReadState, Turn, clean_text, read_turns
from remecli.surfaces.studio.library import read_whole

LINE_RANGE = re.compile(r"^L(\d+)(?:-L?(\d+))?$")
MAX_CARDS = 50


def is_transcript(path: str) -> bool:
    """True for `sessions/<id>.jsonl`."""
    return path.startswith("sessions/") and path.endswith(".jsonl") and path.count("/") == 1


def _plain_turn(raw: str, number: int) -> Turn | None:
    """A line in the simple `{"role", "content"}` shape (imported or hand-made transcripts)."""
    try:
        record = json.loads(raw)
    except ValueError:
        return None
    if not isinstance(record, dict) or "t" in record or not isinstance(record.get("content"), str):
        return None
    text = clean_text(record["content"])
    speaker = str(record.get("name") or record.get("role") or "unknown")
    return Turn(number, speaker, text, str(record.get("at") or "")) if text else None


def conversation(text: str) -> list[dict[str, Any]]:
    """The turns of a transcript's text: `{"line", "speaker", "text", "at"}`, in order."""
    state = ReadState()
    turns: list[Turn] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        found: list[Turn | None] = [*read_turns([raw], number, state)]
        turns += [turn for turn in found or [_plain_turn(raw, number)] if turn is not None]
    return [{"line": t.line, "speaker": t.speaker, "text": t.text, "at": t.at} for t in turns]


def cited_ranges(card_text: str, transcript: str) -> list[list[int]]:
    """The `[first, last]` line ranges `card_text` cites of `transcript` (its whole: [0, 0])."""
    ranges: list[list[int]] = []
    for match in LINK_TEXT.finditer(card_text):
        link = split_link(match.group(1), 1)
        if link is None or link.target.removesuffix(".jsonl") != transcript.removesuffix(".jsonl"):
            continue
        lines = LINE_RANGE.match(link.anchor or "")
        if lines is None:
            ranges.append([0, 0])
            continue
        first = int(lines.group(1))
        ranges.append([first, int(lines.group(2) or first)])
    return ranges


async def _citing_card(runner: JobRunner, card: dict[str, Any], path: str) -> dict[str, Any]:
    text, _ = await read_whole(runner, card["path"])
    return {
        "path": card["path"],
        "name": card.get("name") or card["path"],
        "description": card.get("description") or "",
        "ranges": cited_ranges(text, path),
    }


async def session_view(runner: JobRunner, path: str) -> dict[str, Any]:
    """`{"path", "turns", "cards": [{path, name, description, ranges}]}` of one transcript."""
    text, complete = await read_whole(runner, path)
    try:
        links = await runner.run(
            "memory_links", {"path": path, "direction": "in", "limit": MAX_CARDS}
        )
        citing = [n for n in links["in"] if n.get("depth", 1) == 1]
    except JobError:  # search off and no graph yet: no cards known
        citing = []
    cards = await asyncio.gather(*(_citing_card(runner, card, path) for card in citing))
    return {
        "path": path,
        "complete": complete,
        "turns": conversation(text),
        "cards": [card for card in cards if card["ranges"]],
    }
