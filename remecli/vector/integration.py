"""The hook the terminal assistant calls: one conversation → personal memory of its user and
tool memory of every tool it called."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from remecli.vector.conversation import render

if TYPE_CHECKING:
    from remecli.vector.node import MemoryNode
    from remecli.vector.reme import ReMe

MAX_TOOLS = 8


async def remember_conversation(
    reme: ReMe, messages: Sequence[object], user_name: str, *, tools: bool = True
) -> list[MemoryNode]:
    """Summarize `messages` (OpenAI-style dicts or agentscope messages) into `user_name`'s
    personal memory and, with `tools`, into the tool memory of each tool called (at most 8).
    Returns the changed nodes (`action` = add / update / delete)."""
    tool_names = render(messages).tools[:MAX_TOOLS] if tools else []
    changed = await reme.summarize_memory(
        messages, user_name=user_name, tool_name=tool_names or None
    )
    assert isinstance(changed, list)
    return changed
