"""One assistant answer: Markdown streamed in as it arrives, reasoning dimmed and collapsible.

Streaming cost does not grow with the answer: text goes into the *tail* `Markdown` widget, and
once the tail holds `SEGMENT_CHARS` it is frozen at the next safe block boundary (a blank line
outside code, before an unindented line) and a new tail starts. Textual's `Markdown.append` then
only ever re-parses and re-lays-out a bounded tail; frozen segments keep their cached layout.
Deltas are coalesced to the frame rate (one append per frame at most).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from typing import Any

from markdown_it import MarkdownIt
from textual.containers import Vertical
from textual.widgets import Collapsible, Markdown, Static

SEGMENT_CHARS = 3_000  # a tail this long is frozen at the next safe boundary
FRAME_S = 1 / 30  # at most one append per frame
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def _soft_breaks_as_breaks(state: Any) -> None:
    for token in state.tokens:
        for child in token.children or ():
            if child.type == "softbreak":
                child.type = "hardbreak"


def chat_parser() -> MarkdownIt:
    """GFM-like Markdown where a single newline is a line break (as chat UIs render it)."""
    parser = MarkdownIt("gfm-like", {"breaks": True})
    parser.core.ruler.push("soft_breaks_as_breaks", _soft_breaks_as_breaks)
    return parser


def safe_cut(source: str, start: int) -> int | None:
    """The last offset >= `start` where `source` can be split into two Markdown documents that
    render as one: just after a blank line outside any code fence, before a line that starts
    with a non-blank character (so no list continuation or indented code is cut off)."""
    best = None
    for offset, line, in_fence in _lines(source):
        if in_fence or offset < max(start, 2) or not line[:1].strip():
            continue
        if source[offset - 2 : offset] == "\n\n" and not FENCE.match(line):
            best = offset
    return best


def _lines(source: str) -> Iterator[tuple[int, str, bool]]:
    """(offset, line, inside a fence before this line) for each line of `source`."""
    fence = ""
    offset = 0
    for line in source.splitlines(keepends=True):
        yield offset, line, bool(fence)
        match = FENCE.match(line)
        if match:
            marker = match.group(1)
            if not fence:
                fence = marker
            elif marker[0] == fence[0] and len(marker) >= len(fence) and not line.strip(" `~\n"):
                fence = ""
        offset += len(line)


class AssistantMessage(Vertical):
    """An answer that grows as text deltas arrive."""

    DEFAULT_CSS = """
    AssistantMessage { height: auto; margin: 0 0 1 0; }
    AssistantMessage > Markdown { margin: 0; padding: 0 1; }
    AssistantMessage MarkdownFence { overflow-x: auto; scrollbar-size-horizontal: 1; }
    AssistantMessage .thinking { color: $text-muted; text-style: italic; }
    AssistantMessage Collapsible { border: none; padding: 0; margin: 0; }
    """

    def __init__(self) -> None:
        super().__init__()
        self._markdown = Markdown(parser_factory=chat_parser)  # the tail segment
        self._tail_source = ""
        self._pending: list[str] = []
        self._wake = asyncio.Event()
        self._flusher: asyncio.Task[None] | None = None
        self._finishing = False
        self._thinking: Static | None = None
        self._thinking_text: list[str] = []
        self.text = ""

    def compose(self):
        yield self._markdown

    @property
    def segments(self) -> int:
        """How many Markdown widgets the answer is split into."""
        return len(self.query(Markdown))

    async def append(self, delta: str) -> None:
        """Add answer text (rendered at the next frame)."""
        if not delta:
            return
        self.text += delta
        self._pending.append(delta)
        self._wake.set()
        if self._flusher is None:
            self._flusher = asyncio.create_task(self._flush_loop())
        await asyncio.sleep(0)

    async def _flush_loop(self) -> None:
        while True:
            await self._wake.wait()
            if not self.is_attached:  # removed from the view (/new, /clear)
                return
            await self._flush()
            if self._finishing:
                return
            await asyncio.sleep(FRAME_S)  # coalesce what arrives meanwhile

    async def _flush(self) -> None:
        self._wake.clear()
        text = "".join(self._pending)
        self._pending.clear()
        if text:
            await self._write(text)

    async def _write(self, text: str) -> None:
        start = len(self._tail_source)
        self._tail_source += text
        cut = safe_cut(self._tail_source, start) if len(self._tail_source) > SEGMENT_CHARS else None
        if cut is None:
            await self._markdown.append(text)
            return
        head, rest = self._tail_source[start:cut], self._tail_source[cut:]
        if head:
            await self._markdown.append(head)
        tail = Markdown(parser_factory=chat_parser)  # the old tail is frozen from here on
        await self.mount(tail)
        self._markdown, self._tail_source = tail, rest
        await tail.append(rest)

    async def append_thinking(self, delta: str) -> None:
        """Add reasoning text (dimmed, in a collapsible above the answer)."""
        self._thinking_text.append(delta)
        if self._thinking is None:
            self._thinking = Static("", classes="thinking", markup=False)
            box = Collapsible(self._thinking, title="thinking…", collapsed=False)
            await self.mount(box, before=self.query(Markdown).first())
        self._thinking.update("".join(self._thinking_text))

    async def finish(self) -> None:
        """Render what is still pending; collapse the reasoning once the answer is complete."""
        if self._flusher is not None:
            self._finishing = True
            self._wake.set()
            await asyncio.shield(self._flusher)
            self._flusher = None
            self._finishing = False
        await self._flush()
        if self._thinking is not None:
            box = self._thinking.parent
            while box is not None and not isinstance(box, Collapsible):
                box = box.parent
            if isinstance(box, Collapsible):
                box.collapsed = True
                box.title = "thinking"
