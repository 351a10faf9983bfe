"""The system prompt follows MEMORY.md and the clock: rebuilt at the start of a reply when
MEMORY.md changed or a new conversation began, and kept identical within a reply.

Keeping it stable inside a reply (a tool loop makes many model calls) and between replies that
changed nothing keeps the providers' prompt caches warm: the prompt only changes when what it
says changed. The current time is stamped once per conversation, not per turn, for the same
reason.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from remecli.llm.middleware import LoopState, Middleware

log = logging.getLogger(__name__)

Render = Callable[[datetime], str]


def _signature(path: Path) -> tuple[int, int] | None:
    try:
        info = path.stat()
    except OSError:
        return None
    return info.st_mtime_ns, info.st_size


class LivePrompt(Middleware):
    """Serves the system prompt; `render(now)` builds it from the current MEMORY.md."""

    def __init__(self, render: Render, memory_md: Path) -> None:
        self.render = render
        self.memory_md = memory_md
        self._prompt = ""
        self._memory_seen: tuple[int, int] | None = None
        self._session: str | None = None
        self._stamped = datetime.now().astimezone()
        self.rebuilds = 0

    def current(self) -> str:
        """The prompt as the next model call will get it (built on first use)."""
        if not self._prompt:
            self._rebuild()
        return self._prompt

    def refresh(self, session_id: str) -> bool:
        """Rebuild if MEMORY.md changed or `session_id` is a new conversation; True if rebuilt."""
        signature = _signature(self.memory_md)
        new_conversation = session_id != self._session
        if self._prompt and signature == self._memory_seen and not new_conversation:
            return False
        if new_conversation:
            self._session = session_id
            self._stamped = datetime.now().astimezone()
        self._rebuild(signature)
        return True

    def _rebuild(self, signature: tuple[int, int] | None = None) -> None:
        self._memory_seen = signature if signature is not None else _signature(self.memory_md)
        self._prompt = self.render(self._stamped)
        self.rebuilds += 1
        log.debug("system prompt rebuilt (%d)", self.rebuilds)

    async def reply_started(self, loop: LoopState) -> None:
        """At the start of each reply: pick up a changed MEMORY.md or a new conversation."""
        self.refresh(loop.session_id)

    async def system_prompt(self, loop: LoopState, prompt: str) -> str:
        """The prompt every model call of this reply gets."""
        return self.current()
