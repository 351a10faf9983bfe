"""Notices the memory system sends to the UI (context meter, compaction progress, offloads)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ContextUsage:
    """Context size measured before a reasoning step (for the status line's meter)."""

    tokens: int
    max_input_length: int
    threshold: int

    @property
    def percent(self) -> float:
        return round(100.0 * self.tokens / max(1, self.max_input_length), 1)


@dataclass(frozen=True)
class CompactionStarted:
    """A compaction began (the UI can show progress)."""

    tokens: int
    threshold: int
    trigger: str


@dataclass(frozen=True)
class CompactionDone:
    """A compaction finished. `error` is set when the model failed: with messages_compacted > 0
    a fallback checkpoint was applied (the context did not fit otherwise); with 0 nothing was
    applied, the messages stay and the next reasoning step tries again."""

    tokens_before: int
    tokens_after: int
    messages_compacted: int
    trigger: str = "auto"
    stages: int = 0
    error: str | None = None
    filled_sections: tuple[str, ...] = ()

    @property
    def tokens_saved(self) -> int:
        return max(0, self.tokens_before - self.tokens_after)


@dataclass(frozen=True)
class ToolResultOffloaded:
    """An oversized tool output was saved to a file; the context keeps head + tail."""

    tool_name: str
    path: str
    chars: int


@dataclass(frozen=True)
class DiskFull:
    """Something of the conversation could not be written for lack of space (or space came
    back and it was written); `text` is the one line for the user."""

    text: str


MemoryNotice = ContextUsage | CompactionStarted | CompactionDone | ToolResultOffloaded | DiskFull
