"""The `/history` page: the checkpoint, then the messages the model still sees (Markdown)."""

from __future__ import annotations

import re
from typing import Any


def history_markdown(session: Any) -> str:
    """The checkpoint text (if any) and the uncompressed messages with token statistics."""
    text = session.get_history_str()
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)  # longer than any backtick run inside: never closed early
    history = f"{fence}text\n{text}\n{fence}"
    if not session.summary:
        return history
    return (
        f"**Checkpoint** (what compaction kept of the earlier messages):\n\n"
        f"{session.summary.strip()}\n\n---\n\n**Messages the model still sees:**\n\n{history}"
    )
