"""Recovery of a crashed run: what its saved state holds that never reached long-term memory.

A run killed by `kill -9` or a power loss never handed its conversation to the summarizer; at the
next start the unsaved messages of the last conversation are marked saved (in its state file,
so they are never handed twice) and returned for summarizing — unless that conversation is
still open in another live process.
"""

from __future__ import annotations

import asyncio
import logging

from remecli.conversation import persistence
from remecli.conversation.session_lock import is_live
from remecli.llm.conversation_state import ContextMessage, message_to_json
from remecli.notes.layout import WorkingDir

log = logging.getLogger(__name__)

SAVED_MARK = "remecli_saved"  # a message's metadata flag: already handed to long-term memory


async def unsaved_of_crashed_run(layout: WorkingDir) -> tuple[str, list[ContextMessage]] | None:
    """`(session id, messages)` a dead run never saved, marked saved on disk; else None."""
    try:
        saved = await asyncio.to_thread(persistence.load_saved, layout, "last")
    except LookupError:
        return None
    if saved.agent_state is None:
        return None
    if is_live(layout, saved.session_id):
        log.info("session %s is live in another process; not recovering it", saved.session_id)
        return None
    unsaved = [m for m in saved.context if not m.metadata.get(SAVED_MARK)]
    if not unsaved:
        return None
    for msg in unsaved:
        msg.metadata[SAVED_MARK] = True
    agent_state = {
        **saved.agent_state,
        "context": [message_to_json(m) for m in saved.context],
    }
    await asyncio.to_thread(
        persistence.write_state, layout, saved.session_id, agent_state, saved.session_state
    )
    log.info("recovering %d unsaved message(s) of session %s", len(unsaved), saved.session_id)
    return saved.session_id, unsaved
