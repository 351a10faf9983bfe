"""Readable reports of a session (used by `/history`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, TypedDict

from remecli.llm.blocks import block_key, block_text

if TYPE_CHECKING:
    from remecli.conversation.entries import Entry


class MessageDetail(TypedDict):
    """One live message in `estimate`: its position, role, tokens and a short preview."""

    index: int
    role: str
    tokens: int
    preview: str


class TokenEstimate(TypedDict):
    """Token statistics of what the model receives (`estimate`)."""

    total_messages: int
    compressed_messages: int
    compressed_summary_tokens: int
    messages_tokens: int
    system_tokens: int
    estimated_tokens: int
    max_input_length: int
    threshold_tokens: int
    context_usage_ratio: float
    messages_detail: list[MessageDetail]


class SessionView(Protocol):
    """What a report reads of a session (its public accounting)."""

    overhead_tokens: int
    max_input_length: int
    checkpoints: int

    @property
    def live_message_count(self) -> int: ...
    @property
    def compressed_message_count(self) -> int: ...
    @property
    def summary_tokens(self) -> int: ...
    @property
    def live_tokens(self) -> int: ...
    def live_entries(self) -> list[tuple[str, Entry]]: ...
    def context_tokens(self) -> int: ...
    def threshold_tokens(self) -> int: ...


def estimate(session: SessionView) -> TokenEstimate:
    """Token statistics of what the model receives, with per-message detail."""
    detail: list[MessageDetail] = []
    for index, (_mid, entry) in enumerate(session.live_entries(), start=1):
        msg = entry.ctx if entry.ctx is not None else entry.msg
        preview = " ".join(block_text(b, 80) for b in msg.content if block_key(b) in entry.live)
        detail.append(
            {"index": index, "role": msg.role, "tokens": entry.tokens, "preview": preview[:100]}
        )
    total = session.context_tokens()
    return {
        "total_messages": session.live_message_count,
        "compressed_messages": session.compressed_message_count,
        "compressed_summary_tokens": session.summary_tokens,
        "messages_tokens": session.live_tokens,
        "system_tokens": session.overhead_tokens,
        "estimated_tokens": total,
        "max_input_length": session.max_input_length,
        "threshold_tokens": session.threshold_tokens(),
        "context_usage_ratio": round(100.0 * total / max(1, session.max_input_length), 2),
        "messages_detail": detail,
    }


def history_str(session: SessionView, max_block_chars: int = 600) -> str:
    """The non-compressed messages with token statistics, blocks clipped to `max_block_chars`."""
    stats = estimate(session)
    lines = [
        f"Context: {stats['total_messages']} messages, ~{stats['estimated_tokens']:,} tokens "
        f"of {stats['max_input_length']:,} ({stats['context_usage_ratio']:.1f}%); "
        f"compaction at {stats['threshold_tokens']:,}.",
        f"Summary: {stats['compressed_summary_tokens']:,} tokens "
        f"({session.checkpoints} checkpoint(s), {stats['compressed_messages']} messages folded).",
    ]
    for row, (_mid, entry) in zip(stats["messages_detail"], session.live_entries(), strict=True):
        lines.append("")
        lines.append(f"[{row['index']}] {row['role']} · {row['tokens']:,} tokens")
        msg = entry.ctx if entry.ctx is not None else entry.msg
        for block in msg.content:
            if block_key(block) in entry.live and block.type != "thinking":
                lines.append("  " + block_text(block, max_block_chars).replace("\n", "\n  "))
    return "\n".join(lines)
