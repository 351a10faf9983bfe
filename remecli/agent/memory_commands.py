"""The Assistant's commands on the knowledge base: `/dream`, `/interests`, `/prune`.

Functions of an `Assistant` (its runtime, notices and idle runner), kept apart so the facade
holds the conversation logic only; the command registry calls them.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from remecli.agent import events as ev

if TYPE_CHECKING:
    from remecli.agent.assistant import Assistant


async def dream(assistant: Assistant, arg: str = "") -> AsyncIterator[ev.CoreEvent]:
    """`/dream [YYYY-MM-DD]`: consolidate new topic cards into the digest now."""
    import datetime as dt

    try:
        day = dt.date.fromisoformat(arg.strip()) if arg.strip() else None
    except ValueError:
        yield ev.ErrorReport(f"/dream takes a date as YYYY-MM-DD, not {arg.strip()!r}.")
        return
    yield ev.Notice("Dreaming: consolidating new topic cards into the digest…", "memory")

    async def work() -> Any:
        return await assistant.runtime.dream(day)  # its result arrives as a memory notice

    async for event in assistant._idle(work):
        yield event


def resources_gone(assistant: Assistant, orphans: list[Any]) -> None:
    names = ", ".join(f"{o.resource} (card {o.card})" for o in orphans[:5])
    more = f" and {len(orphans) - 5} more" if len(orphans) > 5 else ""
    assistant.notices.put(
        ev.Notice(f"Deleted from resource/: {names}{more}. /prune removes their cards.", "memory")
    )


async def prune_resources(assistant: Assistant) -> AsyncIterator[ev.CoreEvent]:
    """`/prune`: remove the cards of deleted resource/ files (kept in history)."""
    await assistant.start()
    removed = await asyncio.to_thread(assistant.runtime.resources.prune, remove=True)
    if not removed:
        yield ev.Notice("No card of a deleted resource to remove.")
        return
    cards = ", ".join(o.card for o in removed)
    yield ev.Notice(
        f"Removed {len(removed)} card(s): {cards} (remecli memory restore brings one back).",
        "memory",
    )


async def interests(assistant: Assistant) -> str:
    """`/interests`: what the last dreams noticed (Markdown)."""
    from remecli.knowledge.dream.interests import render_interests

    await assistant.start()
    memory = assistant.runtime
    return await asyncio.to_thread(render_interests, memory.layout, memory.settings.language)
