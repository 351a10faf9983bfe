"""One assistant answer: Markdown streamed in as it arrives, reasoning dimmed and collapsible.

Streaming cost does not grow with the answer. Text goes into the *tail* `MarkdownSegment`, the
only one re-drawn as deltas arrive; once the tail holds more than `TAIL_CHARS` it is cut (at a
block boundary, or at a line boundary inside a long code block): the part before the cut is
frozen in place (drawn once per width, one widget) and the rest starts a new tail. Deltas are
coalesced to the frame rate (one re-draw per frame at most).
"""

from __future__ import annotations

import asyncio

from textual.containers import Vertical
from textual.widgets import Collapsible, Static

from remecli.ui.tui.widgets.markdown_cuts import find_cut, reference_definitions
from remecli.ui.tui.widgets.markdown_segment import MarkdownSegment

TAIL_CHARS = 1_200  # a longer tail is cut (see markdown_cuts)
CODE_TAIL_CHARS = 400  # a tail inside a code block is cut sooner (highlighting costs most)
FRAME_S = 1 / 30  # at most one re-draw per frame


class AssistantMessage(Vertical):
    """An answer that grows as text deltas arrive."""

    DEFAULT_CSS = """
    AssistantMessage { height: auto; margin: 0 0 1 0; }
    AssistantMessage > MarkdownSegment { padding: 0 1; }
    AssistantMessage > MarkdownSegment.frozen { margin: 0 0 1 0; }
    AssistantMessage > MarkdownSegment.frozen.continues { margin: 0; }
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
            # coalesce what arrives meanwhile; a tail that is slow to draw (a long table) is
            # re-drawn less often, so the prompt stays responsive
            await asyncio.sleep(max(FRAME_S, 2 * self._tail.draw_seconds))

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
        tail = self._tail
        source = tail.source + text
        cut = None
        if len(source) > CODE_TAIL_CHARS:
            cut = find_cut(tail.prefix + source, len(tail.prefix), TAIL_CHARS, CODE_TAIL_CHARS)
        if cut is None:
            tail.update(source)
            return
        head = cut.offset - len(tail.prefix)
        tail.update(source[:head], suffix=cut.close)  # frozen from here on
        tail.add_class("frozen", *(["continues"] if cut.close else []))
        self._tail = MarkdownSegment(source[head:], prefix=cut.reopen)
        await self.mount(self._tail)

    def release_drawings(self) -> None:
        """A finished answer lets go of its drawn lines (see `MarkdownSegment.release_drawing`);
        one still streaming keeps them."""
        if self._flusher is None:
            for segment in self.segments:
                segment.release_drawing()

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
        references = reference_definitions(self.text)
        if references:  # `[text][label]` in one segment, `[label]: url` in another
            for segment in self.segments:
                segment.set_references(references)
        if self._thinking is not None:
            box = self._thinking.parent
            while box is not None and not isinstance(box, Collapsible):
                box = box.parent
            if isinstance(box, Collapsible):
                box.collapsed = True
                box.title = "thinking"
