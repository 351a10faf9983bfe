"""`MemoryHost`: what the operations may use of the memory runtime, typed (FileMemory
satisfies it).

The operations (and the agent's memory tools bound to a `JobContext`) act on one runtime per
process; this protocol names exactly the parts they touch, so mypy checks every job against it
and every composition root that hands a runtime to a `JobRunner` or `JobContext`.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from remecli.config.settings import Settings
    from remecli.conversation.vector_memory import VectorMemory
    from remecli.knowledge.background.tasks import SummaryTasks
    from remecli.knowledge.dream.runner import DreamResult
    from remecli.knowledge.resources.cards import ResourceCards
    from remecli.notes.layout import WorkingDir
    from remecli.notes.links import LinkGraph
    from remecli.notes.writer import MemoryWriter
    from remecli.search import MemoryIndex
    from remecli.search.hits import SearchHit
    from remecli.search.request import SearchRequest

Progress = Callable[[str, int, int], None]  # (stage, done, total) of an index sync


class MemoryHost(Protocol):
    """The memory runtime as the operations see it."""

    @property
    def settings(self) -> Settings:
        """The runtime's settings (frozen; a change is a new copy)."""

    @property
    def layout(self) -> WorkingDir:
        """Where every file of the working dir lives."""

    @property
    def writer(self) -> MemoryWriter:
        """The one memory writer (atomic, versioned, redacted), built by the composition root."""

    @property
    def search_enabled(self) -> bool:
        """False when the runtime was made without a search index."""

    @property
    def index(self) -> MemoryIndex | None:
        """The open search index (None: off, still opening, or failed)."""

    @property
    def index_failure(self) -> Exception | None:
        """Why the search index did not open (None: it opened, or is still opening)."""

    @property
    def index_ready(self) -> asyncio.Event:
        """Set once the search index is open."""

    @property
    def links(self) -> LinkGraph | None:
        """The derived wikilink graph, open with the index (None otherwise)."""

    @property
    def tasks(self) -> SummaryTasks:
        """The background summarizer (recorded on disk before it runs)."""

    @property
    def resources(self) -> ResourceCards:
        """Auto Resource: files under resource/ and their cards."""

    @property
    def vector(self) -> VectorMemory:
        """Vector memory (the seed's ReMe), on with `memory.vector.enabled`."""

    async def search_memory(self, request: SearchRequest, *, links: bool = True) -> list[SearchHit]:
        """Hits of one resolved request, best first (each with its note's links)."""

    async def wait_for_index(self) -> MemoryIndex | None:
        """The index once open (None: search off or the index failed)."""

    async def retrieve_vector_memory(self, query: str, top_k: int = 5) -> list[dict[str, Any]]:
        """Vector memories relevant to `query` (the agent's retrieve_memory tool)."""

    async def dream(self, date: dt.date | None = None) -> DreamResult:
        """Consolidate new and changed cards into the digest now."""

    async def start(
        self,
        *,
        wait_for_index: bool = True,
        recover: bool = False,
        background: bool = True,
        watch: bool | None = None,
        progress: Progress | None = None,
    ) -> None:
        """Open the runtime (`background=False`: only the layout and the index; `watch` None:
        follow edits on disk only with `background`)."""

    async def close(self, *, wait: bool = True, timeout: float | None = None) -> list[str]:
        """Finish (or record) pending work and stop the index; one line per summary task."""
