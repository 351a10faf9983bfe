"""One-line texts for the memory system's notices, shared by every front-end."""

from __future__ import annotations

from remecli.agent import events as ev


def notice_line(event: object) -> str | None:
    """The line a front-end shows for a notice-like event (None: nothing to show)."""
    if isinstance(event, ev.Notice):
        return event.text
    if isinstance(event, ev.CompactionStarted):
        if event.trigger == "manual":
            why = "on request"
        elif event.trigger == "overflow":
            why = f"the server said the context is too long at ~{event.tokens:,} tokens"
        else:
            why = f"context {event.tokens:,} > {event.threshold:,} tokens"
        return f"Compacting the conversation into a checkpoint ({why})…"
    if isinstance(event, ev.CompactionDone):
        if event.messages_compacted == 0 and event.error:
            return (
                f"Compaction failed ({event.error}); all messages were kept and it will be retried."
            )
        if event.messages_compacted == 0 and event.trigger == "manual":
            return (
                "Nothing to compact yet: the conversation is too short for a checkpoint to "
                "save anything; it stays as it is."
            )
        if event.messages_compacted == 0:
            return "Nothing to compact yet; the checkpoint is unchanged."
        line = (
            f"Compacted {event.messages_compacted} message(s): {event.tokens_before:,} → "
            f"{event.tokens_after:,} tokens (saved {event.tokens_saved:,})"
        )
        if event.stages > 1:
            line += f" in {event.stages} stages"
        if event.error:
            line += f". The model failed ({event.error}); a fallback checkpoint was kept"
        return line + "."
    if isinstance(event, ev.DiskFull):
        return event.text
    if isinstance(event, ev.ToolResultOffloaded):
        return f"{event.tool_name} output ({event.chars:,} chars) saved to {event.path}; the context keeps head and tail."
    return None
