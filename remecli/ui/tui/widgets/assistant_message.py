"""One assistant answer: Markdown streamed in as it arrives, reasoning dimmed and collapsible.

Streaming cost does not grow with the answer. Text goes into the *tail* `MarkdownSegment`, the
only one re-drawn as deltas arrive; once the tail holds more than `TAIL_CHARS` it is cut at its
last safe block boundary (a blank line outside code, before an unindented line): the part
before the cut is frozen in place (drawn once per width, one widget) and the rest starts a new
tail. Deltas are coalesced to the frame rate (one re-draw per frame at most).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator

from textual.containers import Vertical
from textual.widgets import Collapsible, Static

from remecli.ui.tui.widgets.markdown_segment import MarkdownSegment

TAIL_CHARS = 1_200  # a longer tail is cut at its last safe boundary
FRAME_S = 1 / 30  # at most one re-draw per frame
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


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
    AssistantMessage > MarkdownSegment { padding: 0 1; }
    AssistantMessage > MarkdownSegment.frozen { margin: 0 0 1 0; }
    AssistantMessage .thinking { color: $text-muted; text-style: italic; }
    AssistantMessage Collapsible { border: none; padding: 0; margin: 0; }
    """

    def __init__(self) -> None:
        super().__init__()
        self._tail = MarkdownSegment()
        self._pending: list[str] = []
        self._wake = asyncio.Event()
        self._flusher: asyncio.Task[None] | None = None
        self._finishing = False
        self._thinking: Static | None = None
        self._thinking_text: list[str] = []
        self.text = ""

    def compose(self):
        yield self._tail

    @property
    def segments(self) -> list[MarkdownSegment]:
        """The widgets the answer is drawn in, in order (the last one is the live tail)."""
        return list(self.query(MarkdownSegment))

    async def append(self, delta: str) -> None:
        """Add answer text (drawn at the next frame)."""
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

    def on_unmount(self) -> None:
        if self._flusher is not None and not self._finishing:
            self._flusher.cancel()

    async def _flush(self) -> None:
        self._wake.clear()
        text = "".join(self._pending)
        self._pending.clear()
        if text:
            await self._write(text)

    async def _write(self, text: str) -> None:
        source = self._tail.source + text
        cut = safe_cut(source, 0) if len(source) > TAIL_CHARS else None
        if cut is None:
            self._tail.update(source)
            return
        self._tail.update(source[:cut])  # frozen from here on
        self._tail.add_class("frozen")
        self._tail = MarkdownSegment(source[cut:])
        await self.mount(self._tail)

    async def append_thinking(self, delta: str) -> None:
        """Add reasoning text (dimmed, in a collapsible above the answer)."""
        self._thinking_text.append(delta)
        if self._thinking is None:
            self._thinking = Static("", classes="thinking", markup=False)
            box = Collapsible(self._thinking, title="thinking…", collapsed=False)
            await self.mount(box, before=self.query(MarkdownSegment).first())
        self._thinking.update("".join(self._thinking_text))

    async def finish(self) -> None:
        """Draw what is still pending; collapse the reasoning once the answer is complete."""
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
