"""Change notifications for the notes as MCP resources: a note written by any process reaches
the MCP clients that subscribed to it.

The notes folder is watched (the search package's debounced watcher) from the first
subscription on. A changed note publishes `ResourceUpdated(remecli://notes/<path>)`; a note that
appears or disappears also publishes `ResourcesListChanged`. Two protocol eras are served:

- 2026-07-28 clients open `subscriptions/listen` (the SDK's `ListenHandler`) and get the events
  through this bus, filtered by what each stream asked for;
- earlier clients send `resources/subscribe` / `resources/unsubscribe`; each such session is
  sent `notifications/resources/updated` for the URIs it subscribed to and
  `notifications/resources/list_changed` when the list changes.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from pathlib import Path

from mcp.server.session import ServerSession
from mcp.server.subscriptions import (
    InMemorySubscriptionBus,
    ResourcesListChanged,
    ResourceUpdated,
    ServerEvent,
)

from remecli.surfaces.notes_resources import note_uri

log = logging.getLogger(__name__)
DEBOUNCE_MS = 100


class NoteChanges(InMemorySubscriptionBus):
    """The server's subscription bus, fed by a watcher of the notes under `root`."""

    def __init__(self, root: Path, is_note: Callable[[str], bool]) -> None:
        super().__init__()
        self.root = root
        self.is_note = is_note
        self.known: set[str] = set()
        self.sessions: dict[ServerSession, set[str]] = {}  # legacy subscribers: session → URIs
        self._task: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()

    # -- the watcher ---------------------------------------------------------------------------

    def start(self) -> None:
        """Watch the notes (once, on the running loop); called at the first subscription."""
        if self._task is not None:
            return
        from remecli.search.watcher import watch_and_sync

        self.known = self._scan()
        self._task = asyncio.get_running_loop().create_task(
            watch_and_sync(self.root, self.is_note, self.changed, self._stop, DEBOUNCE_MS)
        )

    async def stop(self) -> None:
        """Stop watching."""
        self._stop.set()
        if self._task is not None:
            with contextlib.suppress(asyncio.CancelledError, TimeoutError):
                await asyncio.wait_for(self._task, timeout=5)

    def _scan(self) -> set[str]:
        if not self.root.is_dir():
            return set()
        found = set()
        for path in self.root.rglob("*.md"):
            rel = path.relative_to(self.root).as_posix()
            if self.is_note(rel):
                found.add(rel)
        return found

    async def changed(self, paths: set[str]) -> None:
        """Publish what a burst of file changes means for the subscribers."""
        listed = False
        uris = []
        for rel in sorted(p for p in paths if p):
            exists = (self.root / rel).is_file()
            if exists != (rel in self.known):
                listed = True
                (self.known.add if exists else self.known.discard)(rel)
            uris.append(note_uri(rel))
        for uri in uris:
            await self.publish(ResourceUpdated(uri=uri))
        if listed:
            await self.publish(ResourcesListChanged())

    # -- both eras -----------------------------------------------------------------------------

    def subscribe(self, listener: Callable[[ServerEvent], None]) -> Callable[[], None]:
        """A `subscriptions/listen` stream opened: watch from now on."""
        self.start()
        return super().subscribe(listener)

    async def publish(self, event: ServerEvent) -> None:
        await super().publish(event)
        for session, uris in list(self.sessions.items()):
            try:
                if isinstance(event, ResourceUpdated) and event.uri in uris:
                    await session.send_resource_updated(event.uri)
                elif isinstance(event, ResourcesListChanged):
                    await session.send_resource_list_changed()
            except Exception:  # the client went away: forget it
                log.debug("dropping a resource subscriber", exc_info=True)
                self.sessions.pop(session, None)

    def add_legacy(self, session: ServerSession, uri: str) -> None:
        """`resources/subscribe` from a pre-2026 session."""
        self.start()
        self.sessions.setdefault(session, set()).add(uri)

    def remove_legacy(self, session: ServerSession, uri: str) -> None:
        """`resources/unsubscribe`."""
        uris = self.sessions.get(session)
        if uris is not None:
            uris.discard(uri)
