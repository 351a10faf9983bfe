"""What a runtime is for (`Mode`) and what its start opens (`StartPlan`).

The modes, from the places that build a runtime:

- CHAT: the assistant's conversation (TUI, plain REPL; `-p` too, see `StartPlan.of`): a
  front-end shows summary outcomes as they come; the start recovers a crashed run, retries
  pending summaries, may start Auto Dream, opens the index without waiting and watches edits.
- SERVE: `remecli serve`/`mcp`/Studio and in-process job runners: background work and watchers
  (a read-only server starts with `background=False, watch=True`: no writer runs).
- JOB: one CLI command (`remecli job …`, `search`, `dream` …): no Auto Dream after a summary it
  writes; the start opens the layout and the index only.
- CONVERSATION: a conversation alone (the middleware without an assistant): no search index;
  never started as a whole.
- VECTOR: the vector memory alone (`remecli memories …`): never started, its store closed after.
- LIBRARY: the seed's `FileMemory` API: the caller chooses what `start` opens.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from remecli.config.settings import Settings


class Mode(enum.Enum):
    """What a runtime is built for (see the module's docstring)."""

    CHAT = "chat"
    SERVE = "serve"
    JOB = "job"
    CONVERSATION = "conversation"
    VECTOR = "vector"
    LIBRARY = "library"

    @property
    def search(self) -> bool:
        """Whether a runtime of this mode has a search index (a caller may turn it off)."""
        return self not in (Mode.CONVERSATION, Mode.VECTOR)

    @property
    def live(self) -> bool:
        """Whether a front-end shows summary outcomes as they come (else: in close's lines)."""
        return self is Mode.CHAT

    def settings_for(self, settings: Settings) -> Settings:
        """The settings a runtime of this mode runs with: a one-shot command starts no Auto
        Dream after a summary it writes (`memory_dream` still dreams when asked)."""
        if self is Mode.JOB:
            return settings.with_changes({"memory.dream.auto": False})
        return settings


@dataclass(frozen=True)
class StartPlan:
    """What `Runtime.start` opens: `recover` a crashed run's turns, `retry` pending summaries
    and Auto Dream, `watch_index` edits on disk, `watch_resources` (resource/ into cards),
    and whether to `wait_for_index`."""

    wait_for_index: bool = True
    recover: bool = False
    retry: bool = True
    watch_index: bool = True
    watch_resources: bool = True

    @classmethod
    def of(
        cls,
        settings: Settings,
        *,
        wait_for_index: bool = True,
        recover: bool = False,
        background: bool = True,
        watch: bool | None = None,
    ) -> StartPlan:
        """The plan of the seed's start flags: `background` (a server) retries and watches,
        `watch` None follows `background`; a one-shot answer (`-p`) leaves earlier runs'
        pending and crashed work to the next session."""
        one_shot = settings.prompt is not None
        return cls(
            wait_for_index=wait_for_index,
            recover=recover and not one_shot,
            retry=background and not one_shot,
            watch_index=background if watch is None else watch,
            watch_resources=background,
        )
