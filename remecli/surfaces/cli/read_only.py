"""A working dir remecli cannot write (a read-only mount, a folder of another user, a full
disk's neighbour): `remecli search` still answers — from a temporary copy of the index, the
Markdown read where it is — and `remecli reindex` says what to do. Nothing is written there."""

from __future__ import annotations

import asyncio
import logging
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path

from remecli.config.disk_full import disk_full_text, no_space_left
from remecli.config.locations import Locations
from remecli.config.settings import Settings
from remecli.conversation.file_memory import FileMemory
from remecli.ops.runner import JobRunner
from remecli.ops.search_jobs import memory_search
from remecli.search.hits import SearchHit
from remecli.search.request import SearchRequest

log = logging.getLogger(__name__)


def unwritable(root: Path) -> str:
    """Why the existing working dir `root` cannot be written ("" when it can, or when it does
    not exist yet: creating it is the normal start's business)."""
    if not root.is_dir():
        return ""
    from remecli.config.logs import probe_write

    try:
        probe_write(root)
    except OSError as exc:
        return exc.strerror or type(exc).__name__
    return ""


def read_only_note(root: Path, reason: str) -> str:
    """What `remecli search` tells the user before searching a read-only memory."""
    return (
        f"note: {root} cannot be written ({reason}): searching a temporary copy of its index; "
        "nothing is written there"
    )


def reindex_refused(root: Path, reason: str) -> str:
    """What `remecli reindex` says for a working dir it cannot write (and what to do)."""
    if no_space_left(root):
        return (
            f"remecli: cannot reindex {root}: {disk_full_text(root)}; the index is left as it "
            "is: free some space, then reindex"
        )
    return (
        f"remecli: cannot reindex {root}: it cannot be written ({reason}); the index lives in "
        f"{Locations(root).index_dir}. Make the folder writable, or copy it and pass "
        "working_dir=COPY; `remecli search` works on it as it is"
    )


def change_refused(root: Path, reason: str) -> str:
    """What a command that changes memory (`dream`, `ingest`, a writing `job`) says for a
    working dir it cannot write: nothing was changed, and how to run it again."""
    if no_space_left(root):
        return (
            f"cannot change {root}: {disk_full_text(root)}; nothing was changed: free some "
            "space, then run the command again"
        )
    return (
        f"cannot change {root}: it cannot be written ({reason}); nothing was changed: make the "
        "folder writable, then run the command again (`remecli search` works on it as it is)"
    )


@contextmanager
def temporary_index(index_dir: Path) -> Iterator[Path]:
    """A private temporary folder holding a copy of `index_dir` (empty when it cannot be
    copied: the index is then built there from the files); removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="remecli-search-") as temp:
        target = Path(temp) / "index"
        try:
            if index_dir.is_dir():
                shutil.copytree(index_dir, target, ignore=shutil.ignore_patterns("locks", "*.lock"))
                _make_writable(target)  # a `chmod -R a-w` memory: its copy is ours to write
        except (OSError, shutil.Error):
            log.warning("could not copy %s; building a temporary index", index_dir, exc_info=True)
            shutil.rmtree(target, ignore_errors=True)
        target.mkdir(mode=0o700, exist_ok=True)
        yield target


def _make_writable(folder: Path) -> None:
    """Folders 0700 and files 0600 under `folder` (the copy keeps the original's modes)."""
    folder.chmod(0o700)
    for path in folder.rglob("*"):
        path.chmod(0o700 if path.is_dir() else 0o600)


def _quiet_logging() -> None:
    """No log file (the working dir cannot take one) and nothing over the answer."""
    root = logging.getLogger()
    for handler in list(root.handlers):
        root.removeHandler(handler)
    root.addHandler(logging.NullHandler())


async def search_read_only(settings: Settings, request: SearchRequest) -> list[SearchHit]:
    """The hits of memory_search over a working dir that cannot be written: the index is a
    temporary copy brought up to date with the files, the link graph is kept in memory."""
    from remecli.notes.links import LinkGraph
    from remecli.search import MemoryIndex

    _quiet_logging()
    settings = settings.with_changes({"memory.dream.auto": False})
    memory = FileMemory(settings.working_dir, settings=settings)  # never started: writes nothing
    root = memory.layout.root
    with temporary_index(Locations(root).index_dir) as folder:
        index = await asyncio.to_thread(
            partial(MemoryIndex.open, embed_on_demand=True, folder=folder),
            root,
            settings.search,
        )
        try:
            await index.sync()
            memory.links = await asyncio.to_thread(partial(LinkGraph.open, persist=False), root)
            memory.index = index
            memory.index_ready.set()
            found = await JobRunner(memory).call(memory_search, request)
        finally:
            await asyncio.to_thread(index.close)
    return found.results
