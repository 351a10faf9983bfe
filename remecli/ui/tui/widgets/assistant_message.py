"""One assistant answer: Markdown streamed in as it arrives, reasoning dimmed and collapsible."""

from __future__ import annotations

from textual.containers import Vertical
from textual.widgets import Collapsible, Markdown, Static


class AssistantMessage(Vertical):
    """An answer that grows as text deltas arrive (Textual's MarkdownStream batches renders)."""

    DEFAULT_CSS = """
    AssistantMessage { height: auto; margin: 0 0 1 0; }
    AssistantMessage > Markdown { margin: 0; padding: 0 1; }
    AssistantMessage .thinking { color: $text-muted; text-style: italic; }
    AssistantMessage Collapsible { border: none; padding: 0; margin: 0; }
    """

    def __init__(self) -> None:
        super().__init__()
        self._markdown = Markdown()
        self._stream = None
        self._thinking: Static | None = None
        self._thinking_text: list[str] = []
        self.text = ""

    def compose(self):
        yield self._markdown

    async def append(self, delta: str) -> None:
        """Add answer text."""
        self.text += delta
        if self._stream is None:
            self._stream = Markdown.get_stream(self._markdown)
        await self._stream.write(delta)

    async def append_thinking(self, delta: str) -> None:
        """Add reasoning text (dimmed, in a collapsible above the answer)."""
        self._thinking_text.append(delta)
        if self._thinking is None:
            self._thinking = Static("", classes="thinking", markup=False)
            box = Collapsible(self._thinking, title="thinking…", collapsed=False)
            await self.mount(box, before=self._markdown)
        self._thinking.update("".join(self._thinking_text))

    async def finish(self) -> None:
        """Flush the stream; collapse the reasoning once the answer is complete."""
        if self._stream is not None:
            await self._stream.stop()
            self._stream = None
        if self._thinking is not None:
            box = self._thinking.parent
            while box is not None and not isinstance(box, Collapsible):
                box = box.parent
            if isinstance(box, Collapsible):
                box.collapsed = True
                box.title = "thinking"
