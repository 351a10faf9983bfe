"""One-line texts for the memory system's notices, shared by every front-end."""

from __future__ import annotations

from typing import TYPE_CHECKING

from remecli.agent import events as ev

if TYPE_CHECKING:
    from remecli.agent.assistant import Assistant


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


def cleared_notice(assistant: Assistant) -> str:
    """What `/clear` is about to do, said exactly (blocking: reads the cards). A conversation
    this run resumed keeps what it saved before (its cards cite its transcript): only what was
    said since the resume goes, and the line says what stays and how to remove it."""
    context = assistant.context
    if context is None or context.conversation.resumed is None:
        return "Conversation cleared; its transcript was deleted and nothing was saved."
    from remecli.knowledge.session_saves import conversation_start, session_saves

    memory, session_id = assistant.runtime, context.session_id
    since = conversation_start(memory.layout, session_id)
    cards = [
        card.path
        for card in session_saves(memory.layout, memory.writer.store, session_id, since).cards
    ]
    many = "s" * (len(cards) != 1)
    saved = (
        f", its card{many} {', '.join(cards)} and the day-page lines made with it" if cards else ""
    )
    remove = (
        f" To remove a card too: remecli job memory_delete --path {cards[0]} (kept as a version: "
        "remecli memory history PATH, then restore, brings it back)."
        if cards
        else ""
    )
    return (
        f"Cleared what was said since you resumed conversation {session_id}; none of it was "
        f"saved. What it saved before stays: its transcript up to the resume (remecli "
        f"resume={session_id}){saved}; the input history keeps what you typed then.{remove}"
    )
