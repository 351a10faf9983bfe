"""A transcript (`sessions/<id>.jsonl`) as Studio's Sessions page shows it, as a job
(`served=False`): the conversation, turn by turn with its line numbers, and the cards written
from it with the lines each one cites (`[[sessions/<id>.jsonl#L3-L9]]`, in `source_conversation`
or anywhere in the card). The transcript and the cards are read with memory_read, the citing
cards found with memory_links (backlinks).
"""

from __future__ import annotations

import asyncio
import json
import re

from pydantic import Field

from remecli.notes.links.parse import LINK_TEXT, split_link
from remecli.ops.context import JobContext
from remecli.ops.errors import InvalidParams, JobError
from remecli.ops.knowledge_jobs import LinkedNote, LinksParams, memory_links
from remecli.ops.registry import JOBS, JobParams, JobResult
from remecli.ops.view_jobs import read_whole, reader
from remecli.search.transcripts import ReadState, Turn, clean_text, read_turns

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


class TurnInfo(JobResult):
    line: int
    speaker: str
    text: str
    at: str


def conversation(text: str) -> list[TurnInfo]:
    """The turns of a transcript's text, in order."""
    state = ReadState()
    turns: list[Turn] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        found: list[Turn | None] = [*read_turns([raw], number, state)]
        turns += [turn for turn in found or [_plain_turn(raw, number)] if turn is not None]
    return [TurnInfo(line=t.line, speaker=t.speaker, text=t.text, at=t.at) for t in turns]


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


class SessionParams(JobParams["SessionResult"]):
    path: str = Field(description="A transcript, sessions/<id>.jsonl")


class CitingCard(JobResult):
    path: str
    name: str
    description: str
    ranges: list[list[int]] = Field(description="[first, last] lines cited ([0, 0]: the whole)")


class SessionResult(JobResult):
    path: str
    complete: bool = Field(description="False: the transcript was too long to read whole")
    turns: list[TurnInfo]
    cards: list[CitingCard]


async def _citing_card(ctx: JobContext, card: LinkedNote, path: str) -> CitingCard:
    text, _ = await read_whole(reader(ctx), card.path)
    return CitingCard(
        path=card.path,
        name=card.name or card.path,
        description=card.description or "",
        ranges=cited_ranges(text, path),
    )


@JOBS.define(
    "memory_session", params=SessionParams, result=SessionResult, read_only=True, served=False
)
async def memory_session(ctx: JobContext, params: SessionParams) -> SessionResult:
    """One transcript's turns and the cards that cite it, with the lines each cites."""
    path = params.path
    if not is_transcript(path):
        raise InvalidParams(f"{path!r} is not a transcript (sessions/<id>.jsonl)")
    text, complete = await read_whole(reader(ctx), path)
    try:
        backlinks = LinksParams(path=path, depth=1, direction="in", limit=MAX_CARDS)
        links = await memory_links(ctx, backlinks)
        citing = [n for n in links.in_ if n.depth == 1]
    except JobError:  # search off and no graph yet: no cards known
        citing = []
    cards = await asyncio.gather(*(_citing_card(ctx, card, path) for card in citing))
    return SessionResult(
        path=path,
        complete=complete,
        turns=conversation(text),
        cards=[card for card in cards if card.ranges],
    )
